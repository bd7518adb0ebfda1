// SPDX-License-Identifier: Apache-2.0

package action

// The csum action (net/sched/act_csum.c): recomputes the IPv4 header's and
// the chosen transport protocols' checksums, then gives its verdict (ok
// unless told), as tc 7.3's m_csum.c reads and prints it.

import (
	"fmt"
	"strings"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// csumTargets are the words of an update list in tc's order of matching,
// with their TCA_CSUM_UPDATE_FLAG_* bits; the joining words "and", "or"
// and "+" carry none.
var csumTargets = []struct {
	name string
	flag uint32
}{
	{"iph", 1}, {"ip4h", 1}, {"ipv4h", 1}, {"icmp", 2}, {"igmp", 4},
	{"tcp", 8}, {"udp", 16}, {"udplite", 32}, {"sctp", 64},
	{"and", 0}, {"or", 0}, {"+", 0},
}

// csumNames are the flags as tc prints them, in order.
var csumNames = []struct {
	flag uint32
	name string
}{{1, "iph"}, {2, "icmp"}, {4, "igmp"}, {8, "tcp"}, {16, "udp"}, {32, "udplite"}, {64, "sctp"}}

const csumUsage = `Usage: ... csum <UPDATE> [ CONTROL ] [ index INDEX ]
Where: UPDATE := <TARGET> [<UPDATE>]
       TARGET := { ip4h | icmp | igmp | tcp | udp | udplite | sctp | <SWEETS> }
       SWEETS := { and | or | '+' }`

func init() {
	tckind.LazilyActions(func() {
		tckind.MustRegisterAction(&tckind.Action{
			Name:     "csum",
			Usage:    csumUsage,
			Parse:    parseCsum,
			Print:    printCsum,
			Keywords: csumKeywords,
			PrintStats: func(p *tcfmt.Printer, opts attrs.ActOptionsMsg) {
				if o, ok := opts.(*attrs.ActCsumAttrs); ok && o.Parms != nil && o.Tm != nil {
					printTm(p, o.Tm)
				}
			},
		})
	}, "csum")
}

// parseCsum is m_csum.c's parse_csum: csum TARGET... (csum may come again
// between targets), then [CONTROL] [index N]; or "csum index N" alone,
// which binds an existing action.
func parseCsum(args []string, env tckind.ActionEnv) (attrs.ActOptionsMsg, []string, error) {
	sel := &attrs.TCCsum{}
	o := &attrs.ActCsumAttrs{Parms: sel}
	ok := 0
	for len(args) > 0 {
		if tcfmt.Matches(args[0], "help") {
			return nil, args, &tcword.ParseError{Msg: csumUsage, Code: 255}
		}
		if !tcfmt.Matches(args[0], "csum") {
			break
		}
		if len(args) < 2 {
			return nil, args, tcword.IncompleteCommand()
		}
		args = args[1:]
		if args[0] == "index" {
			return parseCsumIndex(o, args)
		}
		args = readCsumTargets(args, sel)
		ok++
	}
	if ok == 0 {
		return nil, args, tcword.Errorf("%s", csumUsage)
	}
	if sel.UpdateFlags == 0 {
		return nil, args, tcword.Errorf("Illegal csum construct, empty <UPDATE> list")
	}
	code, args, err := parseActionControlDefault(args, actOK, env.Stderr)
	if err != nil {
		return nil, args, err
	}
	sel.Action = code
	if len(args) > 0 && tcfmt.Matches(args[0], "index") {
		return parseCsumIndex(o, args)
	}
	return o, args, nil
}

// readCsumTargets is parse_csum_args: the update list's words up to the
// first that is none.
func readCsumTargets(args []string, sel *attrs.TCCsum) []string {
	for len(args) > 0 {
		found := false
		for _, t := range csumTargets {
			if tcfmt.Matches(args[0], t.name) {
				sel.UpdateFlags |= t.flag
				found = true
				break
			}
		}
		if !found {
			break
		}
		args = args[1:]
	}
	return args
}

// parseCsumIndex reads "index N", args[0] being the word index.
func parseCsumIndex(o *attrs.ActCsumAttrs, args []string) (attrs.ActOptionsMsg, []string, error) {
	if len(args) < 2 {
		return nil, args, tcword.IncompleteCommand()
	}
	v, err := tcfmt.ParseUint(args[1], 10, 32)
	if err != nil {
		return nil, args, tcword.Errorf(`Illegal "index" (%s) <csum>`, args[1])
	}
	o.Parms.Index = uint32(v)
	return o, args[2:], nil
}

// printCsum is m_csum.c's print_csum up to its last line's end.
func printCsum(p *tcfmt.Printer, opts attrs.ActOptionsMsg, _ tckind.Links) {
	p.String(tcfmt.Any, "kind", "%s ", "csum")
	o, ok := opts.(*attrs.ActCsumAttrs)
	if !ok || o.Parms == nil {
		return
	}
	sel := o.Parms
	var names []string
	for _, n := range csumNames {
		if sel.UpdateFlags&n.flag != 0 {
			names = append(names, n.name)
		}
	}
	list := strings.Join(names, ", ")
	if list == "" {
		list = "?empty"
	}
	p.String(tcfmt.Any, "csum", "(%s) ", list)
	printActionControl(p, "action ", sel.Action, p.SL())
	p.Uint(tcfmt.Any, "index", "\tindex %u", uint64(sel.Index))
	p.Int(tcfmt.Any, "ref", " ref %d", int64(sel.Refcnt))
	p.Int(tcfmt.Any, "bind", " bind %d", int64(sel.Bindcnt))
}

// csumKeywords is Action.Keywords for csum: the update list, in tc's
// order of printing, and the verdict.
func csumKeywords(opts attrs.ActOptionsMsg, _ tckind.Links) ([]string, error) {
	o, _ := opts.(*attrs.ActCsumAttrs)
	if o == nil || o.Parms == nil {
		return nil, tckind.NoKeywords("csum without parameters")
	}
	var w []string
	left := o.Parms.UpdateFlags
	for _, n := range csumNames {
		if left&n.flag != 0 {
			w = append(w, n.name)
			left &^= n.flag
		}
	}
	// An empty list is refused by tc's parser; other bits are protocols
	// tc has no word for.
	if len(w) == 0 || left != 0 {
		return nil, tckind.NoKeywords(fmt.Sprintf("csum update flags %#x", o.Parms.UpdateFlags))
	}
	return controlWords(w, o.Parms.Action, actOK)
}
