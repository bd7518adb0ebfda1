// SPDX-License-Identifier: Apache-2.0

package qdisc

// mqprio (net/sched/sch_mqprio.c): a multiqueue root that maps priorities
// to traffic classes and traffic classes to ranges of transmit queues, as
// iproute2 7.x's tc/q_mqprio.c sets and prints it.
//
// What tc does, and gotc with it:
//
//   - It starts from 8 traffic classes, the map 0 1 2 3 4 5 6 7 0 1 1 1 3 3
//     3 3 and hw 1; the keywords change them. "map", "queues", "fp",
//     "min_rate" and "max_rate" read values until one does not parse (or 16
//     were read), which is then the next keyword. "map" zeroes the entries
//     it was not given.
//   - "mode" and "shaper" are keywords only while hw is non-zero, and
//     "min_rate"/"max_rate" only after "shaper bw_rlimit"; otherwise they
//     are unknown arguments (tc's invarg: exit 255).
//   - TCA_OPTIONS is the struct tc_mqprio_qopt followed by attributes:
//     mode and shaper only when not dcb, one TCA_MQPRIO_TC_ENTRY per "fp"
//     value, and the rate nests with all 16 rates.
//   - The kernel dumps a TCA_MQPRIO_TC_ENTRY for every one of the 16
//     traffic classes, so tc's "mode:", "shaper:" and "fp:" lines always
//     appear.
//
// taprio reads "num_tc", "map", "queues" and "fp" with the same code,
// which mqprioqopt.go holds.

import (
	"strconv"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// mqprioUsage is tc's explain() for mqprio, tabs and all.
const mqprioUsage = "Usage: ... mqprio	[num_tc NUMBER] [map P0 P1 ...]\n" +
	"			[queues count1@offset1 count2@offset2 ...] [hw 1|0]\n" +
	"			[fp FP0 FP1 FP2 ...]\n" +
	"			[mode dcb|channel]\n" +
	"			[shaper bw_rlimit SHAPER_PARAMS]\n" +
	"Where: SHAPER_PARAMS := { min_rate MIN_RATE1 MIN_RATE2 ...|\n" +
	"			  max_rate MAX_RATE1 MAX_RATE2 ... }"

// mqprio's modes and shapers (TC_MQPRIO_MODE_*, TC_MQPRIO_SHAPER_*).
const (
	mqprioModeDCB      = 0
	mqprioModeChannel  = 1
	mqprioShaperDCB    = 0
	mqprioShaperBWRate = 1
)

// The keywords of mqprio's rates, also their JSON keys.
const (
	mqprioMinRate = "min_rate"
	mqprioMaxRate = "max_rate"
)

// mqprioDefault is tc's starting point for mqprio.
var mqprioDefault = attrs.TCMQPrioQopt{
	NumTC:     8,
	PrioTCMap: [16]byte{0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 1, 1, 3, 3, 3, 3},
	HW:        1,
}

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:         "mqprio",
			MakesClasses: true,
			// A traffic class is 1:ffe0 and up, its queues below it.
			MakesNestedClasses: true,
			NoChange:           true,
			Usage:              mqprioUsage,
			ParseQdisc: func(args []string, _ tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
				return parseMQPrio(args)
			},
			PrintOptions: func(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
				if o, ok := opts.(*attrs.TCOptionsMsgMQPrio); ok {
					printMQPrio(p, o)
				}
			},
			Keywords: tckind.KeywordsOf("mqprio", mqprioKeywords),
			Dumped:   mqprioDumped,
		})
	}, "mqprio")
}

// parseMQPrio reads mqprio's keywords into the options tc sends.
func parseMQPrio(args []string) (*attrs.TCOptionsMsgMQPrio, error) {
	opt := mqprioDefault
	var (
		lists            tcLists
		a                attrs.MQPrioAttrs
		mode, shaper     uint16
		minRate, maxRate [maxTC]uint64
		hasMin, hasMax   bool
		err              error
	)
	for i := 0; i < len(args); i++ {
		switch w := args[i]; {
		case w == "num_tc":
			if i, err = numTC(args, i, &opt); err != nil {
				return nil, err
			}
		case w == "map":
			i = priorityMap(args, i, &opt)
		case w == "queues":
			i = lists.queues(args, i, &opt)
		case w == "fp":
			i = lists.fpList(args, i)
		case w == "hw":
			if i+1 >= len(args) {
				return nil, tcword.IncompleteCommand()
			}
			i++
			v, err := tcfmt.ParseUint(args[i], 10, 8)
			if err != nil {
				return nil, tcword.Errorf(`Illegal "hw"`)
			}
			opt.HW = uint8(v)
		case opt.HW != 0 && w == "mode":
			if i+1 >= len(args) {
				return nil, tcword.IncompleteCommand()
			}
			i++
			switch {
			case tcfmt.Matches(args[i], "dcb"):
				mode = mqprioModeDCB
			case tcfmt.Matches(args[i], "channel"):
				mode = mqprioModeChannel
			default:
				return nil, tcword.Errorf("Illegal mode (%s)", args[i])
			}
			if mode != mqprioModeDCB {
				a.Mode = &mode
			}
		case opt.HW != 0 && w == "shaper":
			if i+1 >= len(args) {
				return nil, tcword.IncompleteCommand()
			}
			i++
			switch {
			case tcfmt.Matches(args[i], "dcb"):
				shaper = mqprioShaperDCB
			case tcfmt.Matches(args[i], "bw_rlimit"):
				shaper = mqprioShaperBWRate
				if i+1 >= len(args) {
					return nil, tcword.Errorf("Incomplete shaper arguments")
				}
			default:
				return nil, tcword.Errorf("Illegal shaper (%s)", args[i])
			}
			if shaper != mqprioShaperDCB {
				a.Shaper = &shaper
			}
		case shaper == mqprioShaperBWRate && (w == mqprioMinRate || w == mqprioMaxRate):
			rates := &minRate
			if w == mqprioMaxRate {
				rates, hasMax = &maxRate, true
			} else {
				hasMin = true
			}
			n := 0
			for ; n < maxTC && i+1 < len(args); n++ {
				v, err := tcfmt.ParseRate(args[i+1])
				if err != nil {
					break
				}
				i++
				rates[n] = v
			}
			if n < int(opt.NumTC) && i+1 >= len(args) {
				return nil, tcword.Errorf("Incomplete arguments, %s values expected", w)
			}
		case w == "help":
			return nil, &tcword.ParseError{ShowUsage: true}
		default:
			return nil, tcword.InvalidArgument(w, "unknown argument")
		}
	}
	if lists.pairs > int(opt.NumTC) {
		return nil, tcword.Errorf("queues count/offset pair count %d can not be higher than given num_tc %d", lists.pairs, opt.NumTC)
	}
	// A second "fp" counts on from the first one's count while it fills
	// the list from the start again; past 16 tc reads beyond its array,
	// where gotc stops.
	for tc := range min(lists.nfp, maxTC) {
		index, fp := uint32(tc), lists.fp[tc]
		a.TCEntry = append(a.TCEntry, attrs.MQPrioTCEntryAttrs{Index: &index, FP: &fp})
	}
	if hasMin {
		a.MinRate64 = &attrs.MQPrioRatesAttrs{Min: minRate[:]}
	}
	if hasMax {
		a.MaxRate64 = &attrs.MQPrioRatesAttrs{Max: maxRate[:]}
	}
	return &attrs.TCOptionsMsgMQPrio{Header: opt, Attrs: a}, nil
}

// mqprioIndent lines up mqprio's continuation lines under its options.
const mqprioIndent = "\n             "

// printMQPrio prints mqprio's options as tc does:
//
//	tc 8 map 0 1 2 3 4 5 6 7 0 0 0 0 0 0 0 0
//	             queues:(0:0) (1:1) ...
//	             mode:dcb
//	             shaper:dcb
//	             fp: E E E E E E E E E E E E E E E E
//
// with min_rate/max_rate after the shaper when set; in JSON "tc", "map",
// "queues" as [first, last] pairs, "mode", "shaper", the rate arrays and
// "fp". The lines after the queues appear when the dump has attributes,
// which this kernel's always has.
func printMQPrio(p *tcfmt.Printer, o *attrs.TCOptionsMsgMQPrio) {
	const both = tcfmt.Any
	q := &o.Header
	p.Uint(both, "tc", "tc %u ", uint64(q.NumTC))
	p.OpenArray(both, textOrJSON(p, "map ", "map"))
	for _, tc := range q.PrioTCMap {
		p.Uint(both, "", "%u ", uint64(tc))
	}
	p.CloseArray(both, "")
	p.OpenArray(both, textOrJSON(p, mqprioIndent+"queues:", "queues"))
	for i := 0; i < int(q.NumTC) && i < maxTC; i++ {
		p.OpenArray(tcfmt.JSON, "")
		p.Uint(both, "", "(%u:", uint64(q.Offset[i]))
		// tc computes the last queue in int, so an empty class shows
		// one below its offset.
		p.Uint(both, "", "%u) ", uint64(uint32(int32(q.Offset[i])+int32(q.Count[i])-1)))
		p.CloseArray(tcfmt.JSON, "")
	}
	p.CloseArray(both, "")
	a := &o.Attrs
	if !mqprioHasAttrs(a) {
		return
	}
	switch {
	case a.Mode == nil:
		p.String(both, "mode", mqprioIndent+"mode:%s", "dcb")
	case *a.Mode == mqprioModeChannel:
		p.String(both, "mode", mqprioIndent+"mode:%s", "channel")
	}
	switch {
	case a.Shaper == nil:
		p.String(both, "shaper", mqprioIndent+"shaper:%s", "dcb")
	case *a.Shaper == mqprioShaperBWRate:
		p.String(both, "shaper", mqprioIndent+"shaper:%s", "bw_rlimit")
	}
	printRates := func(key string, vals []uint64) {
		var rates [maxTC]uint64
		copy(rates[:], vals)
		p.OpenArray(both, textOrJSON(p, "\t"+key+":", key))
		for i := 0; i < int(q.NumTC) && i < maxTC; i++ {
			p.Rate(both, "", "%s ", rates[i])
		}
		p.CloseArray(both, "")
	}
	if a.MinRate64 != nil {
		printRates(mqprioMinRate, a.MinRate64.Min)
	}
	if a.MaxRate64 != nil {
		printRates(mqprioMaxRate, a.MaxRate64.Max)
	}
	var fp [maxTC]uint32
	last := -1
	for _, e := range a.TCEntry {
		if e.Index == nil || *e.Index >= maxTC || e.FP == nil {
			continue
		}
		fp[*e.Index] = *e.FP
		last = max(last, int(*e.Index))
	}
	printFP(p, textOrJSON(p, mqprioIndent+"fp:", "fp"), fp[:last+1])
}

// mqprioHasAttrs reports whether mqprio's dump carried attributes after
// its struct, which is when tc prints its lines after the queues.
func mqprioHasAttrs(a *attrs.MQPrioAttrs) bool {
	return a.Mode != nil || a.Shaper != nil || a.MinRate64 != nil || a.MaxRate64 != nil ||
		len(a.TCEntry) > 0 || len(a.Unknown) > 0
}

// textOrJSON is tc's is_json_context() ? json : text, for the arrays whose
// text delimiter is not their JSON key.
func textOrJSON(p *tcfmt.Printer, text, json string) tcfmt.Name {
	if p.IsJSON() {
		return tcfmt.Name(json)
	}
	return tcfmt.Name(text)
}

// allExpress reports traffic-class entries that hold nothing but the
// kernel's default, express, for classes 0, 1, ... in order.
func allExpress(entries []attrs.MQPrioTCEntryAttrs) bool {
	for i, e := range entries {
		if e.Index == nil || *e.Index != uint32(i) || e.FP == nil || *e.FP != fpExpress || e.Unknown != nil {
			return false
		}
	}
	return true
}

// mqprioDumped is what the kernel dumps of a request: an entry for each
// of the 16 traffic classes, express unless the request's "fp" said
// otherwise.
func mqprioDumped(opts attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	o, ok := opts.(*attrs.TCOptionsMsgMQPrio)
	if !ok {
		return opts
	}
	out := *o
	fp := [maxTC]uint32{}
	for i := range fp {
		fp[i] = fpExpress
	}
	for _, e := range o.Attrs.TCEntry {
		if e.Index != nil && e.FP != nil && *e.Index < maxTC {
			fp[*e.Index] = *e.FP
		}
	}
	out.Attrs.TCEntry = make([]attrs.MQPrioTCEntryAttrs, maxTC)
	for i := range fp {
		out.Attrs.TCEntry[i] = attrs.MQPrioTCEntryAttrs{Index: new(uint32(i)), FP: new(fp[i])}
	}
	return &out
}

// mqprioKeywords writes mqprio's traffic classes, hw, mode, shaper and
// its rates, and the frame preemption of each of the 16 classes, which
// the kernel always dumps.
func mqprioKeywords(o *attrs.TCOptionsMsgMQPrio) ([]string, error) {
	a := &o.Attrs
	w := append(qoptKeywords(&o.Header), "hw", tcword.UintWord(o.Header.HW))
	// mode and shaper are keywords only with hw, and the rates only
	// after "shaper bw_rlimit".
	hw := o.Header.HW != 0
	if a.Mode != nil && *a.Mode != mqprioModeDCB {
		if !hw || *a.Mode != mqprioModeChannel {
			return nil, tckind.NoKeywords("mqprio mode " + strconv.Itoa(int(*a.Mode)) + " without hw")
		}
		w = append(w, "mode", "channel")
	}
	bwRate := a.Shaper != nil && *a.Shaper == mqprioShaperBWRate
	if a.Shaper != nil && *a.Shaper != mqprioShaperDCB {
		if !hw || !bwRate {
			return nil, tckind.NoKeywords("mqprio shaper " + strconv.Itoa(int(*a.Shaper)) + " without hw")
		}
		w = append(w, "shaper", "bw_rlimit")
	}
	rates := func(key string, r *attrs.MQPrioRatesAttrs, vals func(*attrs.MQPrioRatesAttrs) []uint64) error {
		if r == nil {
			return nil
		}
		if !bwRate {
			return tckind.NoKeywords("mqprio " + key + " without shaper bw_rlimit")
		}
		w = append(w, key)
		for _, v := range vals(r) {
			w = append(w, tcword.RateWord(v))
		}
		return nil
	}
	if err := rates(mqprioMinRate, a.MinRate64, func(r *attrs.MQPrioRatesAttrs) []uint64 { return r.Min }); err != nil {
		return nil, err
	}
	if err := rates(mqprioMaxRate, a.MaxRate64, func(r *attrs.MQPrioRatesAttrs) []uint64 { return r.Max }); err != nil {
		return nil, err
	}
	if allExpress(a.TCEntry) {
		// The kernel's default, which it dumps for every class: asking
		// for it would send attributes a software mqprio refuses.
		return w, nil
	}
	fp := make([]uint32, len(a.TCEntry))
	for i, e := range a.TCEntry {
		// "fp" makes an entry for each class from 0 in order, each with
		// its fp: other lists have no words.
		if e.Index == nil || *e.Index != uint32(i) || e.FP == nil {
			return nil, tckind.NoKeywords("mqprio traffic class entries other than fp of classes 0, 1, ...")
		}
		fp[i] = *e.FP
	}
	return fpKeywords(w, fp)
}
