// SPDX-License-Identifier: Apache-2.0

package tcline

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"

	"github.com/gotc/gotc/action"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/nlabi"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// PrintEnv is what printing a dumped object needs besides the printer,
// which holds the command's -s, -d and -raw (tcfmt.Options), and the
// message.
type PrintEnv struct {
	// Links names the devices the objects and their actions refer to.
	// A listing calls its Load before the dump.
	Links tckind.Links
	// Stderr receives what tc prints there for options it cannot
	// decode; nil discards it.
	Stderr io.Writer
}

func (env PrintEnv) stderr() io.Writer {
	if env.Stderr == nil {
		return io.Discard
	}
	return env.Stderr
}

// Verb is what an announcement (tc monitor) or an -echo answer says was
// done with the object, which tc prints before it; the zero Verb for a
// listing.
type Verb struct{ Deleted, Replaced, Added bool }

// PrintQdisc prints one qdisc as tc's print_qdisc does, with its device
// when showDev is set (a listing of every device, an announcement).
func PrintQdisc(p *tcfmt.Printer, m *netlink.Msg, env PrintEnv, showDev bool, verb Verb) {
	a := &m.Attrs
	h := tcfmt.QdiscHeader{
		Kind:     m.Kind(),
		Handle:   m.Header.Handle,
		Parent:   m.Header.Parent,
		Info:     m.Header.Info,
		ShowDev:  showDev,
		Raw:      p.Raw(),
		Deleted:  verb.Deleted,
		Replaced: verb.Replaced,
		Added:    verb.Added,
	}
	if showDev {
		h.Dev = env.Links.Name(m.Header.Ifindex)
	}
	if a.HWOffload != nil && *a.HWOffload != 0 {
		h.Offloaded = true
	}
	if a.IngressBlock != nil {
		h.IngressBlock = *a.IngressBlock
	}
	if a.EgressBlock != nil {
		h.EgressBlock = *a.EgressBlock
	}
	kind := tckind.LookupQdisc(m.Kind())
	p.QdiscHead(&h)
	p.OpenObject("options")
	switch {
	case a.Options != nil && kind != nil && kind.PrintOptions != nil:
		kind.PrintOptions(p, a.Options)
	case kind == nil:
		printUnknownOptions(p, a.Options, "qdisc")
	}
	p.CloseObject()
	p.NL()
	if p.Details() && a.Stab != nil {
		tckind.PrintSizeTable(p, a.Stab)
		p.NL()
	}
	if p.ShowStats() {
		printStats(p, a)
		if x := tckind.XstatsOf(a); kind != nil && kind.PrintXstats != nil && x.Present() {
			kind.PrintXstats(p, x)
			p.NL()
		}
	}
	warn := ""
	if a.ExtWarnMsg != nil {
		warn = *a.ExtWarnMsg
	}
	p.QdiscTail(warn, a.ExtWarnMsg != nil)
}

// PrintClass prints one class as tc's print_class does: "deleted " for
// a removal, and the device when showDev is set (an announcement).
func PrintClass(p *tcfmt.Printer, m *netlink.Msg, env PrintEnv, showDev bool, verb Verb) {
	a := &m.Attrs
	p.OpenObject("")
	if verb.Deleted {
		p.Null(tcfmt.Any, "deleted", "deleted ", "")
	}
	p.String(tcfmt.Any, "class", "class %s ", m.Kind())
	p.String(tcfmt.Any, "handle", "%s ", tcfmt.FormatClassID(m.Header.Handle))
	if showDev {
		p.String(tcfmt.Any, "dev", "dev %s ", env.Links.Name(m.Header.Ifindex))
	}
	if m.Header.Parent == netlink.HandleRoot {
		p.Bool(tcfmt.Any, "root", "root ", true)
	} else if m.Header.Parent != 0 {
		p.String(tcfmt.Any, "parent", "parent %s ", tcfmt.FormatClassID(m.Header.Parent))
	}
	if m.Header.Info != 0 {
		// tcm_info is the leaf qdisc's handle: text "leaf 2: ", JSON "0x2".
		p.Hex0x(tcfmt.Any, "leaf", "leaf %x: ", uint64(m.Header.Info>>16))
	}
	kind := tckind.LookupQdisc(m.Kind())
	if a.Options != nil {
		if kind != nil && kind.PrintClassOptions != nil {
			kind.PrintClassOptions(p, a.Options)
		} else {
			// tc has no printer of this kind's class options.
			fmt.Fprint(env.stderr(), "[cannot parse class parameters]")
		}
	}
	p.NL()
	if p.ShowStats() {
		// Unlike a qdisc's, a class's statistics sit in their own JSON object.
		p.OpenObject("stats")
		if a.Stats2 != nil || a.Stats != nil {
			printStats(p, a)
		}
		if x := tckind.XstatsOf(a); kind != nil && kind.PrintClassXstats != nil && x.Present() {
			kind.PrintClassXstats(p, x)
			p.NL()
		}
		p.CloseObject()
	}
	p.CloseObject()
}

// FilterShown is how a filter or chain is printed: what the command
// named, which tc leaves out of each line (print_filter's filter_*
// globals), and what was done with it.
type FilterShown struct {
	// Obj is netlink.Filter or netlink.Chain.
	Obj netlink.Object
	// Echo is set for an announcement or -echo's answer, which names
	// the device, after Verb.
	Echo bool
	Verb Verb
	// Block, Parent, Protocol (ETH_P_*, host order) and Prio are what the
	// command named, 0 for none; Chain counts when ChainSet.
	Block, Parent  uint32
	Protocol, Prio uint32
	Chain          uint32
	ChainSet       bool
}

// PrintFilter prints a filter or chain as tc's print_filter does.
func PrintFilter(p *tcfmt.Printer, m *netlink.Msg, env PrintEnv, shown *FilterShown) {
	p.OpenObject("")
	// tc's filter printer names one of them, the first that applies.
	for _, v := range []struct {
		set  bool
		word string
	}{{shown.Verb.Deleted, "deleted"}, {shown.Verb.Added, "added"}, {shown.Verb.Replaced, "replaced"}} {
		if v.set {
			p.Bool(tcfmt.Any, tcfmt.Name(v.word), v.word+" ", true)
			break
		}
	}
	if shown.Obj == netlink.Chain {
		p.Text("chain ")
	} else {
		p.Text("filter ")
	}
	if m.Header.Ifindex == netlink.IfindexBlock {
		if shown.Block == 0 || shown.Block != m.Header.Parent {
			p.Uint(tcfmt.Any, "block", "block %u ", uint64(m.Header.Parent))
		}
	} else {
		if shown.Echo {
			p.String(tcfmt.Any, "dev", "dev %s ", env.Links.Name(m.Header.Ifindex))
		}
		if shown.Parent == 0 || shown.Parent != m.Header.Parent {
			switch par := m.Header.Parent; par {
			case netlink.HandleRoot:
				p.Bool(tcfmt.Any, "root", "root ", true)
			case ParentIngress:
				p.Bool(tcfmt.Any, "ingress", "ingress ", true)
			case ParentEgress:
				p.Bool(tcfmt.Any, "egress", "egress ", true)
			default:
				p.String(tcfmt.Any, "parent", "parent %s ", tcfmt.FormatClassID(par))
			}
		}
	}
	// tcm_info's low half is the protocol in network order.
	proto := bits.ReverseBytes16(uint16(m.Header.Info))
	if m.Header.Info != 0 && shown.Obj == netlink.Filter {
		prio := m.Header.Info >> 16
		if proto != 0 && (shown.Protocol == 0 || shown.Protocol != uint32(proto)) {
			p.String(tcfmt.Any, "protocol", "protocol %s ", tckind.EthProtocolName(proto))
		}
		if prio != 0 && (shown.Prio == 0 || shown.Prio != prio) {
			p.Uint(tcfmt.Any, "pref", "pref %u ", uint64(prio))
		}
	}
	if m.Attrs.Kind != nil {
		p.String(tcfmt.Any, "kind", "%s ", m.Kind())
	}
	if m.Attrs.Chain != nil && (!shown.ChainSet || shown.Chain != *m.Attrs.Chain) {
		p.Uint(tcfmt.Any, "chain", "chain %u ", uint64(*m.Attrs.Chain))
	}
	if m.Attrs.Kind != nil && m.Attrs.Options != nil {
		p.OpenObject("options")
		if kind := tckind.LookupFilter(m.Kind()); kind != nil {
			kind.PrintOptions(p, m.Attrs.Options, tckind.FilterPrint{
				Handle: m.Header.Handle, Protocol: proto, Stats: p.ShowStats(), Links: env.Links,
			})
		} else {
			fmt.Fprintln(env.stderr(), "cannot parse option parameters")
		}
		p.CloseObject()
	}
	p.NL()
	if p.ShowStats() && (m.Attrs.Stats2 != nil || m.Attrs.Stats != nil) {
		printStats(p, &m.Attrs)
	}
	if m.Attrs.ExtWarnMsg != nil {
		p.String(tcfmt.Any, "warn", "%s", *m.Attrs.ExtWarnMsg)
		p.NL()
	}
	p.CloseObject()
}

// printStats prints the generic statistics block from TCA_STATS2, or the
// legacy TCA_STATS when that is all there is, as print_tcstats_attr does.
func printStats(p *tcfmt.Printer, a *attrs.TCAttrs) {
	switch {
	case a.Stats2 != nil:
		st := action.Stats2Of(a.Stats2)
		p.Stats(&st, " ")
		p.NL()
	case a.Stats != nil:
		s := a.Stats
		p.CompatStatsBlock(&tcfmt.CompatStats{
			Bytes: s.Bytes, Packets: s.Packets, Drops: s.Drops, Overlimits: s.Overlimits,
			BPS: s.Bps, PPS: s.Pps, Qlen: s.Qlen, Backlog: s.Backlog,
		}, " ")
		p.NL()
	case a.Xstats != nil:
		p.NL()
	}
}

// printUnknownOptions is what tc prints for the options of a kind it has no
// module for: their length, if they have any.
func printUnknownOptions(p *tcfmt.Printer, o attrs.TCOptionsMsg, what string) {
	if o == nil {
		return
	}
	n := 0
	if raw, ok := o.(attrs.TCOptionsMsgRaw); ok {
		n = len(raw)
	} else {
		// A kind the spec describes but no Kind prints: its length as
		// encoded again, from the attribute's header.
		e := attrs.NewEncoder(nil)
		(&attrs.TCAttrs{Options: o}).Encode(e)
		n = int(binary.NativeEndian.Uint16(e.Bytes())) - 4
	}
	if n > 0 {
		p.Verbatim(fmt.Sprintf("[Unknown %s, optlen=%d] ", what, n))
	}
}

// PrintEvent prints one announcement as tc monitor's accept_tcmsg does,
// naming the device of every object: its verb ("added", "deleted", ...,
// from the event's flags), then the object. A monitor that is to name
// devices made after it started tells its netlink.Links of each event's
// device first (Notice).
func PrintEvent(p *tcfmt.Printer, ev netlink.Event, env PrintEnv) {
	created := !ev.Deleted && ev.Flags&nlabi.NLM_F_CREATE != 0
	switch ev.Object {
	case netlink.Qdisc:
		PrintQdisc(p, ev.Msg, env, true, Verb{
			Deleted:  ev.Deleted,
			Replaced: created && ev.Flags&nlabi.NLM_F_REPLACE != 0,
			Added:    created && ev.Flags&nlabi.NLM_F_EXCL != 0,
		})
	case netlink.Class:
		PrintClass(p, ev.Msg, env, true, Verb{Deleted: ev.Deleted})
	case netlink.Filter, netlink.Chain:
		shown := FilterShown{Obj: ev.Object, Echo: true}
		switch {
		case ev.Deleted:
			shown.Verb.Deleted = true
		case created && ev.Flags&nlabi.NLM_F_EXCL != 0:
			shown.Verb.Added = true
		case created:
			shown.Verb.Replaced = true
		}
		PrintFilter(p, ev.Msg, env, &shown)
	case netlink.Action:
		verb := ""
		switch {
		case ev.Deleted && ev.Flags&nlabi.NLM_F_ROOT != 0:
			verb = "Flushed table "
		case ev.Deleted:
			verb = "Deleted action "
		case ev.Flags&nlabi.NLM_F_REPLACE != 0:
			verb = "Replaced action "
		case created:
			verb = "Added action "
		}
		printActionMsg(p, ev.Action, env, 1, verb)
	}
}

// PrintActionMsg prints the actions of a "tc actions" answer (first 1)
// or dump message (first 0) as m_action.c's print_action does: the
// count, then the actions numbered from first on (see
// action.ActionPrint).
func PrintActionMsg(p *tcfmt.Printer, m *netlink.ActionMsg, env PrintEnv, first uint32) {
	printActionMsg(p, m, env, first, "")
}

// printActionMsg is PrintActionMsg with what an announcement did (verb,
// "" for none), which tc prints between the count and the actions.
func printActionMsg(p *tcfmt.Printer, m *netlink.ActionMsg, env PrintEnv, first uint32, verb string) {
	var count uint32
	if m.Attrs.Count != nil {
		count = *m.Attrs.Count
	}
	p.OpenObject("")
	p.Uint(tcfmt.Any, "total acts", "total acts %u", uint64(count))
	p.NL()
	p.CloseObject()
	if verb != "" {
		p.Verbatim(verb)
	}
	p.OpenObject("")
	action.PrintActions(p, m.Attrs.Tab, action.ActionPrint{Stats: p.ShowStats(), FirstOrder: first, Links: env.Links})
	if m.Attrs.ExtWarnMsg != nil {
		p.String(tcfmt.Any, "warn", "%s", *m.Attrs.ExtWarnMsg)
		p.NL()
	}
	p.CloseObject()
}
