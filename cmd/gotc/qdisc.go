// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tcline"
)

// qdiscCmd is "tc qdisc" (obj netlink.Qdisc) and "tc class"
// (netlink.Class): tc's change verbs, then the listing and "help".
func (t *tc) qdiscCmd(obj netlink.Object, args []string) error {
	list := t.qdiscList
	if obj == netlink.Class {
		list = t.classList
	}
	if len(args) == 0 {
		return list(nil)
	}
	cmd, rest := args[0], args[1:]
	if op, ok := tcline.ChangeVerb(obj, cmd); ok {
		return t.modify(obj, op, rest)
	}
	switch {
	case tcfmt.Matches(cmd, "list"), tcfmt.Matches(cmd, "show"), tcfmt.Matches(cmd, "lst"):
		return list(rest)
	case tcfmt.Matches(cmd, "help"):
		fmt.Fprint(t.stderr, tcline.QdiscUsage(obj))
		return nil
	}
	fmt.Fprintf(t.stderr, "Command %q is unknown, try \"tc %s help\".\n", cmd, obj)
	return errStatus(exitUsage)
}

// modify sends a qdisc or class change request read by tc's grammar.
func (t *tc) modify(obj netlink.Object, op netlink.Op, args []string) error {
	r, err := tcline.ParseQdiscRequest(obj, op, args, tcline.QdiscEnv{Stderr: t.stderr, Raw: t.raw})
	if err != nil {
		return t.parseFailed(err)
	}
	if r.Dev != "" {
		if r.Msg.Header.Ifindex, err = t.ifindex(r.Dev); err != nil {
			return err
		}
	}
	c, err := t.kernel()
	if err != nil {
		return err
	}
	if wc, ok := c.(warningDoer); ok {
		warning, err := wc.DoWarning(t.ctx, obj, r.Op, r.Msg)
		if err != nil {
			return t.kernelRefused(err)
		}
		t.printWarning(warning)
		return nil
	}
	if err := c.Do(t.ctx, obj, r.Op, r.Msg); err != nil {
		return t.kernelRefused(err)
	}
	return nil
}

// printWarning prints the warning of an accepted request, if any, as tc
// does: ended with a full stop when the kernel did not end it so.
func (t *tc) printWarning(warning string) {
	if warning == "" {
		return
	}
	if !strings.HasSuffix(warning, ".") {
		warning += "."
	}
	fmt.Fprintf(t.stderr, "Warning: %s\n", warning)
}

// warningDoer is a connection that reports the warnings of accepted
// requests (htb's "quantum of class ... is big", for one).
type warningDoer interface {
	DoWarning(ctx context.Context, o netlink.Object, op netlink.Op, m *netlink.Msg) (string, error)
}

// parseFailed prints a refused command line as tc does (tcline.PrintError)
// and returns tc's status.
func (t *tc) parseFailed(err error) error {
	return errStatus(tcline.PrintError(t.stderr, err))
}

// qdiscList is "tc qdisc show": a filtered dump printed as tc prints it.
func (t *tc) qdiscList(args []string) error {
	show, err := tcline.ParseQdiscShow(args)
	if err != nil {
		return t.parseFailed(err)
	}
	filter := netlink.DumpFilter{Invisible: show.Invisible}
	if show.Dev != "" {
		if filter.Ifindex, err = t.ifindex(show.Dev); err != nil {
			return err
		}
	} else {
		t.links().Load()
	}
	print := func(p *tcfmt.Printer, m *netlink.Msg) {
		tcline.PrintQdisc(p, m, t.printEnv(), show.Dev == "", tcline.Verb{})
	}
	if m := t.qdiscAt(show, filter.Ifindex); m != nil {
		return t.printEach(func(fn func(*netlink.Msg, error) error) error { return fn(m, nil) }, show.Keeps, print)
	}
	return t.list(netlink.Qdisc, filter, show.Keeps, print)
}

// qdiscAt asks the kernel for the one qdisc of a class the listing names
// (tcline.QdiscShow.AtClass), where tc dumps the device's. The kernel
// refuses the get of a qdisc that a dump would not show (a class's
// invisible default); nil then, and for every other refusal or doubt,
// sends the caller to the dump, which is the authority.
func (t *tc) qdiscAt(show tcline.QdiscShow, ifindex int32) *netlink.Msg {
	if !show.AtClass() {
		return nil
	}
	c, err := t.kernel()
	if err != nil {
		return nil
	}
	req := &netlink.Msg{}
	req.Header.Ifindex = ifindex
	req.Header.Parent = show.Parent
	m, err := c.Get(t.ctx, netlink.Qdisc, req)
	if err != nil || m.Header.Ifindex != ifindex || !show.Keeps(m) {
		return nil
	}
	return m
}
