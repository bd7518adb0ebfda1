// SPDX-License-Identifier: Apache-2.0

package action

// The mpls action (net/sched/act_mpls.c): pop, push (before or after the
// Ethernet header) or modify an MPLS label stack entry, or decrement its
// TTL, as tc 7.3's m_mpls.c reads and prints it.

import (
	"fmt"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// TCA_MPLS_ACT_* (linux/tc_act/tc_mpls.h).
const (
	mplsActPop     = 1
	mplsActPush    = 2
	mplsActModify  = 3
	mplsActDecTTL  = 4
	mplsActMacPush = 5
)

// mplsActions names each m_action, in the order parse_mpls tries them.
var mplsActions = []struct {
	name string
	code int32
}{
	{"pop", mplsActPop}, {"push", mplsActPush}, {"modify", mplsActModify},
	{"mac_push", mplsActMacPush}, {"dec_ttl", mplsActDecTTL},
}

func mplsActionName(code int32) string {
	for _, a := range mplsActions {
		if a.code == code {
			return a.name
		}
	}
	return "(null)"
}

const mplsUsage = `Usage: mpls pop [ protocol MPLS_PROTO ] [CONTROL]
       mpls push [ protocol MPLS_PROTO ] [ label MPLS_LABEL ] [ tc MPLS_TC ]
                 [ ttl MPLS_TTL ] [ bos MPLS_BOS ] [CONTROL]
       mpls mac_push [ protocol MPLS_PROTO ] [ label MPLS_LABEL ] [ tc MPLS_TC ]
                     [ ttl MPLS_TTL ] [ bos MPLS_BOS ] [CONTROL]
       mpls modify [ label MPLS_LABEL ] [ tc MPLS_TC ] [ ttl MPLS_TTL ]
                   [ bos MPLS_BOS ] [CONTROL]
           for pop, MPLS_PROTO is next header of packet - e.g. ip or mpls_uc
           for push and mac_push, MPLS_PROTO is one of mpls_uc or mpls_mc
               with default: mpls_uc
       CONTROL := reclassify | pipe | drop | continue | pass |
                  goto chain <CHAIN_INDEX>`

func init() {
	tckind.LazilyActions(func() {
		tckind.MustRegisterAction(&tckind.Action{
			Name:       "mpls",
			Usage:      mplsUsage,
			Parse:      parseMPLS,
			Print:      printMPLS,
			Keywords:   mplsKeywords,
			Dumped:     mplsDumped,
			PrintStats: printMPLSStats,
		})
	}, "mpls")
}

// mplsFields are the label stack entry's keywords: each its width for
// get_u*, its largest value (ttl is also refused at 0), and tc's message.
var mplsFields = []struct {
	name  string
	bits  int
	max   uint64
	error string
}{
	{"label", 32, 0xfffff, "label must be <=0xFFFFF"},
	{"tc", 8, 7, "tc field is 3 bits max"},
	{"ttl", 8, 0xff, "ttl must be >0 and <=255"},
	{"bos", 8, 1, "bos must be 0 or 1"},
}

// parseMPLS is m_mpls.c's parse_mpls: "mpls", one action and its
// keywords, [CONTROL] [index N]; or "mpls index N".
func parseMPLS(args []string, env tckind.ActionEnv) (attrs.ActOptionsMsg, []string, error) {
	if len(args) < 2 {
		return nil, args, tcword.IncompleteCommand()
	}
	p := &attrs.TCMPLS{}
	o := &attrs.ActMPLSAttrs{Parms: p}
	args = args[1:]
	var action int32
	var proto uint16
	if args[0] != "index" {
	loop:
		for len(args) > 0 {
			w := args[0]
			for _, a := range mplsActions {
				if tcfmt.Matches(w, a.name) {
					if action != 0 {
						return nil, args, withUsage(fmt.Sprintf("Error: got %q but action already set to %q", w, mplsActionName(action)), mplsUsage)
					}
					action = a.code
					args = args[1:]
					continue loop
				}
			}
			fieldOK := action == mplsActPush || action == mplsActMacPush || action == mplsActModify
			switch {
			case tcfmt.Matches(w, "protocol"):
				if action != mplsActPush && action != mplsActMacPush && action != mplsActPop {
					return nil, args, tcword.InvalidArgument(w, "only valid for push, mac_push and pop")
				}
				if len(args) < 2 {
					return nil, args, tcword.IncompleteCommand()
				}
				v, ok := tckind.ParseEthProtocol(args[1])
				if !ok {
					return nil, args, tcword.InvalidArgument(args[1], "protocol is invalid")
				}
				proto = v
			case tcfmt.Matches(w, "help"):
				return nil, args, &tcword.ParseError{Msg: mplsUsage, Code: 255}
			default:
				i := -1
				for j, f := range mplsFields {
					if tcfmt.Matches(w, f.name) {
						i = j
						break
					}
				}
				if i < 0 {
					break loop
				}
				f := mplsFields[i]
				if !fieldOK {
					return nil, args, tcword.InvalidArgument(w, "only valid for push, mac_push and modify")
				}
				if len(args) < 2 {
					return nil, args, tcword.IncompleteCommand()
				}
				v, err := tcfmt.ParseUint(args[1], 0, f.bits)
				if err != nil || v > f.max || (f.name == "ttl" && v == 0) {
					return nil, args, tcword.InvalidArgument(args[1], f.error)
				}
				switch f.name {
				case "label":
					o.Label = tcword.PtrTo(uint32(v))
				case "tc":
					o.TC = tcword.PtrTo(uint8(v))
				case "ttl":
					o.Ttl = tcword.PtrTo(uint8(v))
				default:
					o.Bos = tcword.PtrTo(uint8(v))
				}
			}
			args = args[2:]
		}
		if action == 0 {
			return nil, args, tcword.IncompleteCommand()
		}
		code, rest, err := parseActionControlDefault(args, actPipe, env.Stderr)
		if err != nil {
			return nil, args, err
		}
		p.Action, args = code, rest
	}
	if len(args) > 0 && tcfmt.Matches(args[0], "index") {
		if len(args) < 2 {
			return nil, args, tcword.IncompleteCommand()
		}
		v, err := tcfmt.ParseUint(args[1], 10, 32)
		if err != nil {
			return nil, args, tcword.InvalidArgument(args[1], "illegal index")
		}
		p.Index = uint32(v)
		args = args[2:]
	}
	if action == mplsActPush && o.Label == nil {
		return nil, args, missingArgument("label")
	}
	if (action == mplsActPush || action == mplsActMacPush) && proto != 0 &&
		proto != tckind.EthPMPLSUC && proto != tckind.EthPMPLSMC {
		mac := ""
		if action == mplsActMacPush {
			mac = "mac_"
		}
		return nil, args, tcword.Errorf("invalid %spush protocol \"0x%04x\" - use mpls_(uc|mc)", mac, proto)
	}
	if action == mplsActPop && proto == 0 {
		return nil, args, missingArgument("protocol")
	}
	if proto != 0 {
		o.Proto = &proto
	}
	p.MAction = action
	return o, args, nil
}

// missingArgument is tc's missarg: a keyword a command needs is absent;
// tc exits 255.
func missingArgument(key string) *tcword.ParseError {
	return &tcword.ParseError{Msg: fmt.Sprintf("Error: argument %q is required", key), Code: 255}
}

// printMPLS is m_mpls.c's print_mpls up to its last line's end.
func printMPLS(p *tcfmt.Printer, opts attrs.ActOptionsMsg, _ tckind.Links) {
	p.String(tcfmt.Any, "kind", "%s ", "mpls")
	o, ok := opts.(*attrs.ActMPLSAttrs)
	if !ok || o.Parms == nil {
		return
	}
	parms := o.Parms
	p.String(tcfmt.Any, "mpls_action", " %s", mplsActionName(parms.MAction))
	switch parms.MAction {
	case mplsActPop, mplsActPush, mplsActMacPush, mplsActModify:
		if o.Proto != nil && parms.MAction != mplsActModify {
			p.String(tcfmt.Any, "protocol", " protocol %s", tckind.EthProtocolName(*o.Proto))
		}
		if parms.MAction == mplsActPop {
			break
		}
		if o.Label != nil {
			p.Uint(tcfmt.Any, "label", " label %u", uint64(*o.Label))
		}
		if o.TC != nil {
			p.Uint(tcfmt.Any, "tc", " tc %u", uint64(*o.TC))
		}
		if o.Bos != nil {
			p.Uint(tcfmt.Any, "bos", " bos %u", uint64(*o.Bos))
		}
		if o.Ttl != nil {
			p.Uint(tcfmt.Any, "ttl", " ttl %u", uint64(*o.Ttl))
		}
	}
	printActionControl(p, " ", parms.Action, "")
	printActionIndex(p, parms.Index, parms.Refcnt, parms.Bindcnt)
}

func printMPLSStats(p *tcfmt.Printer, opts attrs.ActOptionsMsg) {
	if o, ok := opts.(*attrs.ActMPLSAttrs); ok && o.Parms != nil && o.Tm != nil {
		printTm(p, o.Tm)
	}
}

// mplsKeywords is Action.Keywords for mpls: its action with the label
// stack entry's fields the kernel dumps (those it was given, and a
// push's protocol and TTL, which it fills when not), and the verdict.
func mplsKeywords(opts attrs.ActOptionsMsg, _ tckind.Links) ([]string, error) {
	o, _ := opts.(*attrs.ActMPLSAttrs)
	if o == nil || o.Parms == nil {
		return nil, tckind.NoKeywords("mpls without parameters")
	}
	a := o.Parms.MAction
	name := mplsActionName(a)
	if name == "(null)" {
		return nil, tckind.NoKeywords(fmt.Sprintf("mpls action %d", a))
	}
	w := []string{name}
	switch {
	case o.Proto == nil:
	case a != mplsActModify && a != mplsActDecTTL:
		w = append(w, "protocol", tckind.EthProtocolWord(*o.Proto))
	case *o.Proto != tckind.EthPMPLSUC:
		// The kernel gives modify and dec_ttl the protocol mpls_uc,
		// which they do not use; tc asks them for none.
		return nil, tckind.NoKeywords(fmt.Sprintf("mpls %s protocol %#04x", name, *o.Proto))
	}
	if a == mplsActPop || a == mplsActDecTTL {
		return controlWords(w, o.Parms.Action, actPipe)
	}
	if o.Label != nil {
		w = append(w, "label", tcword.UintWord(*o.Label))
	}
	if o.TC != nil {
		w = append(w, "tc", tcword.UintWord(*o.TC))
	}
	if o.Ttl != nil {
		w = append(w, "ttl", tcword.UintWord(*o.Ttl))
	}
	if o.Bos != nil {
		w = append(w, "bos", tcword.UintWord(*o.Bos))
	}
	return controlWords(w, o.Parms.Action, actPipe)
}

// mplsDumped is Action.Dumped for mpls: modify and dec_ttl leave the
// protocol out, and the kernel fills in the one it acts on (mpls_uc).
func mplsDumped(opts attrs.ActOptionsMsg) attrs.ActOptionsMsg {
	o, ok := opts.(*attrs.ActMPLSAttrs)
	if !ok || o.Parms == nil || o.Proto != nil || o.Parms.MAction != mplsActModify && o.Parms.MAction != mplsActDecTTL {
		return opts
	}
	c := *o
	proto := uint16(tckind.EthPMPLSUC)
	c.Proto = &proto
	return &c
}
