// SPDX-License-Identifier: Apache-2.0

package action

// Action kinds and tc's action list (tc/m_action.c): the registry, the
// grammar every filter's "action ..." and "tc actions add" share, and the
// printing of a list as tc_print_action does.

import (
	"encoding/hex"
	"fmt"
	"io"
	"slices"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// tcActionKinds are the action kinds tc 7.3 has built in. A word naming one
// that gotc does not know is refused as unsupported; any other word is, as
// in tc, handed to gact (tc's fallback for a kind it cannot load), which
// sends it as the kind's name.
var tcActionKinds = []string{
	"bpf", "connmark", "csum", "ct", "ctinfo", "gact", "gate", "ife", "ipt",
	"mirred", "mpls", "nat", "pedit", "police", "sample", "simple",
	"skbedit", "skbmod", "tunnel_key", "vlan", "xt",
}

// TCA_ACT_FLAGS_* and TCA_ACT_HW_STATS_* (linux/pkt_cls.h).
const (
	actFlagNoPercpuStats = 1 << 0
	actFlagSkipHW        = 1 << 1
	actFlagSkipSW        = 1 << 2

	actHWStatsImmediate = 1 << 0
	actHWStatsDelayed   = 1 << 1
)

// cookieMax is TC_COOKIE_MAX_SIZE, in bytes.
const cookieMax = 16

// hwStatsItem is a word of "hw_stats" and its TCA_ACT_HW_STATS bits.
type hwStatsItem struct {
	name string
	bits uint32
}

var hwStatsItems = []hwStatsItem{{"immediate", actHWStatsImmediate}, {"delayed", actHWStatsDelayed}, {"disabled", 0}}

// isNewCmd is m_action.c's new_cmd: a word that starts the next command of
// "tc actions" ends an action list.
func isNewCmd(w string) bool {
	for _, c := range []string{"change", "replace", "delete", "get", "add"} {
		if tcfmt.Matches(w, c) {
			return true
		}
	}
	return false
}

// ParseActions parses an action list as tc's parse_action does, from the
// word after the first "action" (or "actions"): KIND ARGS [cookie HEX]
// [hw_stats TYPE] [no_percpu] [skip_sw|skip_hw] ["action" KIND ARGS ...].
// A control verb (drop, pass, goto chain N, ...) stands for gact. The list
// ends at "classid" or "flowid", at a word that starts a command of "tc
// actions", or at the end; the rest is returned. The actions are numbered
// from 1 (tc's "order") by their place in the slice.
//
// As tc, a cookie given to one action is given to every action after it
// that names none (parse_action never forgets it).
func ParseActions(args []string, env tckind.ActionEnv) ([]attrs.ActAttrs, []string, error) {
	if len(args) == 0 {
		return nil, args, tcword.Errorf(`Illegal "action"`)
	}
	acts := []attrs.ActAttrs{}
	var cookie []byte
	expectParams := false
	for len(args) > 0 {
		w := args[0]
		switch {
		case w == "action":
			args = args[1:]
			expectParams = true
			continue
		case w == "flowid", w == "classid":
			return finishActions(acts, args, expectParams)
		case w == "help":
			return nil, args, tcword.Errorf(`Illegal "action"`)
		case isNewCmd(w):
			return acts, args, nil
		}
		expectParams = false
		name := w
		if _, ok := actionControl(w); ok {
			name = "gact"
		}
		kind := tckind.LookupAction(name)
		if kind == nil && slices.Contains(tcActionKinds, name) {
			return nil, args, tcword.Errorf("gotc does not support action kind %q", name)
		}
		if kind == nil {
			kind = tckind.LookupAction("gact")
		}
		opts, rest, err := kind.Parse(args, env)
		if err != nil {
			if pe, ok := err.(*tcword.ParseError); ok && pe.Code == 0 && !pe.ShowUsage {
				// A kind's own refusal, after what it printed (if
				// anything): parse_action adds its two lines and the
				// filter its own.
				msg := fmt.Sprintf("bad action parsing\nparse_action: bad value (%d:%s)!\nIllegal \"action\"", len(args), w)
				switch {
				case pe.NoNewline:
					msg = pe.Msg + msg
				case pe.Msg != "":
					msg = pe.Msg + "\n" + msg
				}
				return nil, args, tcword.Errorf("%s", msg)
			}
			return nil, args, err
		}
		act := attrs.ActAttrs{Kind: &name, Options: opts}
		args = rest
		if len(args) > 0 && args[0] == "cookie" {
			if len(args) < 2 {
				return nil, args, tcword.IncompleteCommand()
			}
			s := args[1]
			if len(s) > cookieMax*2 {
				return nil, args, tcword.InvalidArgument(s, fmt.Sprintf("%d Max allowed size %d", len(s), cookieMax*2))
			}
			b, err := hex.DecodeString(s)
			if len(s)%2 != 0 || err != nil {
				return nil, args, tcword.InvalidArgument(s, "cookie must be a hex string\n")
			}
			cookie = b
			args = args[2:]
		}
		if len(cookie) > 0 {
			act.Cookie = cookie
		}
		if len(args) > 0 && tcfmt.Matches(args[0], "hw_stats") {
			if len(args) < 2 {
				return nil, args, tcword.IncompleteCommand()
			}
			i := slices.IndexFunc(hwStatsItems, func(it hwStatsItem) bool { return tcfmt.Matches(args[1], it.name) })
			if i < 0 {
				return nil, args, tcword.InvalidArgument(args[1], "value is invalid\n")
			}
			b := hwStatsItems[i].bits
			act.HWStats = &attrs.Bitfield32{Value: b, Selector: b}
			args = args[2:]
		}
		var flags uint32
		if len(args) > 0 && args[0] == "no_percpu" {
			flags |= actFlagNoPercpuStats
			args = args[1:]
		}
		// Twice, so that "skip_hw skip_sw" reads as well as "skip_sw skip_hw".
		for range 2 {
			switch {
			case len(args) > 0 && args[0] == "skip_sw":
				flags |= actFlagSkipSW
				args = args[1:]
			case len(args) > 0 && args[0] == "skip_hw":
				flags |= actFlagSkipHW
				args = args[1:]
			}
		}
		if flags != 0 {
			act.Flags = &attrs.Bitfield32{Value: flags, Selector: flags}
		}
		acts = append(acts, act)
	}
	return finishActions(acts, args, expectParams)
}

// finishActions refuses a list whose last "action" has no kind after it.
func finishActions(acts []attrs.ActAttrs, args []string, expectParams bool) ([]attrs.ActAttrs, []string, error) {
	if expectParams {
		w := "(null)"
		if len(args) > 0 {
			w = args[0]
		}
		return nil, args, tcword.Errorf("bad action empty 1\nparse_action: bad value (%d:%s)!\nIllegal \"action\"", len(args), w)
	}
	return acts, args, nil
}

// parseActionIndex reads "index N" where an action kind's parser takes it
// last (after the verdict): the index, whether the words held one, and the
// words after it. N is read in base (10, or 0 for the kinds whose tc reads
// any base); bad is the kind's message for a bad N.
func parseActionIndex(args []string, base int, bad string) (index uint32, found bool, rest []string, err error) {
	if len(args) == 0 || !tcfmt.Matches(args[0], "index") {
		return 0, false, args, nil
	}
	if len(args) < 2 {
		return 0, false, args, tcword.IncompleteCommand()
	}
	v, err := tcfmt.ParseUint(args[1], base, 32)
	if err != nil {
		return 0, false, args, tcword.Errorf("%s", bad)
	}
	return uint32(v), true, args[2:], nil
}

// TC_ACT_* verdicts (linux/pkt_cls.h) and the opcodes that carry a value
// in their low bits.
const (
	actUnspec     = -1
	actOK         = 0
	actReclassify = 1
	actShot       = 2
	actPipe       = 3
	actStolen     = 4
	actTrap       = 8

	actExtShift   = 28
	actExtValMask = 1<<actExtShift - 1
	actJump       = 1 << actExtShift
	actGotoChain  = 2 << actExtShift
)

var actionVerbs = []struct {
	name string
	code int32
}{
	{"continue", actUnspec}, {"drop", actShot}, {"shot", actShot}, {"pass", actOK},
	{"ok", actOK}, {"reclassify", actReclassify}, {"pipe", actPipe},
	{"goto", actGotoChain}, {"jump", actJump}, {"trap", actTrap},
}

// actionControl is tc's action_a2n without numbers: the verdict a word
// (or an abbreviation, first match in tc's order) names.
func actionControl(w string) (int32, bool) {
	for _, v := range actionVerbs {
		if tcfmt.Matches(w, v.name) {
			return v.code, true
		}
	}
	return 0, false
}

// parseActionControl is tc's parse_action_control: a verdict, with the
// chain of "goto chain N" or the count of "jump N". Its errors end tc
// with the kind's usage (usage says which).
func parseActionControl(args []string, usage string) (int32, []string, error) {
	if len(args) == 0 {
		return 0, args, &tcword.ParseError{Msg: usage, Code: 255}
	}
	code, rest, bad, err := readActionControl(args)
	if bad != "" {
		return 0, args, &tcword.ParseError{Msg: bad + usage, Code: 255}
	}
	return code, rest, err
}

// parseActionControlDefault is tc's parse_action_control_dflt: a verdict
// if one comes next, else dflt. A word that names no verdict is left to
// the caller; a "goto" or "jump" without a good argument too, after tc's
// warning on stderr.
func parseActionControlDefault(args []string, dflt int32, stderr io.Writer) (int32, []string, error) {
	if len(args) == 0 {
		return dflt, args, nil
	}
	if _, ok := actionControl(args[0]); !ok {
		return dflt, args, nil
	}
	code, rest, bad, err := readActionControl(args)
	if bad != "" {
		if stderr != nil {
			fmt.Fprint(stderr, bad)
		}
		return dflt, args, nil
	}
	return code, rest, err
}

// readActionControl reads a verdict from args[0] on. bad is tc's message
// (ending in a line end) for words that are not one; err is set for a
// command line that ends too early.
func readActionControl(args []string) (code int32, rest []string, bad string, err error) {
	code, ok := actionControl(args[0])
	if !ok {
		return 0, args, fmt.Sprintf("Bad action type %s\n", args[0]), nil
	}
	switch code {
	case actGotoChain:
		if len(args) < 2 {
			return 0, args, "", tcword.IncompleteCommand()
		}
		if !tcfmt.Matches(args[1], "chain") {
			return 0, args, "\"chain index\" expected\n", nil
		}
		if len(args) < 3 {
			return 0, args, "", tcword.IncompleteCommand()
		}
		v, err := tcfmt.ParseUint(args[2], 10, 32)
		if err != nil || v > actExtValMask {
			return 0, args, "Illegal \"chain index\"\n", nil
		}
		return code | int32(v), args[3:], "", nil
	case actJump:
		if len(args) < 2 {
			return 0, args, "", tcword.IncompleteCommand()
		}
		v, err := tcfmt.ParseUint(args[1], 10, 32)
		if err != nil || v > actExtValMask {
			return 0, args, fmt.Sprintf("Invalid \"jump count\" (%s)\n", args[1]), nil
		}
		return code | int32(v), args[2:], "", nil
	}
	return code, args[1:], "", nil
}

// actionControlName is tc's action_n2a.
func actionControlName(code int32) string {
	switch {
	case code&^actExtValMask == actGotoChain:
		return "goto"
	case code&^actExtValMask == actJump:
		return "jump"
	}
	switch code {
	case actUnspec:
		return "continue"
	case actOK:
		return "pass"
	case actShot:
		return "drop"
	case actReclassify:
		return "reclassify"
	case actPipe:
		return "pipe"
	case actStolen:
		return "stolen"
	case actTrap:
		return "trap"
	}
	return fmt.Sprint(code)
}

// printActionControl is tc's print_action_control.
func printActionControl(p *tcfmt.Printer, prefix string, code int32, suffix string) {
	p.Text(prefix)
	p.OpenObject("control_action")
	p.String(tcfmt.Any, "type", "%s", actionControlName(code))
	switch code &^ actExtValMask {
	case actGotoChain:
		p.Uint(tcfmt.Any, "chain", " chain %u", uint64(code&actExtValMask))
	case actJump:
		p.Uint(tcfmt.Any, "jump", " %u", uint64(code&actExtValMask))
	}
	p.CloseObject()
	p.Text(suffix)
}

// userHZ is the unit of struct tcf_t's times (the kernel reports them in
// clock_t, USER_HZ per second; tc divides by get_user_hz(), 100 on Linux).
const userHZ = 100

// printTm is tc's print_tm: an action's times in whole seconds. tc 7.3
// prints the install and last-use times even when they are zero (as the
// recorded goldens in testdata/golden-filters show, where the kernel
// reports 0), the first-use and expiry times only when they are not.
func printTm(p *tcfmt.Printer, tm *attrs.TCFT) {
	p.Uint(tcfmt.Any, "installed", " installed %u sec", tm.Install/userHZ)
	p.Uint(tcfmt.Any, "last_used", " used %u sec", tm.Lastuse/userHZ)
	if tm.Firstuse != 0 {
		p.Uint(tcfmt.Any, "first_used", " firstused %u sec", tm.Firstuse/userHZ)
	}
	if tm.Expires != 0 {
		p.Uint(tcfmt.Any, "expires", " expires %u sec", tm.Expires/userHZ)
	}
}

// ActionPrint says how a list of actions is printed.
type ActionPrint struct {
	// Stats is tc's -s: the actions' statistics and times.
	Stats bool
	// Bind is set for the actions of a filter (tc_print_action), whose
	// skip and hardware flags tc leaves out; clear for "tc actions".
	Bind bool
	// FirstOrder is the number of the first action, which tc prints as
	// its "order" (the attribute type of its nest): 1 in a filter and in
	// the answer to a get (the kernel's tcf_action_dump), 0 in each
	// message of an action dump (tcf_dump_walker).
	FirstOrder uint32
	// Links names the devices the actions refer to.
	Links tckind.Links
}

// PrintActions prints a list of actions as tc_dump_action does: a JSON
// array "actions", in text each action on a new line after "\taction
// order N: ".
func PrintActions(p *tcfmt.Printer, acts []attrs.ActAttrs, how ActionPrint) {
	p.OpenArray(tcfmt.JSON, "actions")
	for i := range acts {
		p.OpenObject("")
		p.NL()
		p.Uint(tcfmt.Any, "order", "\taction order %u: ", uint64(how.FirstOrder)+uint64(i))
		printAction(p, &acts[i], how)
		p.CloseObject()
	}
	p.CloseArray(tcfmt.JSON, "")
}

// printActionIndex is the second line most kinds print: the action's
// index and its reference and bind counts.
func printActionIndex(p *tcfmt.Printer, index uint32, ref, bind int32) {
	p.NL()
	p.Uint(tcfmt.Any, "index", "\t index %u", uint64(index))
	p.Int(tcfmt.Any, "ref", " ref %d", int64(ref))
	p.Int(tcfmt.Any, "bind", " bind %d", int64(bind))
}

// printAction is tc_print_one_action.
func printAction(p *tcfmt.Printer, a *attrs.ActAttrs, how ActionPrint) {
	if a.Kind == nil {
		return
	}
	kind := tckind.LookupAction(*a.Kind)
	if kind == nil {
		// tc prints an unknown kind's options length on stderr only.
		p.String(tcfmt.Any, "kind", "%s ", *a.Kind)
	} else {
		kind.Print(p, a.Options, how.Links)
		if how.Stats && kind.PrintStats != nil {
			kind.PrintStats(p, a.Options)
		}
		if kind.PrintAfterStats != nil {
			kind.PrintAfterStats(p, a.Options)
		}
		if kind.LineEnd != "" {
			p.Text(kind.LineEnd)
		} else {
			p.NL()
		}
	}
	if how.Stats && a.Stats != nil {
		p.Text("\tAction statistics:")
		p.NL()
		p.OpenObject("stats")
		printActionStats(p, a.Stats)
		p.CloseObject()
		p.NL()
	}
	if a.Cookie != nil {
		p.String(tcfmt.Any, "cookie", "\tcookie %s", hex.EncodeToString(a.Cookie))
		p.NL()
	}
	if a.Flags != nil || a.InHWCount != nil {
		printActionFlags(p, a, how.Bind)
	}
	if a.HWStats != nil {
		printHWStats(p, "hw_stats", *a.HWStats)
	}
	if a.UsedHWStats != nil {
		printHWStats(p, "used_hw_stats", *a.UsedHWStats)
	}
}

func printActionFlags(p *tcfmt.Printer, a *attrs.ActAttrs, bind bool) {
	skipHW, newline := false, false
	if f := a.Flags; f != nil {
		if f.Selector&actFlagNoPercpuStats != 0 {
			newline = true
			p.Bool(tcfmt.Any, "no_percpu", "\tno_percpu", f.Value&actFlagNoPercpuStats != 0)
		}
		if !bind {
			if f.Selector&actFlagSkipHW != 0 {
				newline = true
				skipHW = f.Value&actFlagSkipHW != 0
				p.Bool(tcfmt.Any, "skip_hw", "\tskip_hw", skipHW)
			}
			if f.Selector&actFlagSkipSW != 0 {
				newline = true
				p.Bool(tcfmt.Any, "skip_sw", "\tskip_sw", f.Value&actFlagSkipSW != 0)
			}
		}
	}
	if a.InHWCount != nil && !bind && !skipHW {
		newline = true
		if n := *a.InHWCount; n != 0 {
			p.Bool(tcfmt.Any, "in_hw", "\tin_hw", true)
			p.Uint(tcfmt.Any, "in_hw_count", " in_hw_count %u", uint64(n))
		} else {
			p.Bool(tcfmt.Any, "not_in_hw", "\tnot_in_hw", true)
		}
	}
	if newline {
		p.NL()
	}
}

// printHWStats is m_action.c's print_hw_stats.
func printHWStats(p *tcfmt.Printer, key tcfmt.Name, bf attrs.Bitfield32) {
	bits := bf.Value & bf.Selector
	p.Text("\t")
	p.OpenArray(tcfmt.Any, key)
	for _, it := range hwStatsItems {
		if (bits == 0 && it.bits == 0) || bits&it.bits != 0 {
			p.String(tcfmt.Any, "", " %s", it.name)
		}
	}
	p.CloseArray(tcfmt.JSON, "")
	p.NL()
}

// printActionStats is print_tcstats2_attr with prefix "\t". An action's
// TCA_STATS_BASIC_HW is zero unless a driver offloads it, and tc prints it
// only when nonzero: gotc, which runs no offloading driver, leaves it out.
func printActionStats(p *tcfmt.Printer, s *attrs.StatsAttrs) {
	st := Stats2Of(s)
	p.Stats(&st, "\t")
}

// Stats2Of gives the generic statistics of a TCA_STATS2 nest (qdiscs',
// classes' and actions' alike) in the form tcfmt's printer takes.
func Stats2Of(s *attrs.StatsAttrs) tcfmt.Stats2 {
	var st tcfmt.Stats2
	if s.Basic != nil {
		st.HasBasic = true
		st.Basic = tcfmt.BasicStats{Bytes: s.Basic.Bytes, Packets: s.Basic.Packets}
	}
	if s.Pkt64 != nil {
		st.Packets64 = *s.Pkt64
	}
	if s.Queue != nil {
		q := s.Queue
		st.HasQueue = true
		st.Queue = tcfmt.QueueStats{Qlen: q.Qlen, Backlog: q.Backlog, Drops: q.Drops, Requeues: q.Requeues, Overlimits: q.Overlimits}
	}
	if s.RateEst != nil {
		st.HasRateEst = true
		st.RateEst = tcfmt.RateEst{BPS: uint64(s.RateEst.Bps), PPS: uint64(s.RateEst.Pps)}
	}
	if s.RateEst64 != nil {
		st.HasRateEst64 = true
		st.RateEst64 = tcfmt.RateEst{BPS: s.RateEst64.Bps, PPS: s.RateEst64.Pps}
	}
	return st
}

// controlWords appends an action's verdict unless it is the kind's default.
func controlWords(w []string, code, dflt int32) ([]string, error) {
	if code == dflt {
		return w, nil
	}
	return verdictWords(w, code)
}

// verdictWords appends the words parseActionControl reads as code: a
// verb, "goto chain N" or "jump N". A verdict without a verb (stolen, or
// a number tc does not name) has none.
func verdictWords(w []string, code int32) ([]string, error) {
	name := actionControlName(code)
	switch name {
	case "goto":
		return append(w, "goto", "chain", tcword.UintWord(uint32(code&actExtValMask))), nil
	case "jump":
		return append(w, "jump", tcword.UintWord(uint32(code&actExtValMask))), nil
	}
	if _, ok := actionControl(name); !ok {
		return nil, tckind.NoKeywords("action verdict " + name)
	}
	return append(w, name), nil
}
