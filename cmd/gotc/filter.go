package main

import (
	"fmt"

	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/qdisc"
	"github.com/gotc/gotc/tcfmt"
)

// filterUsage lists the filter kinds the registry holds.
var filterUsage = `Usage: tc filter [ add | del | change | replace | show ] [ dev STRING ]
       [ pref PRIO ] [ protocol PROTO ] [ chain CHAIN_INDEX ]
       [ root | ingress | egress | parent CLASSID ]
       [ handle FILTERID ] [ [ FILTER_TYPE ] [ help | OPTIONS ] ]
FILTER_TYPE := ` + kindList(filterKindNames()) + `
`

func filterKindNames() []string {
	var names []string
	for _, k := range qdisc.FilterKinds() {
		names = append(names, k.Name)
	}
	return names
}

func (t *tc) filterCmd(args []string) error {
	if len(args) == 0 {
		return t.filterList(nil)
	}
	cmd, rest := args[0], args[1:]
	switch {
	case tcfmt.Matches(cmd, "add"):
		return t.filterModify(netlink.Add, rest)
	case tcfmt.Matches(cmd, "change"):
		return t.filterModify(netlink.Change, rest)
	case tcfmt.Matches(cmd, "replace"):
		return t.filterModify(netlink.Replace, rest)
	case tcfmt.Matches(cmd, "delete"):
		return t.filterModify(netlink.Delete, rest)
	case tcfmt.Matches(cmd, "list"), tcfmt.Matches(cmd, "show"), tcfmt.Matches(cmd, "lst"):
		return t.filterList(rest)
	case tcfmt.Matches(cmd, "get"):
		return t.filterListOrGet(rest, true)
	case tcfmt.Matches(cmd, "help"):
		fmt.Fprint(t.stderr, filterUsage)
		return nil
	}
	fmt.Fprintf(t.stderr, "Command %q is unknown, try \"tc filter help\".\n", cmd)
	return errStatus(exitUsage)
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// filterModify sends a filter request built from tc's grammar.
func (t *tc) filterModify(op netlink.Op, args []string) error {
	m := &netlink.Msg{}
	var dev string
	var prio uint32
	protocol := uint16(0)
	if op == netlink.Add || op == netlink.Replace {
		protocol = qdisc.EthPAll
	}
	var kindName, handle string
	var opts []string
	parentSet := false
	for len(args) > 0 && kindName == "" {
		word := args[0]
		switch {
		case word == "dev":
			if err := t.needArg(args); err != nil {
				return err
			}
			if dev != "" {
				return t.duparg("dev", args[1])
			}
			dev = args[1]
			args = args[1:]
		case word == "root", word == "ingress", word == "egress", word == "parent":
			if parentSet {
				fmt.Fprintf(t.stderr, "Error: %q is duplicate parent ID\n", word)
				return errStatus(exitUsage)
			}
			parentSet = true
			switch word {
			case "root":
				m.Header.Parent = netlink.HandleRoot
			case "ingress":
				m.Header.Parent = netlink.HandleIngress&0xffff0000 | 0xfff2
			case "egress":
				m.Header.Parent = netlink.HandleIngress&0xffff0000 | 0xfff3
			default:
				if err := t.needArg(args); err != nil {
					return err
				}
				p, err := tcfmt.ParseClassID(args[1])
				if err != nil {
					return t.invarg("Invalid parent ID", args[1])
				}
				m.Header.Parent = p
				args = args[1:]
			}
		case word == "handle":
			if err := t.needArg(args); err != nil {
				return err
			}
			if handle != "" {
				return t.duparg("handle", args[1])
			}
			// The kind reads it, each in its own form.
			handle = args[1]
			args = args[1:]
		case tcfmt.Matches(word, "preference"), tcfmt.Matches(word, "priority"):
			if err := t.needArg(args); err != nil {
				return err
			}
			v, err := tcfmt.ParseUint(args[1], 0, 16)
			if err != nil {
				return t.invarg("invalid priority value", args[1])
			}
			prio = uint32(v)
			args = args[1:]
		case tcfmt.Matches(word, "protocol"):
			if err := t.needArg(args); err != nil {
				return err
			}
			p, ok := qdisc.ParseEthProtocol(args[1])
			if !ok {
				return t.invarg("invalid protocol", args[1])
			}
			protocol = p
			args = args[1:]
		case tcfmt.Matches(word, "chain"):
			if err := t.needArg(args); err != nil {
				return err
			}
			v, err := tcfmt.ParseUint(args[1], 0, 32)
			if err != nil {
				return t.invarg("invalid chain index value", args[1])
			}
			chain := uint32(v)
			m.Attrs.Chain = &chain
			args = args[1:]
		case tcfmt.Matches(word, "help"):
			fmt.Fprint(t.stderr, filterUsage)
			return errStatus(exitUsage)
		default:
			kindName, opts = word, args[1:]
			continue
		}
		args = args[1:]
	}
	m.Header.Info = prio<<16 | uint32(htons(protocol))
	if kindName != "" {
		m.Attrs.Kind = &kindName
	}
	// As tc: the device is looked up before the kind reads its options.
	if dev != "" {
		idx, err := t.ifindex(dev)
		if err != nil {
			return err
		}
		m.Header.Ifindex = idx
	}
	if kindName == "" && handle != "" {
		fmt.Fprintln(t.stderr, `Must specify filter type when using "handle"`)
		return errStatus(exitUsage)
	}
	if kindName != "" {
		kind := qdisc.LookupFilter(kindName)
		if kind == nil {
			if len(opts) > 0 || handle != "" || op != netlink.Delete {
				fmt.Fprintf(t.stderr, "gotc does not support filter kind %q\n", kindName)
				return errStatus(exitBadOption)
			}
		} else {
			options, h, err := kind.Parse(opts, qdisc.FilterEnv{Handle: handle, Protocol: protocol, Parent: m.Header.Parent, ActionEnv: qdisc.ActionEnv{Links: tcLinks{t}, Stderr: t.stderr}})
			if err != nil {
				return t.parseFailed(err, kind.Usage)
			}
			m.Attrs.Options, m.Header.Handle = options, h
		}
	}
	c, err := t.kernel()
	if err != nil {
		return err
	}
	if err := c.Do(netlink.Filter, op, m); err != nil {
		err = t.kernelRefused(err)
		// tc_filter_modify adds this line to every refusal.
		fmt.Fprintln(t.stderr, "We have an error talking to the kernel")
		return err
	}
	return nil
}

// filterShown is what a listing names, which tc leaves out of each
// filter's line (print_filter's filter_* globals).
type filterShown struct {
	parent             uint32
	protocol, prio     uint32
	chain              uint32
	chainSet           bool
	handle             uint32
	handleSet, getting bool
}

// filterList is "tc filter show dev DEV [root|ingress|egress|parent ID]
// [protocol P] [pref N] [chain N]", and with get set "tc filter get", which
// gotc answers from a dump of the parent's filters: the one whose
// protocol, priority and handle the command names.
func (t *tc) filterList(args []string) error {
	return t.filterListOrGet(args, false)
}

func (t *tc) filterListOrGet(args []string, get bool) error {
	var dev, handle string
	var kind *qdisc.FilterKind
	var shown filterShown
	shown.getting = get
	for len(args) > 0 {
		w := args[0]
		switch {
		case w == "dev", w == "parent", w == "handle", tcfmt.Matches(w, "protocol"),
			tcfmt.Matches(w, "preference"), tcfmt.Matches(w, "priority"), tcfmt.Matches(w, "chain"):
			if err := t.needArg(args); err != nil {
				return err
			}
			v := args[1]
			switch {
			case w == "dev":
				dev = v
			case w == "parent":
				p, err := tcfmt.ParseClassID(v)
				if err != nil {
					return t.invarg("invalid parent ID", v)
				}
				shown.parent = p
			case w == "handle":
				handle = v
			case tcfmt.Matches(w, "protocol"):
				p, ok := qdisc.ParseEthProtocol(v)
				if !ok {
					return t.invarg("invalid protocol", v)
				}
				shown.protocol = uint32(p)
			case tcfmt.Matches(w, "chain"):
				c, err := tcfmt.ParseUint(v, 0, 32)
				if err != nil {
					return t.invarg("invalid chain index value", v)
				}
				shown.chain, shown.chainSet = uint32(c), true
			default:
				pr, err := tcfmt.ParseUint(v, 0, 32)
				if err != nil || pr > 0xffff {
					return t.invarg("invalid priority value", v)
				}
				shown.prio = uint32(pr)
			}
			args = args[2:]
		case w == "root":
			shown.parent = netlink.HandleRoot
			args = args[1:]
		case w == "ingress":
			shown.parent = netlink.HandleIngress&0xffff0000 | 0xfff2
			args = args[1:]
		case w == "egress":
			shown.parent = netlink.HandleIngress&0xffff0000 | 0xfff3
			args = args[1:]
		case get && qdisc.LookupFilter(w) != nil:
			kind = qdisc.LookupFilter(w)
			args = args[1:]
		default:
			fmt.Fprintf(t.stderr, "What is %q? Try \"tc filter help\"\n", args[0])
			return errStatus(exitUsage)
		}
	}
	if dev == "" {
		fmt.Fprintln(t.stderr, "Error: must specify device")
		return errStatus(exitBadOption)
	}
	idx, err := t.ifindex(dev)
	if err != nil {
		return err
	}
	if handle != "" {
		// The kind named reads the handle in its own form (u32's 800::1);
		// without one, it is a number.
		if kind != nil {
			_, h, err := kind.Parse(nil, qdisc.FilterEnv{Handle: handle})
			if err != nil {
				return t.parseFailed(err, kind.Usage)
			}
			shown.handle = h
		} else {
			h, err := tcfmt.ParseUint(handle, 0, 32)
			if err != nil {
				fmt.Fprintf(t.stderr, "Illegal \"handle\"\n")
				return errStatus(exitBadOption)
			}
			shown.handle = uint32(h)
		}
		shown.handleSet = true
	}
	// Actions in the filters may name devices.
	t.loadLinkNames()
	keep := func(m *netlink.Msg) bool {
		if shown.chainSet && (m.Attrs.Chain == nil || *m.Attrs.Chain != shown.chain) {
			return false
		}
		if get {
			return m.Header.Handle == shown.handle && m.Header.Info>>16 == shown.prio &&
				uint32(htons(uint16(m.Header.Info))) == shown.protocol
		}
		return true
	}
	print := func(p *tcfmt.Printer, m *netlink.Msg) { t.printFilter(p, m, &shown) }
	if !get {
		return t.list(netlink.Filter, netlink.DumpFilter{Ifindex: idx, Parent: shown.parent}, keep, print)
	}
	found := false
	err = t.list(netlink.Filter, netlink.DumpFilter{Ifindex: idx, Parent: shown.parent}, func(m *netlink.Msg) bool {
		if found || !keep(m) {
			return false
		}
		found = true
		return true
	}, print)
	if err == nil && !found {
		fmt.Fprintln(t.stderr, "Error: Specified filter handle not found.")
		fmt.Fprintln(t.stderr, "We have an error talking to the kernel")
		return errStatus(2)
	}
	return err
}

// printFilter prints a filter as tc's print_filter does, leaving out what
// the command named.
func (t *tc) printFilter(p *tcfmt.Printer, m *netlink.Msg, shown *filterShown) {
	p.OpenObject("")
	p.Text("filter ")
	if shown.getting || shown.parent == 0 || shown.parent != m.Header.Parent {
		switch par := m.Header.Parent; par {
		case netlink.HandleRoot:
			p.Bool(tcfmt.Any, "root", "root ", true)
		case netlink.HandleIngress&0xffff0000 | 0xfff2:
			p.Bool(tcfmt.Any, "ingress", "ingress ", true)
		case netlink.HandleIngress&0xffff0000 | 0xfff3:
			p.Bool(tcfmt.Any, "egress", "egress ", true)
		default:
			p.String(tcfmt.Any, "parent", "parent %s ", tcfmt.FormatClassID(par))
		}
	}
	if m.Header.Info != 0 {
		proto := uint32(htons(uint16(m.Header.Info)))
		prio := m.Header.Info >> 16
		if proto != 0 && (shown.getting || shown.protocol == 0 || shown.protocol != proto) {
			p.String(tcfmt.Any, "protocol", "protocol %s ", qdisc.EthProtocolName(uint16(proto)))
		}
		if prio != 0 && (shown.getting || shown.prio == 0 || shown.prio != prio) {
			p.Uint(tcfmt.Any, "pref", "pref %u ", uint64(prio))
		}
	}
	if m.Attrs.Kind != nil {
		p.String(tcfmt.Any, "kind", "%s ", m.Kind())
	}
	if m.Attrs.Chain != nil && (shown.getting || !shown.chainSet || shown.chain != *m.Attrs.Chain) {
		p.Uint(tcfmt.Any, "chain", "chain %u ", uint64(*m.Attrs.Chain))
	}
	if m.Attrs.Options != nil {
		p.OpenObject("options")
		if kind := qdisc.LookupFilter(m.Kind()); kind != nil {
			kind.PrintOptions(p, m.Attrs.Options, qdisc.FilterPrint{
				Handle: m.Header.Handle, Protocol: htons(uint16(m.Header.Info)), Stats: t.stats, Links: tcLinks{t},
			})
		} else {
			fmt.Fprintln(t.stderr, "cannot parse option parameters")
		}
		p.CloseObject()
	}
	p.NL()
	if t.stats && (m.Attrs.Stats2 != nil || m.Attrs.Stats != nil) {
		t.printStats(p, &m.Attrs)
	}
	p.CloseObject()
}
