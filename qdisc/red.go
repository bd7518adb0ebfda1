// SPDX-License-Identifier: Apache-2.0

package qdisc

// red (net/sched/sch_red.c): tc's keywords to netlink attributes, and the
// kernel's attributes and xstats back to tc's text and JSON, as iproute2
// 7.x's tc/q_red.c does.
//
//   - limit and avpkt are required; min, max and burst default after Sally
//     Floyd's recommendations, the bandwidth to 10Mbit (with a note on
//     stderr); the RED arithmetic is redcalc.go's.
//   - The flags travel as a bitfield32 whose selector names the four flags
//     tc knows; tc_red_qopt's own flags stay 0.
//   - qevent early_drop and qevent mark bind a block to the qdisc's
//     events.

import (
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// redUsage is tc's explain() of red.
const redUsage = "Usage: ... red\tlimit BYTES [min BYTES] [max BYTES] avpkt BYTES [burst PACKETS]\n" +
	"\t\t[adaptive] [probability PROBABILITY] [bandwidth KBPS]\n" +
	"\t\t[ecn] [harddrop] [nodrop]\n" +
	"\t\t[qevent early_drop block IDX] [qevent mark block IDX]"

// redSupportedFlags is the bitfield's selector: the flags tc knows.
const redSupportedFlags = redFlagECN | redFlagHarddrop | redFlagAdaptive | redFlagNodrop

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:         "red",
			MakesClasses: true,
			Usage:        redUsage,
			ParseQdisc:   tckind.TypedParser(parseRED),
			PrintOptions: func(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
				if o, ok := opts.(*attrs.REDAttrs); ok {
					printREDOptions(p, o)
				}
			},
			PrintXstats: func(p *tcfmt.Printer, x tckind.Xstats) { printREDXstats(p, redStatsOf(x)) },
			Stats:       redStatsTable,
			Keywords:    tckind.KeywordsOf("red", redKeywords),
			Dumped:      redDumped,
			Restoring:   redRestoring,
		})
	}, "red")
}

// parseRED turns the words after "red" into the qdisc's options as tc 7.x
// does. Errors are *ParseError: exit 1, with the usage after an unknown
// keyword and for "help"; a keyword missing its value exits 255.
func parseRED(args []string, env tckind.ParseEnv) (*attrs.REDAttrs, error) {
	var (
		limit, qmin, qmax uint32
		flags             uint32
		earlyDrop, mark   uint32
	)
	r := newREDWords(0)
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
		switch {
		case kw == "limit", kw == "min", kw == "max":
			v, err := value()
			if err != nil {
				return nil, err
			}
			n, perr := tcfmt.ParseSize(v)
			if perr != nil {
				return nil, tcword.Errorf("Illegal %q", kw)
			}
			switch kw {
			case "limit":
				limit = n
			case "min":
				qmin = n
			default:
				qmax = n
			}
		case kw == "ecn":
			flags |= redFlagECN
		case kw == "harddrop":
			flags |= redFlagHarddrop
		case kw == "nodrop":
			flags |= redFlagNodrop
		case kw == "adaptive", kw == "adaptative":
			flags |= redFlagAdaptive
		case tcfmt.Matches(kw, "qevent"):
			n, err := parseQevent(args[i+1:], map[string]*uint32{"early_drop": &earlyDrop, "mark": &mark})
			if err != nil {
				return nil, err
			}
			i += n
		case kw == "help":
			return nil, &tcword.ParseError{ShowUsage: true}
		default:
			return nil, tcword.UsageErrorf("What is \"%s\"?", kw)
		}
	}
	if limit == 0 || r.avpkt == 0 {
		return nil, tcword.Errorf("RED: Required parameter (limit, avpkt) is missing")
	}
	if qmax == 0 {
		if qmin != 0 {
			qmax = qmin * 3
		} else {
			qmax = limit / 4
		}
	}
	if qmin == 0 {
		qmin = qmax / 3
	}
	if r.burst == 0 {
		r.burst = redBurstDefault(qmin, qmax, r.avpkt)
	}
	if r.rate == 0 {
		r.rate = redDefaultBandwidth
		env.Notes().Write([]byte("RED: set bandwidth to 10Mbit\n"))
	}
	d, err := deriveRED("RED", qmin, qmax, r, true, env)
	if err != nil {
		return nil, err
	}
	maxP := redMaxP(r.probability)
	o := &attrs.REDAttrs{
		Parms: redQoptFrom(limit, qmin, qmax, d, 0),
		Stab:  d.stab,
		MaxP:  &maxP,
		Flags: &attrs.Bitfield32{Value: flags, Selector: redSupportedFlags},
	}
	if earlyDrop != 0 {
		o.EarlyDropBlock = &earlyDrop
	}
	if mark != 0 {
		o.MarkBlock = &mark
	}
	return o, nil
}

// parseQevent reads what follows "qevent" as tc's qevent_parse does: a
// qevent's name (one of blocks' keys), then "block IDX" (repeatable in
// the grammar, though a second index is refused). It returns how many
// words it read.
func parseQevent(args []string, blocks map[string]*uint32) (int, error) {
	if len(args) == 0 {
		return 0, tcword.IncompleteCommand()
	}
	block, ok := blocks[args[0]]
	if !ok {
		return 0, tcword.Errorf("Unknown qevent `%s'", args[0])
	}
	if len(args) == 1 {
		return 0, tcword.IncompleteCommand()
	}
	if *block != 0 {
		return 0, tcword.Errorf("Duplicate qevent")
	}
	n := 1
	for n < len(args) && args[n] == "block" {
		if n+1 >= len(args) {
			return 0, tcword.IncompleteCommand()
		}
		if *block != 0 {
			return 0, tcword.Errorf("Qevent block index already specified")
		}
		idx, err := tcfmt.ParseUint(args[n+1], 10, 32)
		if err != nil || idx == 0 {
			return 0, tcword.Errorf("Illegal qevent block index")
		}
		*block = uint32(idx)
		n += 2
	}
	if *block == 0 {
		return 0, tcword.Errorf("Unspecified qevent block index")
	}
	return n, nil
}

// printREDOptions prints a red qdisc's options as tc does:
//
//	limit 1Mb min 100Kb max 300Kb ecn [ewma 5 probability 0.02 Scell_log 13]
//
// the bracketed part with -d, then the qevents' blocks.
func printREDOptions(p *tcfmt.Printer, o *attrs.REDAttrs) {
	if o == nil || o.Parms == nil {
		return
	}
	q := o.Parms
	var maxP uint32
	if o.MaxP != nil {
		maxP = *o.MaxP
	}
	flags := uint32(q.Flags)
	if o.Flags != nil {
		flags = o.Flags.Value
	}
	p.Size(tcfmt.Any, "limit", "limit %s ", uint64(q.Limit))
	p.Size(tcfmt.Any, "min", "min %s ", uint64(q.QthMin))
	p.Size(tcfmt.Any, "max", "max %s ", uint64(q.QthMax))
	printREDFlags(p, flags)
	if p.Details() {
		printREDDetails(p, q.Wlog, q.Plog, q.ScellLog, maxP, "Scell_log %u")
	}
	printQevents(p, []qevent{{"early_drop", o.EarlyDropBlock}, {"mark", o.MarkBlock}})
}

// qevent is one of a qdisc's qevents as a dump carries it: its name and
// block (nil when unbound).
type qevent struct {
	name  string
	block *uint32
}

// printQevents prints the bound qevents as tc's qevents_print: in text
// "qevent NAME block IDX " each, in JSON an array "qevents" of {kind,
// block} when there is one.
func printQevents(p *tcfmt.Printer, qs []qevent) {
	open := false
	for _, q := range qs {
		if q.block == nil || *q.block == 0 {
			continue
		}
		if !open {
			p.OpenArray(tcfmt.JSON, "qevents")
			open = true
		}
		p.OpenObject("")
		p.String(tcfmt.Any, "kind", "qevent %s", q.name)
		p.Uint(tcfmt.Any, "block", " block %u", uint64(*q.block))
		p.Text(" ")
		p.CloseObject()
	}
	if open {
		p.CloseArray(tcfmt.JSON, "")
	}
}

// redStatsTable lists red's statistics in tc's order.
var redStatsTable = &tckind.StatsTable{
	Of: func(x tckind.Xstats) any {
		if s := redStatsOf(x); s != nil {
			return s
		}
		return nil
	},
	Fields: tcREDXstatsFields,
}

// redStatsOf returns red's xstats (see fixedXstats); nil when there are
// none.
func redStatsOf(x tckind.Xstats) *attrs.TCREDXstats {
	return tckind.FixedXstats[attrs.TCREDXstats](x, attrs.TCREDXstatsLen)
}

// printREDXstats prints red's xstats (-s) as tc does:
//
//	marked 0 early 0 pdrop 0 other 0
func printREDXstats(p *tcfmt.Printer, x *attrs.TCREDXstats) {
	if x == nil {
		return
	}
	p.Uint(tcfmt.Any, "marked", "  marked %u ", uint64(x.Marked))
	p.Uint(tcfmt.Any, "early", "early %u ", uint64(x.Early))
	p.Uint(tcfmt.Any, "pdrop", "pdrop %u ", uint64(x.Pdrop))
	p.Uint(tcfmt.Any, "other", "other %u ", uint64(x.Other))
}

// redKeywords writes red's options back: limit and the thresholds as
// dumped, the avpkt, burst, probability and bandwidth redFind finds for
// the derived values, the flags and the qevents' blocks.
func redKeywords(o *attrs.REDAttrs) ([]string, error) {
	q := o.Parms
	if q == nil {
		return nil, tckind.NoKeywords("red without parameters")
	}
	var maxP uint32
	if o.MaxP != nil {
		maxP = *o.MaxP
	}
	f, err := redFind("red", redDump{q.QthMin, q.QthMax, q.Wlog, q.Plog, q.ScellLog, maxP}, false, true)
	if err != nil {
		return nil, err
	}
	w := f.words([]string{"limit", tcword.UintWord(q.Limit), "min", tcword.UintWord(q.QthMin), "max", tcword.UintWord(q.QthMax)})
	flags := uint32(q.Flags)
	if o.Flags != nil {
		flags = o.Flags.Value
	}
	if w, err = redFlagWords(w, "red", flags, redSupportedFlags); err != nil {
		return nil, err
	}
	for _, q := range []qevent{{"early_drop", o.EarlyDropBlock}, {"mark", o.MarkBlock}} {
		if q.block != nil && *q.block != 0 {
			w = append(w, "qevent", q.name, "block", tcword.UintWord(*q.block))
		}
	}
	return w, nil
}

// redHistoricFlags are the flags tc_red_qopt carries (TC_RED_HISTORIC_FLAGS).
const redHistoricFlags = redFlagECN | redFlagHarddrop | redFlagAdaptive

// redDumped is Kind.Dumped for red: the kernel does not dump the idle
// damping table, computes max_P from Plog when given 0, and dumps the
// historic flags of the bitfield in tc_red_qopt's flags too (red_dump).
func redDumped(opts attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	o, ok := opts.(*attrs.REDAttrs)
	if !ok || o.Parms == nil {
		return opts
	}
	c, p := *o, *o.Parms
	c.Parms, c.Stab = &p, nil
	var maxP uint32
	if o.MaxP != nil {
		maxP = *o.MaxP
	}
	maxP = redDumpedMaxP(maxP, p.QthMin, p.QthMax, p.Plog)
	c.MaxP = &maxP
	if o.Flags != nil {
		p.Flags = uint8(o.Flags.Value&redHistoricFlags) | p.Flags&^redHistoricFlags
	}
	return &c
}

// redRestoring is Kind.Restoring for red: tc_red_qopt's flags left 0
// where the bitfield has them, as tc sends them (the kernel refuses both).
// The max_P the kernel computed stays: redFind writes the probability
// that gives it.
func redRestoring(dumped attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	o, ok := dumped.(*attrs.REDAttrs)
	if !ok || o.Parms == nil || o.Flags == nil {
		return dumped
	}
	c, p := *o, *o.Parms
	c.Parms = &p
	p.Flags &^= uint8(o.Flags.Value & redHistoricFlags)
	return &c
}
