// SPDX-License-Identifier: Apache-2.0

package action

// The gate action (net/sched/act_gate.c, IEEE 802.1Qci stream gating): a
// schedule of open and closed intervals that repeats every cycle from a
// base time, as tc 7.3's m_gate.c reads and prints it.

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

const gateUsage = `Usage: gate [ priority PRIO-SPEC ] [ base-time BASE-TIME ]
       [ cycle-time CYCLE-TIME ]
       [ cycle-time-ext CYCLE-TIME-EXT ]
       [ clockid CLOCKID ] [flags FLAGS]
       [ sched-entry GATE0 INTERVAL [ INTERNAL-PRIO-VALUE MAX-OCTETS ] ]
       [ sched-entry GATE1 INTERVAL [ INTERNAL-PRIO-VALUE MAX-OCTETS ] ]
       ......
       [ sched-entry GATEn INTERVAL [ INTERNAL-PRIO-VALUE MAX-OCTETS ] ]
       [ CONTROL ]
       GATEn := open | close
       INTERVAL : nanoseconds period of gate slot
       INTERNAL-PRIO-VALUE : internal priority decide which
                             rx queue number direct to.
                             default to be -1 which means wildcard.
       MAX-OCTETS : maximum number of MSDU octets that are
                    permitted to pas the gate during the
                    specified TimeInterval.
                    default to be -1 which means wildcard.
       CONTROL := pipe | drop | continue | pass |
                  goto chain <CHAIN_INDEX>`

// gateEntryIncomplete is what tc prints for a sched-entry it cannot read.
const gateEntryIncomplete = "Usage: sched-entry <open | close> <interval> [ <interval ipv> <octets max bytes> ]\n\"sched-entry\" is incomplete"

func init() {
	tckind.LazilyActions(func() {
		tckind.MustRegisterAction(&tckind.Action{
			Name:       "gate",
			Usage:      gateUsage,
			Parse:      parseGate,
			Print:      printGate,
			Keywords:   gateKeywords,
			Dumped:     gateDumped,
			PrintStats: printGateStats,
			// A plain line end, as the printer's other line ends are.
			LineEnd: "\n",
		})
	}, "gate")
}

// gateInvalid is tc's invarg(what, arg) for the gate's values.
func gateInvalid(what, arg string) *tcword.ParseError {
	return tcword.InvalidArgument(arg, what)
}

// gateTime reads a time in nanoseconds as m_gate.c does: a plain decimal
// number, else tc's time form (get_time64).
func gateTime(s string) (int64, bool) {
	if v, err := tcfmt.ParseInt(s, 10, 64); err == nil {
		return v, true
	}
	v, err := tcfmt.ParseTime64(s)
	return v, err == nil
}

// parseGate is m_gate.c's parse_gate: the options in any order, each
// sched-entry adding one interval to the schedule, then a verdict (pipe by
// default).
func parseGate(args []string, env tckind.ActionEnv) (attrs.ActOptionsMsg, []string, error) {
	if len(args) < 2 {
		return nil, args, tcword.IncompleteCommand()
	}
	args = args[1:]
	p := &attrs.TCGate{Action: actPipe}
	o := &attrs.ActGateAttrs{Parms: p}
	var (
		prio                              int32 = -1
		clockid                           int32 = tcword.ClockidInvalid
		flags                             uint32
		baseTime, cycleTime, cycleTimeExt int64
		entries                           []attrs.ActGateEntry
	)
	// value is NEXT_ARG: the word after a keyword.
	value := func() (string, error) {
		if len(args) < 2 {
			return "", tcword.IncompleteCommand()
		}
		args = args[1:]
		return args[0], nil
	}
loop:
	for len(args) > 0 {
		w := args[0]
		switch {
		case tcfmt.Matches(w, "index"):
			v, err := value()
			if err != nil {
				return nil, args, err
			}
			n, perr := tcfmt.ParseUint(v, 10, 32)
			if perr != nil {
				return nil, args, gateInvalid("index", v)
			}
			p.Index = uint32(n)
		case tcfmt.Matches(w, "priority"):
			v, err := value()
			if err != nil {
				return nil, args, err
			}
			n, perr := tcfmt.ParseInt(v, 0, 32)
			if perr != nil {
				return nil, args, gateInvalid("priority", v)
			}
			prio = int32(n)
		case tcfmt.Matches(w, "base-time"), tcfmt.Matches(w, "cycle-time"), tcfmt.Matches(w, "cycle-time-ext"):
			// tc tests them in this order, so an abbreviation means the
			// first that it begins.
			name, dst := "base-time", &baseTime
			switch {
			case tcfmt.Matches(w, "base-time"):
			case tcfmt.Matches(w, "cycle-time"):
				name, dst = "cycle-time", &cycleTime
			default:
				name, dst = "cycle-time-ext", &cycleTimeExt
			}
			v, err := value()
			if err != nil {
				return nil, args, err
			}
			t, ok := gateTime(v)
			if !ok {
				return nil, args, gateInvalid(name, v)
			}
			*dst = t
		case tcfmt.Matches(w, "clockid"):
			v, err := value()
			if err != nil {
				return nil, args, err
			}
			id, ok := tcword.ParseClockid(v)
			if !ok {
				return nil, args, gateInvalid("clockid", v)
			}
			clockid = id
		case tcfmt.Matches(w, "flags"):
			v, err := value()
			if err != nil {
				return nil, args, err
			}
			n, perr := tcfmt.ParseUint(v, 0, 32)
			if perr != nil {
				return nil, args, gateInvalid("flags", v)
			}
			flags = uint32(n)
		case tcfmt.Matches(w, "sched-entry"):
			e, rest, err := parseGateEntry(args)
			if err != nil {
				return nil, args, err
			}
			entries = append(entries, e)
			args = rest
		case tcfmt.Matches(w, "help"):
			return nil, args, &tcword.ParseError{Msg: gateUsage, Code: 255}
		default:
			break loop
		}
		args = args[1:]
	}
	code, args, err := parseActionControlDefault(args, actPipe, env.Stderr)
	if err != nil {
		return nil, args, err
	}
	p.Action = code
	if len(entries) == 0 && p.Index == 0 {
		return nil, args, tcword.Errorf("gate: must add at least one entry")
	}
	if prio != -1 {
		o.Priority = &prio
	}
	if flags != 0 {
		o.Flags = &flags
	}
	for _, t := range []struct {
		v   int64
		dst **uint64
	}{{baseTime, &o.BaseTime}, {cycleTime, &o.CycleTime}, {cycleTimeExt, &o.CycleTimeExt}} {
		if t.v != 0 {
			u := uint64(t.v)
			*t.dst = &u
		}
	}
	if clockid != tcword.ClockidInvalid {
		o.Clockid = &clockid
	}
	o.EntryList = &attrs.ActGateEntryList{Entry: entries}
	return o, args, nil
}

// parseGateEntry reads "sched-entry open|close INTERVAL [IPV [MAXOCTETS]]"
// from args[0] on. The rest it returns starts at the last word it read, as
// tc's loop steps past it; IPV and MAXOCTETS are read only if they are
// numbers (and a size, for MAXOCTETS), and a closed gate takes neither.
func parseGateEntry(args []string) (attrs.ActGateEntry, []string, error) {
	var e attrs.ActGateEntry
	if len(args) < 2 {
		return e, args, tcword.Errorf("%s", gateEntryIncomplete)
	}
	args = args[1:]
	switch {
	case strings.EqualFold(args[0], "open"):
		e.Gate = true
	case strings.EqualFold(args[0], "close"):
	default:
		return e, args, tcword.Errorf("%s", gateEntryIncomplete)
	}
	if len(args) < 2 {
		return e, args, tcword.Errorf("%s", gateEntryIncomplete)
	}
	args = args[1:]
	var interval uint32
	if v, err := tcfmt.ParseUint(args[0], 0, 32); err == nil {
		interval = uint32(v)
	} else {
		t, err := tcfmt.ParseTime64(args[0])
		if err != nil {
			return e, args, tcword.Errorf("%s", gateEntryIncomplete)
		}
		if t > math.MaxUint32 {
			return e, args, tcword.Errorf(`"interval" is too large`)
		}
		if t != 0 {
			interval = uint32(t)
		}
	}
	ipv, maxOctets := int32(-1), int32(-1)
	e.Interval, e.Ipv, e.MaxOctets = &interval, &ipv, &maxOctets
	if len(args) < 2 {
		return e, args, nil
	}
	v, err := tcfmt.ParseInt(args[1], 0, 32)
	if err != nil {
		return e, args, nil
	}
	args = args[1:]
	if e.Gate {
		ipv = int32(v)
	}
	if len(args) < 2 {
		return e, args, nil
	}
	if v, err := tcfmt.ParseInt(args[1], 0, 32); err == nil {
		maxOctets = int32(v)
		args = args[1:]
	} else if sz, err := tcfmt.ParseSize(args[1]); err == nil {
		if sz > math.MaxInt32 {
			return e, args, tcword.Errorf(`"maxoctets" is too large`)
		}
		if sz != 0 {
			maxOctets = int32(sz)
		}
		args = args[1:]
	}
	if !e.Gate {
		maxOctets = -1
	}
	return e, args, nil
}

// printGate is m_gate.c's print_gate up to its last line's end. tc prints
// no kind for a gate.
func printGate(p *tcfmt.Printer, opts attrs.ActOptionsMsg, _ tckind.Links) {
	o, ok := opts.(*attrs.ActGateAttrs)
	if !ok || o.Parms == nil {
		return
	}
	// Plain line ends here and below where tc prints "\n" (not its -oneline
	// separator).
	p.Text("\n")
	prio := int32(-1)
	if o.Priority != nil {
		prio = *o.Priority
	}
	if prio != -1 {
		p.Int(tcfmt.Any, "priority", "\tpriority %-8d", int64(prio))
	} else {
		p.Text("\tpriority wildcard")
		p.Int(tcfmt.JSON, "priority", "", int64(prio))
	}
	clockid := int32(tcword.ClockidInvalid)
	if o.Clockid != nil {
		clockid = *o.Clockid
	}
	p.String(tcfmt.Any, "clockid", "\tclockid %s", tcword.ClockName(clockid))
	if o.Flags != nil {
		p.Hex0x(tcfmt.Any, "flags", "\tflags %#x", uint64(*o.Flags))
	}
	p.Text("\n")
	for _, t := range []struct {
		text string
		key  tcfmt.Name
		v    *uint64
	}{{"\tbase-time ", "base_time", o.BaseTime}, {"\tcycle-time ", "cycle_time", o.CycleTime}, {"\tcycle-time-ext ", "cycle_time_ext", o.CycleTimeExt}} {
		var ns uint64
		if t.v != nil {
			ns = *t.v
		}
		p.Text(t.text + tcfmt.FormatTime64(int64(ns)))
		p.Uint(tcfmt.JSON, t.key, "", ns)
	}
	if o.EntryList != nil {
		printGateList(p, o.EntryList.Entry)
	}
	printActionControl(p, "\t", o.Parms.Action, "")
	p.Uint(tcfmt.Any, "index", "\n\t index %u", uint64(o.Parms.Index))
	p.Int(tcfmt.Any, "ref", " ref %d", int64(o.Parms.Refcnt))
	p.Int(tcfmt.Any, "bind", " bind %d", int64(o.Parms.Bindcnt))
}

// printGateList is print_gate_list: one line for each entry.
func printGateList(p *tcfmt.Printer, entries []attrs.ActGateEntry) {
	p.NL()
	p.Text("\tschedule:")
	p.NL()
	p.OpenArray(tcfmt.JSON, "schedule")
	for _, e := range entries {
		var index, interval uint32
		ipv, maxOctets := int32(-1), int32(-1)
		if e.Index != nil {
			index = *e.Index
		}
		if e.Interval != nil {
			interval = *e.Interval
		}
		if e.Ipv != nil {
			ipv = *e.Ipv
		}
		if e.MaxOctets != nil {
			maxOctets = *e.MaxOctets
		}
		state := "close"
		if e.Gate {
			state = "open"
		}
		p.OpenObject("")
		p.Uint(tcfmt.Any, "number", "\t number %4u", uint64(index))
		p.String(tcfmt.Any, "gate_state", "\tgate-state %s ", state)
		p.Uint(tcfmt.JSON, "interval", "", uint64(interval))
		p.Text("\tinterval " + tcfmt.FormatTime64(int64(interval)))
		if ipv != -1 {
			p.Uint(tcfmt.Any, "ipv", "\t ipv %-10u", uint64(uint32(ipv)))
		} else {
			p.Int(tcfmt.JSON, "ipv", "", int64(ipv))
			p.Text("\t ipv wildcard")
		}
		if maxOctets != -1 {
			p.Size(tcfmt.Any, "max_octets", "\t max-octets %s", uint64(uint32(maxOctets)))
		} else {
			p.Text("\t max-octets wildcard")
			p.Int(tcfmt.JSON, "max_octets", "", int64(maxOctets))
		}
		p.CloseObject()
		p.NL()
	}
	p.CloseArray(tcfmt.JSON, "")
}

func printGateStats(p *tcfmt.Printer, opts attrs.ActOptionsMsg) {
	if o, ok := opts.(*attrs.ActGateAttrs); ok && o.Parms != nil && o.Tm != nil {
		printTm(p, o.Tm)
	}
}

// gateKeywords is Action.Keywords for gate: its schedule and the times,
// clock and flags the kernel keeps (those it computes, as the cycle time
// from the intervals, written as asked for). A priority of -1 is the
// kernel's default, which tc's words leave out.
func gateKeywords(opts attrs.ActOptionsMsg, _ tckind.Links) ([]string, error) {
	o, _ := opts.(*attrs.ActGateAttrs)
	if o == nil || o.Parms == nil || o.EntryList == nil || len(o.EntryList.Entry) == 0 {
		return nil, tckind.NoKeywords("gate without a schedule")
	}
	var w []string
	if o.Priority != nil && *o.Priority != -1 {
		w = append(w, "priority", strconv.FormatInt(int64(*o.Priority), 10))
	}
	for _, t := range []struct {
		name string
		v    *uint64
	}{{"base-time", o.BaseTime}, {"cycle-time", o.CycleTime}, {"cycle-time-ext", o.CycleTimeExt}} {
		if t.v != nil && *t.v != 0 {
			w = append(w, t.name, strconv.FormatInt(int64(*t.v), 10))
		}
	}
	if o.Clockid != nil {
		name := tcword.ClockName(*o.Clockid)
		if name == "invalid" {
			return nil, tckind.NoKeywords(fmt.Sprintf("gate clockid %d", *o.Clockid))
		}
		w = append(w, "clockid", name)
	}
	if o.Flags != nil && *o.Flags != 0 {
		w = append(w, "flags", fmt.Sprintf("%#x", *o.Flags))
	}
	for _, e := range o.EntryList.Entry {
		if e.Interval == nil {
			return nil, tckind.NoKeywords("gate entry without an interval")
		}
		ipv, octets := int32(-1), int32(-1)
		if e.Ipv != nil {
			ipv = *e.Ipv
		}
		if e.MaxOctets != nil {
			octets = *e.MaxOctets
		}
		if !e.Gate {
			// tc gives a closed gate neither.
			if ipv != -1 || octets != -1 {
				return nil, tckind.NoKeywords("gate closed entry with a priority or octets")
			}
			w = append(w, "sched-entry", "close", tcword.UintWord(*e.Interval))
			continue
		}
		w = append(w, "sched-entry", "open", tcword.UintWord(*e.Interval))
		if ipv != -1 || octets != -1 {
			w = append(w, strconv.FormatInt(int64(ipv), 10), strconv.FormatInt(int64(octets), 10))
		}
	}
	return controlWords(w, o.Parms.Action, actPipe)
}

// gateDumped is Action.Dumped for gate: a request without a priority
// (tc's -1, "wildcard", is not sent) gets the kernel's, -1, and the
// schedule's entries, which tc sends without an index, are dumped
// numbered from 0.
func gateDumped(opts attrs.ActOptionsMsg) attrs.ActOptionsMsg {
	o, ok := opts.(*attrs.ActGateAttrs)
	if !ok || o == nil {
		return opts
	}
	c := *o
	if c.Priority == nil {
		wildcard := int32(-1)
		c.Priority = &wildcard
	}
	if o.EntryList != nil {
		list := *o.EntryList
		list.Entry = slices.Clone(o.EntryList.Entry)
		for i := range list.Entry {
			if list.Entry[i].Index == nil {
				n := uint32(i)
				list.Entry[i].Index = &n
			}
		}
		c.EntryList = &list
	}
	return &c
}
