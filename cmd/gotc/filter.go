// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"

	"github.com/gotc/gotc/internal/nlabi"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
	"github.com/gotc/gotc/tcline"
)

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
		fmt.Fprint(t.stderr, tcline.FilterUsage())
		return nil
	}
	fmt.Fprintf(t.stderr, "Command %q is unknown, try \"tc filter help\".\n", cmd)
	return errStatus(exitUsage)
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// filterWhere reads the words before a filter's kind as tc's reader for
// verb does, printing tc's message for any it refuses.
func (t *tc) filterWhere(verb tcline.FilterVerb, args []string) (tcline.FilterWhere, error) {
	w, err := tcline.ParseFilterWhere(verb, args, t.stderr)
	if err != nil {
		return w, t.parseFailed(err)
	}
	return w, nil
}

// filterModify sends a filter (or chain) request built from tc's grammar,
// as tc_filter_modify does for both.
func (t *tc) filterModify(obj netlink.Object, op netlink.Op, args []string) error {
	w, err := t.filterWhere(tcline.FilterModify, args)
	if err != nil {
		return err
	}
	if w.Help {
		// tc prints the filter usage for chains too.
		fmt.Fprint(t.stderr, tcline.FilterUsage())
		return nil
	}
	m := &netlink.Msg{}
	protocol := w.Protocol
	if !w.ProtocolSet && obj == netlink.Filter && (op == netlink.Add || op == netlink.Replace) {
		protocol = tckind.EthPAll
	}
	m.Header.Info = w.Prio<<16 | uint32(htons(protocol))
	m.Header.Parent = w.Parent
	if w.ChainSet {
		m.Attrs.Chain = &w.Chain
	}
	if w.Kind != "" {
		m.Attrs.Kind = &w.Kind
	}
	// As tc: the device is looked up before the kind reads its options.
	if w.Dev != "" {
		idx, err := t.ifindex(w.Dev)
		if err != nil {
			return err
		}
		m.Header.Ifindex = idx
	} else if w.Block != 0 {
		m.Header.Ifindex, m.Header.Parent = netlink.IfindexBlock, w.Block
	}
	if w.Kind == "" && w.HandleSet {
		fmt.Fprintln(t.stderr, `Must specify filter type when using "handle"`)
		return errStatus(exitUsage)
	}
	if w.Kind != "" {
		kind := tckind.LookupFilter(w.Kind)
		if kind == nil {
			if len(w.Opts) > 0 || w.HandleSet || op != netlink.Delete {
				fmt.Fprintf(t.stderr, "gotc does not support filter kind %q\n", w.Kind)
				return errStatus(exitBadOption)
			}
		} else {
			options, h, err := kind.Parse(w.Opts, tckind.FilterEnv{Handle: w.Handle, Protocol: protocol, Parent: m.Header.Parent, ActionEnv: tckind.ActionEnv{Links: t.links(), Stderr: t.stderr}})
			if err != nil {
				return t.parseFailed(&tcline.KindError{Err: err, Usage: kind.Usage})
			}
			m.Attrs.Options, m.Header.Handle = options, h
		}
	}
	m.Attrs.Rate = w.Estimator
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
	shown := tcline.FilterShown{Obj: obj, Echo: true}
	switch {
	case typ == nlabi.RTM_DELTFILTER || typ == nlabi.RTM_DELCHAIN:
		shown.Verb.Deleted = true
	case op == netlink.Add:
		shown.Verb.Added = true
	case op == netlink.Replace:
		shown.Verb.Replaced = true
	}
	t.links().Load()
	p := t.printer()
	p.Start()
	tcline.PrintFilter(p, answer, t.printEnv(), &shown)
	return p.Finish()
}

// filterGet is tc_filter_get: "filter get" (one filter, by parent,
// protocol, priority, kind and handle) and "chain get" (one chain).
func (t *tc) filterGet(obj netlink.Object, args []string) error {
	w, err := t.filterWhere(tcline.FilterGet, args)
	if err != nil {
		return err
	}
	if w.Help {
		// tc prints the filter usage for chains too.
		fmt.Fprint(t.stderr, tcline.FilterUsage())
		return nil
	}
	fail := func(msg string) error {
		fmt.Fprintln(t.stderr, msg)
		return errStatus(exitUsage)
	}
	m := &netlink.Msg{}
	if obj == netlink.Filter {
		if !w.ProtocolSet {
			return fail("Must specify filter protocol")
		}
		if w.Prio == 0 {
			return fail("Must specify filter priority")
		}
		m.Header.Info = w.Prio<<16 | uint32(htons(w.Protocol))
	}
	if w.ChainSet {
		m.Attrs.Chain = &w.Chain
	}
	if w.Parent == 0 {
		return fail("Must specify filter parent")
	}
	m.Header.Parent = w.Parent
	var kind *tckind.Filter
	if obj == netlink.Filter {
		if w.Kind == "" {
			return fail("Must specify filter type")
		}
		m.Attrs.Kind = &w.Kind
		if kind = tckind.LookupFilter(w.Kind); kind == nil {
			fmt.Fprintf(t.stderr, "gotc does not support filter kind %q\n", w.Kind)
			return errStatus(exitBadOption)
		}
	}
	shown := tcline.FilterShown{Obj: obj}
	switch {
	case w.Dev != "":
		idx, err := t.ifindex(w.Dev)
		if err != nil {
			return err
		}
		m.Header.Ifindex = idx
	case w.Block != 0:
		m.Header.Ifindex, m.Header.Parent = netlink.IfindexBlock, w.Block
		shown.Block = w.Block
	default:
		return fail(`Must specify netdevice "dev" or block index "block"`)
	}
	opts := w.Opts
	if kind != nil {
		options, h, err := kind.Parse(opts, tckind.FilterEnv{Handle: w.Handle, Protocol: w.Protocol, Parent: m.Header.Parent, ActionEnv: tckind.ActionEnv{Links: t.links(), Stderr: t.stderr}})
		if err != nil {
			return t.parseFailed(&tcline.KindError{Err: err, Usage: kind.Usage})
		}
		m.Attrs.Options, m.Header.Handle = options, h
		// The kind read every word after it.
		opts = nil
		if !w.HandleSet {
			return fail(`Must specify filter "handle"`)
		}
	}
	if len(opts) > 0 {
		if tcfmt.Matches(opts[0], "help") {
			fmt.Fprint(t.stderr, tcline.FilterUsage())
		}
		return fail(fmt.Sprintf("Garbage instead of arguments \"%s ...\". Try \"tc filter help\".", opts[0]))
	}
	c, err := t.kernel()
	if err != nil {
		return err
	}
	// Actions in a filter may name devices.
	t.links().Load()
	answer, err := c.Get(t.ctx, obj, m)
	if err != nil {
		err = t.kernelRefused(err)
		fmt.Fprintln(t.stderr, "We have an error talking to the kernel")
		return err
	}
	p := t.printer()
	p.Start()
	tcline.PrintFilter(p, answer, t.printEnv(), &shown)
	return p.Finish()
}

// filterList is tc_filter_list: "filter show" and "chain show", by device
// and parent or by block, with filters narrowed by protocol, priority and
// chain.
func (t *tc) filterList(obj netlink.Object, args []string) error {
	w, err := t.filterWhere(tcline.FilterList, args)
	if err != nil {
		return err
	}
	shown := tcline.FilterShown{Obj: obj, Parent: w.Parent, Prio: w.Prio, Chain: w.Chain, ChainSet: w.ChainSet}
	if w.ProtocolSet {
		shown.Protocol = uint32(w.Protocol)
	}
	f := netlink.DumpFilter{Parent: w.Parent}
	switch {
	case w.Dev != "":
		if f.Ifindex, err = t.ifindex(w.Dev); err != nil {
			return err
		}
	case w.Block != 0:
		found, err := t.blockExists(w.Block)
		if err != nil {
			return err
		}
		if !found {
			fmt.Fprintf(t.stderr, "Cannot find block \"%d\"\n", w.Block)
			return errStatus(exitBadOption)
		}
		f.Ifindex, f.Parent = netlink.IfindexBlock, w.Block
		shown.Block = w.Block
	default:
		// The kernel lists nothing for no device.
		return nil
	}
	// Actions in the filters may name devices.
	t.links().Load()
	keep := func(m *netlink.Msg) bool {
		if obj != netlink.Filter {
			// The kernel lists every chain whatever the request names.
			return true
		}
		// What the kernel's filter dump leaves out.
		if shown.ChainSet && (m.Attrs.Chain == nil || *m.Attrs.Chain != shown.Chain) {
			return false
		}
		if shown.Prio != 0 && m.Header.Info>>16 != shown.Prio {
			return false
		}
		return shown.Protocol == 0 || uint32(htons(uint16(m.Header.Info))) == shown.Protocol
	}
	return t.list(obj, f, keep, func(p *tcfmt.Printer, m *netlink.Msg) { tcline.PrintFilter(p, m, t.printEnv(), &shown) })
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
