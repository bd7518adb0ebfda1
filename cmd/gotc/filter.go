package main

import (
	"fmt"
	"strings"

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
	case tcfmt.Matches(cmd, "help"):
		fmt.Fprint(t.stderr, filterUsage)
		return nil
	}
	fmt.Fprintf(t.stderr, "Command %q is unknown, try \"tc filter help\".\n", cmd)
	return errStatus(exitUsage)
}

// Ethernet protocol numbers tc knows by name (linux/if_ether.h).
var ethProtocols = map[string]uint16{
	"all": 0x0003, "ip": 0x0800, "ipv6": 0x86dd, "arp": 0x0806,
	"802.1q": 0x8100, "802.1ad": 0x88a8, "mpls_uc": 0x8847,
}

func parseProtocol(s string) (uint16, bool) {
	if v, ok := ethProtocols[strings.ToLower(s)]; ok {
		return v, true
	}
	v, err := tcfmt.ParseUint(s, 0, 16)
	return uint16(v), err == nil
}

func protocolName(p uint16) string {
	for name, v := range ethProtocols {
		if v == p && name != "mpls_uc" {
			return name
		}
	}
	return fmt.Sprintf("[%04x]", p)
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// filterModify sends a filter request built from tc's grammar.
func (t *tc) filterModify(op netlink.Op, args []string) error {
	m := &netlink.Msg{}
	var dev string
	var prio uint32
	protocol := uint16(0)
	if op == netlink.Add || op == netlink.Replace {
		protocol = ethProtocols["all"]
	}
	var kindName string
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
			h, err := tcfmt.ParseUint(args[1], 0, 32)
			if err != nil {
				fmt.Fprintf(t.stderr, "Illegal \"handle\"\n")
				return errStatus(exitBadOption)
			}
			m.Header.Handle = uint32(h)
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
			p, ok := parseProtocol(args[1])
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
		kind := qdisc.LookupFilter(kindName)
		if kind == nil {
			if len(opts) > 0 || op != netlink.Delete {
				fmt.Fprintf(t.stderr, "gotc does not support filter kind %q\n", kindName)
				return errStatus(exitBadOption)
			}
		} else {
			options, err := kind.Parse(opts)
			if err != nil {
				return t.parseFailed(err, kind.Usage)
			}
			m.Attrs.Options = options
		}
	}
	if dev != "" {
		idx, err := t.ifindex(dev)
		if err != nil {
			return err
		}
		m.Header.Ifindex = idx
	}
	c, err := t.kernel()
	if err != nil {
		return err
	}
	if err := c.Do(netlink.Filter, op, m); err != nil {
		return t.kernelRefused(err)
	}
	return nil
}

// filterList is "tc filter show dev DEV [parent ID]".
func (t *tc) filterList(args []string) error {
	var dev string
	var parent uint32
	for len(args) > 0 {
		switch args[0] {
		case "dev", "parent":
			if err := t.needArg(args); err != nil {
				return err
			}
			if args[0] == "dev" {
				dev = args[1]
			} else {
				p, err := tcfmt.ParseClassID(args[1])
				if err != nil {
					return t.invarg("invalid parent ID", args[1])
				}
				parent = p
			}
			args = args[2:]
		case "root":
			parent = netlink.HandleRoot
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
	all := func(*netlink.Msg) bool { return true }
	return t.list(netlink.Filter, netlink.DumpFilter{Ifindex: idx, Parent: parent}, all, t.printFilter)
}

// printFilter prints a filter's identifying line and the options gotc knows.
func (t *tc) printFilter(p *tcfmt.Printer, m *netlink.Msg) {
	p.OpenObject("")
	p.Text("filter ")
	if m.Header.Parent != 0 {
		p.String(tcfmt.Any, "parent", "parent %s ", tcfmt.FormatClassID(m.Header.Parent))
	}
	p.String(tcfmt.Any, "protocol", "protocol %s ", protocolName(htons(uint16(m.Header.Info))))
	p.Uint(tcfmt.Any, "pref", "pref %u ", uint64(m.Header.Info>>16))
	p.String(tcfmt.Any, "kind", "%s ", m.Kind())
	if m.Attrs.Chain != nil {
		p.Uint(tcfmt.Any, "chain", "chain %u ", uint64(*m.Attrs.Chain))
	}
	if m.Header.Handle != 0 {
		p.Hex0x(tcfmt.Any, "handle", "handle %s ", uint64(m.Header.Handle))
	}
	if kind := qdisc.LookupFilter(m.Kind()); kind != nil && m.Attrs.Options != nil {
		p.OpenObject("options")
		kind.PrintOptions(p, m.Attrs.Options)
		p.CloseObject()
	}
	p.NL()
	p.CloseObject()
}
