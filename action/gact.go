// SPDX-License-Identifier: Apache-2.0

package action

// The generic action (net/sched/act_gact.c): a fixed verdict, or with
// "random" a second verdict taken at random (netrand: with probability
// VAL/10000) or deterministically (determ: every VAL-th packet). tc's
// m_gact.c is built with CONFIG_GACT_PROB, so it always prints the random
// part.

import (
	"fmt"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// PGACT_* (linux/tc_act/tc_gact.h).
const (
	gactProbNone    = 0
	gactProbNetrand = 1
	gactProbDeterm  = 2

	gactProbMax = 10000
)

const gactUsage = `Usage: ... gact <ACTION> [RAND] [INDEX]
Where: 	ACTION := reclassify | drop | continue | pass | pipe |
       	          goto chain <CHAIN_INDEX> | jump <JUMP_COUNT>
	RAND := random <RANDTYPE> <ACTION> <VAL>
	RANDTYPE := netrand | determ
	VAL : = value not exceeding 10000
	JUMP_COUNT := Absolute jump from start of action list
	INDEX := index value used
`

func init() {
	tckind.LazilyActions(func() {
		tckind.MustRegisterAction(&tckind.Action{
			Name:       "gact",
			Usage:      gactUsage,
			Parse:      parseGact,
			Print:      printGact,
			PrintStats: printGactStats,
			Keywords:   gactKeywords,
		})
	}, "gact")
}

// gactUsageError is m_gact.c's usage(): the usage text, exit status 255.
func gactUsageError() *tcword.ParseError {
	return &tcword.ParseError{Msg: gactUsage, Code: 255}
}

// parseGact is m_gact.c's parse_gact: [gact] VERB [random TYPE VERB VAL]
// [index N], or [gact] index N to bind an existing action.
func parseGact(args []string, _ tckind.ActionEnv) (attrs.ActOptionsMsg, []string, error) {
	p := &attrs.TCGact{}
	o := &attrs.ActGactAttrs{Parms: p}
	if tcfmt.Matches(args[0], "gact") {
		if len(args) < 2 {
			return nil, args, tcword.IncompleteCommand()
		}
		args = args[1:]
	}
	if !tcfmt.Matches(args[0], "index") {
		code, rest, err := parseActionControl(args, gactUsage)
		if err != nil {
			return nil, args, err
		}
		p.Action = code
		args = rest
		if len(args) > 0 && tcfmt.Matches(args[0], "random") {
			prob, rest, err := parseGactRandom(args[1:])
			if err != nil {
				return nil, args, err
			}
			o.Prob = prob
			args = rest
		}
		if len(args) > 0 && tcfmt.Matches(args[0], "help") {
			return nil, args, gactUsageError()
		}
		if len(args) == 0 || !tcfmt.Matches(args[0], "index") {
			return o, args, nil
		}
	}
	// args[0] is "index".
	if len(args) < 2 {
		return nil, args, tcword.IncompleteCommand()
	}
	v, err := tcfmt.ParseUint(args[1], 10, 32)
	if err != nil {
		return nil, args, tcword.Errorf(`Illegal "index"`)
	}
	p.Index = uint32(v)
	return o, args[2:], nil
}

// parseGactRandom reads TYPE VERB VAL after "random".
func parseGactRandom(args []string) (*attrs.TCGactP, []string, error) {
	if len(args) < 1 {
		return nil, args, tcword.IncompleteCommand()
	}
	pp := &attrs.TCGactP{}
	switch {
	case tcfmt.Matches(args[0], "netrand"):
		pp.Ptype = gactProbNetrand
	case tcfmt.Matches(args[0], "determ"):
		pp.Ptype = gactProbDeterm
	default:
		return nil, args, tcword.Errorf(`Illegal "random type"`)
	}
	if len(args) < 2 {
		return nil, args, tcword.IncompleteCommand()
	}
	code, rest, err := parseActionControl(args[1:], gactUsage)
	if err != nil {
		return nil, args, err
	}
	pp.Paction = code
	// For a missing or bad value tc prints the uninitialised struct's pval
	// (tc 7.3 printed 0x1000 in our runs); gotc prints 0.
	if len(rest) == 0 {
		return nil, args, tcword.Errorf("Illegal probability val 0x0")
	}
	v, err := tcfmt.ParseUint(rest[0], 10, 16)
	if err != nil {
		return nil, args, tcword.Errorf("Illegal probability val 0x0")
	}
	if v > gactProbMax {
		// Two blanks: tc's message.
		return nil, args, tcword.Errorf("Illegal probability val  0x%x", v)
	}
	pp.Pval = uint16(v)
	return pp, rest[1:], nil
}

func gactProbName(t uint16) string {
	switch t {
	case gactProbNetrand:
		return "netrand"
	case gactProbDeterm:
		return "determ"
	}
	return "none"
}

// printGact is m_gact.c's print_gact up to its last line's end.
func printGact(p *tcfmt.Printer, opts attrs.ActOptionsMsg, _ tckind.Links) {
	p.String(tcfmt.Any, "kind", "%s ", "gact")
	o, ok := opts.(*attrs.ActGactAttrs)
	if !ok || o.Parms == nil {
		return
	}
	printActionControl(p, "action ", o.Parms.Action, "")
	pp := o.Prob
	if pp == nil {
		// tc prints an absent random part as a zero one, "to keep the
		// output consistent".
		pp = &attrs.TCGactP{}
	}
	p.OpenObject("prob")
	p.NL()
	p.String(tcfmt.Any, "random_type", "\t random type %s", gactProbName(pp.Ptype))
	printActionControl(p, " ", pp.Paction, " ")
	p.Int(tcfmt.Any, "val", "val %d", int64(pp.Pval))
	p.CloseObject()
	p.NL()
	p.Uint(tcfmt.Any, "index", "\t index %u", uint64(o.Parms.Index))
	p.Int(tcfmt.Any, "ref", " ref %d", int64(o.Parms.Refcnt))
	p.Int(tcfmt.Any, "bind", " bind %d", int64(o.Parms.Bindcnt))
}

func printGactStats(p *tcfmt.Printer, opts attrs.ActOptionsMsg) {
	if o, ok := opts.(*attrs.ActGactAttrs); ok && o.Parms != nil && o.Tm != nil {
		printTm(p, o.Tm)
	}
}

// gactKeywords is Action.Keywords for gact: its verdict, which its words
// always name, and the random part when the kernel keeps one.
func gactKeywords(opts attrs.ActOptionsMsg, _ tckind.Links) ([]string, error) {
	o, _ := opts.(*attrs.ActGactAttrs)
	if o == nil || o.Parms == nil {
		return nil, tckind.NoKeywords("gact without parameters")
	}
	w, err := verdictWords(nil, o.Parms.Action)
	if err != nil {
		return nil, err
	}
	// The kernel dumps TCA_GACT_PROB only for a random part (ptype not
	// none); a zero one asks for nothing.
	pp := o.Prob
	if pp == nil || pp.Ptype == gactProbNone && pp.Paction == 0 && pp.Pval == 0 {
		return w, nil
	}
	if pp.Ptype != gactProbNetrand && pp.Ptype != gactProbDeterm {
		return nil, tckind.NoKeywords(fmt.Sprintf("gact random type %d", pp.Ptype))
	}
	if pp.Pval > gactProbMax {
		return nil, tckind.NoKeywords(fmt.Sprintf("gact probability %d", pp.Pval))
	}
	w = append(w, "random", gactProbName(pp.Ptype))
	if w, err = verdictWords(w, pp.Paction); err != nil {
		return nil, err
	}
	return append(w, tcword.UintWord(pp.Pval)), nil
}
