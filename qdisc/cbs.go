// SPDX-License-Identifier: Apache-2.0

package qdisc

// cbs (net/sched/sch_cbs.c): the credit-based shaper of IEEE 802.1Q, as
// iproute2 7.x's tc/q_cbs.c sets and prints it.
//
// tc sends struct tc_cbs_qopt in TCA_CBS_PARMS with what was given, zero
// for the rest. Keywords are matched by prefix; a keyword given twice is
// refused only when its first value was not 0.

import (
	"strconv"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// cbsUsage is tc's explain() for cbs.
const cbsUsage = "Usage: ... cbs hicredit BYTES locredit BYTES sendslope BPS idleslope BPS\n" +
	"	   [offload 0|1]"

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:         "cbs",
			MakesClasses: true,
			Usage:        cbsUsage,
			ParseQdisc: func(args []string, _ tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
				return parseCBS(args)
			},
			PrintOptions: func(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
				if o, ok := opts.(*attrs.CBSAttrs); ok && o.Parms != nil {
					printCBS(p, o.Parms)
				}
			},
			Keywords: tckind.KeywordsOf("cbs", cbsKeywords),
		})
	}, "cbs")
}

// parseCBS reads cbs's keywords into the options tc sends.
func parseCBS(args []string) (*attrs.CBSAttrs, error) {
	var o attrs.TCCBSQopt
	// tc's order of tests, which decides what a prefix means.
	credits := []struct {
		keyword string
		field   *int32
	}{{"hicredit", &o.Hicredit}, {"locredit", &o.Locredit}, {"sendslope", &o.Sendslope}, {"idleslope", &o.Idleslope}}
	for i := 0; i < len(args); i++ {
		w := args[i]
		if w == "help" {
			return nil, &tcword.ParseError{ShowUsage: true}
		}
		keyword, field := "", (*int32)(nil)
		if tcfmt.Matches(w, "offload") {
			keyword = "offload"
		} else {
			for _, c := range credits {
				if tcfmt.Matches(w, c.keyword) {
					keyword, field = c.keyword, c.field
					break
				}
			}
		}
		if keyword == "" {
			return nil, tcword.UsageErrorf("cbs: unknown parameter \"%s\"", w)
		}
		if i+1 >= len(args) {
			return nil, tcword.IncompleteCommand()
		}
		i++
		if field == nil {
			if o.Offload != 0 {
				return nil, tcword.Errorf(`cbs: duplicate "offload" specification`)
			}
			v, err := tcfmt.ParseUint(args[i], 0, 8)
			if err != nil {
				return nil, tcword.Errorf("cbs: illegal value for \"offload\": \"%s\"", args[i])
			}
			o.Offload = uint8(v)
			continue
		}
		if *field != 0 {
			return nil, tcword.Errorf("cbs: duplicate %q specification", keyword)
		}
		v, err := tcfmt.ParseInt(args[i], 0, 32)
		if err != nil {
			return nil, tcword.Errorf("cbs: illegal value for \"%s\": \"%s\"", keyword, args[i])
		}
		*field = int32(v)
	}
	return &attrs.CBSAttrs{Parms: &o}, nil
}

// printCBS prints cbs's options as tc does:
//
//	hicredit 30 locredit -1470 sendslope -980000 idleslope 20000 offload 0
func printCBS(p *tcfmt.Printer, o *attrs.TCCBSQopt) {
	const both = tcfmt.Any
	p.Int(both, "hicredit", "hicredit %d ", int64(o.Hicredit))
	p.Int(both, "locredit", "locredit %d ", int64(o.Locredit))
	p.Int(both, "sendslope", "sendslope %d ", int64(o.Sendslope))
	p.Int(both, "idleslope", "idleslope %d ", int64(o.Idleslope))
	p.Int(both, "offload", "offload %d ", int64(o.Offload))
}

// cbsKeywords writes cbs's parameters back, those that are not 0: tc sends
// 0 for a keyword not given.
func cbsKeywords(o *attrs.CBSAttrs) ([]string, error) {
	p := o.Parms
	if p == nil {
		return nil, nil
	}
	var w []string
	for _, c := range []struct {
		name string
		v    int32
	}{{"hicredit", p.Hicredit}, {"locredit", p.Locredit}, {"sendslope", p.Sendslope}, {"idleslope", p.Idleslope}, {"offload", int32(p.Offload)}} {
		if c.v != 0 {
			w = append(w, c.name, strconv.FormatInt(int64(c.v), 10))
		}
	}
	return w, nil
}
