package main

import (
	"fmt"

	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

const classUsage = `Usage: tc class [ add | del | change | replace | show ] dev STRING
       [ classid CLASSID ] [ root | parent CLASSID ]
       [ [ QDISC_KIND ] [ help | OPTIONS ] ]

       tc class show [ dev STRING ] [ root | parent CLASSID ]
`

func (t *tc) classCmd(args []string) error {
	if len(args) == 0 {
		return t.classList(nil)
	}
	cmd, rest := args[0], args[1:]
	switch {
	case tcfmt.Matches(cmd, "add"):
		return t.modify(netlink.Class, netlink.Add, rest)
	case tcfmt.Matches(cmd, "change"):
		return t.modify(netlink.Class, netlink.Change, rest)
	case tcfmt.Matches(cmd, "replace"):
		return t.modify(netlink.Class, netlink.Replace, rest)
	case tcfmt.Matches(cmd, "delete"):
		return t.modify(netlink.Class, netlink.Delete, rest)
	case tcfmt.Matches(cmd, "list"), tcfmt.Matches(cmd, "show"), tcfmt.Matches(cmd, "lst"):
		return t.classList(rest)
	case tcfmt.Matches(cmd, "help"):
		fmt.Fprint(t.stderr, classUsage)
		return nil
	}
	fmt.Fprintf(t.stderr, "Command %q is unknown, try \"tc class help\".\n", cmd)
	return errStatus(exitUsage)
}

// classList is "tc class show": the classes of one device.
func (t *tc) classList(args []string) error {
	tg, rest, err := t.parseTarget(args, true)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		if rest[0] == "help" {
			fmt.Fprint(t.stderr, classUsage)
			return errStatus(exitUsage)
		}
		fmt.Fprintf(t.stderr, "What is %q? Try \"tc class help\".\n", rest[0])
		return errStatus(exitUsage)
	}
	if tg.dev == "" {
		fmt.Fprintln(t.stderr, "Error: must specify device")
		return errStatus(exitBadOption)
	}
	idx, err := t.ifindex(tg.dev)
	if err != nil {
		return err
	}
	keep := func(m *netlink.Msg) bool {
		return (!tg.parentSet || m.Header.Parent == tg.parent) && (!tg.handleSet || m.Header.Handle == tg.handle)
	}
	return t.list(netlink.Class, netlink.DumpFilter{Ifindex: idx}, keep, t.printClass)
}

// printClass prints one class of a listing as tc's print_class does.
func (t *tc) printClass(p *tcfmt.Printer, m *netlink.Msg) {
	t.printClassEvent(p, m, eventVerb{}, false)
}

// printClassEvent is printClass for an announcement too: "deleted " for a
// removal, and the device when showDev is set (a listing names it).
func (t *tc) printClassEvent(p *tcfmt.Printer, m *netlink.Msg, verb eventVerb, showDev bool) {
	a := &m.Attrs
	p.OpenObject("")
	if verb.deleted {
		p.Null(tcfmt.Any, "deleted", "deleted ", "")
	}
	p.String(tcfmt.Any, "class", "class %s ", m.Kind())
	p.String(tcfmt.Any, "handle", "%s ", tcfmt.FormatClassID(m.Header.Handle))
	if showDev {
		p.String(tcfmt.Any, "dev", "dev %s ", t.links().Name(m.Header.Ifindex))
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
			fmt.Fprint(t.stderr, "[cannot parse class parameters]")
		}
	}
	p.NL()
	if t.stats {
		// Unlike a qdisc's, a class's statistics sit in their own JSON object.
		p.OpenObject("stats")
		if a.Stats2 != nil || a.Stats != nil {
			t.printStats(p, a)
		}
		if x := tckind.XstatsOf(a); kind != nil && kind.PrintClassXstats != nil && x.Present() {
			kind.PrintClassXstats(p, x)
			p.NL()
		}
		p.CloseObject()
	}
	p.CloseObject()
}
