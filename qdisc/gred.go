// SPDX-License-Identifier: Apache-2.0

package qdisc

// gred (net/sched/sch_gred.c): tc's keywords to netlink attributes, and
// the kernel's dump back to tc's text and JSON, as iproute2 7.x's
// tc/q_gred.c does.
//
//   - Two grammars: "setup vqs N default D [grio] [limit BYTES] [ecn]
//     [harddrop]" builds the table (TCA_GRED_DPS, TCA_GRED_LIMIT), and
//     "vq N limit min max avpkt ..." (DP for vq) sets one virtual queue
//     (its struct, idle-damping table, max_P and, in TCA_GRED_VQ_LIST, its
//     own RED flags). Words before "setup" that count as a queue's
//     parameter make it illegal; the others are dropped.
//   - The dump has all sixteen queues' structs, a DP of 16 or more
//     marking an absent one, and their max_P; tc prints each present queue
//     on its own line, with its statistics under -s.

import (
	"fmt"
	"slices"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// gredUsage is tc's explain() of gred.
const gredUsage = "Usage: tc qdisc { add | replace | change } ... gred setup vqs NUMBER\n" +
	"           default DEFAULT_VQ [ grio ] [ limit BYTES ] [ecn] [harddrop]\n" +
	"       tc qdisc change ... gred vq VQ [ prio VALUE ] limit BYTES\n" +
	"           min BYTES max BYTES avpkt BYTES [ burst PACKETS ]\n" +
	"           [ probability PROBABILITY ] [ bandwidth KBPS ] [ecn] [harddrop]"

// gredMaxDPs is MAX_DPs, the most virtual queues gred has.
const gredMaxDPs = 16

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:       "gred",
			Usage:      gredUsage,
			ParseQdisc: tckind.TypedParser(parseGRED),
			PrintOptions: func(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
				if o, ok := opts.(*attrs.GREDAttrs); ok {
					printGREDOptions(p, o)
				}
			},
			// A setup request (the table, TCA_GRED_DPS) is sent with
			// NLM_F_CREATE.
			Creates: func(opts attrs.TCOptionsMsg) bool {
				o, ok := opts.(*attrs.GREDAttrs)
				return ok && o.Dps != nil
			},
			Keywords:  tckind.KeywordsOf("gred", gredKeywords),
			Dumped:    gredDumped,
			Restoring: gredRestoring,
			Requests:  gredRequests,
		})
		tckind.RegisterBytesCovers("GREDAttrs.Parms", gredParmsCover)
	}, "gred")
}

// parseGRED turns the words after "gred" into the qdisc's options as tc
// 7.x does. Errors are *ParseError: exit 1, with the usage after an
// unknown keyword, for "help" and for no queue parameter at all; a
// keyword missing its value exits 255.
func parseGRED(args []string, env tckind.ParseEnv) (*attrs.GREDAttrs, error) {
	var (
		q     = attrs.TCGREDQopt{DP: gredMaxDPs}
		flags uint32
		given bool // a queue's parameter was given (tc's ok)
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
			given = true
			continue
		}
		switch kw {
		case "setup":
			if given {
				return nil, tcword.Errorf(`Illegal "setup"`)
			}
			return parseGREDTable(args[i+1:], env)
		case "limit", "min", "max":
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
				q.Limit = n
			case "min":
				q.QthMin = n
			default:
				q.QthMax = n
			}
			given = true
		case "vq", "DP":
			v, err := value()
			if err != nil {
				return nil, err
			}
			n, perr := tcfmt.ParseUint(v, 10, 32) // get_unsigned, base 10
			if perr != nil {
				return nil, tcword.Errorf(`Illegal "vq"`)
			}
			if n >= gredMaxDPs {
				return nil, tcword.Errorf("GRED: only %d VQs are currently supported", gredMaxDPs)
			}
			q.DP, given = uint32(n), true
		case "prio":
			v, err := value()
			if err != nil {
				return nil, err
			}
			// strtol without a check: whatever number leads, into a u8.
			n, _, _ := tcfmt.Strtol(v, 10)
			q.Prio, given = uint8(n), true
		case "ecn":
			flags |= redFlagECN
		case "harddrop":
			flags |= redFlagHarddrop
		case "help":
			return nil, &tcword.ParseError{ShowUsage: true}
		default:
			return nil, tcword.UsageErrorf("What is \"%s\"?", kw)
		}
	}
	if !given {
		return nil, &tcword.ParseError{ShowUsage: true}
	}
	if q.DP == gredMaxDPs || q.Limit == 0 || q.QthMin == 0 || q.QthMax == 0 || r.avpkt == 0 {
		return nil, tcword.Errorf("Required parameter (vq, limit, min, max, avpkt) is missing")
	}
	w := env.Notes()
	if r.burst == 0 {
		r.burst = redBurstDefault(q.QthMin, q.QthMax, r.avpkt)
		fmt.Fprintf(w, "GRED: set burst to %d\n", r.burst)
	}
	if r.rate == 0 {
		r.rate = redDefaultBandwidth
		fmt.Fprintf(w, "GRED: set bandwidth to 10Mbit\n")
	}
	d, err := deriveRED("GRED", q.QthMin, q.QthMax, r, true, env)
	if err != nil {
		return nil, err
	}
	q.Wlog, q.Plog, q.ScellLog = d.wlog, d.plog, d.scellLog
	dp := q.DP
	return &attrs.GREDAttrs{
		Parms:  q.Append(nil),
		Stab:   d.stab,
		MaxP:   []uint32{redMaxP(r.probability)},
		VqList: &attrs.TCAGREDVqListAttrs{Entry: []attrs.TCAGREDVqEntryAttrs{{Dp: &dp, Flags: &flags}}},
	}, nil
}

// parseGREDTable reads the words after "setup": tc's setup words, then
// (what no tc command takes, but a file of "gotc apply" does) each
// virtual queue's words from its "vq", one table of options that
// Requests splits into the setup and one change per queue.
func parseGREDTable(args []string, env tckind.ParseEnv) (*attrs.GREDAttrs, error) {
	end := slices.Index(args, "vq")
	if end < 0 {
		end = len(args)
	}
	o, err := parseGREDSetup(args[:end])
	if err != nil {
		return nil, err
	}
	o.VqList = &attrs.TCAGREDVqListAttrs{}
	seen := map[uint32]bool{}
	for rest := args[end:]; len(rest) > 0; {
		n := slices.Index(rest[1:], "vq") + 1
		if n == 0 {
			n = len(rest)
		}
		q, err := parseGRED(rest[:n], env)
		if err != nil {
			return nil, err
		}
		if q.Dps != nil {
			return nil, tcword.Errorf(`Illegal "setup"`)
		}
		dp := *q.VqList.Entry[0].Dp
		if seen[dp] {
			return nil, tcword.Errorf("GRED: vq %d is given twice", dp)
		}
		seen[dp] = true
		o.Parms = append(o.Parms, q.Parms...)
		o.Stab = append(o.Stab, q.Stab...)
		o.MaxP = append(o.MaxP, q.MaxP...)
		o.VqList.Entry = append(o.VqList.Entry, q.VqList.Entry...)
		rest = rest[n:]
	}
	if len(o.Parms) == 0 {
		o.VqList = nil
	}
	return o, nil
}

// parseGREDSetup reads tc's words after "setup" as tc's init_gred.
func parseGREDSetup(args []string) (*attrs.GREDAttrs, error) {
	s := attrs.TCGREDSopt{DefDP: gredMaxDPs}
	var limit uint32
	for i := 0; i < len(args); i++ {
		kw := args[i]
		value := func() (string, error) {
			if i+1 >= len(args) {
				return "", tcword.IncompleteCommand()
			}
			i++
			return args[i], nil
		}
		switch kw {
		case "vqs", "DPs":
			v, err := value()
			if err != nil {
				return nil, err
			}
			n, perr := tcfmt.ParseUint(v, 10, 32)
			if perr != nil {
				return nil, tcword.Errorf(`Illegal "vqs"`)
			}
			if n > gredMaxDPs {
				return nil, tcword.Errorf("GRED: only %d VQs are currently supported", gredMaxDPs)
			}
			s.DPs = uint32(n)
		case "default":
			if s.DPs == 0 {
				return nil, tcword.Errorf(`"default" must be defined after "vqs"`)
			}
			v, err := value()
			if err != nil {
				return nil, err
			}
			n, perr := tcfmt.ParseUint(v, 10, 32)
			if perr != nil {
				return nil, tcword.Errorf(`Illegal "default"`)
			}
			if n >= uint64(s.DPs) {
				return nil, tcword.Errorf(`"default" must be less than "vqs"`)
			}
			s.DefDP = uint32(n)
		case "grio":
			s.Grio = 1
		case "limit":
			v, err := value()
			if err != nil {
				return nil, err
			}
			n, perr := tcfmt.ParseSize(v)
			if perr != nil {
				return nil, tcword.Errorf(`Illegal "limit"`)
			}
			limit = n
		case "ecn":
			s.Flags |= redFlagECN
		case "harddrop":
			s.Flags |= redFlagHarddrop
		case "help":
			return nil, &tcword.ParseError{ShowUsage: true}
		default:
			return nil, tcword.UsageErrorf("What is \"%s\"?", kw)
		}
	}
	if s.DPs == 0 || s.DefDP == gredMaxDPs {
		return nil, tcword.Errorf("Illegal gred setup parameters")
	}
	o := &attrs.GREDAttrs{Dps: &s}
	if limit != 0 {
		o.Limit = &limit
	}
	return o, nil
}

// gredVQStats is what a dump's TCA_GRED_VQ_LIST says of one queue.
type gredVQStats struct {
	flagsPresent bool
	flags        uint32
	bytes        uint64
	forcedDrop   uint32
	probDrop     uint32
	pdrop        uint32
	other        uint32
	forcedMark   uint32
	probMark     uint32
}

// gredVQs indexes the queue list by DP, as tc's gred_parse_vqs.
func gredVQs(l *attrs.TCAGREDVqListAttrs) *[gredMaxDPs]gredVQStats {
	var vqs [gredMaxDPs]gredVQStats
	u32 := func(p *uint32) uint32 {
		if p == nil {
			return 0
		}
		return *p
	}
	for i := range l.Entry {
		e := &l.Entry[i]
		if e.Dp == nil || *e.Dp >= gredMaxDPs {
			continue
		}
		v := &vqs[*e.Dp]
		if e.StatBytes != nil {
			// tc reads the u64 attribute as a u32: its low half.
			v.bytes = uint64(uint32(*e.StatBytes))
		}
		v.forcedDrop, v.probDrop = u32(e.StatForcedDrop), u32(e.StatProbDrop)
		v.pdrop, v.other = u32(e.StatPdrop), u32(e.StatOther)
		v.forcedMark, v.probMark = u32(e.StatForcedMark), u32(e.StatProbMark)
		v.flagsPresent, v.flags = e.Flags != nil, u32(e.Flags)
	}
	return &vqs
}

// printGREDOptions prints a gred qdisc's options as tc does:
//
//	vqs 10 default 1 limit 1000b
//	 vq 1 prio 8 limit 60Kb min 15Kb max 25Kb
//
// with each queue's ewma, probability and Scell_log for -d and its
// statistics on three more lines for -s; JSON has the queues in "vqs".
func printGREDOptions(p *tcfmt.Printer, o *attrs.GREDAttrs) {
	if o == nil || o.Parms == nil {
		return
	}
	if o.Dps == nil || len(o.Parms) < gredMaxDPs*attrs.TCGREDQoptLen {
		p.Text("\n GRED received message smaller than expected\n")
		return
	}
	var vqs *[gredMaxDPs]gredVQStats
	if o.VqList != nil {
		vqs = gredVQs(o.VqList)
	}
	s := o.Dps
	p.Uint(tcfmt.Any, "dp_cnt", "vqs %u ", uint64(s.DPs))
	p.Uint(tcfmt.Any, "dp_default", "default %u ", uint64(s.DefDP))
	if s.Grio != 0 {
		p.Bool(tcfmt.Any, "grio", "grio ", true)
	} else {
		p.Bool(tcfmt.JSON, "grio", "", false)
	}
	if o.Limit != nil {
		p.Size(tcfmt.Any, "limit", "limit %s ", uint64(*o.Limit))
	}
	printREDFlags(p, uint32(s.Flags))
	p.OpenArray(tcfmt.JSON, "vqs")
	for i := 0; i < gredMaxDPs; i++ {
		var q attrs.TCGREDQopt
		_ = q.Decode(o.Parms[i*attrs.TCGREDQoptLen:]) // the length is checked above
		if q.DP >= gredMaxDPs {
			continue
		}
		p.OpenObject("")
		p.Uint(tcfmt.Any, "vq", "\n vq %u ", uint64(q.DP))
		p.Uint(tcfmt.Any, "prio", "prio %u ", uint64(q.Prio))
		p.Size(tcfmt.Any, "limit", "limit %s ", uint64(q.Limit))
		p.Size(tcfmt.Any, "min", "min %s ", uint64(q.QthMin))
		p.Size(tcfmt.Any, "max", "max %s ", uint64(q.QthMax))
		var vq *gredVQStats
		if vqs != nil {
			vq = &vqs[i]
			if vq.flagsPresent {
				printREDFlags(p, vq.flags)
			}
		}
		if p.Details() {
			// tc shows Plog only when the kernel sends no max_P array;
			// a queue's max_P of 0 prints as probability 0.
			p.Uint(tcfmt.Any, "ewma", "ewma %u ", uint64(q.Wlog))
			if len(o.MaxP) >= gredMaxDPs {
				p.Float(tcfmt.Any, "probability", "probability %lg ", float64(o.MaxP[i])/(1<<32))
			} else {
				p.Uint(tcfmt.Any, "Plog", "Plog %u ", uint64(q.Plog))
			}
			p.Uint(tcfmt.Any, "Scell_log", "Scell_log %u ", uint64(q.ScellLog))
		}
		if p.ShowStats() {
			printGREDStats(p, &q, vq)
		}
		p.CloseObject()
	}
	p.CloseArray(tcfmt.JSON, "")
}

// printGREDStats prints one queue's statistics as tc's gred_print_stats,
// from the queue list when the dump has one (vq not nil), else from the
// queue's struct.
func printGREDStats(p *tcfmt.Printer, q *attrs.TCGREDQopt, vq *gredVQStats) {
	bytes := uint64(q.Bytesin)
	if vq != nil {
		bytes = vq.bytes
	}
	p.Text("\n  Queue size: ")
	p.Size(tcfmt.Any, "qave", "average %s ", uint64(q.Qave))
	p.Size(tcfmt.Any, "backlog", "current %s ", uint64(q.Backlog))
	p.Text("\n  Dropped packets: ")
	if vq != nil {
		p.Uint(tcfmt.Any, "forced_drop", "forced %u ", uint64(vq.forcedDrop))
		p.Uint(tcfmt.Any, "prob_drop", "early %u ", uint64(vq.probDrop))
		p.Uint(tcfmt.Any, "pdrop", "pdrop %u ", uint64(vq.pdrop))
		p.Uint(tcfmt.Any, "other", "other %u ", uint64(vq.other))
		p.Text("\n  Marked packets: ")
		p.Uint(tcfmt.Any, "forced_mark", "forced %u ", uint64(vq.forcedMark))
		p.Uint(tcfmt.Any, "prob_mark", "early %u ", uint64(vq.probMark))
	} else {
		p.Uint(tcfmt.Any, "forced_drop", "forced %u ", uint64(q.Forced))
		p.Uint(tcfmt.Any, "prob_drop", "early %u ", uint64(q.Early))
		p.Uint(tcfmt.Any, "pdrop", "pdrop %u ", uint64(q.Pdrop))
		p.Uint(tcfmt.Any, "other", "other %u ", uint64(q.Other))
	}
	p.Text("\n  Total packets: ")
	p.Uint(tcfmt.Any, "packets", "%u ", uint64(q.Packets))
	p.Size(tcfmt.Any, "bytes", "(%s) ", bytes)
}

// gredQopts decodes the queue structs of options: one a queue of a
// request, sixteen of a dump; nil when they are not whole structs.
func gredQopts(o *attrs.GREDAttrs) []attrs.TCGREDQopt {
	if len(o.Parms)%attrs.TCGREDQoptLen != 0 {
		return nil
	}
	qs := make([]attrs.TCGREDQopt, len(o.Parms)/attrs.TCGREDQoptLen)
	for i := range qs {
		_ = qs[i].Decode(o.Parms[i*attrs.TCGREDQoptLen:]) // whole structs, checked above
	}
	return qs
}

// gredKeywords writes gred's options back. A table (a dump, or a setup
// request) is "setup" with its size, default, grio, limit and flags,
// then each present virtual queue's "vq" words (a form parseGRED reads
// as the table of a file, which Requests sends as the setup and a
// change per queue). A queue's request (no table, one queue) is its
// "vq" words alone. A queue's avpkt, burst, probability and bandwidth,
// which the kernel does not keep, come from redFind.
func gredKeywords(o *attrs.GREDAttrs) ([]string, error) {
	qs := gredQopts(o)
	if qs == nil || len(o.MaxP) > len(qs) {
		return nil, tckind.NoKeywords("gred options of an odd size")
	}
	var w []string
	if s := o.Dps; s != nil {
		w = []string{"setup", "vqs", tcword.UintWord(s.DPs), "default", tcword.UintWord(s.DefDP)}
		if s.Grio != 0 {
			w = append(w, "grio")
		}
		if o.Limit != nil {
			w = append(w, "limit", tcword.UintWord(*o.Limit))
		}
		var err error
		if w, err = redFlagWords(w, "gred", uint32(s.Flags), redFlagECN|redFlagHarddrop); err != nil {
			return nil, err
		}
	} else if len(qs) != 1 || qs[0].DP >= gredMaxDPs {
		return nil, tckind.NoKeywords("gred options that are neither a table nor one queue")
	}
	var vqs *[gredMaxDPs]gredVQStats
	if o.VqList != nil {
		vqs = gredVQs(o.VqList)
	}
	for i, q := range qs {
		if q.DP >= gredMaxDPs {
			continue // an absent queue of a dump
		}
		var maxP, flags uint32
		if i < len(o.MaxP) {
			maxP = o.MaxP[i]
		}
		if vqs != nil {
			flags = vqs[q.DP].flags
		}
		var err error
		if w, err = gredVQWords(w, q, maxP, flags); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// gredVQWords appends one virtual queue's "vq" words to w.
func gredVQWords(w []string, q attrs.TCGREDQopt, maxP, flags uint32) ([]string, error) {
	f, err := redFind("gred", redDump{q.QthMin, q.QthMax, q.Wlog, q.Plog, q.ScellLog, maxP}, false, true)
	if err != nil {
		return nil, err
	}
	w = append(w, "vq", tcword.UintWord(q.DP))
	if q.Prio != 0 {
		w = append(w, "prio", tcword.UintWord(q.Prio))
	}
	w = f.words(append(w, "limit", tcword.UintWord(q.Limit), "min", tcword.UintWord(q.QthMin), "max", tcword.UintWord(q.QthMax)))
	return redFlagWords(w, "gred", flags, redFlagECN|redFlagHarddrop)
}

// gredDumped is Kind.Dumped for gred. A table dumps as all sixteen
// queues (an absent one's DP MAX_DPs plus its index), their max_P (0 for
// an absent one, computed from Plog for 0) and the present ones' flags
// in the queue list (gred_dump); the queues' idle-damping tables are not
// dumped. A queue's request keeps its one queue, without its table, and
// gets the max_P the kernel computes.
func gredDumped(opts attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	o, ok := opts.(*attrs.GREDAttrs)
	if !ok {
		return opts
	}
	qs := gredQopts(o)
	if qs == nil || len(o.MaxP) != len(qs) {
		return opts
	}
	c := *o
	c.Stab = nil
	if o.Dps == nil {
		if len(qs) != 1 {
			return opts
		}
		c.MaxP = []uint32{redDumpedMaxP(o.MaxP[0], qs[0].QthMin, qs[0].QthMax, qs[0].Plog)}
		return &c
	}
	var slots [gredMaxDPs]attrs.TCGREDQopt
	for i := range slots {
		slots[i].DP = gredMaxDPs + uint32(i)
	}
	c.MaxP = make([]uint32, gredMaxDPs)
	flags := map[uint32]*uint32{}
	if o.VqList != nil {
		for _, e := range o.VqList.Entry {
			if e.Dp != nil {
				flags[*e.Dp] = e.Flags
			}
		}
	}
	for i, q := range qs {
		if q.DP >= gredMaxDPs {
			continue
		}
		slots[q.DP] = q
		c.MaxP[q.DP] = redDumpedMaxP(o.MaxP[i], q.QthMin, q.QthMax, q.Plog)
	}
	c.Parms = nil
	c.VqList = &attrs.TCAGREDVqListAttrs{}
	for i := range slots {
		c.Parms = slots[i].Append(c.Parms)
		if dp := slots[i].DP; dp < gredMaxDPs {
			c.VqList.Entry = append(c.VqList.Entry, attrs.TCAGREDVqEntryAttrs{Dp: &dp, Flags: flags[dp]})
		}
	}
	return &c
}

// gredParmsCover is Covers' rule for gred's queue structs: each the
// same queue with the same settings; what the kernel counts (backlog,
// drops, packets) is not compared, nor a priority the request leaves 0
// (grio gives it the default queue's).
func gredParmsCover(want, have []byte) bool {
	w, h := gredQopts(&attrs.GREDAttrs{Parms: want}), gredQopts(&attrs.GREDAttrs{Parms: have})
	if w == nil || len(w) != len(h) {
		return false
	}
	for i := range w {
		if !gredQoptCovers(w[i], h[i]) {
			return false
		}
	}
	return true
}

func gredQoptCovers(w, h attrs.TCGREDQopt) bool {
	return w.DP == h.DP && w.Limit == h.Limit && w.QthMin == h.QthMin && w.QthMax == h.QthMax &&
		w.Wlog == h.Wlog && w.Plog == h.Plog && w.ScellLog == h.ScellLog && (w.Prio == 0 || w.Prio == h.Prio)
}

// gredRestoring is Kind.Restoring for gred: the table its dump's words
// ask for, with the queues' idle-damping tables the kernel does not dump
// and the requests' max_P, so that Requests can send it again; the dump
// itself where it has no words.
func gredRestoring(dumped attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	o, ok := dumped.(*attrs.GREDAttrs)
	if !ok {
		return dumped
	}
	w, err := gredKeywords(o)
	if err != nil {
		return dumped
	}
	back, err := parseGRED(w, tckind.ParseEnv{})
	if err != nil {
		return dumped
	}
	return back
}

// gredRequests is Kind.Requests for gred: the kernel takes a table
// without queues (TCA_GRED_DPS) or one queue (its struct and
// idle-damping table, no DPS) per request, and a new qdisc no queue
// (gred_init, gred_change).
func gredRequests(opts, have attrs.TCOptionsMsg) ([]attrs.TCOptionsMsg, bool) {
	o, ok := opts.(*attrs.GREDAttrs)
	qs := []attrs.TCGREDQopt(nil)
	if ok {
		qs = gredQopts(o)
	}
	if !ok || o.Dps == nil || (len(qs) > 0 && (len(o.MaxP) != len(qs) || len(o.Stab)%len(qs) != 0 ||
		o.VqList == nil || len(o.VqList.Entry) != len(qs))) {
		return []attrs.TCOptionsMsg{opts}, true
	}
	setup := &attrs.GREDAttrs{Dps: o.Dps, Limit: o.Limit}
	stab := 0
	if len(qs) > 0 {
		stab = len(o.Stab) / len(qs)
	}
	vqs := make([]attrs.TCOptionsMsg, len(qs))
	for i := range qs {
		vqs[i] = &attrs.GREDAttrs{
			Parms:  o.Parms[i*attrs.TCGREDQoptLen : (i+1)*attrs.TCGREDQoptLen],
			Stab:   o.Stab[i*stab : (i+1)*stab],
			MaxP:   o.MaxP[i : i+1],
			VqList: &attrs.TCAGREDVqListAttrs{Entry: o.VqList.Entry[i : i+1]},
		}
	}
	h, isGRED := have.(*attrs.GREDAttrs)
	if !isGRED || h.Dps == nil {
		return append([]attrs.TCOptionsMsg{setup}, vqs...), true
	}
	// The kernel removes no queue but those the table's size leaves out.
	wanted := map[uint32]bool{}
	for _, q := range qs {
		wanted[q.DP] = true
	}
	for _, q := range gredQopts(h) {
		if q.DP < gredMaxDPs && q.DP < o.Dps.DPs && !wanted[q.DP] {
			return nil, false
		}
	}
	var out []attrs.TCOptionsMsg
	if !tckind.Covers(setup, h) {
		out = append(out, setup)
	}
	hq := gredQopts(h)
	var hv *[gredMaxDPs]gredVQStats
	if h.VqList != nil {
		hv = gredVQs(h.VqList)
	}
	for i, q := range qs {
		// The queue against the kernel's of its DP, as gredDumped and
		// gredParmsCover compare them.
		f := o.VqList.Entry[i].Flags
		if q.DP >= gredMaxDPs || len(hq) != gredMaxDPs || len(h.MaxP) != gredMaxDPs || hv == nil ||
			!gredQoptCovers(q, hq[q.DP]) || redDumpedMaxP(o.MaxP[i], q.QthMin, q.QthMax, q.Plog) != h.MaxP[q.DP] ||
			(f != nil && (!hv[q.DP].flagsPresent || hv[q.DP].flags != *f)) {
			out = append(out, vqs[i])
		}
	}
	return out, true
}
