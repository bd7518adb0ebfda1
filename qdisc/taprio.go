// SPDX-License-Identifier: Apache-2.0

package qdisc

// taprio (net/sched/sch_taprio.c): IEEE 802.1Qbv time-aware scheduling, a
// cycle of gate states over the traffic classes, as iproute2 7.x's
// tc/q_taprio.c sets and prints it.
//
// What tc does, and gotc with it:
//
//   - "num_tc", "map", "queues" and "fp" are read as mqprio reads them
//     (mqprioqopt.go), but from an all-zero tc_mqprio_qopt, which is sent only
//     when num_tc is not 0.
//   - "sched-entry CMD MASK INTERVAL" adds an entry (S, H or R; the mask in
//     hex; the interval in any base); the schedule list is always sent,
//     empty or not, with NLA_F_NESTED.
//   - "base-time", "cycle-time" and "cycle-time-extension" are get_s64 in
//     base 10: a value that does not parse ends the parsing there, and what
//     was read so far is sent. "flags" and "txtime-delay" refuse a bad
//     value without a message. A second cycle-time, cycle-time-extension,
//     clockid, flags or txtime-delay is refused only when the first was not
//     zero.
//   - Values of 0 are not sent; "max-sdu" and "fp" make one
//     TCA_TAPRIO_ATTR_TC_ENTRY per traffic class up to the longer list.

import (
	"strconv"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// taprioUsage is tc's explain() for taprio, tabs and all.
const taprioUsage = "Usage: ... taprio clockid CLOCKID\n" +
	"		[num_tc NUMBER] [map P0 P1 ...]\n" +
	"		[queues COUNT@OFFSET COUNT@OFFSET COUNT@OFFSET ...]\n" +
	"		[ [sched-entry index cmd gate-mask interval] ... ]\n" +
	"		[base-time time] [txtime-delay delay]\n" +
	"		[fp FP0 FP1 FP2 ...]\n" +
	"\n" +
	"CLOCKID must be a valid SYS-V id (i.e. CLOCK_TAI)"

// taprioEntryUsage is what tc prints for a sched-entry it cannot read.
const taprioEntryUsage = "Usage: ... taprio ... sched-entry <cmd> <gate mask> <interval>"

// taprioCommands are the schedule entries' commands (TC_TAPRIO_CMD_*) by
// their number.
var taprioCommands = [...]string{"S", "H", "R"}

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:         "taprio",
			MakesClasses: true,
			Usage:        taprioUsage,
			ParseQdisc: func(args []string, _ tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
				return parseTAPrio(args)
			},
			PrintOptions: func(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
				if o, ok := opts.(*attrs.TAPrioAttrs); ok {
					printTAPrio(p, o)
				}
			},
			PrintXstats:      printTAPrioXstats,
			PrintClassXstats: printTAPrioXstats,
			Stats:            taprioStatsTable,
			Keywords:         tckind.KeywordsOf("taprio", taprioKeywords),
			Dumped:           taprioDumped,
			// The dump is the request that restores it: the words leave out
			// the entries' numbers, which taprioDumped only adds.
			Restoring: func(o attrs.TCOptionsMsg) attrs.TCOptionsMsg { return o },
		})
	}, "taprio")
}

// parseTAPrio reads taprio's keywords into the options tc sends.
func parseTAPrio(args []string) (*attrs.TAPrioAttrs, error) {
	var (
		opt       attrs.TCMQPrioQopt
		lists     tcLists
		maxSDU    [maxTC]uint32
		nsdu      int
		entries   []attrs.TAPrioSchedEntry
		clockid   int32 = tcword.ClockidInvalid
		flags     uint32
		txtime    uint32
		base      int64
		cycle     int64
		extension int64
		err       error
	)
	// s64 reads a get_s64 value: ok is false when it does not parse, where
	// tc stops reading and sends what it has.
	s64 := func(i int, dst *int64) (int, bool, error) {
		if i+1 >= len(args) {
			return i, false, tcword.IncompleteCommand()
		}
		v, err := tcfmt.ParseInt(args[i+1], 10, 64)
		if err != nil {
			return i, false, nil
		}
		*dst = v
		return i + 1, true, nil
	}
	u32 := func(i int, dst *uint32) (int, error) {
		v, err := tcfmt.ParseUint(args[i], 0, 32)
		if err != nil {
			return i, tcword.Errorf("")
		}
		*dst = uint32(v)
		return i, nil
	}
	duplicate := func(keyword string) error {
		return tcword.Errorf("taprio: duplicate %q specification", keyword)
	}
parse:
	for i := 0; i < len(args); i++ {
		switch w := args[i]; w {
		case "num_tc":
			if i, err = numTC(args, i, &opt); err != nil {
				return nil, err
			}
		case "map":
			i = priorityMap(args, i, &opt)
		case "queues":
			i = lists.queues(args, i, &opt)
		case "fp":
			i = lists.fpList(args, i)
		case "max-sdu":
			lists.entries = true
			for n := 0; n < maxTC && i+1 < len(args); n++ {
				v, err := tcfmt.ParseUint(args[i+1], 10, 32)
				if err != nil {
					break
				}
				i++
				maxSDU[n] = uint32(v)
				nsdu++
			}
		case "sched-entry":
			if i+1 >= len(args) {
				return nil, tcword.IncompleteCommand()
			}
			i++
			cmd := uint8(len(taprioCommands))
			for c, name := range taprioCommands {
				if args[i] == name {
					cmd = uint8(c)
				}
			}
			if int(cmd) == len(taprioCommands) {
				return nil, tcword.Errorf(taprioEntryUsage)
			}
			if i+1 >= len(args) {
				return nil, tcword.IncompleteCommand()
			}
			i++
			mask, err := tcfmt.ParseUint(args[i], 16, 32)
			if err != nil {
				return nil, tcword.Errorf(taprioEntryUsage)
			}
			if i+1 >= len(args) {
				return nil, tcword.IncompleteCommand()
			}
			i++
			interval, err := tcfmt.ParseUint(args[i], 0, 32)
			if err != nil {
				return nil, tcword.Errorf(taprioEntryUsage)
			}
			gates, ns := uint32(mask), uint32(interval)
			entries = append(entries, attrs.TAPrioSchedEntry{Cmd: &cmd, GateMask: &gates, Interval: &ns})
		case "base-time", "cycle-time", "cycle-time-extension":
			dst := &base
			switch w {
			case "cycle-time":
				dst = &cycle
			case "cycle-time-extension":
				dst = &extension
			}
			if w != "base-time" && i+1 < len(args) && *dst != 0 {
				return nil, duplicate(w)
			}
			var ok bool
			if i, ok, err = s64(i, dst); err != nil {
				return nil, err
			} else if !ok {
				break parse
			}
		case "clockid":
			if i+1 >= len(args) {
				return nil, tcword.IncompleteCommand()
			}
			i++
			if clockid != tcword.ClockidInvalid {
				return nil, duplicate(w)
			}
			id, ok := tcword.ParseClockid(args[i])
			if !ok {
				return nil, tcword.Errorf("taprio: illegal value for \"clockid\": \"%s\".\nIt must be a valid SYS-V id (i.e. CLOCK_TAI)", args[i])
			}
			clockid = id
		case "flags", "txtime-delay":
			if i+1 >= len(args) {
				return nil, tcword.IncompleteCommand()
			}
			i++
			dst := &flags
			if w == "txtime-delay" {
				dst = &txtime
			}
			if *dst != 0 {
				return nil, duplicate(w)
			}
			if i, err = u32(i, dst); err != nil {
				return nil, err
			}
		case "help":
			return nil, &tcword.ParseError{ShowUsage: true}
		default:
			return nil, tcword.Errorf("Unknown argument")
		}
	}
	o := &attrs.TAPrioAttrs{SchedEntryList: &attrs.TAPrioSchedEntryList{Entry: entries}}
	if clockid != tcword.ClockidInvalid {
		o.SchedClockid = &clockid
	}
	if flags != 0 {
		o.Flags = &flags
	}
	if opt.NumTC > 0 {
		o.Priomap = &opt
	}
	if txtime != 0 {
		o.TxtimeDelay = &txtime
	}
	if base != 0 {
		o.SchedBaseTime = &base
	}
	if cycle != 0 {
		o.SchedCycleTime = &cycle
	}
	if extension != 0 {
		o.SchedCycleTimeExtension = &extension
	}
	if lists.entries {
		// As in mqprio, the counts add up over repeated keywords; gotc
		// stops at 16 where tc would read past its arrays.
		for tc := 0; tc < min(max(nsdu, lists.nfp), maxTC); tc++ {
			e := attrs.TAPrioTCEntryAttrs{Index: tcword.PtrTo(uint32(tc))}
			if tc < nsdu {
				e.MaxSDU = tcword.PtrTo(maxSDU[tc])
			}
			if tc < lists.nfp {
				e.FP = tcword.PtrTo(lists.fp[tc])
			}
			o.TCEntry = append(o.TCEntry, e)
		}
	}
	return o, nil
}

// printTAPrio prints taprio's options as tc does: the traffic classes
// and their queues, the clock and flags, the operational schedule and,
// under "admin" in JSON, the pending one, then each traffic class's
// max-sdu and fp. Without TCA_TAPRIO_ATTR_PRIOMAP tc prints nothing.
func printTAPrio(p *tcfmt.Printer, o *attrs.TAPrioAttrs) {
	const both = tcfmt.Any
	q := o.Priomap
	if q == nil {
		return
	}
	p.Uint(both, "tc", "tc %u ", uint64(q.NumTC))
	p.OpenArray(both, "map")
	for _, tc := range q.PrioTCMap {
		p.Uint(both, "", " %u", uint64(tc))
	}
	p.CloseArray(both, "")
	p.NL()
	p.OpenArray(both, "queues")
	for i := 0; i < int(q.NumTC) && i < maxTC; i++ {
		p.OpenObject("")
		p.Uint(both, "offset", " offset %u", uint64(q.Offset[i]))
		p.Uint(both, "count", " count %u", uint64(q.Count[i]))
		p.CloseObject()
	}
	p.CloseArray(both, "")
	p.NL()
	if o.SchedClockid != nil {
		p.String(both, "clockid", "clockid %s", tcword.ClockName(*o.SchedClockid))
	}
	if o.Flags != nil {
		p.Hex0x(both, "flags", " flags %#x", uint64(*o.Flags))
	}
	if o.TxtimeDelay != nil {
		// tc reads it as s32 into a u32 and prints it with %d.
		p.Uint(tcfmt.JSON, "txtime_delay", "", uint64(*o.TxtimeDelay))
		p.Int(tcfmt.FP, "", " txtime delay %d", int64(int32(*o.TxtimeDelay)))
	}
	printTAPrioSchedule(p, o)
	if o.AdminSched != nil {
		p.OpenObject("admin")
		printTAPrioSchedule(p, o.AdminSched)
		p.CloseObject()
	}
	var maxSDU, fp [maxTC]uint32
	lastSDU, lastFP := -1, -1
	for _, e := range o.TCEntry {
		if e.Index == nil || *e.Index >= maxTC {
			continue
		}
		tc := int(*e.Index)
		if e.MaxSDU != nil {
			maxSDU[tc], lastSDU = *e.MaxSDU, max(lastSDU, tc)
		}
		if e.FP != nil {
			fp[tc], lastFP = *e.FP, max(lastFP, tc)
		}
	}
	if lastSDU >= 0 {
		p.OpenArray(both, "max-sdu")
		for _, v := range maxSDU[:lastSDU+1] {
			p.Uint(both, "", " %u", uint64(v))
		}
		p.CloseArray(both, "")
		p.NL()
	}
	printFP(p, "fp", fp[:lastFP+1])
}

// printTAPrioSchedule prints one schedule, the operational at the top of
// the options or the administrative one in TCA_TAPRIO_ATTR_ADMIN_SCHED:
// base time, cycle time, extension, then an entry a line.
func printTAPrioSchedule(p *tcfmt.Printer, o *attrs.TAPrioAttrs) {
	const both = tcfmt.Any
	// tc prints these s64 with print_lluint: unsigned in JSON, "%lld"
	// in text.
	s64 := func(key tcfmt.Name, format string, v *int64) {
		if v != nil {
			p.Uint(tcfmt.JSON, key, "", uint64(*v))
			p.Int(tcfmt.FP, "", format, *v)
		}
	}
	s64("base_time", "\tbase-time %lld", o.SchedBaseTime)
	s64("cycle_time", " cycle-time %lld", o.SchedCycleTime)
	s64("cycle_time_extension", " cycle-time-extension %lld", o.SchedCycleTimeExtension)
	if o.SchedEntryList == nil {
		return
	}
	p.OpenArray(tcfmt.JSON, "schedule")
	p.NL()
	for _, e := range o.SchedEntryList.Entry {
		p.OpenObject("")
		if e.Index != nil {
			p.Uint(both, "index", "\tindex %u", uint64(*e.Index))
		}
		if e.Cmd != nil {
			name := "Invalid"
			if int(*e.Cmd) < len(taprioCommands) {
				name = taprioCommands[*e.Cmd]
			}
			p.String(both, "cmd", " cmd %s", name)
		}
		if e.GateMask != nil {
			p.Hex0x(both, "gatemask", " gatemask %#llx", uint64(*e.GateMask))
		}
		if e.Interval != nil {
			p.Uint(both, "interval", " interval %u", uint64(*e.Interval))
		}
		p.CloseObject()
		p.NL()
	}
	p.CloseArray(both, "")
}

// printTAPrioXstats prints the statistics an offloading device reports
// for taprio or one of its classes: window_drops and tx_overruns, each
// when present.
func printTAPrioXstats(p *tcfmt.Printer, x tckind.Xstats) {
	s, ok := x.App.(*attrs.TAPrioOffloadStatsAttrs)
	if !ok || s == nil {
		return
	}
	if s.WindowDrops != nil {
		p.Uint(tcfmt.Any, "window_drops", " window_drops %llu", *s.WindowDrops)
	}
	if s.TxOverruns != nil {
		p.Uint(tcfmt.Any, "tx_overruns", " tx_overruns %llu", *s.TxOverruns)
	}
}

// taprioStatsTable lists the statistics an offloading device reports (in
// TCA_STATS_APP only), in tc's order; each is absent when the device
// reports none.
var taprioStatsTable = &tckind.StatsTable{
	Of: func(x tckind.Xstats) any {
		if s, ok := x.App.(*attrs.TAPrioOffloadStatsAttrs); ok && s != nil {
			return s
		}
		return nil
	},
	Fields: taprioOffloadStatsAttrsFields,
}

// taprioKeywords writes taprio's traffic classes, clock, flags, txtime
// delay, schedule (its entries, base time, cycle time and extension) and
// each traffic class's max-sdu and fp, which the kernel dumps for all 16.
func taprioKeywords(o *attrs.TAPrioAttrs) ([]string, error) {
	if o.AdminSched != nil {
		// A schedule asked for while another runs waits for its base
		// time beside it: one command asks for one schedule, and no
		// words for the two.
		return nil, tckind.NoKeywords("taprio's pending (admin) schedule beside the running one")
	}
	if o.SchedSingleEntry != nil {
		return nil, tckind.NoKeywords("taprio sched single entry") // tc has no words for it
	}
	var w []string
	if q := o.Priomap; q != nil && q.NumTC > 0 {
		// The struct's hw is not tc's to ask for here: taprio reads
		// only the classes, and the kernel sets hw for full offload
		// (flags).
		w = qoptKeywords(q)
	}
	if o.SchedClockid != nil {
		name := tcword.ClockName(*o.SchedClockid)
		if _, ok := tcword.ParseClockid(name); !ok {
			return nil, tckind.NoKeywords("taprio clockid " + strconv.Itoa(int(*o.SchedClockid)))
		}
		w = append(w, "clockid", "CLOCK_"+name)
	}
	if o.Flags != nil && *o.Flags != 0 {
		w = append(w, "flags", "0x"+strconv.FormatUint(uint64(*o.Flags), 16))
	}
	if o.TxtimeDelay != nil && *o.TxtimeDelay != 0 {
		w = append(w, "txtime-delay", tcword.UintWord(*o.TxtimeDelay))
	}
	if l := o.SchedEntryList; l != nil {
		for _, e := range l.Entry {
			if e.Cmd == nil || int(*e.Cmd) >= len(taprioCommands) || e.GateMask == nil || e.Interval == nil {
				return nil, tckind.NoKeywords("taprio schedule entry without command, gate mask or interval")
			}
			w = append(w, "sched-entry", taprioCommands[*e.Cmd],
				strconv.FormatUint(uint64(*e.GateMask), 16), tcword.UintWord(*e.Interval))
		}
	}
	// 0 is what tc leaves out for each of these.
	for _, t := range []struct {
		key string
		v   *int64
	}{{"base-time", o.SchedBaseTime}, {"cycle-time", o.SchedCycleTime}, {"cycle-time-extension", o.SchedCycleTimeExtension}} {
		if t.v != nil && *t.v != 0 {
			w = append(w, t.key, strconv.FormatInt(*t.v, 10))
		}
	}
	// "max-sdu" and "fp" each make an entry for the classes from 0 in
	// order: the dump's must be that, each list a prefix of them.
	var maxSDU, fp []uint32
	for i, e := range o.TCEntry {
		if e.Index == nil || *e.Index != uint32(i) ||
			e.MaxSDU != nil && len(maxSDU) != i || e.FP != nil && len(fp) != i {
			return nil, tckind.NoKeywords("taprio traffic class entries other than max-sdu and fp of classes 0, 1, ...")
		}
		if e.MaxSDU != nil {
			maxSDU = append(maxSDU, *e.MaxSDU)
		}
		if e.FP != nil {
			fp = append(fp, *e.FP)
		}
	}
	if len(maxSDU) > 0 {
		w = append(w, "max-sdu")
		for _, v := range maxSDU {
			w = append(w, tcword.UintWord(v))
		}
	}
	return fpKeywords(w, fp)
}

// taprioDumped is Kind.Dumped for taprio (taprio_change, dump_schedule
// and taprio_dump_tc_entries). Of a request with a schedule, the kernel
// numbers the entries, which tc sends without their index; makes the
// cycle time the sum of the intervals where the request gives none (or
// 0); and keeps 0 for a base time or cycle extension left out, as each
// request makes a new schedule. Of its traffic-class entries it dumps one
// for each of the 16 classes: those the request leaves out carry only
// their index here, their max-sdu and fp not compared, since the kernel
// keeps what an earlier request set (and a new qdisc's 0 and express).
func taprioDumped(opts attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	o, ok := opts.(*attrs.TAPrioAttrs)
	if !ok || o == nil {
		return opts
	}
	d := *o
	if o.SchedEntryList != nil {
		l := *o.SchedEntryList
		l.Entry = append([]attrs.TAPrioSchedEntry(nil), l.Entry...)
		var cycle int64
		for i := range l.Entry {
			if l.Entry[i].Index == nil {
				l.Entry[i].Index = tcword.PtrTo(uint32(i))
			}
			if l.Entry[i].Interval != nil {
				cycle += int64(*l.Entry[i].Interval)
			}
		}
		d.SchedEntryList = &l
		if d.SchedCycleTime == nil || *d.SchedCycleTime == 0 {
			d.SchedCycleTime = &cycle
		}
		if d.SchedBaseTime == nil {
			d.SchedBaseTime = tcword.PtrTo(int64(0))
		}
		if d.SchedCycleTimeExtension == nil {
			d.SchedCycleTimeExtension = tcword.PtrTo(int64(0))
		}
	}
	if len(o.TCEntry) > 0 {
		all := make([]attrs.TAPrioTCEntryAttrs, taprioMaxTC)
		for i := range all {
			all[i].Index = tcword.PtrTo(uint32(i))
		}
		for _, e := range o.TCEntry {
			if e.Index == nil || *e.Index >= taprioMaxTC {
				return &d // the kernel refuses it; nothing to number
			}
			all[*e.Index] = e
		}
		d.TCEntry = all
	}
	return &d
}

// taprioMaxTC is TC_QOPT_MAX_QUEUE, the traffic classes whose entries the
// kernel dumps.
const taprioMaxTC = 16
