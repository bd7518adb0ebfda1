// SPDX-License-Identifier: Apache-2.0

package qdisc

// drr (net/sched/sch_drr.c): deficit round robin among classes. The qdisc
// takes no options; a class takes its quantum, and dumps its deficit as
// statistics (struct tc_drr_stats).
//
// Behaviour mirrored from iproute2 7.x (tc/q_drr.c): quantum is read with
// get_size; a class command always sends the TCA_OPTIONS nest, without
// NLA_F_NESTED, even when empty (the kernel then uses the device's MTU).
// tc prints quantum and deficit as sizes in text only, never in JSON.

import (
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// drrUsage and drrClassUsage are tc's explain() and explain2() of drr.
const (
	drrUsage      = "Usage: ... drr"
	drrClassUsage = "Usage: ... drr quantum SIZE"
)

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:              "drr",
			Usage:             drrUsage,
			ParseQdisc:        parseDRR,
			ParseClass:        parseDRRClass,
			PrintOptions:      printDRROptions,
			PrintClassOptions: printDRROptions,
			PrintClassXstats: func(p *tcfmt.Printer, x tckind.Xstats) {
				if s := drrStatsOf(x); s != nil {
					p.Size(tcfmt.FP, "", " deficit %s ", uint64(s.Deficit))
				}
			},
			Stats:         drrStatsTable,
			Keywords:      tckind.NoOptions("drr"),
			ClassKeywords: tckind.KeywordsOf("drr class", drrClassKeywords),
		})
	}, "drr")
}

// parseDRR accepts what tc's drr_parse_opt does: nothing.
func parseDRR(args []string, _ tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
	if len(args) == 0 {
		return nil, nil
	}
	if args[0] == "help" {
		return nil, &tcword.ParseError{ShowUsage: true}
	}
	return nil, tcword.UsageErrorf("What is \"%s\"?", args[0])
}

// parseDRRClass turns the words after "drr" in a class command into the
// class's options; the last quantum given wins. The class usage is not the
// kind's, so it goes into the message.
func parseDRRClass(args []string, _ tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
	o := &attrs.DRRAttrs{}
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "quantum":
			if i+1 >= len(args) {
				return nil, tcword.IncompleteCommand()
			}
			i++
			n, err := tcfmt.ParseSize(args[i])
			if err != nil {
				return nil, tcword.Errorf(`Illegal "quantum"`)
			}
			o.Quantum = &n
		case "help":
			return nil, tcword.Errorf("%s", drrClassUsage)
		default:
			return nil, tcword.Errorf("What is \"%s\"?\n%s", args[i], drrClassUsage)
		}
	}
	return o, nil
}

// printDRROptions prints a drr class's quantum ("quantum 1514b ") in text.
func printDRROptions(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
	if o, ok := opts.(*attrs.DRRAttrs); ok && o.Quantum != nil {
		p.Size(tcfmt.FP, "", "quantum %s ", uint64(*o.Quantum))
	}
}

// drrClassKeywords writes a class's quantum, in bytes; the kernel always
// dumps it (the device's MTU when none was given).
func drrClassKeywords(o *attrs.DRRAttrs) ([]string, error) {
	if o.Quantum == nil {
		return nil, nil
	}
	return []string{"quantum", tcword.UintWord(*o.Quantum)}, nil
}

// drrStatsOf returns a class's struct tc_drr_stats from TCA_STATS_APP, or
// else TCA_XSTATS; nil for a payload too short for it (which stays raw),
// of which tc prints nothing.
func drrStatsOf(x tckind.Xstats) *attrs.TCDRRStats {
	s, ok := x.App.(*attrs.TCDRRStats)
	if x.App == nil {
		s, ok = x.Legacy.(*attrs.TCDRRStats)
	}
	if !ok {
		return nil
	}
	return s
}

// drrStatsTable lists a class's statistics (the qdisc has none of its own).
var drrStatsTable = &tckind.StatsTable{
	Of: func(x tckind.Xstats) any {
		if s := drrStatsOf(x); s != nil {
			return s
		}
		return nil
	},
	Fields: tcDRRStatsFields,
}
