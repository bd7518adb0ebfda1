// SPDX-License-Identifier: Apache-2.0

package qdisc

// hhf (net/sched/sch_hhf.c, Heavy-Hitter Filter): tc's keywords to netlink
// attributes, and the kernel's attributes and xstats back to tc's text and
// JSON.
//
// Behaviour mirrored from iproute2 7.x (tc/q_hhf.c): keywords are matched
// exactly, the last of a repeated one wins, and 0 is "not given" for every
// option, so a typed 0 is not sent. The nest goes without NLA_F_NESTED and
// the kernel dumps every option.

import (
	"math"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// hhfUsage is tc's explain() of hhf.
const hhfUsage = "Usage: ... hhf\t[ limit PACKETS ] [ quantum BYTES]\n" +
	"\t\t[ hh_limit NUMBER ]\n" +
	"\t\t[ reset_timeout TIME ]\n" +
	"\t\t[ admit_bytes BYTES ]\n" +
	"\t\t[ evict_timeout TIME ]\n" +
	"\t\t[ non_hh_weight NUMBER ]"

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:  "hhf",
			Usage: hhfUsage,
			ParseQdisc: func(args []string, _ tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
				o, err := parseHHF(args)
				if err != nil {
					return nil, err
				}
				return o, nil
			},
			PrintOptions: func(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
				if o, ok := opts.(*attrs.HHFAttrs); ok {
					printHHFOptions(p, o)
				}
			},
			PrintXstats: func(p *tcfmt.Printer, x tckind.Xstats) {
				printHHFXstats(p, tckind.WholeXstats[attrs.TCHHFXstats](x))
			},
			ChangeAccepted: hhfChangeAccepted,
			Stats:          hhfStatsTable,
			Keywords:       tckind.KeywordsOf("hhf", hhfKeywords),
			// hhf_change keeps what a request omits. Not the quantum, whose
			// default is the device's MTU.
			KeptOnChange: tckind.KeptDefaults("hhf", hhfKeywords, attrs.HHFAttrs{
				BacklogLimit: new(uint32(1000)), HHFlowsLimit: new(uint32(2048)), ResetTimeout: new(uint32(40000)),
				AdmitBytes: new(uint32(128 * 1024)), EvictTimeout: new(uint32(1000000)), NonHHWeight: new(uint32(2)),
			}),
			Dumped: hhfDumped,
		})
	}, "hhf")
}

// hhfKeywords writes hhf's options back, but for those that are 0, tc's
// "not given".
func hhfKeywords(o *attrs.HHFAttrs) ([]string, error) {
	var w []string
	for _, n := range []struct {
		name string
		v    *uint32
		time bool
	}{
		{"limit", o.BacklogLimit, false}, {"quantum", o.Quantum, false}, {"hh_limit", o.HHFlowsLimit, false},
		{"reset_timeout", o.ResetTimeout, true}, {"admit_bytes", o.AdmitBytes, false},
		{"evict_timeout", o.EvictTimeout, true}, {"non_hh_weight", o.NonHHWeight, false},
	} {
		switch {
		case n.v == nil || *n.v == 0:
		case n.time:
			w = append(w, n.name, tcword.TimeWord(*n.v))
		default:
			w = append(w, n.name, tcword.UintWord(*n.v))
		}
	}
	return w, nil
}

// parseHHF turns the words after "hhf" into the qdisc's options as tc 7.x
// does. Only what the user named is set, so that "change" keeps the rest;
// the result is never nil on success (tc always sends the nest). Errors
// are *ParseError: exit 1, with the usage after an unknown keyword and for
// "help"; a keyword missing its value exits 255.
func parseHHF(args []string) (*attrs.HHFAttrs, error) {
	var limit, quantum, hhLimit, reset, admit, evict, weight uint32
	err := tcword.ParseWords(args, func(kw string, value tcword.ValueFunc) (ok bool, err error) {
		switch kw {
		case "limit":
			limit, err = tcword.UintArg(kw, value)
		case "quantum":
			quantum, err = tcword.UintArg(kw, value)
		case "hh_limit":
			hhLimit, err = tcword.UintArg(kw, value)
		case "reset_timeout":
			reset, err = tcword.TimeArg(kw, value)
		case "admit_bytes":
			admit, err = tcword.UintArg(kw, value)
		case "evict_timeout":
			evict, err = tcword.TimeArg(kw, value)
		case "non_hh_weight":
			weight, err = tcword.UintArg(kw, value)
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return nil, err
	}
	return &attrs.HHFAttrs{BacklogLimit: tcword.NonZero(limit), Quantum: tcword.NonZero(quantum),
		HHFlowsLimit: tcword.NonZero(hhLimit), ResetTimeout: tcword.NonZero(reset), AdmitBytes: tcword.NonZero(admit),
		EvictTimeout: tcword.NonZero(evict), NonHHWeight: tcword.NonZero(weight)}, nil
}

// printHHFOptions prints an hhf qdisc's options as tc does; the kernel's
// defaults read:
//
//	limit 1000p quantum 1514b hh_limit 2048 reset_timeout 40ms admit_bytes 128Kb evict_timeout 1s non_hh_weight 2
//
// Times are raw microseconds and sizes bytes in JSON.
func printHHFOptions(p *tcfmt.Printer, o *attrs.HHFAttrs) {
	if o == nil {
		return
	}
	const both = tcfmt.Any
	if o.BacklogLimit != nil {
		p.Uint(both, "limit", "limit %up ", uint64(*o.BacklogLimit))
	}
	if o.Quantum != nil {
		p.Size(both, "quantum", "quantum %s ", uint64(*o.Quantum))
	}
	if o.HHFlowsLimit != nil {
		p.Uint(both, "hh_limit", "hh_limit %u ", uint64(*o.HHFlowsLimit))
	}
	if o.ResetTimeout != nil {
		p.Time(both, "reset_timeout", "reset_timeout %s ", *o.ResetTimeout)
	}
	if o.AdmitBytes != nil {
		p.Size(both, "admit_bytes", "admit_bytes %s ", uint64(*o.AdmitBytes))
	}
	if o.EvictTimeout != nil {
		p.Time(both, "evict_timeout", "evict_timeout %s ", *o.EvictTimeout)
	}
	if o.NonHHWeight != nil {
		p.Uint(both, "non_hh_weight", "non_hh_weight %u ", uint64(*o.NonHHWeight))
	}
}

// hhfTexts are the formats of tc's -s text (a leading blank included) of
// hhf's statistics by JSON key; the statistics, in tc's order and all on
// one line, are tcHHFXstatsFields (from the spec).
var hhfTexts = map[string]string{
	"drop_overlimit": "  drop_overlimit %u",
	"hh_overlimit":   " hh_overlimit %u",
	"tot_hh":         " tot_hh %u",
	"cur_hh":         " cur_hh %u",
}

// hhfStatsTable is hhf's statistics for the registry's consumers.
var hhfStatsTable = &tckind.StatsTable{
	Of: func(x tckind.Xstats) any {
		if s := tckind.WholeXstats[attrs.TCHHFXstats](x); s != nil {
			return s
		}
		return nil
	},
	Fields: tcHHFXstatsFields,
}

// printHHFXstats prints hhf's xstats (-s) as tc does:
//
//	drop_overlimit 0 hh_overlimit 0 tot_hh 0 cur_hh 0
func printHHFXstats(p *tcfmt.Printer, x *attrs.TCHHFXstats) {
	if x == nil {
		return
	}
	for i := range tcHHFXstatsFields {
		f := &tcHHFXstatsFields[i]
		v, _ := f.Get(x)
		p.Uint(tcfmt.Any, tcfmt.Name(f.Key), hhfTexts[f.Key], v)
	}
}

// hhfChangeAccepted is Kind.ChangeAccepted for hhf: hhf_change refuses a
// quantum (raised to at least 256) times non_hh_weight that is 0 or above
// INT_MAX, which, when only one of them is given, depends on the other's
// current value; the policy refuses hh_limit above 2048.
func hhfChangeAccepted(opts attrs.TCOptionsMsg, _ string) bool {
	o, ok := opts.(*attrs.HHFAttrs)
	if !ok || len(o.Unknown) != 0 || o.Validate() != nil {
		return false
	}
	switch {
	case o.Quantum == nil && o.NonHHWeight == nil:
		return true
	case o.Quantum == nil || o.NonHHWeight == nil:
		return false
	}
	q := uint64(max(*o.Quantum, 256)) * uint64(*o.NonHHWeight)
	return q != 0 && q <= math.MaxInt32
}

// hhfDumped is Kind.Dumped for hhf: a quantum raised to at least 256
// bytes, and the timeouts kept in jiffies of the running kernel. There is
// nothing for a Restoring to undo: a dumped timeout is whole jiffies, kept
// as it is, and a dumped quantum is at least 256.
func hhfDumped(opts attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	o, ok := opts.(*attrs.HHFAttrs)
	if !ok || o == nil {
		return opts
	}
	c := *o
	c.Quantum = tcword.MapPtr(c.Quantum, func(q uint32) uint32 { return max(q, 256) })
	c.ResetTimeout = tcword.MapPtr(c.ResetTimeout, tcword.JiffiesKept)
	c.EvictTimeout = tcword.MapPtr(c.EvictTimeout, tcword.JiffiesKept)
	return &c
}
