// SPDX-License-Identifier: Apache-2.0

package qdisc

// fq_pie (net/sched/sch_fq_pie.c): pie's keywords (pieWords) and a flow
// table's, to netlink attributes, and back to tc's text and JSON.
//
// Behaviour mirrored from iproute2 7.x (tc/q_fq_pie.c): as pie's, plus
// flows, ecn_prob (a percentage below 100), quantum and memory_limit (sizes),
// each sent only when not 0. The nest carries NLA_F_NESTED, and the kernel
// parses it strictly.

import (
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// fqPIEUsage is tc's explain() of fq_pie.
const fqPIEUsage = "Usage: ... fq_pie [ limit PACKETS ] [ flows NUMBER ]\n" +
	"                  [ target TIME ] [ tupdate TIME ]\n" +
	"                  [ alpha NUMBER ] [ beta NUMBER ]\n" +
	"                  [ quantum BYTES ] [ memory_limit BYTES ]\n" +
	"                  [ ecn_prob PERCENTAGE ] [ [no]ecn ]\n" +
	"                  [ [no]bytemode ] [ [no_]dq_rate_estimator ]"

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:  "fq_pie",
			Usage: fqPIEUsage,
			ParseQdisc: func(args []string, _ tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
				o, err := parseFQPIE(args)
				if err != nil {
					return nil, err
				}
				return o, nil
			},
			PrintOptions: func(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
				if o, ok := opts.(*attrs.FQPIEAttrs); ok {
					printFQPIEOptions(p, o)
				}
			},
			PrintXstats: func(p *tcfmt.Printer, x tckind.Xstats) {
				printFQPIEXstats(p, fqPIEStatsOf(x))
			},
			ChangeAccepted: fqPIEChangeAccepted,
			Stats:          fqPIEStatsTable,
			Keywords:       tckind.KeywordsOf("fq_pie", fqPIEKeywords),
			// fq_pie_change keeps what a request omits. Not the flows,
			// which it refuses to change, nor the quantum, whose default
			// is the device's MTU.
			KeptOnChange: tckind.KeptDefaults("fq_pie", fqPIEKeywords, attrs.FQPIEAttrs{
				Limit: new(uint32(10240)), Target: new(uint32(15000)), Tupdate: new(uint32(15000)), Alpha: new(uint32(2)),
				Beta: new(uint32(20)), MemoryLimit: new(uint32(32 << 20)), ECNProb: new(uint32(10)), ECN: new(uint32(0)),
				Bytemode: new(uint32(0)), DQRateEstimator: new(uint32(0)),
			}),
			Dumped:    func(o attrs.TCOptionsMsg) attrs.TCOptionsMsg { return fqPIEKept(o, true) },
			Restoring: func(o attrs.TCOptionsMsg) attrs.TCOptionsMsg { return fqPIEKept(o, false) },
		})
	}, "fq_pie")
}

// fqPIEKeywords writes fq_pie's options back: pie's, and the flow table's
// when not 0 (tc's "not given").
func fqPIEKeywords(o *attrs.FQPIEAttrs) ([]string, error) {
	v := pieParams{Limit: o.Limit, Target: o.Target, Tupdate: o.Tupdate, Alpha: o.Alpha,
		Beta: o.Beta, ECN: o.ECN, Bytemode: o.Bytemode, DQRateEstimator: o.DQRateEstimator}
	w := v.keywords()
	for _, n := range []struct {
		name string
		v    *uint32
	}{{"flows", o.Flows}, {"quantum", o.Quantum}, {"memory_limit", o.MemoryLimit}, {"ecn_prob", o.ECNProb}} {
		if n.v != nil && *n.v != 0 {
			w = append(w, n.name, tcword.UintWord(*n.v))
		}
	}
	return w, nil
}

// parseFQPIE turns the words after "fq_pie" into the qdisc's options as tc
// 7.x does. Only what the user named is set, so that "change" keeps the
// rest; the result is never nil on success (tc always sends the nest).
// Errors are *ParseError: exit 1, with the usage after an unknown keyword
// and for "help"; a keyword missing its value exits 255.
func parseFQPIE(args []string) (*attrs.FQPIEAttrs, error) {
	w := newPIEWords()
	var flows, quantum, memory, ecnProb uint32
	err := tcword.ParseWords(args, func(kw string, value tcword.ValueFunc) (ok bool, err error) {
		if ok, err := w.word(kw, value); ok || err != nil {
			return ok, err
		}
		switch kw {
		case "flows":
			flows, err = tcword.UintArg(kw, value)
		case "quantum":
			quantum, err = tcword.SizeArg(kw, value)
		case "memory_limit":
			memory, err = tcword.SizeArg(kw, value)
		case "ecn_prob":
			ecnProb, err = tcword.UintArg(kw, value)
			if err == nil && ecnProb >= 100 {
				err = tcword.Errorf("Illegal %q", kw)
			}
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return nil, err
	}
	p := w.params()
	return &attrs.FQPIEAttrs{Limit: p.Limit, Flows: tcword.NonZero(flows), Target: p.Target, Tupdate: p.Tupdate,
		Alpha: p.Alpha, Beta: p.Beta, Quantum: tcword.NonZero(quantum), MemoryLimit: tcword.NonZero(memory),
		ECNProb: tcword.NonZero(ecnProb), ECN: p.ECN, Bytemode: p.Bytemode, DQRateEstimator: p.DQRateEstimator}, nil
}

// printFQPIEOptions prints an fq_pie qdisc's options as tc does; the
// kernel's defaults read:
//
//	limit 10240p flows 1024 target 15ms tupdate 15ms alpha 2 beta 20 quantum 1514b memory_limit 32Mb ecn_prob 10
//
// Times are raw microseconds and sizes bytes in JSON.
func printFQPIEOptions(p *tcfmt.Printer, o *attrs.FQPIEAttrs) {
	if o == nil {
		return
	}
	const both = tcfmt.Any
	v := pieParams{Limit: o.Limit, Target: o.Target, Tupdate: o.Tupdate, Alpha: o.Alpha,
		Beta: o.Beta, ECN: o.ECN, Bytemode: o.Bytemode, DQRateEstimator: o.DQRateEstimator}
	if o.Limit != nil {
		p.Uint(both, "limit", "limit %up ", uint64(*o.Limit))
	}
	if o.Flows != nil {
		p.Uint(both, "flows", "flows %u ", uint64(*o.Flows))
	}
	v.printControl(p)
	if o.Quantum != nil {
		p.Size(both, "quantum", "quantum %s ", uint64(*o.Quantum))
	}
	if o.MemoryLimit != nil {
		p.Size(both, "memory_limit", "memory_limit %s ", uint64(*o.MemoryLimit))
	}
	if o.ECNProb != nil {
		p.Uint(both, "ecn_prob", "ecn_prob %u ", uint64(*o.ECNProb))
	}
	v.printSwitches(p)
}

// fqPIETexts are the formats of tc's -s text (a leading blank included)
// of fq_pie's statistics by JSON key; the statistics, in tc's order, are
// tcFQPIEXstatsFields (from the spec). The second line starts at
// new_flow_count.
var fqPIETexts = map[string]string{
	"pkts_in":        "  pkts_in %u",
	"overlimit":      " overlimit %u",
	"overmemory":     " overmemory %u",
	"dropped":        " dropped %u",
	"ecn_mark":       " ecn_mark %u",
	"new_flow_count": "  new_flow_count %u",
	"new_flows_len":  " new_flows_len %u",
	"old_flows_len":  " old_flows_len %u",
	"memory_used":    " memory_used %u",
}

// fqPIEStatsTable is fq_pie's statistics for the registry's consumers.
var fqPIEStatsTable = &tckind.StatsTable{
	Of: func(x tckind.Xstats) any {
		if s := fqPIEStatsOf(x); s != nil {
			return s
		}
		return nil
	},
	Fields: tcFQPIEXstatsFields,
}

// fqPIEStatsOf returns fq_pie's xstats (see fixedXstats: tc zero-fills a
// short payload); nil when there are none.
func fqPIEStatsOf(x tckind.Xstats) *attrs.TCFQPIEXstats {
	return tckind.FixedXstats[attrs.TCFQPIEXstats](x, attrs.TCFQPIEXstatsLen)
}

// printFQPIEXstats prints fq_pie's xstats (-s) as tc does:
//
//	pkts_in 0 overlimit 0 overmemory 0 dropped 0 ecn_mark 0
//	new_flow_count 0 new_flows_len 0 old_flows_len 0 memory_used 0
func printFQPIEXstats(p *tcfmt.Printer, x *attrs.TCFQPIEXstats) {
	if x == nil {
		return
	}
	for i := range tcFQPIEXstatsFields {
		f := &tcFQPIEXstatsFields[i]
		v, _ := f.Get(x)
		if f.Key == "new_flow_count" {
			p.NL()
		}
		p.Uint(tcfmt.Any, tcfmt.Name(f.Key), fqPIETexts[f.Key], v)
	}
}

// fqPIEChangeAccepted is Kind.ChangeAccepted for fq_pie: on an existing
// qdisc fq_pie_change refuses any flows (the flow table exists already),
// and the policy a quantum outside 1..2^20.
func fqPIEChangeAccepted(opts attrs.TCOptionsMsg, _ string) bool {
	o, ok := opts.(*attrs.FQPIEAttrs)
	return ok && len(o.Unknown) == 0 && o.Flows == nil && o.Validate() == nil
}

// fqPIEKept is fq_pie's Dumped (dumped true) and Restoring: pie's times
// (pieTimes), and a quantum raised to at least 256 bytes, which a dump
// cannot undo.
func fqPIEKept(opts attrs.TCOptionsMsg, dumped bool) attrs.TCOptionsMsg {
	o, ok := opts.(*attrs.FQPIEAttrs)
	if !ok || o == nil {
		return opts
	}
	c := *o
	pieTimes(&c.Target, &c.Tupdate, dumped)
	if dumped {
		c.Quantum = tcword.MapPtr(c.Quantum, func(q uint32) uint32 { return max(q, 256) })
	}
	return &c
}
