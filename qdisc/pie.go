// SPDX-License-Identifier: Apache-2.0

package qdisc

// pie (net/sched/sch_pie.c): tc's keywords to netlink attributes, and the
// kernel's attributes and xstats back to tc's text and JSON. fq_pie's
// parser and printer share the PIE part (pieWords, pieParams, in piewords.go).
//
// Behaviour mirrored from iproute2 7.x (tc/q_pie.c, tc/q_fq_pie.c):
//
//   - Keywords are matched exactly; the last of a repeated keyword wins.
//   - tc treats 0 as "not given" for limit, target, tupdate, alpha and
//     beta, so a typed 0 is not sent; alpha and beta above 32 are refused.
//   - ecn, bytemode and dq_rate_estimator are sent (as 1 or 0) only when
//     named, and printed only when on.
//   - pie's nest goes without NLA_F_NESTED; the kernel dumps every option.

import (
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// pieUsage is tc's explain() of pie.
const pieUsage = "Usage: ... pie [ limit PACKETS ] [ target TIME ]\n" +
	"               [ tupdate TIME ] [ alpha ALPHA ] [ beta BETA ]\n" +
	"               [ bytemode | nobytemode ] [ ecn | noecn ]\n" +
	"               [ dq_rate_estimator | no_dq_rate_estimator ]"

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:  "pie",
			Usage: pieUsage,
			ParseQdisc: func(args []string, _ tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
				o, err := parsePIE(args)
				if err != nil {
					return nil, err
				}
				return o, nil
			},
			PrintOptions: func(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
				if o, ok := opts.(*attrs.PIEAttrs); ok {
					printPIEOptions(p, o)
				}
			},
			PrintXstats: func(p *tcfmt.Printer, x tckind.Xstats) {
				printPIEXstats(p, pieStatsOf(x))
			},
			// pie_change refuses nothing the policy (every attribute a u32)
			// lets through.
			ChangeAccepted: func(opts attrs.TCOptionsMsg, _ string) bool {
				o, ok := opts.(*attrs.PIEAttrs)
				return ok && len(o.Unknown) == 0
			},
			Stats:     pieStatsTable,
			Dumped:    func(o attrs.TCOptionsMsg) attrs.TCOptionsMsg { return pieKept(o, true) },
			Restoring: func(o attrs.TCOptionsMsg) attrs.TCOptionsMsg { return pieKept(o, false) },
			Keywords:  tckind.KeywordsOf("pie", pieKeywords),
			// pie_change keeps what a request omits.
			KeptOnChange: tckind.KeptDefaults("pie", pieKeywords, attrs.PIEAttrs{
				Limit: new(uint32(1000)), Target: new(uint32(15000)), Tupdate: new(uint32(15000)), Alpha: new(uint32(2)),
				Beta: new(uint32(20)), ECN: new(uint32(0)), Bytemode: new(uint32(0)), DQRateEstimator: new(uint32(0)),
			}),
		})
	}, "pie")
}

// pieKeywords writes pie's options back.
func pieKeywords(o *attrs.PIEAttrs) ([]string, error) {
	v := pieParams{Limit: o.Limit, Target: o.Target, Tupdate: o.Tupdate, Alpha: o.Alpha,
		Beta: o.Beta, ECN: o.ECN, Bytemode: o.Bytemode, DQRateEstimator: o.DQRateEstimator}
	return v.keywords(), nil
}

// parsePIE turns the words after "pie" into the qdisc's options as tc 7.x
// does. Only what the user named is set, so that "change" keeps the rest;
// the result is never nil on success (tc always sends the nest). Errors
// are *ParseError: exit 1, with the usage after an unknown keyword and for
// "help"; a keyword missing its value exits 255.
func parsePIE(args []string) (*attrs.PIEAttrs, error) {
	w := newPIEWords()
	if err := tcword.ParseWords(args, w.word); err != nil {
		return nil, err
	}
	p := w.params()
	return &attrs.PIEAttrs{Limit: p.Limit, Target: p.Target, Tupdate: p.Tupdate, Alpha: p.Alpha,
		Beta: p.Beta, ECN: p.ECN, Bytemode: p.Bytemode, DQRateEstimator: p.DQRateEstimator}, nil
}

// printPIEOptions prints a pie qdisc's options as tc does; the kernel's
// defaults read:
//
//	limit 1000p target 15ms tupdate 15ms alpha 2 beta 20
//
// Times are raw microseconds in JSON.
func printPIEOptions(p *tcfmt.Printer, o *attrs.PIEAttrs) {
	if o == nil {
		return
	}
	v := pieParams{Limit: o.Limit, Target: o.Target, Tupdate: o.Tupdate, Alpha: o.Alpha,
		Beta: o.Beta, ECN: o.ECN, Bytemode: o.Bytemode, DQRateEstimator: o.DQRateEstimator}
	if v.Limit != nil {
		p.Uint(tcfmt.Any, "limit", "limit %up ", uint64(*v.Limit))
	}
	v.printControl(p)
	v.printSwitches(p)
}

// pieTexts are the formats of tc's -s text (a leading blank included) of
// pie's statistics by JSON key; the statistics, in tc's order, are
// tcPIEXstatsFields (from the spec): prob, delay and avg_dq_rate (only
// while the estimator is on) on the first line, the counters on the second
// (from pkts_in).
var pieTexts = map[string]string{
	"prob":        "  prob %lg",
	"delay":       " delay %s",
	"avg_dq_rate": " avg_dq_rate %u",
	"pkts_in":     "  pkts_in %u",
	"overlimit":   " overlimit %u",
	"dropped":     " dropped %u",
	"maxq":        " maxq %u",
	"ecn_mark":    " ecn_mark %u",
}

// pieStatsTable is pie's statistics for the registry's consumers.
var pieStatsTable = &tckind.StatsTable{
	Of: func(x tckind.Xstats) any {
		if s := pieStatsOf(x); s != nil {
			return s
		}
		return nil
	},
	Fields: tcPIEXstatsFields,
}

// pieStatsOf returns pie's xstats; nil when there are none or they are
// shorter than the struct, which tc does not print.
func pieStatsOf(x tckind.Xstats) *attrs.TCPIEXstats {
	return tckind.WholeXstats[attrs.TCPIEXstats](x)
}

// printPIEXstats prints pie's xstats (-s) as tc does:
//
//	prob 0 delay 0us
//	pkts_in 0 overlimit 0 dropped 0 maxq 0 ecn_mark 0
//
// with " avg_dq_rate N" after the delay while the dequeue rate estimator
// is on. prob is the fraction of 2^64 ("%lg"; a number in JSON), the delay
// raw microseconds in JSON.
func printPIEXstats(p *tcfmt.Printer, x *attrs.TCPIEXstats) {
	if x == nil {
		return
	}
	for i := range tcPIEXstatsFields {
		f := &tcPIEXstatsFields[i]
		v, ok := f.Get(x)
		if !ok {
			continue
		}
		key, format := tcfmt.Name(f.Key), pieTexts[f.Key]
		switch f.Unit {
		case tckind.UnitProbability64:
			p.Float(tcfmt.Any, key, format, f.Value(v))
		case tckind.UnitMicroseconds:
			p.Time(tcfmt.Any, key, format, uint32(v))
		default:
			if f.Key == "pkts_in" {
				p.NL()
			}
			p.Uint(tcfmt.Any, key, format, v)
		}
	}
}

// pieKept is pie's Dumped (dumped true) and Restoring: its target and
// tupdate as the kernel keeps them (pieTimes).
func pieKept(opts attrs.TCOptionsMsg, dumped bool) attrs.TCOptionsMsg {
	o, ok := opts.(*attrs.PIEAttrs)
	if !ok || o == nil {
		return opts
	}
	c := *o
	pieTimes(&c.Target, &c.Tupdate, dumped)
	return &c
}
