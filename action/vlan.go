// SPDX-License-Identifier: Apache-2.0

package action

// The vlan action (net/sched/act_vlan.c): pop, push or modify an 802.1Q or
// 802.1ad tag, or pop or push a whole Ethernet header, as tc 7.3's m_vlan.c
// reads and prints it.

import (
	"fmt"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// TCA_VLAN_ACT_* (linux/tc_act/tc_vlan.h).
const (
	vlanActPop     = 1
	vlanActPush    = 2
	vlanActModify  = 3
	vlanActPopEth  = 4
	vlanActPushEth = 5
)

// vlanActions names each v_action, in the order parse_vlan tries them.
var vlanActions = []struct {
	name string
	code int32
}{
	{"pop", vlanActPop}, {"push", vlanActPush}, {"modify", vlanActModify},
	{"pop_eth", vlanActPopEth}, {"push_eth", vlanActPushEth},
}

func vlanActionName(code int32) string {
	for _, a := range vlanActions {
		if a.code == code {
			return a.name
		}
	}
	// tc indexes its table of names with the number and prints a null.
	return "(null)"
}

const vlanUsage = `Usage: vlan pop [CONTROL]
       vlan push [ protocol VLANPROTO ] id VLANID [ priority VLANPRIO ] [CONTROL]
       vlan modify [ protocol VLANPROTO ] id VLANID [ priority VLANPRIO ] [CONTROL]
       vlan pop_eth [CONTROL]
       vlan push_eth dst_mac LLADDR src_mac LLADDR [CONTROL]
       VLANPROTO is one of 802.1Q or 802.1AD
            with default: 802.1Q
       CONTROL := reclassify | pipe | drop | continue | pass |
                  goto chain <CHAIN_INDEX>`

func init() {
	tckind.LazilyActions(func() {
		tckind.MustRegisterAction(&tckind.Action{
			Name:       "vlan",
			Usage:      vlanUsage,
			Parse:      parseVLAN,
			Print:      printVLAN,
			Keywords:   vlanKeywords,
			PrintStats: printVLANStats,
		})
	}, "vlan")
}

// parseVLAN is m_vlan.c's parse_vlan: "vlan", one of the actions with its
// keywords, then [CONTROL] [index N].
func parseVLAN(args []string, env tckind.ActionEnv) (attrs.ActOptionsMsg, []string, error) {
	if len(args) < 2 {
		return nil, args, tcword.IncompleteCommand()
	}
	p := &attrs.TCVLAN{}
	o := &attrs.ActVLANAttrs{Parms: p}
	args = args[1:]
	var action int32
	// pushLike is has_push_attribs: the actions that write a tag.
	pushLike := func() bool { return action == vlanActPush || action == vlanActModify }
	var proto uint16
	protoSet := false
loop:
	for len(args) > 0 {
		w := args[0]
		for _, a := range vlanActions {
			if tcfmt.Matches(w, a.name) {
				if action != 0 {
					return nil, args, withUsage(`unexpected "`+w+`" - action already specified`, vlanUsage)
				}
				action = a.code
				args = args[1:]
				continue loop
			}
		}
		// A keyword's value: NEXT_ARG, then args[1].
		value := func(valid bool, why string) (string, error) {
			if !valid {
				return "", tcword.InvalidArgument(w, why)
			}
			if len(args) < 2 {
				return "", tcword.IncompleteCommand()
			}
			return args[1], nil
		}
		switch {
		case tcfmt.Matches(w, "id"):
			s, err := value(pushLike(), "only valid for push/modify")
			if err != nil {
				return nil, args, err
			}
			v, err := tcfmt.ParseUint(s, 0, 16)
			if err != nil {
				return nil, args, tcword.InvalidArgument(s, "id is invalid")
			}
			o.PushVLANID = tcword.PtrTo(uint16(v))
		case tcfmt.Matches(w, "protocol"):
			s, err := value(pushLike(), "only valid for push/modify")
			if err != nil {
				return nil, args, err
			}
			v, ok := tckind.ParseEthProtocol(s)
			if !ok {
				return nil, args, tcword.InvalidArgument(s, "protocol is invalid")
			}
			proto, protoSet = v, true
		case tcfmt.Matches(w, "priority"):
			s, err := value(pushLike(), "only valid for push/modify")
			if err != nil {
				return nil, args, err
			}
			v, err := tcfmt.ParseUint(s, 0, 8)
			if err != nil || v&^7 != 0 {
				return nil, args, tcword.InvalidArgument(s, "prio is invalid")
			}
			o.PushVLANPriority = tcword.PtrTo(uint8(v))
		case tcfmt.Matches(w, "dst_mac"), tcfmt.Matches(w, "src_mac"):
			key := "dst_mac"
			if !tcfmt.Matches(w, key) {
				key = "src_mac"
			}
			s, err := value(action == vlanActPushEth, "only valid for push_eth")
			if err != nil {
				return nil, args, err
			}
			mac, msg, ok := tcword.ParseMAC(s)
			if !ok {
				e := tcword.InvalidArgument(s, key+" is invalid")
				e.Msg = msg + "\n" + e.Msg
				return nil, args, e
			}
			if key == "dst_mac" {
				o.PushEthDst = mac
			} else {
				o.PushEthSrc = mac
			}
		case tcfmt.Matches(w, "help"):
			return nil, args, &tcword.ParseError{Msg: vlanUsage, Code: 255}
		default:
			break loop
		}
		args = args[2:]
	}
	code, rest, err := parseActionControlDefault(args, actPipe, env.Stderr)
	if err != nil {
		return nil, args, err
	}
	p.Action, args = code, rest
	index, found, rest, err := parseActionIndex(args, 10, `vlan: Illegal "index"`)
	if err != nil {
		return nil, args, err
	}
	if found {
		p.Index, args = index, rest
	}
	if pushLike() && o.PushVLANID == nil {
		return nil, args, withUsage("id needs to be set for "+vlanActionName(action), vlanUsage)
	}
	if action == vlanActPushEth {
		switch {
		case o.PushEthDst == nil:
			return nil, args, withUsage("dst_mac needs to be set for push_eth", vlanUsage)
		case o.PushEthSrc == nil:
			return nil, args, withUsage("src_mac needs to be set for push_eth", vlanUsage)
		}
	}
	if protoSet {
		if proto != tckind.EthP8021Q && proto != tckind.EthP8021AD {
			return nil, args, withUsage("protocol not supported", vlanUsage)
		}
		o.PushVLANProtocol = &proto
	}
	p.VAction = action
	return o, args, nil
}

// printVLAN is m_vlan.c's print_vlan up to its last line's end.
func printVLAN(p *tcfmt.Printer, opts attrs.ActOptionsMsg, _ tckind.Links) {
	p.String(tcfmt.Any, "kind", "%s ", "vlan")
	o, ok := opts.(*attrs.ActVLANAttrs)
	if !ok || o.Parms == nil {
		return
	}
	parms := o.Parms
	p.String(tcfmt.Any, "vlan_action", " %s", vlanActionName(parms.VAction))
	switch parms.VAction {
	case vlanActPush, vlanActModify:
		if o.PushVLANID != nil {
			p.Uint(tcfmt.Any, "id", " id %u", uint64(*o.PushVLANID))
		}
		if o.PushVLANProtocol != nil {
			p.String(tcfmt.Any, "protocol", " protocol %s", tckind.EthProtocolName(*o.PushVLANProtocol))
		}
		if o.PushVLANPriority != nil {
			p.Uint(tcfmt.Any, "priority", " priority %u", uint64(*o.PushVLANPriority))
		}
	case vlanActPushEth:
		if len(o.PushEthDst) == 6 {
			p.String(tcfmt.Any, "dst_mac", " dst_mac %s", tcword.FormatMAC(o.PushEthDst))
		}
		if len(o.PushEthSrc) == 6 {
			p.String(tcfmt.Any, "src_mac", " src_mac %s", tcword.FormatMAC(o.PushEthSrc))
		}
	}
	printActionControl(p, " ", parms.Action, "")
	printActionIndex(p, parms.Index, parms.Refcnt, parms.Bindcnt)
}

func printVLANStats(p *tcfmt.Printer, opts attrs.ActOptionsMsg) {
	if o, ok := opts.(*attrs.ActVLANAttrs); ok && o.Parms != nil && o.Tm != nil {
		printTm(p, o.Tm)
	}
}

// vlanKeywords is Action.Keywords for vlan: its action with the tag or
// header it writes, and the verdict.
func vlanKeywords(opts attrs.ActOptionsMsg, _ tckind.Links) ([]string, error) {
	o, _ := opts.(*attrs.ActVLANAttrs)
	if o == nil || o.Parms == nil {
		return nil, tckind.NoKeywords("vlan without parameters")
	}
	a := o.Parms.VAction
	name := vlanActionName(a)
	if name == "(null)" {
		return nil, tckind.NoKeywords(fmt.Sprintf("vlan action %d", a))
	}
	w := []string{name}
	switch a {
	case vlanActPush, vlanActModify:
		if o.PushVLANID == nil {
			return nil, tckind.NoKeywords("vlan " + name + " without an id")
		}
		if o.PushVLANProtocol != nil {
			w = append(w, "protocol", tckind.EthProtocolWord(*o.PushVLANProtocol))
		}
		w = append(w, "id", tcword.UintWord(*o.PushVLANID))
		if o.PushVLANPriority != nil {
			w = append(w, "priority", tcword.UintWord(*o.PushVLANPriority))
		}
	case vlanActPushEth:
		if len(o.PushEthDst) != 6 || len(o.PushEthSrc) != 6 {
			return nil, tckind.NoKeywords("vlan push_eth without both addresses")
		}
		w = append(w, "dst_mac", tcword.FormatMAC(o.PushEthDst), "src_mac", tcword.FormatMAC(o.PushEthSrc))
	}
	return controlWords(w, o.Parms.Action, actPipe)
}
