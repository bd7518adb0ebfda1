// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gotc/gotc/apply"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tcline"
)

// reapplyCheck holds gotc apply to its promise on every state the cases
// make: what `gotc apply --from-kernel` writes of a device, applied to
// the device wiped, makes again what tc -d showed of it, and applying it
// once more has nothing left to do (`--check` exits 0). It runs the
// library's path of those commands in this process (FromKernel, the
// file written and loaded again, Compute, Run), so that it costs no
// process per case.
type reapplyCheck struct {
	conn *netlink.Conn
	k    apply.Kernel
	// reapplied counts, by kind ("qdisc htb", "class htb", "filter u32"),
	// the objects of the devices that came back the same.
	reapplied map[string]int
	// refused counts --from-kernel's refusals by their reason.
	refused map[string]int
}

// actionIndex is an action's index where tc -d prints it: before its
// references, or after police's name in hex. The kernel numbers the
// actions of a filter made again anew: a file that named the index would
// bind an action that exists (ignoring its words) where apply replaces a
// filter.
var actionIndex = regexp.MustCompile(`index [0-9]+ ref|police 0x[0-9a-f]+ `)

// maskIndex writes every action index of tc -d's text as N.
func maskIndex(text string) string {
	return actionIndex.ReplaceAllStringFunc(text, func(m string) string {
		if strings.HasPrefix(m, "police") {
			return "police 0xN "
		}
		return "index N ref"
	})
}

// newReapplyCheck connects to the kernel the cases run on.
func newReapplyCheck() (*reapplyCheck, error) {
	conn, err := netlink.Dial(nil)
	if err != nil {
		return nil, err
	}
	return &reapplyCheck{conn: conn, k: apply.KernelConn{Conn: conn},
		reapplied: map[string]int{}, refused: map[string]int{}}, nil
}

// check writes dev's state as an apply file, wipes dev's qdiscs, applies
// the file and compares tc -d's view of dev (its qdiscs, classes, and its
// filters under each of parents) with the one before. It returns the
// problems found.
func (c *reapplyCheck) check(dev string, parents ...uint32) []string {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ifindex, err := c.conn.LinkIndex(ctx, dev)
	if errors.Is(err, netlink.ErrNotFound) {
		return nil // a case that deleted its device
	}
	if err != nil {
		return []string{fmt.Sprintf("reapply: %s: %v", dev, err)}
	}
	before, kinds, err := c.show(ctx, ifindex, parents)
	if err != nil {
		return []string{fmt.Sprintf("reapply: before: %v", err)}
	}
	file, err := apply.FromKernel(ctx, c.k, []string{dev})
	if err != nil {
		c.refused[err.Error()]++
		return nil
	}
	var written bytes.Buffer
	if err := file.Write(&written); err != nil {
		return []string{fmt.Sprintf("reapply: writing the file of --from-kernel: %v", err)}
	}
	loaded, err := apply.Load("--from-kernel of "+dev, bytes.NewReader(written.Bytes()))
	if err != nil {
		return []string{fmt.Sprintf("reapply: --from-kernel wrote a file apply refuses: %v\n%s", err, indent(written.String()))}
	}
	if err := c.wipe(ctx, ifindex); err != nil {
		return []string{fmt.Sprintf("reapply: wiping %s: %v", dev, err)}
	}
	fail := func(what string, err error) []string {
		return []string{fmt.Sprintf("reapply: %s: %v\n  file:\n%s", what, err, indent(indent(written.String())))}
	}
	plan, err := apply.Compute(ctx, c.k, loaded)
	if err != nil {
		return fail("apply's plan", err)
	}
	if _, err := plan.Run(ctx, c.k, nil); err != nil {
		return fail("apply", err)
	}
	// The kernel may still be settling what was applied: taprio dumps a
	// new schedule as pending, without its traffic-class entries, until
	// its first cycle starts (up to a cycle time later). So the state
	// is read until it is the one before, or a second has passed.
	before = maskIndex(before)
	var after string
	for settle := time.Now().Add(time.Second); ; time.Sleep(20 * time.Millisecond) {
		shown, _, err := c.show(ctx, ifindex, parents)
		if err != nil {
			return []string{fmt.Sprintf("reapply: after: %v", err)}
		}
		if after = maskIndex(shown); after == before || time.Now().After(settle) {
			break
		}
	}
	var problems []string
	if after != before {
		problems = append(problems, fmt.Sprintf("reapply: tc -d differs after --from-kernel, wipe, apply:\n%s  file:\n%s", diff(before, after), indent(indent(written.String()))))
	}
	again, err := apply.Compute(ctx, c.k, loaded)
	switch {
	case err != nil:
		problems = append(problems, fmt.Sprintf("reapply: --check after apply: %v", err))
	case len(again.Requests) > 0:
		problems = append(problems, fmt.Sprintf("reapply: --check after apply: %d changes pending:\n%s  file:\n%s",
			len(again.Requests), indent(strings.Join(again.Commands(), "\n")+"\n"), indent(indent(written.String()))))
	}
	if problems == nil {
		for _, k := range kinds {
			c.reapplied[k]++
		}
	}
	return problems
}

// wipe deletes the device's root qdisc (unless it is the default one,
// handle 0) and the one at ffff: (ingress or clsact), with everything
// below them, as "tc qdisc del" does.
func (c *reapplyCheck) wipe(ctx context.Context, ifindex int32) error {
	qdiscs, err := c.k.Dump(ctx, netlink.Qdisc, ifindex, 0)
	if err != nil {
		return err
	}
	for _, q := range qdiscs {
		if q.Header.Parent == netlink.HandleRoot && q.Header.Handle != 0 || q.Header.Parent == netlink.HandleIngress {
			m := &netlink.Msg{Header: q.Header}
			if _, err := c.k.Do(ctx, netlink.Qdisc, netlink.Delete, m); err != nil {
				return fmt.Errorf("qdisc %s %s: %w", q.Kind(), tcfmt.FormatQdiscHandle(q.Header.Handle), err)
			}
		}
	}
	return nil
}

// show prints the device's qdiscs, classes, and filters and chains under
// parents and in the blocks its qdiscs share, as tc -d does (gotc's
// printers, which the cases compare with tc's), and lists the kinds of
// the objects it printed.
func (c *reapplyCheck) show(ctx context.Context, ifindex int32, parents []uint32) (string, []string, error) {
	var out bytes.Buffer
	var kinds []string
	p := tcfmt.NewPrinter(&out, tcfmt.Options{Details: true})
	p.Start()
	env := tcline.PrintEnv{Links: netlink.NewLinks(ctx, c.conn)}
	dump := func(obj netlink.Object, ifindex int32, parent uint32, print func(m *netlink.Msg)) error {
		msgs, err := c.k.Dump(ctx, obj, ifindex, parent)
		if err != nil {
			return err
		}
		for i := range msgs {
			print(&msgs[i])
			kinds = append(kinds, fmt.Sprintf("%s %s", obj, msgs[i].Kind()))
		}
		return nil
	}
	var blocks []uint32
	err := errors.Join(
		dump(netlink.Qdisc, ifindex, 0, func(m *netlink.Msg) {
			tcline.PrintQdisc(p, m, env, false, tcline.Verb{})
			for _, b := range []*uint32{m.Attrs.IngressBlock, m.Attrs.EgressBlock} {
				if b != nil && !slices.Contains(blocks, *b) {
					blocks = append(blocks, *b)
				}
			}
		}),
		dump(netlink.Class, ifindex, 0, func(m *netlink.Msg) { tcline.PrintClass(p, m, env, false, tcline.Verb{}) }))
	place := func(ifindex int32, parent uint32) error {
		return errors.Join(
			dump(netlink.Filter, ifindex, parent, func(m *netlink.Msg) {
				tcline.PrintFilter(p, m, env, &tcline.FilterShown{Obj: netlink.Filter})
			}),
			dump(netlink.Chain, ifindex, parent, func(m *netlink.Msg) {
				tcline.PrintFilter(p, m, env, &tcline.FilterShown{Obj: netlink.Chain})
			}))
	}
	for _, parent := range parents {
		err = errors.Join(err, place(ifindex, parent))
	}
	for _, b := range blocks {
		err = errors.Join(err, place(netlink.IfindexBlock, b))
	}
	if ferr := p.Finish(); err == nil {
		err = ferr
	}
	return out.String(), kinds, err
}

// report prints what came back the same, kind by kind, and what
// --from-kernel refused.
func (c *reapplyCheck) report() {
	total := 0
	names := slices.Sorted(mapKeys(c.reapplied))
	for _, name := range names {
		total += c.reapplied[name]
	}
	fmt.Printf("# reapply: %d objects of %d kinds written by --from-kernel, applied to their device wiped, came back as tc -d showed them, with --check in sync after: %s\n",
		total, len(names), strings.Join(names, ", "))
	for _, why := range slices.Sorted(mapKeys(c.refused)) {
		fmt.Printf("# reapply: --from-kernel refused (%d): %s\n", c.refused[why], why)
	}
}
