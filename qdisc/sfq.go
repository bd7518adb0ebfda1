// SPDX-License-Identifier: Apache-2.0

package qdisc

// sfq (net/sched/sch_sfq.c): tc's keywords to its options, and the
// kernel's options and a flow's xstats back to tc's text and JSON, as
// iproute2 7.x's tc/q_sfq.c does.
//
//   - TCA_OPTIONS is struct tc_sfq_qopt_v1 itself, sent only when a
//     keyword was given; 0 in a field is the kernel's "keep the default".
//   - Any RED keyword (redflowlimit, min, max, avpkt, burst, probability,
//     ecn, harddrop) turns on sfq's RED mode, which needs redflowlimit;
//     max defaults to redflowlimit/4 and min to max/3, in bytes. There is
//     no idle damping: Scell_log stays 0 and no table is sent.
//   - The kernel dumps the struct with RED's statistics, which tc prints
//     among the options with -s; each active flow is a class whose xstats
//     hold its allotment.

import (
	"cmp"
	"strconv"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// sfqUsage is tc's explain() of sfq.
const sfqUsage = "Usage: ... sfq\t[ limit NUMBER ] [ perturb SECS ] [ quantum BYTES ]\n" +
	"\t\t[ divisor NUMBER ] [ flows NUMBER] [ depth NUMBER ]\n" +
	"\t\t[ headdrop ]\n" +
	"\t\t[ redflowlimit BYTES ] [ min BYTES ] [ max BYTES ]\n" +
	"\t\t[ avpkt BYTES ] [ burst PACKETS ] [ probability P ]\n" +
	"\t\t[ ecn ] [ harddrop ]"

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name: "sfq",
			// Linux 7.2's sfq has no change operation ("Change operation
			// not supported by specified qdisc", measured in
			// selftests/live-change.sh): other options take a new qdisc.
			NoChange:   true,
			Usage:      sfqUsage,
			ParseQdisc: parseSFQ,
			PrintOptions: func(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
				// Options too short for the struct stay raw, and print nothing.
				if o, ok := opts.(*attrs.TCSFQQoptV1); ok {
					printSFQOptions(p, o)
				}
			},
			PrintXstats:      printSFQXstats,
			PrintClassXstats: printSFQXstats,
			Stats:            sfqStatsTable,
			Keywords:         tckind.KeywordsOf("sfq", sfqKeywords),
			Dumped:           sfqDumped,
			// The dump is the request that restores it: what the kernel
			// forgets (redflowlimit) or computes (max_P for 0), sfqKeywords
			// asks for again.
			Restoring: func(o attrs.TCOptionsMsg) attrs.TCOptionsMsg { return o },
		})
	}, "sfq")
}

// parseSFQ turns the words after "sfq" into its options as tc does: nil
// (no TCA_OPTIONS) when there are none.
func parseSFQ(args []string, env tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
	o, err := sfqOptions(args, env)
	if err != nil || o == nil {
		return nil, err
	}
	return o, nil
}

// sfqOptions turns the words after "sfq" into the qdisc's options as tc 7.x
// does; nil when no keyword was given. Errors are *ParseError: exit 1,
// with the usage after an unknown keyword and for "help"; a keyword
// missing its value exits 255.
func sfqOptions(args []string, env tckind.ParseEnv) (*attrs.TCSFQQoptV1, error) {
	var (
		o       attrs.TCSFQQoptV1
		ok, red bool
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
		if isRED, err := r.word(kw, value, false, env); err != nil {
			return nil, err
		} else if isRED {
			red = true
			continue
		}
		switch kw {
		case "quantum":
			v, err := value()
			if err != nil {
				return nil, err
			}
			n, perr := tcfmt.ParseSize(v)
			if perr != nil {
				return nil, tcword.Errorf(`Illegal "limit"`) // sic: tc names limit
			}
			o.V0.Quantum, ok = n, true
		case "perturb":
			v, err := value()
			if err != nil {
				return nil, err
			}
			n, perr := tcfmt.ParseInt(v, 0, 32) // get_integer, base 0
			if perr != nil {
				return nil, tcword.Errorf(`Illegal "perturb"`)
			}
			o.V0.PerturbPeriod, ok = int32(n), true
		case "limit", "divisor", "flows", "depth", "redflowlimit", "min", "max":
			v, err := value()
			if err != nil {
				return nil, err
			}
			n, perr := tcfmt.ParseUint(v, 0, 32) // get_u32, base 0
			if perr != nil {
				name := kw
				if kw == "depth" {
					name = "flows" // sic
				}
				return nil, tcword.Errorf("Illegal %q", name)
			}
			u := uint32(n)
			switch kw {
			case "limit":
				if u < 2 {
					return nil, tcword.Errorf(`Illegal "limit", must be > 1`)
				}
				o.V0.Limit, ok = u, true
			case "divisor":
				o.V0.Divisor, ok = u, true
			case "flows":
				o.V0.Flows, ok = u, true
			case "depth":
				o.Depth, ok = u, true
			case "redflowlimit":
				o.Limit, red = u, true
			case "min":
				o.QthMin, red = u, true
			default:
				o.QthMax, red = u, true
			}
		case "headdrop":
			o.Headdrop, ok = 1, true
		case "ecn":
			o.Flags |= redFlagECN
			red = true
		case "harddrop":
			o.Flags |= redFlagHarddrop
			red = true
		case "help":
			return nil, &tcword.ParseError{ShowUsage: true}
		default:
			return nil, tcword.UsageErrorf("What is \"%s\"?", kw)
		}
	}
	if red {
		if o.Limit == 0 {
			return nil, tcword.Errorf("Required parameter (redflowlimit) is missing")
		}
		if o.QthMax == 0 {
			o.QthMax = o.Limit / 4
		}
		if o.QthMin == 0 {
			o.QthMin = o.QthMax / 3
		}
		if r.burst == 0 {
			r.burst = redBurstDefault(o.QthMin, o.QthMax, r.avpkt)
		}
		if o.QthMax > o.Limit {
			return nil, tcword.Errorf(`"max" is larger than "limit"`)
		}
		if o.QthMin >= o.QthMax {
			return nil, tcword.Errorf(`"min" is not smaller than "max"`)
		}
		d, err := deriveRED("SFQ", o.QthMin, o.QthMax, r, false, env)
		if err != nil {
			return nil, err
		}
		o.Wlog, o.Plog = d.wlog, d.plog
		o.MaxP = redMaxP(r.probability)
	}
	if !ok && !red {
		return nil, nil
	}
	return &o, nil
}

// printSFQOptions prints an sfq qdisc's options as tc does; the kernel's
// defaults read:
//
//	limit 127p quantum 1514b depth 127 divisor 1024
//
// with flows after depth for -d, and in RED mode ewma, min, max,
// probability and the flags, then with -s RED's statistics on two lines.
func printSFQOptions(p *tcfmt.Printer, o *attrs.TCSFQQoptV1) {
	if o == nil {
		return
	}
	const both = tcfmt.Any
	p.Uint(both, "limit", "limit %up ", uint64(o.V0.Limit))
	p.Size(both, "quantum", "quantum %s ", uint64(o.V0.Quantum))
	if o.Depth != 0 {
		p.Uint(both, "depth", "depth %u ", uint64(o.Depth))
	}
	if o.Headdrop != 0 {
		p.Bool(both, "headdrop", "headdrop ", true)
	}
	if p.Details() {
		p.Uint(both, "flows", "flows %u ", uint64(o.V0.Flows))
	}
	p.Uint(both, "divisor", "divisor %u ", uint64(o.V0.Divisor))
	if o.V0.PerturbPeriod != 0 {
		p.Int(both, "perturb", "perturb %dsec ", int64(o.V0.PerturbPeriod))
	}
	if o.QthMin == 0 {
		return
	}
	p.Uint(both, "ewma", "ewma %u ", uint64(o.Wlog))
	p.Size(both, "min", "min %s ", uint64(o.QthMin))
	p.Size(both, "max", "max %s ", uint64(o.QthMax))
	p.Float(both, "probability", "probability %lg ", float64(o.MaxP)/(1<<32))
	printREDFlags(p, uint32(o.Flags))
	if !p.ShowStats() {
		return
	}
	s := &o.Stats
	p.NL()
	p.Uint(both, "prob_mark", "  prob_mark %u", uint64(s.ProbMark))
	p.Uint(both, "prob_mark_head", " prob_mark_head %u", uint64(s.ProbMarkHead))
	p.Uint(both, "prob_drop", " prob_drop %u", uint64(s.ProbDrop))
	p.NL()
	p.Uint(both, "forced_mark", "  forced_mark %u", uint64(s.ForcedMark))
	p.Uint(both, "forced_mark_head", " forced_mark_head %u", uint64(s.ForcedMarkHead))
	p.Uint(both, "forced_drop", " forced_drop %u", uint64(s.ForcedDrop))
}

// printSFQXstats prints a flow's xstats (-s) as tc does: "  allot 1514".
func printSFQXstats(p *tcfmt.Printer, x tckind.Xstats) {
	if s := tckind.FixedXstats[attrs.TCSFQXstats](x, attrs.TCSFQXstatsLen); s != nil {
		p.Int(tcfmt.Any, "allot", "  allot %d", int64(s.Allot))
	}
}

// sfqStatsTable lists a flow's statistics (each flow is a class; the
// qdisc's RED statistics are among its options).
var sfqStatsTable = &tckind.StatsTable{
	Of: func(x tckind.Xstats) any {
		if s := tckind.FixedXstats[attrs.TCSFQXstats](x, attrs.TCSFQXstatsLen); s != nil {
			return s
		}
		return nil
	},
	Fields: tcSFQXstatsFields,
}

// sfqKeywords writes sfq's options back: every field the kernel dumps (its
// defaults included), and in RED mode the thresholds, with the avpkt,
// burst and probability redFind finds for the derived values, and the
// flags. redflowlimit, which the kernel does not keep, is max (tc wants
// one, at least max).
func sfqKeywords(o *attrs.TCSFQQoptV1) ([]string, error) {
	var w []string
	for _, f := range []struct {
		word string
		v    uint32
	}{{"limit", o.V0.Limit}, {"quantum", o.V0.Quantum}, {"divisor", o.V0.Divisor}, {"flows", o.V0.Flows}, {"depth", o.Depth}} {
		// A limit asked for caps the flows (sfq_change); the default one
		// is dumped with up to 1024 flows, which asking for it would cut
		// to 127.
		if f.v != 0 && (f.word != "limit" || f.v != sfqDefaultLimit) {
			w = append(w, f.word, tcword.UintWord(f.v))
		}
	}
	if o.V0.PerturbPeriod != 0 {
		w = append(w, "perturb", strconv.Itoa(int(o.V0.PerturbPeriod)))
	}
	if o.Headdrop != 0 {
		w = append(w, "headdrop")
	}
	if o.QthMin == 0 {
		if o.Flags != 0 {
			// tc sets them only with RED, whose min is never 0.
			return nil, tckind.NoKeywords("sfq's RED flags without RED")
		}
		return w, nil
	}
	f, err := redFind("sfq", redDump{o.QthMin, o.QthMax, o.Wlog, o.Plog, o.ScellLog, o.MaxP}, false, false)
	if err != nil {
		return nil, err
	}
	w = append(w, "redflowlimit", tcword.UintWord(max(o.Limit, o.QthMax)),
		"min", tcword.UintWord(o.QthMin), "max", tcword.UintWord(o.QthMax))
	return redFlagWords(f.words(w), "sfq", uint32(o.Flags), redFlagECN|redFlagHarddrop)
}

// sfq's defaults (sch_sfq.c): SFQ_MAX_DEPTH is both the limit and the
// depth of a new qdisc, SFQ_DEFAULT_FLOWS its flows.
const (
	sfqDefaultLimit = 127
	sfqDefaultFlows = 128
)

// sfqDumped is Kind.Dumped for sfq: the kernel does not keep redflowlimit,
// caps the limit and the flows (a request without a limit keeps the
// default one: the flows of a qdisc with 127 and more than 127 flows were
// asked for without a limit), keeps RED's parameters only with a min
// (sfq_change), and computes max_P from Plog when given 0.
func sfqDumped(opts attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	o, ok := opts.(*attrs.TCSFQQoptV1)
	if !ok {
		return opts
	}
	c := *o
	c.Limit = 0
	if c.V0.Limit == 0 {
		// A new qdisc's default, which nothing caps.
		c.V0.Limit = sfqDefaultLimit
	} else {
		// sfq_change caps the limit at depth × flows, then the flows at
		// the limit.
		flows, depth := cmp.Or(c.V0.Flows, sfqDefaultFlows), cmp.Or(c.Depth, sfqDefaultLimit)
		c.V0.Limit = min(c.V0.Limit, flows*depth)
		if c.V0.Flows != 0 {
			c.V0.Flows = min(c.V0.Flows, c.V0.Limit)
		}
	}
	if c.QthMin == 0 {
		c.QthMax, c.Wlog, c.Plog, c.ScellLog, c.MaxP = 0, 0, 0, 0, 0
	} else {
		c.MaxP = redDumpedMaxP(c.MaxP, c.QthMin, c.QthMax, c.Plog)
	}
	return &c
}
