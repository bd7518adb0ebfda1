// SPDX-License-Identifier: Apache-2.0

package action

// The connmark action (net/sched/act_connmark.c): copies the mark of a
// packet's connection (in a conntrack zone) to the packet, as tc 7.3's
// m_connmark.c reads and prints it.

import (
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// connmarkUsage is m_connmark.c's explain text.
const connmarkUsage = `Usage: ... connmark [zone ZONE] [CONTROL] [index <INDEX>]
where :
	ZONE is the conntrack zone
	CONTROL := reclassify | pipe | drop | continue | ok |
	           goto chain <CHAIN_INDEX>`

func init() {
	tckind.LazilyActions(func() {
		tckind.MustRegisterAction(&tckind.Action{
			Name:       "connmark",
			Usage:      connmarkUsage,
			Parse:      parseConnmark,
			Print:      printConnmark,
			Keywords:   connmarkKeywords,
			PrintStats: printConnmarkStats,
		})
	}, "connmark")
}

// parseConnmark is m_connmark.c's parse_connmark: connmark [zone ZONE]
// [CONTROL] [index N], in that order.
func parseConnmark(args []string, env tckind.ActionEnv) (attrs.ActOptionsMsg, []string, error) {
	// args[0] is "connmark"; tc skips any number of them, and stops at help.
	for len(args) > 0 {
		if tcfmt.Matches(args[0], "connmark") {
			args = args[1:]
			continue
		}
		if tcfmt.Matches(args[0], "help") {
			return nil, args, &tcword.ParseError{Msg: connmarkUsage, Code: 255}
		}
		break
	}
	p := &attrs.TCConnmark{}
	if len(args) > 0 && tcfmt.Matches(args[0], "zone") {
		if len(args) < 2 {
			return nil, args, tcword.IncompleteCommand()
		}
		v, err := tcfmt.ParseUint(args[1], 10, 16)
		if err != nil {
			return nil, args, tcword.Errorf(`connmark: Illegal "zone"`)
		}
		p.Zone = uint16(v)
		args = args[2:]
	}
	code, rest, err := parseActionControlDefault(args, actPipe, env.Stderr)
	if err != nil {
		return nil, args, err
	}
	p.Action, args = code, rest
	index, found, rest, err := parseActionIndex(args, 10, `connmark: Illegal "index"`)
	if err != nil {
		return nil, args, err
	}
	if found {
		p.Index, args = index, rest
	}
	return &attrs.ActConnmarkAttrs{Parms: p}, args, nil
}

// printConnmark is m_connmark.c's print_connmark up to its last line's
// end. Without parameters tc prints a complaint on stderr only.
func printConnmark(p *tcfmt.Printer, opts attrs.ActOptionsMsg, _ tckind.Links) {
	p.String(tcfmt.Any, "kind", "%s ", "connmark")
	o, ok := opts.(*attrs.ActConnmarkAttrs)
	if !ok || o.Parms == nil {
		return
	}
	p.Uint(tcfmt.Any, "zone", "zone %u", uint64(o.Parms.Zone))
	printActionControl(p, " ", o.Parms.Action, "")
	p.NL()
	p.Uint(tcfmt.Any, "index", "\t index %u", uint64(o.Parms.Index))
	p.Int(tcfmt.Any, "ref", " ref %d", int64(o.Parms.Refcnt))
	p.Int(tcfmt.Any, "bind", " bind %d", int64(o.Parms.Bindcnt))
}

func printConnmarkStats(p *tcfmt.Printer, opts attrs.ActOptionsMsg) {
	if o, ok := opts.(*attrs.ActConnmarkAttrs); ok && o.Parms != nil && o.Tm != nil {
		printTm(p, o.Tm)
	}
}

// connmarkKeywords is Action.Keywords for connmark.
func connmarkKeywords(opts attrs.ActOptionsMsg, _ tckind.Links) ([]string, error) {
	o, _ := opts.(*attrs.ActConnmarkAttrs)
	if o == nil || o.Parms == nil {
		return nil, tckind.NoKeywords("connmark without parameters")
	}
	var w []string
	if o.Parms.Zone != 0 {
		w = append(w, "zone", tcword.UintWord(o.Parms.Zone))
	}
	return controlWords(w, o.Parms.Action, actPipe)
}
