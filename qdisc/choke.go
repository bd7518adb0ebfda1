// SPDX-License-Identifier: Apache-2.0

package qdisc

// choke (net/sched/sch_choke.c): tc's keywords to netlink attributes, and
// the kernel's attributes and xstats back to tc's text and JSON, as
// iproute2 7.x's tc/q_choke.c does.
//
//   - limit and bandwidth are required; limit and the thresholds count
//     packets (avpkt, 1000 bytes unless given, turns them into bytes for
//     the RED arithmetic, which is redcalc.go's).
//   - max defaults to limit/4, min to max/3, burst to (2*min+max)/3; tc
//     refuses a max above limit and a min not below max.
//   - ecn is tc_red_qopt's flag; there is no bitfield.

import (
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// chokeUsage is tc's explain() of choke.
const chokeUsage = "Usage: ... choke limit PACKETS bandwidth KBPS [ecn]\n" +
	"\t\t [ min PACKETS ] [ max PACKETS ] [ burst PACKETS ]"

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:       "choke",
			Usage:      chokeUsage,
			ParseQdisc: tckind.TypedParser(parseChoke),
			PrintOptions: func(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
				if o, ok := opts.(*attrs.ChokeAttrs); ok {
					printChokeOptions(p, o)
				}
			},
			PrintXstats: func(p *tcfmt.Printer, x tckind.Xstats) { printChokeXstats(p, chokeStatsOf(x)) },
			Stats:       chokeStatsTable,
			Keywords:    tckind.KeywordsOf("choke", chokeKeywords),
			Dumped:      chokeDumped,
			// The dump is the request that restores it: what the kernel does
			// not dump (the table) or computes (max_P for 0), chokeKeywords
			// asks for again through redFind.
			Restoring: func(o attrs.TCOptionsMsg) attrs.TCOptionsMsg { return o },
		})
	}, "choke")
}

// parseChoke turns the words after "choke" into the qdisc's options as tc
// 7.x does; errors as ParseRED's.
func parseChoke(args []string, env tckind.ParseEnv) (*attrs.ChokeAttrs, error) {
	var (
		limit, qmin, qmax uint32
		ecn               bool
	)
	r := newREDWords(1000)
	for i := 0; i < len(args); i++ {
		kw := args[i]
		value := func() (string, error) {
			if i+1 >= len(args) {
				return "", tcword.IncompleteCommand()
			}
			i++
			return args[i], nil
		}
		if ok, err := r.word(kw, value, true, env); err != nil {
			return nil, err
		} else if ok {
			continue
		}
		switch kw {
		case "limit", "min", "max":
			v, err := value()
			if err != nil {
				return nil, err
			}
			n, perr := tcfmt.ParseUint(v, 0, 32) // get_unsigned, base 0
			if perr != nil {
				return nil, tcword.Errorf("Illegal %q", kw)
			}
			switch kw {
			case "limit":
				limit = uint32(n)
			case "min":
				qmin = uint32(n)
			default:
				qmax = uint32(n)
			}
		case "ecn":
			ecn = true
		case "help":
			return nil, &tcword.ParseError{ShowUsage: true}
		default:
			return nil, tcword.UsageErrorf("What is \"%s\"?", kw)
		}
	}
	if r.rate == 0 || limit == 0 {
		return nil, tcword.Errorf("Required parameter (bandwidth, limit) is missing")
	}
	if qmax == 0 {
		qmax = limit / 4
	}
	if qmin == 0 {
		qmin = qmax / 3
	}
	if r.burst == 0 {
		r.burst = (2*qmin + qmax) / 3
	}
	if qmax > limit {
		return nil, tcword.Errorf(`"max" is larger than "limit"`)
	}
	if qmin >= qmax {
		return nil, tcword.Errorf(`"min" is not smaller than "max"`)
	}
	// The arithmetic works in bytes: packets of avpkt bytes, in C's u32.
	d, err := deriveRED("CHOKE", qmin*r.avpkt, qmax*r.avpkt, r, true, env)
	if err != nil {
		return nil, err
	}
	var flags uint8
	if ecn {
		flags = redFlagECN
	}
	maxP := redMaxP(r.probability)
	return &attrs.ChokeAttrs{Parms: redQoptFrom(limit, qmin, qmax, d, flags), Stab: d.stab, MaxP: &maxP}, nil
}

// printChokeOptions prints a choke qdisc's options as tc does:
//
//	limit 1000p min 83p max 250p [ecn] [ewma 3 probability 0.02 Scell_log 13]
//
// the bracketed part with -d.
func printChokeOptions(p *tcfmt.Printer, o *attrs.ChokeAttrs) {
	if o == nil || o.Parms == nil {
		return
	}
	q := o.Parms
	var maxP uint32
	if o.MaxP != nil {
		maxP = *o.MaxP
	}
	p.Uint(tcfmt.Any, "limit", "limit %up ", uint64(q.Limit))
	p.Uint(tcfmt.Any, "min", "min %up ", uint64(q.QthMin))
	p.Uint(tcfmt.Any, "max", "max %up ", uint64(q.QthMax))
	printREDFlags(p, uint32(q.Flags))
	if p.Details() {
		printREDDetails(p, q.Wlog, q.Plog, q.ScellLog, maxP, "Scell_log %u")
	}
}

// chokeStatsTable lists choke's statistics in tc's order.
var chokeStatsTable = &tckind.StatsTable{
	Of: func(x tckind.Xstats) any {
		if s := chokeStatsOf(x); s != nil {
			return s
		}
		return nil
	},
	Fields: tcChokeXstatsFields,
}

// chokeStatsOf returns choke's xstats (see fixedXstats); nil when there
// are none.
func chokeStatsOf(x tckind.Xstats) *attrs.TCChokeXstats {
	return tckind.FixedXstats[attrs.TCChokeXstats](x, attrs.TCChokeXstatsLen)
}

// printChokeXstats prints choke's xstats (-s) as tc does:
//
//	marked 0 early 0 pdrop 0 other 0 matched 0
func printChokeXstats(p *tcfmt.Printer, x *attrs.TCChokeXstats) {
	if x == nil {
		return
	}
	p.Uint(tcfmt.Any, "marked", "  marked %u", uint64(x.Marked))
	p.Uint(tcfmt.Any, "early", " early %u", uint64(x.Early))
	p.Uint(tcfmt.Any, "pdrop", " pdrop %u", uint64(x.Pdrop))
	p.Uint(tcfmt.Any, "other", " other %u", uint64(x.Other))
	p.Uint(tcfmt.Any, "matched", " matched %u", uint64(x.Matched))
}

// chokeKeywords writes choke's options back: limit and the thresholds (in
// packets) as dumped, the avpkt, burst, probability and bandwidth redFind
// finds for the derived values, and ecn, the one flag tc sets.
func chokeKeywords(o *attrs.ChokeAttrs) ([]string, error) {
	q := o.Parms
	if q == nil {
		return nil, tckind.NoKeywords("choke without parameters")
	}
	var maxP uint32
	if o.MaxP != nil {
		maxP = *o.MaxP
	}
	f, err := redFind("choke", redDump{q.QthMin, q.QthMax, q.Wlog, q.Plog, q.ScellLog, maxP}, true, true)
	if err != nil {
		return nil, err
	}
	w := f.words([]string{"limit", tcword.UintWord(q.Limit), "min", tcword.UintWord(q.QthMin), "max", tcword.UintWord(q.QthMax)})
	return redFlagWords(w, "choke", uint32(q.Flags), redFlagECN)
}

// chokeDumped is Kind.Dumped for choke: the kernel does not dump the idle
// damping table and computes max_P from Plog when given 0 (on the
// thresholds in packets, as it keeps them).
func chokeDumped(opts attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	o, ok := opts.(*attrs.ChokeAttrs)
	if !ok || o.Parms == nil {
		return opts
	}
	c := *o
	c.Stab = nil
	var maxP uint32
	if o.MaxP != nil {
		maxP = *o.MaxP
	}
	maxP = redDumpedMaxP(maxP, o.Parms.QthMin, o.Parms.QthMax, o.Parms.Plog)
	c.MaxP = &maxP
	return &c
}
