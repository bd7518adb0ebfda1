package main

import (
	"context"
	"fmt"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/nlabi"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// filterUsage lists the filter kinds the registry holds.
var filterUsage = `Usage: tc filter [ add | del | change | replace | show ] [ dev STRING ]
       tc filter [ add | del | change | replace | show ] [ block BLOCK_INDEX ]
       tc filter get dev STRING parent CLASSID protocol PROTO handle FILTERID pref PRIO FILTER_TYPE
       tc filter get block BLOCK_INDEX protocol PROTO handle FILTERID pref PRIO FILTER_TYPE
       [ pref PRIO ] protocol PROTO [ chain CHAIN_INDEX ]
       [ estimator INTERVAL TIME_CONSTANT ]
       [ root | ingress | egress | parent CLASSID ]
       [ handle FILTERID ] [ [ FILTER_TYPE ] [ help | OPTIONS ] ]

       tc filter show [ dev STRING ] [ root | ingress | egress | parent CLASSID ]
       tc filter show [ block BLOCK_INDEX ]
Where:
FILTER_TYPE := ` + kindList(filterKindNames()) + `
FILTERID := ... format depends on classifier, see there
OPTIONS := ... try tc filter add <desired FILTER_KIND> help
`

func filterKindNames() []string {
	var names []string
	for _, k := range tckind.Filters() {
		names = append(names, k.Name)
	}
	return names
}

func (t *tc) filterCmd(args []string) error {
	if len(args) == 0 {
		return t.filterList(netlink.Filter, nil)
	}
	cmd, rest := args[0], args[1:]
	switch {
	case tcfmt.Matches(cmd, "add"):
		return t.filterModify(netlink.Filter, netlink.Add, rest)
	case tcfmt.Matches(cmd, "change"):
		return t.filterModify(netlink.Filter, netlink.Change, rest)
	case tcfmt.Matches(cmd, "replace"):
		return t.filterModify(netlink.Filter, netlink.Replace, rest)
	case tcfmt.Matches(cmd, "delete"):
		return t.filterModify(netlink.Filter, netlink.Delete, rest)
	case tcfmt.Matches(cmd, "get"):
		return t.filterGet(netlink.Filter, rest)
	case tcfmt.Matches(cmd, "list"), tcfmt.Matches(cmd, "show"), tcfmt.Matches(cmd, "lst"):
		return t.filterList(netlink.Filter, rest)
	case tcfmt.Matches(cmd, "help"):
		fmt.Fprint(t.stderr, filterUsage)
		return nil
	}
	fmt.Fprintf(t.stderr, "Command %q is unknown, try \"tc filter help\".\n", cmd)
	return errStatus(exitUsage)
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// The parents that "ingress" and "egress" name: clsact's (and ingress's)
// two minor numbers.
const (
	parentIngress = netlink.HandleIngress&0xffff0000 | 0xfff2
	parentEgress  = netlink.HandleIngress&0xffff0000 | 0xfff3
)

// filterWhere is what the words before a filter's kind name, as tc's three
// parsers of them (modify, get, list) read them.
type filterWhere struct {
	dev         string
	block       uint32
	parent      uint32
	handle      string
	handleSet   bool
	prio        uint32
	protocol    uint16
	protocolSet bool
	chain       uint32
	chainSet    bool
	est         *attrs.GnetEstimator
	kind        string
	help        bool // "help" was read (get and modify stop there)
	opts        []string
}

// filterVerb says which of tc's parsers reads the words: they differ in
// messages and in what they take.
type filterVerb int

const (
	verbModify filterVerb = iota
	verbGet
	verbList
)

// parseFilterWhere reads the device, block, placement, priority,
// protocol, chain and handle words up to the kind, as tc_filter_modify,
// tc_filter_get and tc_filter_list do. Errors are printed.
func (t *tc) parseFilterWhere(verb filterVerb, args []string) (filterWhere, error) {
	var w filterWhere
	parentSet := false
	setParent := func(word string, p uint32) error {
		if parentSet {
			fmt.Fprintf(t.stderr, "Error: %q is duplicate parent ID\n", word)
			return errStatus(exitUsage)
		}
		w.parent, parentSet = p, true
		return nil
	}
	for len(args) > 0 {
		word := args[0]
		var err error
		switch {
		case word == "dev":
			if err := t.needArg(args); err != nil {
				return w, err
			}
			if w.dev != "" {
				return w, t.duparg("dev", args[1])
			}
			if w.block != 0 {
				if verb == verbList {
					fmt.Fprintln(t.stderr, `Error: "dev" cannot be used in the same time as "block"`)
				} else {
					fmt.Fprintln(t.stderr, `Error: "dev" and "block" are mutually exclusive`)
				}
				return w, errStatus(exitUsage)
			}
			w.dev = args[1]
			args = args[1:]
		case tcfmt.Matches(word, "block"):
			if err := t.needArg(args); err != nil {
				return w, err
			}
			if w.block != 0 {
				return w, t.duparg("block", args[1])
			}
			if w.dev != "" {
				if verb == verbList {
					fmt.Fprintln(t.stderr, `Error: "block" cannot be used in the same time as "dev"`)
				} else {
					fmt.Fprintln(t.stderr, `Error: "dev" and "block" are mutually exclusive`)
				}
				return w, errStatus(exitUsage)
			}
			v, perr := tcfmt.ParseUint(args[1], 0, 32)
			if perr != nil || v == 0 {
				return w, t.invarg("invalid block index value", args[1])
			}
			w.block = uint32(v)
			args = args[1:]
		case word == "root":
			err = setParent(word, netlink.HandleRoot)
		case word == "ingress":
			err = setParent(word, parentIngress)
		case word == "egress":
			err = setParent(word, parentEgress)
		case word == "parent":
			if err := t.needArg(args); err != nil {
				return w, err
			}
			if parentSet {
				return w, t.duparg("parent", args[1])
			}
			p, perr := tcfmt.ParseClassID(args[1])
			if perr != nil {
				if verb == verbList {
					return w, t.invarg("invalid parent ID", args[1])
				}
				return w, t.invarg("Invalid parent ID", args[1])
			}
			w.parent, parentSet = p, true
			args = args[1:]
		case word == "handle":
			if err := t.needArg(args); err != nil {
				return w, err
			}
			if w.handleSet {
				return w, t.duparg("handle", args[1])
			}
			// The kind reads it, each in its own form.
			w.handle, w.handleSet = args[1], true
			args = args[1:]
		case tcfmt.Matches(word, "preference"), tcfmt.Matches(word, "priority"):
			if err := t.needArg(args); err != nil {
				return w, err
			}
			if w.prio != 0 {
				return w, t.duparg("priority", args[1])
			}
			v, perr := tcfmt.ParseUint(args[1], 0, 32)
			switch {
			case verb == verbList && perr != nil:
				return w, t.invarg("invalid preference", args[1])
			case verb != verbList && (perr != nil || v > 0xffff):
				return w, t.invarg("invalid priority value", args[1])
			}
			w.prio = uint32(v)
			args = args[1:]
		case tcfmt.Matches(word, "protocol"):
			if err := t.needArg(args); err != nil {
				return w, err
			}
			// tc's listing takes protocol 0 ("all" is not 0) as unset.
			if w.protocolSet && (verb != verbList || w.protocol != 0) {
				return w, t.duparg("protocol", args[1])
			}
			p, ok := tckind.ParseEthProtocol(args[1])
			if !ok {
				return w, t.invarg("invalid protocol", args[1])
			}
			w.protocol, w.protocolSet = p, true
			args = args[1:]
		case tcfmt.Matches(word, "chain"):
			if err := t.needArg(args); err != nil {
				return w, err
			}
			if w.chainSet {
				return w, t.duparg("chain", args[1])
			}
			v, perr := tcfmt.ParseUint(args[1], 0, 32)
			if perr != nil {
				return w, t.invarg("invalid chain index value", args[1])
			}
			w.chain, w.chainSet = uint32(v), true
			args = args[1:]
		case verb == verbModify && tcfmt.Matches(word, "estimator"):
			if w.est, args, err = tckind.ParseEstimator(args[1:], w.est, t.stderr); err != nil {
				return w, t.parseFailed(err, "")
			}
			continue
		case tcfmt.Matches(word, "help"):
			// tc's listing prints its usage and reads on.
			if verb != verbList {
				w.help = true
				return w, nil
			}
			fmt.Fprint(t.stderr, filterUsage)
		case verb == verbList:
			fmt.Fprintf(t.stderr, " What is %q? Try \"tc filter help\"\n", word)
			return w, errStatus(exitUsage)
		default:
			if verb == verbGet && word == "" {
				return w, t.invarg("invalid filter name", word)
			}
			w.kind, w.opts = word, args[1:]
			return w, nil
		}
		if err != nil {
			return w, err
		}
		args = args[1:]
	}
	return w, nil
}

// filterModify sends a filter (or chain) request built from tc's grammar,
// as tc_filter_modify does for both.
func (t *tc) filterModify(obj netlink.Object, op netlink.Op, args []string) error {
	w, err := t.parseFilterWhere(verbModify, args)
	if err != nil {
		return err
	}
	if w.help {
		// tc prints the filter usage for chains too.
		fmt.Fprint(t.stderr, filterUsage)
		return nil
	}
	m := &netlink.Msg{}
	protocol := w.protocol
	if !w.protocolSet && obj == netlink.Filter && (op == netlink.Add || op == netlink.Replace) {
		protocol = tckind.EthPAll
	}
	m.Header.Info = w.prio<<16 | uint32(htons(protocol))
	m.Header.Parent = w.parent
	if w.chainSet {
		m.Attrs.Chain = &w.chain
	}
	if w.kind != "" {
		m.Attrs.Kind = &w.kind
	}
	// As tc: the device is looked up before the kind reads its options.
	if w.dev != "" {
		idx, err := t.ifindex(w.dev)
		if err != nil {
			return err
		}
		m.Header.Ifindex = idx
	} else if w.block != 0 {
		m.Header.Ifindex, m.Header.Parent = netlink.IfindexBlock, w.block
	}
	if w.kind == "" && w.handleSet {
		fmt.Fprintln(t.stderr, `Must specify filter type when using "handle"`)
		return errStatus(exitUsage)
	}
	if w.kind != "" {
		kind := tckind.LookupFilter(w.kind)
		if kind == nil {
			if len(w.opts) > 0 || w.handleSet || op != netlink.Delete {
				fmt.Fprintf(t.stderr, "gotc does not support filter kind %q\n", w.kind)
				return errStatus(exitBadOption)
			}
		} else {
			options, h, err := kind.Parse(w.opts, tckind.FilterEnv{Handle: w.handle, Protocol: protocol, Parent: m.Header.Parent, ActionEnv: tckind.ActionEnv{Links: tcLinks{t}, Stderr: t.stderr}})
			if err != nil {
				return t.parseFailed(err, kind.Usage)
			}
			m.Attrs.Options, m.Header.Handle = options, h
		}
	}
	m.Attrs.Rate = w.est
	c, err := t.kernel()
	if err != nil {
		return err
	}
	if ec, ok := c.(echoDoer); ok && t.echo {
		return t.filterEcho(ec, obj, op, m)
	}
	if err := c.Do(t.ctx, obj, op, m); err != nil {
		return t.filterRefused(err)
	}
	return nil
}

// filterRefused prints a kernel's refusal of a filter or chain request as
// tc_filter_modify does, with the line it adds to every one.
func (t *tc) filterRefused(err error) error {
	err = t.kernelRefused(err)
	fmt.Fprintln(t.stderr, "We have an error talking to the kernel")
	return err
}

// echoDoer is a connection that sends a request with NLM_F_ECHO (-echo).
type echoDoer interface {
	DoEcho(ctx context.Context, o netlink.Object, op netlink.Op, m *netlink.Msg) (*netlink.Msg, uint16, error)
}

// filterEcho sends a filter or chain request with -echo and prints the
// kernel's echo as tc's rtnl_echo_talk and print_filter do: "added",
// "replaced" or "deleted" (by the request's flags and the answer's type),
// then the object with its device.
func (t *tc) filterEcho(ec echoDoer, obj netlink.Object, op netlink.Op, m *netlink.Msg) error {
	answer, typ, err := ec.DoEcho(t.ctx, obj, op, m)
	if err != nil {
		return t.filterRefused(err)
	}
	if answer == nil {
		return nil
	}
	shown := filterShown{obj: obj, echo: true}
	switch {
	case typ == nlabi.RTM_DELTFILTER || typ == nlabi.RTM_DELCHAIN:
		shown.verb = "deleted"
	case op == netlink.Add:
		shown.verb = "added"
	case op == netlink.Replace:
		shown.verb = "replaced"
	}
	t.loadLinkNames()
	p := t.printer()
	p.Start()
	t.printFilter(p, answer, &shown)
	return p.Finish()
}

// filterShown is what a listing or get named, which tc leaves out of each
// filter's line (print_filter's filter_* globals).
type filterShown struct {
	obj netlink.Object
	// echo is set for -echo's answer, which names its device, after
	// verb ("added", "replaced", "deleted" or "").
	echo           bool
	verb           string
	block          uint32
	parent         uint32
	protocol, prio uint32
	chain          uint32
	chainSet       bool
}

// filterGet is tc_filter_get: "filter get" (one filter, by parent,
// protocol, priority, kind and handle) and "chain get" (one chain).
func (t *tc) filterGet(obj netlink.Object, args []string) error {
	w, err := t.parseFilterWhere(verbGet, args)
	if err != nil {
		return err
	}
	if w.help {
		// tc prints the filter usage for chains too.
		fmt.Fprint(t.stderr, filterUsage)
		return nil
	}
	fail := func(msg string) error {
		fmt.Fprintln(t.stderr, msg)
		return errStatus(exitUsage)
	}
	m := &netlink.Msg{}
	if obj == netlink.Filter {
		if !w.protocolSet {
			return fail("Must specify filter protocol")
		}
		if w.prio == 0 {
			return fail("Must specify filter priority")
		}
		m.Header.Info = w.prio<<16 | uint32(htons(w.protocol))
	}
	if w.chainSet {
		m.Attrs.Chain = &w.chain
	}
	if w.parent == 0 {
		return fail("Must specify filter parent")
	}
	m.Header.Parent = w.parent
	var kind *tckind.Filter
	if obj == netlink.Filter {
		if w.kind == "" {
			return fail("Must specify filter type")
		}
		m.Attrs.Kind = &w.kind
		if kind = tckind.LookupFilter(w.kind); kind == nil {
			fmt.Fprintf(t.stderr, "gotc does not support filter kind %q\n", w.kind)
			return errStatus(exitBadOption)
		}
	}
	shown := filterShown{obj: obj}
	switch {
	case w.dev != "":
		idx, err := t.ifindex(w.dev)
		if err != nil {
			return err
		}
		m.Header.Ifindex = idx
	case w.block != 0:
		m.Header.Ifindex, m.Header.Parent = netlink.IfindexBlock, w.block
		shown.block = w.block
	default:
		return fail(`Must specify netdevice "dev" or block index "block"`)
	}
	opts := w.opts
	if kind != nil {
		options, h, err := kind.Parse(opts, tckind.FilterEnv{Handle: w.handle, Protocol: w.protocol, Parent: m.Header.Parent, ActionEnv: tckind.ActionEnv{Links: tcLinks{t}, Stderr: t.stderr}})
		if err != nil {
			return t.parseFailed(err, kind.Usage)
		}
		m.Attrs.Options, m.Header.Handle = options, h
		// The kind read every word after it.
		opts = nil
		if !w.handleSet {
			return fail(`Must specify filter "handle"`)
		}
	}
	if len(opts) > 0 {
		if tcfmt.Matches(opts[0], "help") {
			fmt.Fprint(t.stderr, filterUsage)
		}
		return fail(fmt.Sprintf("Garbage instead of arguments \"%s ...\". Try \"tc filter help\".", opts[0]))
	}
	c, err := t.kernel()
	if err != nil {
		return err
	}
	// Actions in a filter may name devices.
	t.loadLinkNames()
	answer, err := c.Get(t.ctx, obj, m)
	if err != nil {
		err = t.kernelRefused(err)
		fmt.Fprintln(t.stderr, "We have an error talking to the kernel")
		return err
	}
	p := t.printer()
	p.Start()
	t.printFilter(p, answer, &shown)
	return p.Finish()
}

// filterList is tc_filter_list: "filter show" and "chain show", by device
// and parent or by block, with filters narrowed by protocol, priority and
// chain.
func (t *tc) filterList(obj netlink.Object, args []string) error {
	w, err := t.parseFilterWhere(verbList, args)
	if err != nil {
		return err
	}
	shown := filterShown{obj: obj, parent: w.parent, prio: w.prio, chain: w.chain, chainSet: w.chainSet}
	if w.protocolSet {
		shown.protocol = uint32(w.protocol)
	}
	f := netlink.DumpFilter{Parent: w.parent}
	switch {
	case w.dev != "":
		if f.Ifindex, err = t.ifindex(w.dev); err != nil {
			return err
		}
	case w.block != 0:
		found, err := t.blockExists(w.block)
		if err != nil {
			return err
		}
		if !found {
			fmt.Fprintf(t.stderr, "Cannot find block \"%d\"\n", w.block)
			return errStatus(exitBadOption)
		}
		f.Ifindex, f.Parent = netlink.IfindexBlock, w.block
		shown.block = w.block
	default:
		// The kernel lists nothing for no device.
		return nil
	}
	// Actions in the filters may name devices.
	t.loadLinkNames()
	keep := func(m *netlink.Msg) bool {
		if obj != netlink.Filter {
			// The kernel lists every chain whatever the request names.
			return true
		}
		// What the kernel's filter dump leaves out.
		if shown.chainSet && (m.Attrs.Chain == nil || *m.Attrs.Chain != shown.chain) {
			return false
		}
		if shown.prio != 0 && m.Header.Info>>16 != shown.prio {
			return false
		}
		return shown.protocol == 0 || uint32(htons(uint16(m.Header.Info))) == shown.protocol
	}
	return t.list(obj, f, keep, func(p *tcfmt.Printer, m *netlink.Msg) { t.printFilter(p, m, &shown) })
}

// blockExists is tc_qdisc_block_exists: whether a qdisc shares the block.
func (t *tc) blockExists(block uint32) (bool, error) {
	c, err := t.kernel()
	if err != nil {
		return false, err
	}
	found := false
	err = c.Dump(t.ctx, netlink.Qdisc, netlink.DumpFilter{}, func(m *netlink.Msg, _ error) error {
		if b := m.Attrs.IngressBlock; b != nil && *b == block {
			found = true
		}
		if b := m.Attrs.EgressBlock; b != nil && *b == block {
			found = true
		}
		return nil
	})
	if err != nil {
		fmt.Fprintf(t.stderr, "Dump terminated: %v\n", err)
		return false, errStatus(exitBadOption)
	}
	return found, nil
}

// printFilter prints a filter or chain as tc's print_filter does, leaving
// out what the command named.
func (t *tc) printFilter(p *tcfmt.Printer, m *netlink.Msg, shown *filterShown) {
	p.OpenObject("")
	if shown.verb != "" {
		p.Bool(tcfmt.Any, tcfmt.Name(shown.verb), shown.verb+" ", true)
	}
	if shown.obj == netlink.Chain {
		p.Text("chain ")
	} else {
		p.Text("filter ")
	}
	if m.Header.Ifindex == netlink.IfindexBlock {
		if shown.block == 0 || shown.block != m.Header.Parent {
			p.Uint(tcfmt.Any, "block", "block %u ", uint64(m.Header.Parent))
		}
	} else {
		if shown.echo {
			p.String(tcfmt.Any, "dev", "dev %s ", t.linkName(m.Header.Ifindex))
		}
		if shown.parent == 0 || shown.parent != m.Header.Parent {
			switch par := m.Header.Parent; par {
			case netlink.HandleRoot:
				p.Bool(tcfmt.Any, "root", "root ", true)
			case parentIngress:
				p.Bool(tcfmt.Any, "ingress", "ingress ", true)
			case parentEgress:
				p.Bool(tcfmt.Any, "egress", "egress ", true)
			default:
				p.String(tcfmt.Any, "parent", "parent %s ", tcfmt.FormatClassID(par))
			}
		}
	}
	if m.Header.Info != 0 && shown.obj == netlink.Filter {
		proto := uint32(htons(uint16(m.Header.Info)))
		prio := m.Header.Info >> 16
		if proto != 0 && (shown.protocol == 0 || shown.protocol != proto) {
			p.String(tcfmt.Any, "protocol", "protocol %s ", tckind.EthProtocolName(uint16(proto)))
		}
		if prio != 0 && (shown.prio == 0 || shown.prio != prio) {
			p.Uint(tcfmt.Any, "pref", "pref %u ", uint64(prio))
		}
	}
	if m.Attrs.Kind != nil {
		p.String(tcfmt.Any, "kind", "%s ", m.Kind())
	}
	if m.Attrs.Chain != nil && (!shown.chainSet || shown.chain != *m.Attrs.Chain) {
		p.Uint(tcfmt.Any, "chain", "chain %u ", uint64(*m.Attrs.Chain))
	}
	if m.Attrs.Kind != nil && m.Attrs.Options != nil {
		p.OpenObject("options")
		if kind := tckind.LookupFilter(m.Kind()); kind != nil {
			kind.PrintOptions(p, m.Attrs.Options, tckind.FilterPrint{
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
	if m.Attrs.ExtWarnMsg != nil {
		p.String(tcfmt.Any, "warn", "%s", *m.Attrs.ExtWarnMsg)
		p.NL()
	}
	p.CloseObject()
}
