// SPDX-License-Identifier: Apache-2.0

package action

// The ctinfo action (net/sched/act_ctinfo.c): restores a packet's DSCP or
// its mark from what an earlier rule stored in its connection's conntrack
// mark, as tc 7.3's m_ctinfo.c reads and prints it. Routers restore the
// DSCP of downloads this way before they redirect them to an ifb.

import (
	"fmt"
	"math/bits"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// ctinfoUsage is m_ctinfo.c's explain text.
const ctinfoUsage = `Usage: ... ctinfo [dscp mask [statemask]] [cpmark [mask]] [zone ZONE] [CONTROL] [index <INDEX>]
where :
	dscp   MASK bitmask location of stored DSCP
	       STATEMASK bitmask to determine conditional restoring
	cpmark MASK mask applied to mark on restoration
	ZONE is the conntrack zone
	CONTROL := reclassify | pipe | drop | continue | ok |
	           goto chain <CHAIN_INDEX>`

func init() {
	tckind.LazilyActions(func() {
		tckind.MustRegisterAction(&tckind.Action{
			Name:       "ctinfo",
			Usage:      ctinfoUsage,
			Parse:      parseCtinfo,
			Print:      printCtinfo,
			PrintStats: printCtinfoStats,
			Keywords:   ctinfoKeywords,
		})
	}, "ctinfo")
}

// parseCtinfo is m_ctinfo.c's parse_ctinfo: ctinfo [dscp MASK
// [STATEMASK]] [cpmark [MASK]] [zone ZONE] [CONTROL] [index N], each part
// in that order.
func parseCtinfo(args []string, env tckind.ActionEnv) (attrs.ActOptionsMsg, []string, error) {
	// args[0] is "ctinfo"; tc skips any number of them, and stops at help.
	for len(args) > 0 {
		if tcfmt.Matches(args[0], "ctinfo") {
			args = args[1:]
			continue
		}
		if tcfmt.Matches(args[0], "help") {
			return nil, args, &tcword.ParseError{Msg: ctinfoUsage, Code: 255}
		}
		break
	}
	var dscpMask, stateMask, cpmarkMask uint32
	var zone uint16
	// optionalU32 reads the number after args[0] if there is one; a word
	// that is not a number is left for the next keyword.
	optionalU32 := func(v *uint32) {
		args = args[1:]
		if len(args) > 0 {
			if x, err := tcfmt.ParseUint(args[0], 0, 32); err == nil {
				*v = uint32(x)
				args = args[1:]
			}
		}
	}
	if len(args) > 0 && tcfmt.Matches(args[0], "dscp") {
		if len(args) < 2 {
			return nil, args, tcword.IncompleteCommand()
		}
		v, err := tcfmt.ParseUint(args[1], 0, 32)
		if err != nil {
			return nil, args, tcword.Errorf(`ctinfo: Illegal dscp "mask"`)
		}
		dscpMask = uint32(v)
		args = args[1:]
		optionalU32(&stateMask)
	}
	if len(args) > 0 && tcfmt.Matches(args[0], "cpmark") {
		cpmarkMask = ^uint32(0)
		optionalU32(&cpmarkMask)
	}
	if len(args) > 0 && tcfmt.Matches(args[0], "zone") {
		if len(args) < 2 {
			return nil, args, tcword.IncompleteCommand()
		}
		v, err := tcfmt.ParseUint(args[1], 10, 16)
		if err != nil {
			return nil, args, tcword.Errorf(`ctinfo: Illegal "zone"`)
		}
		zone = uint16(v)
		args = args[2:]
	}
	p := &attrs.TCCtinfo{}
	code, rest, err := parseActionControlDefault(args, actPipe, env.Stderr)
	if err != nil {
		return nil, args, err
	}
	p.Action, args = code, rest
	index, found, rest, err := parseActionIndex(args, 10, `ctinfo: Illegal "index"`)
	if err != nil {
		return nil, args, err
	}
	if found {
		p.Index, args = index, rest
	}
	if dscpMask&stateMask != 0 {
		return nil, args, tcword.Errorf("ctinfo: dscp mask & statemask must NOT overlap")
	}
	if dscpMask != 0 && dscpMask>>bits.TrailingZeros32(dscpMask) != 0x3f {
		return nil, args, tcword.Errorf("ctinfo: dscp mask must be 6 contiguous bits long")
	}
	o := &attrs.ActCtinfoAttrs{Act: p, Zone: &zone}
	if dscpMask != 0 {
		o.ParmsDscpMask = &dscpMask
	}
	if stateMask != 0 {
		o.ParmsDscpStatemask = &stateMask
	}
	if cpmarkMask != 0 {
		o.ParmsCpmarkMask = &cpmarkMask
	}
	return o, args, nil
}

// printCtinfo is m_ctinfo.c's print_ctinfo up to its last line's end.
func printCtinfo(p *tcfmt.Printer, opts attrs.ActOptionsMsg, _ tckind.Links) {
	p.String(tcfmt.Any, "kind", "%s ", "ctinfo")
	o, ok := opts.(*attrs.ActCtinfoAttrs)
	if !ok {
		return
	}
	if o.Act == nil {
		p.String(tcfmt.FP, "", "%s", "[NULL ctinfo action parameters]")
		return
	}
	var zone uint16
	if o.Zone != nil {
		zone = *o.Zone
	}
	p.Uint(tcfmt.Any, "zone", "zone %u", uint64(zone))
	printActionControl(p, " ", o.Act.Action, "")
	p.NL()
	p.Uint(tcfmt.Any, "index", "\t index %u", uint64(o.Act.Index))
	p.Int(tcfmt.Any, "ref", " ref %d", int64(o.Act.Refcnt))
	p.Int(tcfmt.Any, "bind", " bind %d", int64(o.Act.Bindcnt))
	if o.ParmsDscpMask != nil {
		var state uint32
		if o.ParmsDscpStatemask != nil {
			state = *o.ParmsDscpStatemask
		}
		p.Hex0x(tcfmt.Any, "dscpmask", " dscp %#010llx", uint64(*o.ParmsDscpMask))
		p.Hex0x(tcfmt.Any, "dscpstatemask", " %#010llx", uint64(state))
	}
	if o.ParmsCpmarkMask != nil {
		p.Hex0x(tcfmt.Any, "cpmark", " cpmark %#010llx", uint64(*o.ParmsCpmarkMask))
	}
}

// printCtinfoStats is print_ctinfo_stats: the times, then how many
// packets had their DSCP restored, could not have it restored, and had
// their mark restored.
func printCtinfoStats(p *tcfmt.Printer, opts attrs.ActOptionsMsg) {
	o, ok := opts.(*attrs.ActCtinfoAttrs)
	if !ok || o.Act == nil {
		return
	}
	if o.Tm != nil {
		printTm(p, o.Tm)
	}
	if o.StatsDscpSet != nil {
		p.Uint(tcfmt.Any, "dscpset", " DSCP set %llu", *o.StatsDscpSet)
	}
	if o.StatsDscpError != nil {
		p.Uint(tcfmt.Any, "dscperror", " error %llu", *o.StatsDscpError)
	}
	if o.StatsCpmarkSet != nil {
		p.Uint(tcfmt.Any, "cpmarkset", " CPMARK set %llu", *o.StatsCpmarkSet)
	}
}

// ctinfoKeywords is ActionKind.Keywords for ctinfo.
func ctinfoKeywords(opts attrs.ActOptionsMsg, _ tckind.Links) ([]string, error) {
	o, _ := opts.(*attrs.ActCtinfoAttrs)
	if o == nil || o.Act == nil {
		return nil, tckind.NoKeywords("ctinfo without parameters")
	}
	var w []string
	if o.ParmsDscpMask != nil && *o.ParmsDscpMask != 0 {
		w = append(w, "dscp", fmt.Sprintf("%#x", *o.ParmsDscpMask))
		if o.ParmsDscpStatemask != nil && *o.ParmsDscpStatemask != 0 {
			w = append(w, fmt.Sprintf("%#x", *o.ParmsDscpStatemask))
		}
	}
	if o.ParmsCpmarkMask != nil && *o.ParmsCpmarkMask != 0 {
		w = append(w, "cpmark", fmt.Sprintf("%#x", *o.ParmsCpmarkMask))
	}
	if o.Zone != nil && *o.Zone != 0 {
		w = append(w, "zone", tcword.UintWord(*o.Zone))
	}
	return controlWords(w, o.Act.Action, actPipe)
}
