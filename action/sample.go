// SPDX-License-Identifier: Apache-2.0

package action

// The sample action (net/sched/act_sample.c): one packet in RATE is handed,
// truncated to SIZE if asked, to the psample group GROUP, as tc 7.3's
// m_sample.c reads and prints it.

import (
	"fmt"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

const sampleUsage = `Usage: sample SAMPLE_CONF
where:
	SAMPLE_CONF := SAMPLE_PARAMS | SAMPLE_INDEX
	SAMPLE_PARAMS := rate RATE group GROUP [trunc SIZE] [SAMPLE_INDEX]
	SAMPLE_INDEX := index INDEX
	RATE := The ratio of packets observed at the data source to the samples generated.
	GROUP := the psample sampling group
	SIZE := the truncation size
	INDEX := integer index of the sample action`

func init() {
	tckind.LazilyActions(func() {
		tckind.MustRegisterAction(&tckind.Action{
			Name:       "sample",
			Usage:      sampleUsage,
			Parse:      parseSample,
			Print:      printSample,
			Keywords:   sampleKeywords,
			PrintStats: printSampleStats,
		})
	}, "sample")
}

// sampleUsageError is m_sample.c's usage(): msg (if any), the usage text,
// exit status 255.
func sampleUsageError(msg string) *tcword.ParseError {
	return &tcword.ParseError{Msg: msg + sampleUsage, Code: 255}
}

// parseSample is m_sample.c's parse_sample: "sample", then rate, group and
// trunc in any order, a verdict (pipe by default) and an index. Without an
// index, rate and group are both needed.
func parseSample(args []string, _ tckind.ActionEnv) (attrs.ActOptionsMsg, []string, error) {
	if len(args) <= 1 {
		return nil, args, &tcword.ParseError{Msg: `Error: argument "sample count" is required`, Code: 255}
	}
	p := &attrs.TCSample{}
	o := &attrs.ActSampleAttrs{Parms: p}
	args = args[1:]
	// Each value is a decimal u32; illegal tells what tc calls it.
	fields := []struct {
		name, illegal string
		dst           **uint32
	}{
		{"rate", "Illegal rate %s\n", &o.Rate},
		{"group", "Illegal group num %s\n", &o.PsampleGroup},
		{"trunc", "Illegal truncation size %s\n", &o.TruncSize},
	}
loop:
	for len(args) > 0 {
		w := args[0]
		if tcfmt.Matches(w, "help") {
			return nil, args, sampleUsageError("")
		}
		for _, f := range fields {
			if !tcfmt.Matches(w, f.name) {
				continue
			}
			if len(args) < 2 {
				return nil, args, tcword.IncompleteCommand()
			}
			v, err := tcfmt.ParseUint(args[1], 10, 32)
			if err != nil {
				return nil, args, sampleUsageError(fmt.Sprintf(f.illegal, args[1]))
			}
			u := uint32(v)
			*f.dst = &u
			args = args[2:]
			continue loop
		}
		break
	}
	code, args, err := parseActionControlDefault(args, actPipe, nil)
	if err != nil {
		return nil, args, err
	}
	p.Action = code
	index, found, rest, err := parseActionIndex(args, 10, `sample: Illegal "index"`)
	if err != nil {
		return nil, args, err
	}
	if found {
		p.Index, args = index, rest
	}
	if p.Index == 0 && o.PsampleGroup == nil {
		return nil, args, sampleUsageError("param \"group\" not set\n")
	}
	if p.Index == 0 && o.Rate == nil {
		return nil, args, sampleUsageError("param \"rate\" not set\n")
	}
	return o, args, nil
}

// printSample is m_sample.c's print_sample up to its last line's end.
func printSample(p *tcfmt.Printer, opts attrs.ActOptionsMsg, _ tckind.Links) {
	p.String(tcfmt.Any, "kind", "%s ", "sample")
	o, ok := opts.(*attrs.ActSampleAttrs)
	if !ok || o.Parms == nil || o.Rate == nil || o.PsampleGroup == nil {
		return
	}
	p.Uint(tcfmt.Any, "rate", "rate 1/%u ", uint64(*o.Rate))
	p.Uint(tcfmt.Any, "group", "group %u", uint64(*o.PsampleGroup))
	if o.TruncSize != nil {
		p.Uint(tcfmt.Any, "trunc_size", " trunc_size %u", uint64(*o.TruncSize))
	}
	printActionControl(p, " ", o.Parms.Action, "")
	p.NL()
	p.Uint(tcfmt.Any, "index", "\t index %u", uint64(o.Parms.Index))
	p.Int(tcfmt.Any, "ref", " ref %d", int64(o.Parms.Refcnt))
	p.Int(tcfmt.Any, "bind", " bind %d", int64(o.Parms.Bindcnt))
}

func printSampleStats(p *tcfmt.Printer, opts attrs.ActOptionsMsg) {
	if o, ok := opts.(*attrs.ActSampleAttrs); ok && o.Parms != nil && o.Rate != nil && o.PsampleGroup != nil && o.Tm != nil {
		printTm(p, o.Tm)
	}
}

// sampleKeywords is Action.Keywords for sample.
func sampleKeywords(opts attrs.ActOptionsMsg, _ tckind.Links) ([]string, error) {
	o, _ := opts.(*attrs.ActSampleAttrs)
	if o == nil || o.Parms == nil {
		return nil, tckind.NoKeywords("sample without parameters")
	}
	var w []string
	for _, f := range []struct {
		name string
		v    *uint32
	}{{"rate", o.Rate}, {"group", o.PsampleGroup}, {"trunc", o.TruncSize}} {
		if f.v != nil {
			w = append(w, f.name, tcword.UintWord(*f.v))
		}
	}
	return controlWords(w, o.Parms.Action, actPipe)
}
