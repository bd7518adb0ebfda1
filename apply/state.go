// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"context"
	"fmt"
	"slices"
	"strings"

	_ "github.com/gotc/gotc/allkinds"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
	"github.com/gotc/gotc/tcline"
)

// qdiscNode is a qdisc of either state, desired or the kernel's, with
// everything below it.
type qdiscNode struct {
	kind           string
	parent, handle uint32             // handle 0: the kernel's to choose (desired) or a default qdisc (kernel)
	options        attrs.TCOptionsMsg // what a request of it sends
	dumped         attrs.TCOptionsMsg // the kernel's: its options as dumped
	words          []string           // the options in tc's words (nil for the kernel's where none print)
	classes        []*classNode
	filters        []*filterNode // attached to the qdisc (ingress hook for ingress/clsact)
	egressFilters  []*filterNode // clsact's egress hook
}

// classNode is a class, its leaf qdisc and its children.
type classNode struct {
	kind       string
	parent, id uint32
	options    attrs.TCOptionsMsg
	words      []string
	// made is true for a class its qdisc makes itself (mq's queues): it is
	// never created, changed or deleted, only its leaf is looked after.
	made     bool
	leaf     *qdiscNode
	children []*classNode
}

// filterNode is a filter.
type filterNode struct {
	parent    uint32
	prio      uint32
	protocol  uint16
	chain     uint32
	handle    uint32
	handleSet bool // desired: the file named the handle
	kind      string
	options   attrs.TCOptionsMsg
	words     []string // the words after the kind
}

// deviceState is one device's trees.
type deviceState struct {
	name    string
	ifindex int32
	root    *qdiscNode
	ingress *qdiscNode
}

// madeClasses reports whether a qdisc kind makes its own classes (mq,
// prio's bands): gotc has no class parser for it.
func madeClasses(kind string) bool {
	k := tckind.LookupQdisc(kind)
	return k == nil || k.ParseClass == nil
}

// filterHooks is the number of filter hooks a qdisc kind opens at ffff:
// (Qdisc.FilterHooks): 1 for ingress, 2 for clsact, 0 for the others.
func filterHooks(kind string) int {
	if k := tckind.LookupQdisc(kind); k != nil {
		return k.FilterHooks
	}
	return 0
}

// resolver turns a File into qdisc, class and filter nodes, parsing every
// kind's words with gotc's parsers.
type resolver struct {
	links *netlink.Links
}

func (r *resolver) device(name string, ifindex int32, d *Device) (*deviceState, error) {
	ds := &deviceState{name: name, ifindex: ifindex}
	var err error
	if d.Root != nil {
		if ds.root, err = r.qdisc(d.Root, netlink.HandleRoot); err != nil {
			return nil, fmt.Errorf("%s root: %w", name, err)
		}
	}
	if d.Ingress != nil {
		if ds.ingress, err = r.qdisc(d.Ingress, netlink.HandleIngress); err != nil {
			return nil, fmt.Errorf("%s ingress: %w", name, err)
		}
		if filterHooks(ds.ingress.kind) == 0 {
			return nil, fmt.Errorf("%s ingress: the kind is %q, not one that opens filter hooks (ingress, clsact)", name, ds.ingress.kind)
		}
	}
	return ds, nil
}

func (r *resolver) qdisc(q *Qdisc, parent uint32) (*qdiscNode, error) {
	words := strings.Fields(q.Spec)
	if len(words) == 0 {
		return nil, fmt.Errorf("a qdisc without its kind")
	}
	n := &qdiscNode{kind: words[0], parent: parent, words: words[1:]}
	if parent == netlink.HandleIngress {
		n.handle = netlink.MakeHandle(0xffff, 0)
	}
	if q.Handle != "" {
		h, err := tcfmt.ParseQdiscHandle(q.Handle)
		if err != nil || h == 0 {
			return nil, fmt.Errorf("invalid handle %q", q.Handle)
		}
		if parent == netlink.HandleIngress && h != n.handle {
			return nil, fmt.Errorf("the %s qdisc has handle ffff:, not %s", n.kind, q.Handle)
		}
		n.handle = h
	}
	var err error
	if n.options, err = parseQdiscOptions(n.kind, n.words); err != nil {
		return nil, fmt.Errorf("%s: %w", q.Spec, err)
	}
	if n.handle == 0 && (len(q.Classes) > 0 || len(q.Filters) > 0) {
		return nil, fmt.Errorf("%s: a qdisc with classes or filters needs its handle", q.Spec)
	}
	if len(q.EgressFilters) > 0 && filterHooks(n.kind) < 2 {
		return nil, fmt.Errorf("%s: egress_filters are clsact's", q.Spec)
	}
	if n.classes, err = r.classes(q.Classes, n.handle, n.handle, madeClasses(n.kind)); err != nil {
		return nil, err
	}
	filterParent := n.handle
	if parent == netlink.HandleIngress {
		filterParent = tcline.ParentIngress
	}
	if n.filters, err = r.filters(q.Filters, filterParent); err != nil {
		return nil, err
	}
	if n.egressFilters, err = r.filters(q.EgressFilters, tcline.ParentEgress); err != nil {
		return nil, err
	}
	return n, nil
}

// parseQdiscOptions parses a qdisc kind's words as "tc qdisc add" does; a
// kind gotc has no parser for takes no words.
func parseQdiscOptions(kind string, words []string) (attrs.TCOptionsMsg, error) {
	k := tckind.LookupQdisc(kind)
	if k == nil || k.ParseQdisc == nil {
		if len(words) > 0 {
			return nil, fmt.Errorf("qdisc %q takes no options here", kind)
		}
		return nil, nil
	}
	return k.ParseQdisc(words, tckind.ParseEnv{})
}

func (r *resolver) classes(m map[string]*Class, qdiscHandle, parent uint32, made bool) ([]*classNode, error) {
	var out []*classNode
	for _, key := range sortedKeys(m) {
		c := m[key]
		if c == nil {
			c = &Class{}
		}
		id, err := tcfmt.ParseClassID(key)
		if err != nil || id>>16 != qdiscHandle>>16 || id&0xffff == 0 {
			return nil, fmt.Errorf("class %q: not a class ID of qdisc %s", key, tcfmt.FormatQdiscHandle(qdiscHandle))
		}
		n := &classNode{parent: parent, id: id, made: made}
		switch {
		case made && c.Spec != "":
			return nil, fmt.Errorf("class %s: its qdisc makes it, so it takes no class words", key)
		case !made && c.Spec == "":
			return nil, fmt.Errorf("class %s: the class words are missing", key)
		case !made:
			words := strings.Fields(c.Spec)
			n.kind, n.words = words[0], words[1:]
			k := tckind.LookupQdisc(n.kind)
			if n.options, err = k.ParseClass(n.words, tckind.ParseEnv{}); err != nil {
				return nil, fmt.Errorf("class %s: %s: %w", key, c.Spec, err)
			}
		}
		if c.Leaf != nil {
			if n.leaf, err = r.qdisc(c.Leaf, id); err != nil {
				return nil, fmt.Errorf("class %s leaf: %w", key, err)
			}
		}
		if len(c.Classes) > 0 && made {
			return nil, fmt.Errorf("class %s: a class its qdisc makes has no child classes", key)
		}
		if n.children, err = r.classes(c.Classes, qdiscHandle, id, made); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return sortClasses(out), nil
}

func (r *resolver) filters(lines []string, parent uint32) ([]*filterNode, error) {
	var out []*filterNode
	for _, line := range lines {
		f, err := r.filter(line, parent)
		if err != nil {
			return nil, fmt.Errorf("filter %q: %w", line, err)
		}
		out = append(out, f)
	}
	return out, nil
}

// filter parses the words after "tc filter add dev D parent P" with tc's
// grammar for them, and its messages. The file's structure places the
// filter: words that name a device, block or parent are refused.
func (r *resolver) filter(line string, parent uint32) (*filterNode, error) {
	w, err := tcline.ParseFilterWhere(tcline.FilterModify, strings.Fields(line), nil)
	switch {
	case err != nil:
		return nil, err
	case w.Dev != "" || w.Block != 0 || w.Parent != 0:
		return nil, fmt.Errorf("the device, block and parent are where the filter stands in the file")
	case w.Estimator != nil:
		return nil, fmt.Errorf("estimator: the kernel keeps no estimator of a filter")
	case w.Kind == "" || w.Help:
		return nil, fmt.Errorf("no filter kind")
	case w.Prio == 0:
		// Without it the kernel picks one, and the next apply could not
		// tell this filter from another.
		return nil, fmt.Errorf("pref is required")
	}
	f := &filterNode{parent: parent, prio: w.Prio, protocol: tckind.EthPAll, chain: w.Chain, handleSet: w.HandleSet, kind: w.Kind, words: w.Opts}
	if w.ProtocolSet {
		f.protocol = w.Protocol
	}
	k := tckind.LookupFilter(f.kind)
	if k == nil {
		return nil, fmt.Errorf("gotc does not support filter kind %q", f.kind)
	}
	f.options, f.handle, err = k.Parse(f.words, tckind.FilterEnv{Handle: w.Handle, Protocol: f.protocol, Parent: parent, ActionEnv: tckind.ActionEnv{Links: r.links}})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// readDevice reads a device's trees from the kernel: one qdisc dump, one
// class dump, and one filter dump per qdisc that can hold filters.
func readDevice(ctx context.Context, k Kernel, name string, ifindex int32) (*deviceState, error) {
	qmsgs, err := k.Dump(ctx, netlink.Qdisc, ifindex, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: qdisc dump: %w", name, err)
	}
	cmsgs, err := k.Dump(ctx, netlink.Class, ifindex, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: class dump: %w", name, err)
	}
	byParent := map[uint32][]*qdiscNode{}
	for i := range qmsgs {
		m := &qmsgs[i]
		if m.Header.Ifindex != ifindex {
			continue
		}
		n := &qdiscNode{kind: m.Kind(), parent: m.Header.Parent, handle: m.Header.Handle, dumped: m.Attrs.Options, options: tckind.Restoring(m.Kind(), m.Attrs.Options)}
		byParent[n.parent] = append(byParent[n.parent], n)
	}
	var all []*classNode
	classesOf := map[uint32][]*classNode{} // by parent
	for i := range cmsgs {
		m := &cmsgs[i]
		if m.Header.Ifindex != ifindex {
			continue
		}
		c := &classNode{kind: m.Kind(), parent: m.Header.Parent, id: m.Header.Handle, options: m.Attrs.Options}
		if c.id&0xffff == 0 || c.id == c.parent {
			// Some kinds (dualpi2) dump their classes without filling
			// in the class: the qdisc's own handle, no class of a file.
			continue
		}
		all = append(all, c)
		classesOf[c.parent] = append(classesOf[c.parent], c)
	}
	ds := &deviceState{name: name, ifindex: ifindex}
	var build func(q *qdiscNode) error
	// link fills in c's leaf and descendants and builds the qdiscs below.
	var link func(c *classNode, made bool) error
	link = func(c *classNode, made bool) error {
		c.made = made
		if leaves := byParent[c.id]; len(leaves) > 0 {
			c.leaf = leaves[0]
			if err := build(c.leaf); err != nil {
				return err
			}
		}
		c.children = sortClasses(classesOf[c.id])
		for _, ch := range c.children {
			if err := link(ch, made); err != nil {
				return err
			}
		}
		return nil
	}
	build = func(q *qdiscNode) error {
		if q.handle == 0 {
			return nil // a default qdisc: nothing of ours below it
		}
		var err error
		if q.parent == netlink.HandleIngress {
			if q.filters, err = readFilters(ctx, k, ifindex, tcline.ParentIngress); err != nil {
				return err
			}
			if filterHooks(q.kind) == 2 {
				q.egressFilters, err = readFilters(ctx, k, ifindex, tcline.ParentEgress)
			}
			return err
		}
		// A top class's parent is the qdisc's handle or, as htb and mq
		// dump theirs, "root": whichever, it is one of the qdisc's
		// classes whose parent is no class of the qdisc.
		major := q.handle >> 16
		for _, c := range all {
			if c.id>>16 == major && (c.parent>>16 != major || c.parent&0xffff == 0) {
				c.parent = q.handle
				q.classes = append(q.classes, c)
			}
		}
		q.classes = sortClasses(q.classes)
		for _, c := range q.classes {
			if err := link(c, madeClasses(q.kind)); err != nil {
				return err
			}
		}
		q.filters, err = readFilters(ctx, k, ifindex, q.handle)
		return err
	}
	if roots := byParent[netlink.HandleRoot]; len(roots) > 0 {
		ds.root = roots[0]
		if err := build(ds.root); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	if ing := byParent[netlink.HandleIngress]; len(ing) > 0 {
		ds.ingress = ing[0]
		if err := build(ds.ingress); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return ds, nil
}

// sortClasses orders classes by minor number, as tc lists them.
func sortClasses(cs []*classNode) []*classNode {
	slices.SortFunc(cs, func(a, b *classNode) int { return int(a.id&0xffff) - int(b.id&0xffff) })
	return cs
}

// readFilters dumps the filters attached to parent. u32's hash tables
// (handles whose node number is 0) are the kernel's bookkeeping, not
// filters a file writes.
func readFilters(ctx context.Context, k Kernel, ifindex int32, parent uint32) ([]*filterNode, error) {
	msgs, err := k.Dump(ctx, netlink.Filter, ifindex, parent)
	if err != nil {
		return nil, fmt.Errorf("filter dump of %s: %w", tcfmt.FormatClassID(parent), err)
	}
	var out []*filterNode
	for i := range msgs {
		m := &msgs[i]
		if m.Attrs.Kind == nil || m.Attrs.Options == nil {
			continue // a priority's head, without a filter
		}
		if k := tckind.LookupFilter(m.Kind()); k != nil && k.IsTable != nil && k.IsTable(m.Header.Handle) {
			continue // a table of the kind's filters (u32's), not one
		}
		f := &filterNode{
			parent: parent, prio: m.Header.Info >> 16, protocol: ntohs(uint16(m.Header.Info)),
			handle: m.Header.Handle, kind: m.Kind(), options: m.Attrs.Options,
		}
		if m.Attrs.Chain != nil {
			f.chain = *m.Attrs.Chain
		}
		out = append(out, f)
	}
	return out, nil
}

func ntohs(v uint16) uint16 { return v<<8 | v>>8 }
