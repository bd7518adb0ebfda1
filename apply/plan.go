// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"fmt"
	"strings"

	_ "github.com/gotc/gotc/allkinds"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
	"github.com/gotc/gotc/tcline"
)

// Request is one kernel request of a plan.
type Request struct {
	Object netlink.Object
	Op     netlink.Op
	Msg    netlink.Msg
	// Command is the request as a tc command line (without "tc").
	Command string
	// undo restores what the request changes, in order; nil when the
	// request needs no undo of its own (an object added inside a subtree
	// whose own undo removes it).
	undo []Request
}

// Plan is the requests that bring the kernel to a desired state, in the
// order they are sent: filter deletes first (a filter that classifies into
// a class keeps the class busy), then qdiscs and classes changed, replaced
// and added parent before child, then filters added and changed, then
// qdiscs and classes deleted child before parent.
type Plan struct {
	Requests []Request
}

// planner collects the requests of one device's plan in their phases.
type planner struct {
	dev           string
	ifindex       int32
	filterDeletes []Request
	trees         []Request
	filterAdds    []Request
	deletes       []Request
}

func (p *planner) requests() []Request {
	out := append(p.filterDeletes, p.trees...)
	out = append(out, p.filterAdds...)
	return append(out, p.deletes...)
}

// planDevice compares a device's desired trees with the kernel's.
func planDevice(want, have *deviceState) []Request {
	p := &planner{dev: want.name, ifindex: want.ifindex}
	p.qdisc(want.root, have.root, netlink.HandleRoot)
	p.qdisc(want.ingress, have.ingress, netlink.HandleIngress)
	return p.requests()
}

// qdisc plans the qdisc at parent and everything below it.
func (p *planner) qdisc(want, have *qdiscNode, parent uint32) {
	if have != nil && have.handle == 0 && want == nil {
		return // the kernel's default stays
	}
	switch {
	case want == nil:
		if have != nil {
			p.deletes = append(p.deletes, p.deleteQdisc(have))
		}
		return
	case have == nil || have.handle == 0 || have.kind != want.kind || (want.handle != 0 && want.handle != have.handle):
		r := p.qdiscRequest(netlink.Replace, want)
		switch {
		case have == nil || (have.handle == 0 && (parent == netlink.HandleRoot || parent == netlink.HandleIngress)):
			// Deleting it brings the kernel's default back.
			del := p.qdiscRequest(netlink.Delete, want)
			r.undo = []Request{del}
		default:
			r.undo = append([]Request{p.qdiscRequest(netlink.Replace, have)}, p.subtree(have, false)...)
		}
		p.trees = append(p.trees, r)
		p.addBelow(want)
		return
	}
	inSync := tckind.Covers(tckind.Dumped(want.kind, want.options), have.dumped)
	if !inSync && !changesInPlace(want.kind) {
		// The kernel cannot change this kind's options (htb's default
		// class, r2q): delete the qdisc and add it anew with all below.
		w := *want
		w.handle = have.handle
		p.trees = append(p.trees, p.deleteQdisc(have))
		r := p.qdiscRequest(netlink.Add, &w)
		r.undo = []Request{p.qdiscRequest(netlink.Delete, &w)}
		p.trees = append(p.trees, r)
		p.addBelow(&w)
		return
	}
	if !inSync {
		w := *want
		w.handle = have.handle
		r := p.qdiscRequest(netlink.Change, &w)
		old := *have
		old.options = onlySet(have.options, want.options)
		r.undo = []Request{p.qdiscRequest(netlink.Change, &old)}
		p.trees = append(p.trees, r)
	}
	handle := have.handle
	p.classes(want.classes, have.classes, handle)
	p.filters(want.filters, have.filters)
	p.filters(want.egressFilters, have.egressFilters)
}

// changesInPlace reports whether the kernel changes a qdisc kind's
// options in place: not for a kind without a change operation
// (Qdisc.NoChange), nor for one gotc has no entry for (mq, whose tc has
// no module either), which is replaced to be safe.
func changesInPlace(kind string) bool {
	k := tckind.LookupQdisc(kind)
	return k != nil && !k.NoChange
}

// classes plans a qdisc's or class's child classes.
func (p *planner) classes(want, have []*classNode, parent uint32) {
	byID := map[uint32]*classNode{}
	for _, h := range have {
		byID[h.id] = h
	}
	seen := map[uint32]bool{}
	for _, w := range want {
		seen[w.id] = true
		h := byID[w.id]
		switch {
		case w.made && h == nil:
			// Nothing to graft onto: the plan would fail; say so at its
			// place in the order, where the kernel refuses it.
			p.trees = append(p.trees, p.addClassSubtree(w)...)
			continue
		case w.made:
		case h == nil:
			r := p.classRequest(netlink.Add, w)
			r.undo = []Request{p.classRequest(netlink.Delete, w)}
			p.trees = append(p.trees, r)
			p.addClassBelow(w)
			continue
		case h.parent != w.parent:
			// A class does not move: delete it with what is below it,
			// then add it where the file puts it.
			del := p.deleteClass(h)
			p.trees = append(p.trees, del...)
			r := p.classRequest(netlink.Add, w)
			r.undo = []Request{p.classRequest(netlink.Delete, w)}
			p.trees = append(p.trees, r)
			p.addClassBelow(w)
			continue
		case !tckind.Covers(w.options, h.options):
			r := p.classRequest(netlink.Change, w)
			old := *h
			old.options = onlySet(h.options, w.options)
			r.undo = []Request{p.classRequest(netlink.Change, &old)}
			p.trees = append(p.trees, r)
		}
		p.qdisc(w.leaf, h.leaf, w.id)
		p.classes(w.children, h.children, w.id)
	}
	for _, h := range have {
		if seen[h.id] {
			continue
		}
		if h.made {
			// A class its qdisc makes stays; what the file does not put
			// below it goes.
			if h.leaf != nil && h.leaf.handle != 0 {
				p.deletes = append(p.deletes, p.deleteQdisc(h.leaf))
			}
			continue
		}
		p.deletes = append(p.deletes, p.deleteClass(h)...)
	}
}

// filters plans the filters of one parent. A desired filter is the
// kernel's of the same chain, priority, protocol and kind (and handle,
// when the file names one).
func (p *planner) filters(want, have []*filterNode) {
	matched := map[*filterNode]bool{}
	type group struct{ chain, prio uint32 }
	keep := map[group]bool{}
	for _, w := range want {
		var h *filterNode
		for _, c := range have {
			if !matched[c] && c.chain == w.chain && c.prio == w.prio && c.protocol == w.protocol && c.kind == w.kind && (!w.handleSet || c.handle == w.handle) {
				h = c
				break
			}
		}
		add := p.filterRequest(netlink.Add, w)
		add.undo = []Request{p.filterRequest(netlink.Delete, w)}
		switch {
		case h == nil:
			p.filterAdds = append(p.filterAdds, add)
			continue
		case tckind.Covers(w.options, h.options):
		case noFilterChange(w.kind):
			// The kind changes no filter in place (matchall: the
			// kernel answers EEXIST): delete it and add the new one.
			del := p.filterRequest(netlink.Delete, h)
			del.undo = []Request{p.filterRequest(netlink.Add, h)}
			p.filterDeletes = append(p.filterDeletes, del)
			p.filterAdds = append(p.filterAdds, add)
		default:
			nw := *w
			nw.handle = h.handle
			r := p.filterRequest(netlink.Replace, &nw)
			r.undo = []Request{p.filterRequest(netlink.Replace, h)}
			p.filterAdds = append(p.filterAdds, r)
		}
		matched[h] = true
		keep[group{h.chain, h.prio}] = true
	}
	deletedPrio := map[group]bool{}
	for _, h := range have {
		g := group{h.chain, h.prio}
		if matched[h] || deletedPrio[g] {
			continue
		}
		if keep[g] {
			del := p.filterRequest(netlink.Delete, h)
			del.undo = []Request{p.filterRequest(netlink.Add, h)}
			p.filterDeletes = append(p.filterDeletes, del)
			continue
		}
		// Nothing of this priority stays: one request deletes it all.
		deletedPrio[g] = true
		del := p.filterRequest(netlink.Delete, &filterNode{parent: h.parent, prio: h.prio, chain: h.chain})
		for _, o := range have {
			if o.chain == h.chain && o.prio == h.prio {
				del.undo = append(del.undo, p.filterRequest(netlink.Add, o))
			}
		}
		p.filterDeletes = append(p.filterDeletes, del)
	}
}

// addBelow adds everything below a qdisc the plan creates.
func (p *planner) addBelow(q *qdiscNode) {
	for _, c := range q.classes {
		p.trees = append(p.trees, p.addClassSubtree(c)...)
	}
	for _, f := range append(q.filters, q.egressFilters...) {
		p.filterAdds = append(p.filterAdds, p.filterRequest(netlink.Add, f))
	}
}

// addClassBelow adds the leaf and the children of a class the plan creates.
func (p *planner) addClassBelow(c *classNode) {
	if c.leaf != nil {
		p.trees = append(p.trees, p.qdiscRequest(netlink.Add, c.leaf))
		p.addBelow(c.leaf)
	}
	for _, ch := range c.children {
		p.trees = append(p.trees, p.addClassSubtree(ch)...)
	}
}

// addClassSubtree is the requests that create a class (unless its qdisc
// makes it), its leaf and its children, none with an undo of its own.
func (p *planner) addClassSubtree(c *classNode) []Request {
	saved := p.trees
	p.trees = nil
	if !c.made {
		p.trees = append(p.trees, p.classRequest(netlink.Add, c))
	} else if c.leaf != nil {
		// Grafting onto the qdisc's own class replaces its default.
		p.trees = append(p.trees, p.qdiscRequest(netlink.Replace, c.leaf))
		p.addBelow(c.leaf)
		out := p.trees
		p.trees = saved
		return out
	}
	p.addClassBelow(c)
	out := p.trees
	p.trees = saved
	return out
}

// subtree is the requests that re-create what is below a kernel qdisc
// (and the qdisc itself when withRoot), for undoing its deletion or
// replacement. Filters come after the classes they may point to.
func (p *planner) subtree(q *qdiscNode, withRoot bool) []Request {
	var reqs, filters []Request
	var walk func(q *qdiscNode, self bool)
	walk = func(q *qdiscNode, self bool) {
		if q.handle == 0 {
			return
		}
		if self {
			reqs = append(reqs, p.qdiscRequest(netlink.Replace, q))
		}
		var walkClass func(c *classNode)
		walkClass = func(c *classNode) {
			if !c.made {
				reqs = append(reqs, p.classRequest(netlink.Add, c))
			}
			if c.leaf != nil {
				walk(c.leaf, true)
			}
			for _, ch := range c.children {
				walkClass(ch)
			}
		}
		for _, c := range q.classes {
			walkClass(c)
		}
		for _, f := range append(q.filters, q.egressFilters...) {
			filters = append(filters, p.filterRequest(netlink.Add, f))
		}
	}
	walk(q, withRoot)
	return append(reqs, filters...)
}

// deleteQdisc deletes a kernel qdisc; its undo re-creates it with all
// that was below it.
func (p *planner) deleteQdisc(q *qdiscNode) Request {
	r := p.qdiscRequest(netlink.Delete, q)
	r.undo = p.subtree(q, true)
	return r
}

// deleteClass deletes a kernel class after its child classes (htb refuses
// to delete a class with children); each delete's undo re-adds what it
// took.
func (p *planner) deleteClass(c *classNode) []Request {
	var out []Request
	for _, ch := range c.children {
		out = append(out, p.deleteClass(ch)...)
	}
	r := p.classRequest(netlink.Delete, c)
	r.undo = []Request{p.classRequest(netlink.Add, c)}
	if c.leaf != nil {
		r.undo = append(r.undo, p.subtree(c.leaf, true)...)
	}
	return append(out, r)
}

// qdiscRequest builds a qdisc request and its tc command line.
func (p *planner) qdiscRequest(op netlink.Op, q *qdiscNode) Request {
	m := netlink.Msg{}
	m.Header.Ifindex, m.Header.Parent, m.Header.Handle = p.ifindex, q.parent, q.handle
	var cmd strings.Builder
	fmt.Fprintf(&cmd, "qdisc %s dev %s", opWord(op), p.dev)
	switch q.parent {
	case netlink.HandleRoot:
		cmd.WriteString(" root")
	case netlink.HandleIngress:
	default:
		fmt.Fprintf(&cmd, " parent %s", tcfmt.FormatClassID(q.parent))
	}
	if q.handle != 0 && q.parent != netlink.HandleIngress {
		fmt.Fprintf(&cmd, " handle %s", tcfmt.FormatQdiscHandle(q.handle))
	}
	if op != netlink.Delete || q.parent == netlink.HandleIngress {
		kind := q.kind
		m.Attrs.Kind = &kind
		cmd.WriteString(" " + kind)
	}
	if op != netlink.Delete {
		m.Attrs.Options = q.options
		writeWords(&cmd, q.words, q.options)
	}
	return Request{Object: netlink.Qdisc, Op: op, Msg: m, Command: cmd.String()}
}

// classRequest builds a class request and its command line.
func (p *planner) classRequest(op netlink.Op, c *classNode) Request {
	m := netlink.Msg{}
	m.Header.Ifindex, m.Header.Parent, m.Header.Handle = p.ifindex, c.parent, c.id
	var cmd strings.Builder
	fmt.Fprintf(&cmd, "class %s dev %s parent %s classid %s", opWord(op), p.dev, tcfmt.FormatClassID(c.parent), tcfmt.FormatClassID(c.id))
	if op != netlink.Delete {
		kind := c.kind
		m.Attrs.Kind, m.Attrs.Options = &kind, c.options
		cmd.WriteString(" " + kind)
		writeWords(&cmd, c.words, c.options)
	}
	return Request{Object: netlink.Class, Op: op, Msg: m, Command: cmd.String()}
}

// filterRequest builds a filter request and its command line; a delete
// without a kind deletes the filter's whole priority.
func (p *planner) filterRequest(op netlink.Op, f *filterNode) Request {
	m := netlink.Msg{}
	m.Header.Ifindex, m.Header.Parent = p.ifindex, f.parent
	m.Header.Info = f.prio<<16 | uint32(ntohs(f.protocol))
	var cmd strings.Builder
	fmt.Fprintf(&cmd, "filter %s dev %s", opWord(op), p.dev)
	switch f.parent {
	case tcline.ParentIngress:
		cmd.WriteString(" ingress")
	case tcline.ParentEgress:
		cmd.WriteString(" egress")
	default:
		fmt.Fprintf(&cmd, " parent %s", tcfmt.FormatClassID(f.parent))
	}
	if f.kind != "" {
		fmt.Fprintf(&cmd, " protocol %s", tckind.EthProtocolName(f.protocol))
	}
	fmt.Fprintf(&cmd, " pref %d", f.prio)
	if f.chain != 0 {
		chain := f.chain
		m.Attrs.Chain = &chain
		fmt.Fprintf(&cmd, " chain %d", chain)
	}
	if f.kind != "" {
		m.Header.Handle = f.handle
		kind := f.kind
		m.Attrs.Kind = &kind
		if f.handle != 0 && (f.handleSet || op != netlink.Add) {
			fmt.Fprintf(&cmd, " handle %s", tckind.FilterHandleWord(f.kind, f.handle, f.options))
		}
		cmd.WriteString(" " + kind)
		if op != netlink.Delete {
			m.Attrs.Options = f.options
			writeWords(&cmd, f.words, f.options)
		}
	}
	return Request{Object: netlink.Filter, Op: op, Msg: m, Command: cmd.String()}
}

// writeWords appends a node's option words to a command line: the file's,
// or for the kernel's state the keywords its options print as.
func writeWords(b *strings.Builder, words []string, opts attrs.TCOptionsMsg) {
	if words == nil && opts != nil {
		b.WriteString(" (options as the kernel dumped them)")
		return
	}
	for _, w := range words {
		b.WriteString(" " + w)
	}
}

// opWord is tc's command word for op.
func opWord(op netlink.Op) string {
	if op == netlink.Delete {
		return "del"
	}
	return op.String()
}

// noFilterChange reports a filter kind the kernel changes no filter of in
// place (Filter.NoChange).
func noFilterChange(kind string) bool {
	k := tckind.LookupFilter(kind)
	return k != nil && k.NoChange
}
