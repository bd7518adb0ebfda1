// SPDX-License-Identifier: Apache-2.0

package apply

import (
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

// Request is one kernel request of a plan.
type Request struct {
	Object netlink.Object
	Op     netlink.Op
	Msg    netlink.Msg
	// Action is the message of a request about a standalone action
	// (Object netlink.Action), whose Msg is empty.
	Action *netlink.ActionMsg
	// Change describes the request in tc's terms (its Command is the tc
	// command line) and why the plan makes it. Its Op and Object are
	// the words for the Request's own.
	Change
	// undo restores what the request changes, in order; nil when the
	// request needs no undo of its own (an object added inside a subtree
	// whose own undo removes it).
	undo []Request
}

// Change is a request of a plan as "gotc apply --diff -j" prints it: a
// JSON array of one object per request, in the plan's order, of these
// fields, for instance
//
//	{"op": "change", "object": "class", "device": "eth0", "parent": "1:1",
//	 "handle": "1:10", "kind": "htb", "words": ["rate", "30mbit"],
//	 "command": "class change dev eth0 parent 1:1 classid 1:10 htb rate 30mbit",
//	 "reason": "the kernel's options differ: it has rate 20Mbit burst 1600b cburst 1600b"}
//
// Fields may be added; none will change its meaning.
type Change struct {
	// Op is what the request does: add, change, replace or delete.
	Op string `json:"op"`
	// Object is what it does it to: qdisc, class, filter, chain or
	// action (a standalone action).
	Object string `json:"object"`
	// Device is the device's name; absent for a shared block's filter or
	// chain, which has Block instead.
	Device string `json:"device,omitempty"`
	// Block is the shared block of a filter or chain of one, absent for a
	// device's.
	Block uint32 `json:"block,omitempty"`
	// Parent is where the object hangs, in tc's words: root or ingress
	// (a qdisc), ingress or egress (the hooks of an ingress or clsact
	// qdisc, for filters and chains), or a qdisc handle or class ID ("1:",
	// "1:10"); absent for a shared block's.
	Parent string `json:"parent,omitempty"`
	// Handle is the qdisc's handle ("1:"), the class's ID ("1:10") or the
	// filter's handle, as tc writes them; absent where the kernel picks
	// it.
	Handle string `json:"handle,omitempty"`
	// Kind is the object's kind (a chain's template's); absent for the
	// delete of a whole filter priority and a chain without a template.
	Kind string `json:"kind,omitempty"`
	// Protocol, Pref and Chain place a filter (Protocol absent for the
	// delete of a whole priority, Chain for chain 0); Chain is a chain's
	// index, Protocol its template's.
	Protocol string `json:"protocol,omitempty"`
	Pref     uint32 `json:"pref,omitempty"`
	Chain    uint32 `json:"chain,omitempty"`
	// Words are the options after the kind, in tc's words; absent when
	// there are none: a delete, a kind written alone, options known only
	// as the kernel dumped them.
	Words []string `json:"words,omitempty"`
	// Command is the request as a tc command line, without "tc".
	Command string `json:"command"`
	// Reason says why the plan makes the request.
	Reason string `json:"reason"`
}

// Plan is the requests that bring the kernel to a desired state, in the
// order they are sent: the standalone actions added and replaced, shared
// blocks' filter and chain deletes, then for
// each device its filter and chain deletes (a filter that classifies
// into a class keeps the class busy), qdiscs and classes changed, replaced
// and added parent before child, chains and filters added and changed,
// and qdiscs and classes deleted child before parent; last the shared
// blocks' chains and filters added and changed, when every qdisc that
// shares them is there, and the standalone actions no filter binds any
// more deleted.
type Plan struct {
	Requests []Request
	// Listen, when set, is where Run hears the kernel's announcements:
	// before each request and after the last, a change to the plan's
	// devices that no request made stops it, undone (*Foreign).
	Listen Announcements
	// file is the desired state the plan was computed for, which Recheck
	// computes it again from.
	file *File
	// blocks are the shared blocks the plan may change: those the file's
	// qdiscs share and those its devices' qdiscs share now (0 among them
	// for none).
	blocks []uint32
	// afterRequest, when set, is called after each request the kernel
	// accepted, with its index: tests make their other writer's change
	// there.
	afterRequest func(i int)
}

// Blocks are the indexes of the shared filter blocks the plan may change,
// in order: the blocks the file's qdiscs share, and those the devices'
// qdiscs share now. Other devices may share them too, so an apply locks
// them besides its devices (Lock).
func (p *Plan) Blocks() []uint32 {
	out := slices.Clone(p.blocks)
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > 0 && out[0] == 0 {
		out = out[1:]
	}
	return out
}

// Actions reports whether the plan may change the standalone actions: its
// file makes some, or it deletes one. They are the network namespace's,
// so an apply locks them besides its devices (Lock).
func (p *Plan) Actions() bool {
	return p.file != nil && len(p.file.Actions) > 0 || slices.ContainsFunc(p.Requests, func(r Request) bool { return r.Object == netlink.Action })
}

// planner collects the requests of one device's or shared block's plan
// in their phases.
type planner struct {
	dev     string
	ifindex int32
	// block is the shared block planned, 0 for a device.
	block         uint32
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
			p.deletes = append(p.deletes, because(notInFile, p.deleteQdisc(have))...)
		}
		return
	case have != nil && have.handle != 0 && (have.kind != want.kind || !sameBlocks(want, have)) && want.handle == have.handle:
		// A replace that keeps the handle but not the kind is refused
		// ("Invalid qdisc name": the kernel changes the qdisc of that
		// handle, of another kind), and the kernel changes no qdisc's
		// shared blocks: delete it, then add the new one.
		reason := replaceReason(want, have) + "; a qdisc keeps its kind for its handle"
		if have.kind == want.kind {
			reason = fmt.Sprintf("the kernel's shares blocks %s; a qdisc keeps the blocks it shares", blockWords(have))
		}
		rs := p.createQdisc(netlink.Add, want)
		rs[0].undo = []Request{p.qdiscRequest(netlink.Delete, want)}
		p.trees = append(p.trees, because(reason, append([]Request{p.deleteQdisc(have)}, rs...)...)...)
		p.addBelow(want)
		return
	case have == nil || have.handle == 0 || have.kind != want.kind || (want.handle != 0 && want.handle != have.handle):
		rs := because(replaceReason(want, have), p.createQdisc(netlink.Replace, want)...)
		switch {
		case have == nil || (have.handle == 0 && (parent == netlink.HandleRoot || parent == netlink.HandleIngress)):
			// Deleting it brings the kernel's default back.
			del := p.qdiscRequest(netlink.Delete, want)
			rs[0].undo = []Request{del}
		default:
			rs[0].undo = append(p.createQdisc(netlink.Replace, have), p.subtree(have, false)...)
		}
		p.trees = append(p.trees, rs...)
		p.addBelow(want)
		return
	}
	// A change without a size table takes the qdisc's away, so a table
	// that differs is a change like its options.
	// What the file leaves out is the kind's default: for an option a
	// change keeps when not sent, the default is compared and sent.
	want = keptDefaults(want)
	inSync := tckind.Covers(tckind.Dumped(want.kind, want.options), have.dumped) && tckind.SameSizeTable(want.stab, have.stab)
	changes, inPlace := p.changes(want, have)
	if !inSync && !inPlace {
		// The kernel cannot change this kind's options (htb's default
		// class, r2q), or not to these (a gred queue to remove): delete
		// the qdisc and add it anew with all below.
		w := *want
		w.handle = have.handle
		reason := optionsDiffer(have.words) + "; " + want.kind + " changes none in place"
		if changesInPlace(want.kind) {
			reason = optionsDiffer(have.words) + "; " + want.kind + " cannot change to these in place"
		}
		rs := p.createQdisc(netlink.Add, &w)
		rs[0].undo = []Request{p.qdiscRequest(netlink.Delete, &w)}
		p.trees = append(p.trees, because(reason, append([]Request{p.deleteQdisc(have)}, rs...)...)...)
		p.addBelow(&w)
		return
	}
	if !inSync && changes != nil {
		p.trees = append(p.trees, because(optionsDiffer(have.words), changes...)...)
	} else if !inSync {
		w := *want
		w.handle = have.handle
		r := p.qdiscRequest(netlink.Change, &w)
		r.Reason = optionsDiffer(have.words)
		old := *have
		old.options = onlySet(have.options, want.options)
		r.undo = []Request{p.qdiscRequest(netlink.Change, &old)}
		p.trees = append(p.trees, r)
	}
	handle := have.handle
	p.classes(want.classes, have.classes, handle)
	p.place(want.filters, have.filters, want.chains, have.chains)
	p.place(want.egressFilters, have.egressFilters, want.egressChains, have.egressChains)
}

// sameBlocks reports whether two ingress or clsact qdiscs share the same
// blocks.
func sameBlocks(a, b *qdiscNode) bool {
	return a.ingressBlock == b.ingressBlock && a.egressBlock == b.egressBlock
}

// blockWords writes a qdisc's shared blocks as tc's words before its kind.
func blockWords(q *qdiscNode) []string {
	var w []string
	if q.ingressBlock != 0 {
		w = append(w, "ingress_block", fmt.Sprint(q.ingressBlock))
	}
	if q.egressBlock != 0 {
		w = append(w, "egress_block", fmt.Sprint(q.egressBlock))
	}
	return w
}

// place plans the chains and filters of one place (a qdisc's, a hook's,
// a shared block's): chains first, for a template must be there before
// its chain's filters.
func (p *planner) place(wantF, haveF []*filterNode, wantC, haveC []*chainNode) {
	flushed := p.chains(wantC, haveC, wantF, haveF)
	var left []*filterNode
	for _, h := range haveF {
		if !flushed[h.chain] {
			left = append(left, h)
		}
	}
	p.filters(wantF, left)
}

// chains plans the chains of one place, and returns those it deletes,
// whose filters go with them. A chain the file names is added, a chain of
// the kernel's it does not name deleted: unless the file's filters are in
// it, which make it (the kernel dumps no difference between a chain made
// by its filters and one added). So is chain 0 while the file has a
// filter in it, which then goes by its own delete. A template does not
// change: its chain is deleted and added anew.
func (p *planner) chains(wantC, haveC []*chainNode, wantF, haveF []*filterNode) map[uint32]bool {
	flushed := map[uint32]bool{}
	in := func(fs []*filterNode, chain uint32) []*filterNode {
		var out []*filterNode
		for _, f := range fs {
			if f.chain == chain {
				out = append(out, f)
			}
		}
		return out
	}
	wantBy, haveBy := map[uint32]*chainNode{}, map[uint32]*chainNode{}
	for _, w := range wantC {
		wantBy[w.chain] = w
	}
	for _, h := range haveC {
		haveBy[h.chain] = h
	}
	reasons := map[uint32]string{}
	for _, h := range haveC {
		w, wanted, had := wantBy[h.chain], len(in(wantF, h.chain)) > 0, in(haveF, h.chain)
		var reason string
		switch {
		case w != nil && !sameTemplate(w, h):
			reason = "the kernel's template differs: " + templateWords(h) + "; a template does not change"
		case w != nil && !wanted && len(had) > 0:
			reason = "the kernel's chain has filters, which go, and the chain stays"
		case w != nil:
			continue
		case h.kind != "" && wanted:
			reason = "the kernel's chain has a template, the file's none: " + templateWords(h)
		case wanted:
			continue
		case h.chain == 0 && len(had) > 0:
			// Deleting chain 0's filters one by one would leave a chain
			// 0 that "tc chain add" made, which the dump cannot tell
			// from the one its filters make: the chain's delete takes
			// both, in one request, so one apply converges.
			reason = "the file has no filter in chain 0: its filters go, with the chain if it was added"
		default:
			reason = notInFile
		}
		del := p.chainRequest(netlink.Delete, h)
		del.Reason = reason
		del.undo = p.placeAdds(had, namedChains([]*chainNode{h}, had))
		p.filterDeletes = append(p.filterDeletes, del)
		flushed[h.chain], reasons[h.chain] = true, reason
	}
	for _, w := range wantC {
		if haveBy[w.chain] != nil && !flushed[w.chain] {
			continue
		}
		add := p.chainRequest(netlink.Add, w)
		add.Reason = notInKernel
		if r, ok := reasons[w.chain]; ok {
			add.Reason = r
		}
		add.undo = []Request{p.chainRequest(netlink.Delete, w)}
		p.filterAdds = append(p.filterAdds, add)
	}
	return flushed
}

// sameTemplate reports whether the kernel's chain has the file's
// template: by its options as the kernel keeps them, or else by the
// words both print (a template's dump is its keys alone, without the
// attributes a filter's carries besides).
func sameTemplate(want, have *chainNode) bool {
	switch {
	case want.kind != have.kind:
		return false
	case want.kind == "":
		return true
	case want.protocol != have.protocol && (have.protocol != 0 || want.protocol != tckind.EthPAll):
		return false
	}
	if filterCovers(want.kind, want.options, have.options) {
		return true
	}
	w, err := tckind.FilterKeywords(want.kind, want.options, nil)
	return err == nil && have.words != nil && slices.Equal(w, have.words)
}

// templateWords describes a kernel chain's template in tc's words, where
// they are known.
func templateWords(c *chainNode) string {
	if c.kind == "" {
		return "none"
	}
	w := append([]string{c.kind}, c.words...)
	if c.protocol != 0 {
		w = append([]string{"protocol", tckind.EthProtocolName(c.protocol)}, w...)
	}
	return strings.Join(w, " ")
}

// keptDefaults returns q, or a copy of it with the defaults of its
// kind's KeptOnChange written out in its options and words.
func keptDefaults(q *qdiscNode) *qdiscNode {
	k := tckind.LookupQdisc(q.kind)
	if k == nil || k.KeptOnChange == nil {
		return q
	}
	opts, words := k.KeptOnChange(q.options)
	if len(words) == 0 {
		return q
	}
	c := *q
	c.options, c.words = opts, append(slices.Clip(q.words), words...)
	return &c
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
			reason := "the kernel's qdisc has no class " + tcfmt.FormatClassID(w.id) + " to graft onto"
			p.trees = append(p.trees, p.addClassSubtree(w, reason)...)
			continue
		case w.made:
		case h == nil:
			r := p.classRequest(netlink.Add, w)
			r.Reason = notInKernel
			r.undo = []Request{p.classRequest(netlink.Delete, w)}
			p.trees = append(p.trees, r)
			p.addClassBelow(w)
			continue
		case h.parent != w.parent:
			// A class does not move: delete it with what is below it,
			// then add it where the file puts it.
			reason := fmt.Sprintf("the kernel has it under %s, the file under %s", tcfmt.FormatClassID(h.parent), tcfmt.FormatClassID(w.parent))
			p.trees = append(p.trees, because(reason, p.deleteClass(h)...)...)
			r := p.classRequest(netlink.Add, w)
			r.Reason = reason
			r.undo = []Request{p.classRequest(netlink.Delete, w)}
			p.trees = append(p.trees, r)
			p.addClassBelow(w)
			continue
		case !tckind.Covers(w.options, h.options):
			r := p.classRequest(netlink.Change, w)
			r.Reason = optionsDiffer(h.words)
			old := *h
			old.options = onlySet(h.options, w.options)
			r.undo = []Request{p.classRequest(netlink.Change, &old)}
			p.trees = append(p.trees, r)
		}
		p.qdisc(w.leaf, h.leaf, w.id)
		p.classes(w.children, h.children, w.id)
		p.place(w.filters, h.filters, w.chains, h.chains)
	}
	for _, h := range have {
		if seen[h.id] {
			continue
		}
		if h.made {
			// A class its qdisc makes stays; what the file does not put
			// below it goes.
			if h.leaf != nil && h.leaf.handle != 0 {
				p.deletes = append(p.deletes, because(notInFile, p.deleteQdisc(h.leaf))...)
			}
			continue
		}
		p.deletes = append(p.deletes, because(notInFile, p.deleteClass(h)...)...)
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
			add.Reason = notInKernel
			p.filterAdds = append(p.filterAdds, add)
			continue
		case filterCovers(w.kind, w.options, h.options):
		case noFilterChange(w.kind):
			// The kind changes no filter in place (matchall: the
			// kernel answers EEXIST): delete it and add the new one.
			reason := optionsDiffer(h.words) + "; " + w.kind + " changes no filter in place"
			del := p.filterRequest(netlink.Delete, h)
			del.Reason, add.Reason = reason, reason
			del.undo = []Request{p.filterRequest(netlink.Add, h)}
			p.filterDeletes = append(p.filterDeletes, del)
			p.filterAdds = append(p.filterAdds, add)
		default:
			nw := *w
			nw.handle = h.handle
			r := p.filterRequest(netlink.Replace, &nw)
			r.Reason = optionsDiffer(h.words)
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
			del.Reason = notInFile
			del.undo = []Request{p.filterRequest(netlink.Add, h)}
			p.filterDeletes = append(p.filterDeletes, del)
			continue
		}
		// Nothing of this priority stays: one request deletes it all.
		deletedPrio[g] = true
		del := p.filterRequest(netlink.Delete, &filterNode{parent: h.parent, prio: h.prio, chain: h.chain})
		del.Reason = notInFile
		for _, o := range have {
			if o.chain == h.chain && o.prio == h.prio {
				del.undo = append(del.undo, p.filterRequest(netlink.Add, o))
			}
		}
		p.filterDeletes = append(p.filterDeletes, del)
	}
}

// namedChains are the kernel's chains of a place that a file names, and
// that are made again by a chain request: those with a template, and
// those without filters (added by "tc chain add"). A chain with filters
// and no template is theirs: they make it again.
func namedChains(chains []*chainNode, filters []*filterNode) []*chainNode {
	var out []*chainNode
	for _, c := range chains {
		if c.kind != "" || !slices.ContainsFunc(filters, func(f *filterNode) bool { return f.chain == c.chain }) {
			out = append(out, c)
		}
	}
	return out
}

// placeAdds is the requests that make a place's chains and filters,
// chains first.
func (p *planner) placeAdds(filters []*filterNode, chains []*chainNode) []Request {
	var out []Request
	for _, c := range chains {
		out = append(out, p.chainRequest(netlink.Add, c))
	}
	for _, f := range filters {
		out = append(out, p.filterRequest(netlink.Add, f))
	}
	return out
}

// addBelow adds everything below a qdisc the plan creates.
func (p *planner) addBelow(q *qdiscNode) {
	for _, c := range q.classes {
		p.trees = append(p.trees, p.addClassSubtree(c, parentIsNew)...)
	}
	p.filterAdds = append(p.filterAdds, because(parentIsNew, p.placeAdds(append(q.filters, q.egressFilters...), append(q.chains, q.egressChains...))...)...)
}

// addClassBelow adds the leaf and the children of a class the plan creates.
func (p *planner) addClassBelow(c *classNode) {
	if c.leaf != nil {
		p.trees = append(p.trees, because(parentIsNew, p.createQdisc(netlink.Add, c.leaf)...)...)
		p.addBelow(c.leaf)
	}
	for _, ch := range c.children {
		p.trees = append(p.trees, p.addClassSubtree(ch, parentIsNew)...)
	}
	p.filterAdds = append(p.filterAdds, because(parentIsNew, p.placeAdds(c.filters, c.chains)...)...)
}

// addClassSubtree is the requests that create a class (unless its qdisc
// makes it), for reason, its leaf and its children, none with an undo of
// its own.
func (p *planner) addClassSubtree(c *classNode, reason string) []Request {
	saved := p.trees
	p.trees = nil
	if !c.made {
		p.trees = append(p.trees, because(reason, p.classRequest(netlink.Add, c))...)
	} else if c.leaf != nil {
		// Grafting onto the qdisc's own class replaces its default.
		p.trees = append(p.trees, because(reason, p.createQdisc(netlink.Replace, c.leaf)...)...)
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

// The reasons of the plan's requests, for Change.Reason.
const (
	notInKernel = "not in the kernel"
	notInFile   = "not in the file"
	parentIsNew = "its parent is new"
)

// because gives requests the reason the plan makes them for.
func because(reason string, rs ...Request) []Request {
	for i := range rs {
		rs[i].Reason = reason
	}
	return rs
}

// replaceReason says why a qdisc is replaced rather than changed.
func replaceReason(want, have *qdiscNode) string {
	switch {
	case have == nil:
		return notInKernel
	case have.handle == 0:
		return "the kernel has its default " + have.kind + " here"
	case have.kind != want.kind:
		return "the kernel has " + have.kind + " here"
	}
	return fmt.Sprintf("the kernel's %s has handle %s", have.kind, tcfmt.FormatQdiscHandle(have.handle))
}

// optionsDiffer says that an object's options are not the file's, and
// what the kernel has where its words are known.
func optionsDiffer(kernelWords []string) string {
	if len(kernelWords) == 0 {
		return "the kernel's options differ"
	}
	return "the kernel's options differ: it has " + strings.Join(kernelWords, " ")
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
			reqs = append(reqs, p.createQdisc(netlink.Replace, q)...)
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
			filters = append(filters, p.placeAdds(c.filters, namedChains(c.chains, c.filters))...)
		}
		for _, c := range q.classes {
			walkClass(c)
		}
		filters = append(filters, p.placeAdds(q.filters, namedChains(q.chains, q.filters))...)
		filters = append(filters, p.placeAdds(q.egressFilters, namedChains(q.egressChains, q.egressFilters))...)
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
	r.undo = append(r.undo, p.placeAdds(c.filters, namedChains(c.chains, c.filters))...)
	return append(out, r)
}

// stabRoom is the bytes a size table's slots may take in a request: a
// netlink message has room for any tc asks for.
const stabRoom = 1 << 16

// qdiscRequest builds a qdisc request and its description.
func (p *planner) qdiscRequest(op netlink.Op, q *qdiscNode) Request {
	m := netlink.Msg{}
	m.Header.Ifindex, m.Header.Parent, m.Header.Handle = p.ifindex, q.parent, q.handle
	c := Change{Op: op.String(), Object: "qdisc", Device: p.dev, Kind: q.kind}
	var cmd strings.Builder
	fmt.Fprintf(&cmd, "qdisc %s dev %s", opWord(op), p.dev)
	switch q.parent {
	case netlink.HandleRoot:
		c.Parent = "root"
		cmd.WriteString(" root")
	case netlink.HandleIngress:
		c.Parent = "ingress" // the kind's word says it on the command line
	default:
		c.Parent = tcfmt.FormatClassID(q.parent)
		cmd.WriteString(" parent " + c.Parent)
	}
	if q.handle != 0 {
		c.Handle = tcfmt.FormatQdiscHandle(q.handle)
		if q.parent != netlink.HandleIngress {
			cmd.WriteString(" handle " + c.Handle)
		}
	}
	if op != netlink.Delete && q.stab != nil {
		// The kernel keeps no slots of its own: the table goes whole.
		m.Attrs.Stab, _ = tckind.SizeTable(*q.stab, stabRoom)
		cmd.WriteString(" " + tcline.JoinWords(tckind.SizeTableKeywords(*q.stab)))
	}
	if op != netlink.Delete && (q.ingressBlock != 0 || q.egressBlock != 0) {
		if q.ingressBlock != 0 {
			m.Attrs.IngressBlock = &q.ingressBlock
		}
		if q.egressBlock != 0 {
			m.Attrs.EgressBlock = &q.egressBlock
		}
		cmd.WriteString(" " + tcline.JoinWords(blockWords(q)))
	}
	if op != netlink.Delete || q.parent == netlink.HandleIngress {
		kind := q.kind
		m.Attrs.Kind = &kind
		cmd.WriteString(" " + kind)
	}
	if op != netlink.Delete {
		m.Attrs.Options = q.options
		c.Words = q.words
		writeWords(&cmd, q.words, q.options)
	}
	c.Command = cmd.String()
	return Request{Object: netlink.Qdisc, Op: op, Msg: m, Change: c}
}

// createQdisc is the requests that create or replace (op) a qdisc: one,
// or for a kind whose kernel takes some options only from a qdisc that
// exists (Qdisc.Requests), the one that creates it followed by the
// changes that set the rest. Only the first has an undo of its own.
func (p *planner) createQdisc(op netlink.Op, q *qdiscNode) []Request {
	k := tckind.LookupQdisc(q.kind)
	if k == nil || k.Requests == nil || q.options == nil {
		return []Request{p.qdiscRequest(op, q)}
	}
	parts, _ := k.Requests(q.options, nil)
	out := make([]Request, len(parts))
	for i, opts := range parts {
		if i > 0 {
			op = netlink.Change
		}
		out[i] = p.qdiscRequest(op, partOf(q, opts))
	}
	return out
}

// changes is the requests that change a kernel qdisc (have) to want in
// place, for a kind with Qdisc.Requests (nil for the others, which one
// change of all their options does); inPlace is false where no change
// gets there, or the kind has none.
func (p *planner) changes(want, have *qdiscNode) (reqs []Request, inPlace bool) {
	k := tckind.LookupQdisc(want.kind)
	if k == nil || k.NoChange {
		return nil, false
	}
	if k.Requests == nil || want.options == nil {
		return nil, true
	}
	parts, ok := k.Requests(want.options, have.dumped)
	if !ok {
		return nil, false
	}
	// Undoing them is asking for the kernel's state again, each of its
	// requests a change, after the last of them is undone.
	var undo []Request
	if have.options != nil {
		restore, _ := k.Requests(have.options, nil)
		for _, opts := range restore {
			undo = append(undo, p.qdiscRequest(netlink.Change, partOf(have, opts)))
		}
	}
	reqs = make([]Request, len(parts))
	for i, opts := range parts {
		w := partOf(want, opts)
		w.handle = have.handle
		reqs[i] = p.qdiscRequest(netlink.Change, w)
	}
	if len(reqs) > 0 {
		reqs[0].undo = undo
	}
	return reqs, true
}

// partOf is q with opts, one of its requests' options, and their words.
func partOf(q *qdiscNode, opts attrs.TCOptionsMsg) *qdiscNode {
	c := *q
	c.options, c.words = opts, nil
	if w, err := tckind.QdiscKeywords(q.kind, opts); err == nil {
		c.words = nonNil(w)
	}
	return &c
}

// classRequest builds a class request and its description.
func (p *planner) classRequest(op netlink.Op, cl *classNode) Request {
	m := netlink.Msg{}
	m.Header.Ifindex, m.Header.Parent, m.Header.Handle = p.ifindex, cl.parent, cl.id
	c := Change{Op: op.String(), Object: "class", Device: p.dev, Kind: cl.kind,
		Parent: tcfmt.FormatClassID(cl.parent), Handle: tcfmt.FormatClassID(cl.id)}
	var cmd strings.Builder
	fmt.Fprintf(&cmd, "class %s dev %s parent %s classid %s", opWord(op), p.dev, c.Parent, c.Handle)
	if op != netlink.Delete {
		kind := cl.kind
		m.Attrs.Kind, m.Attrs.Options = &kind, cl.options
		c.Words = cl.words
		cmd.WriteString(" " + kind)
		writeWords(&cmd, cl.words, cl.options)
	}
	c.Command = cmd.String()
	return Request{Object: netlink.Class, Op: op, Msg: m, Change: c}
}

// filterRequest builds a filter request and its description; a delete
// without a kind deletes the filter's whole priority.
func (p *planner) filterRequest(op netlink.Op, f *filterNode) Request {
	m := netlink.Msg{}
	m.Header.Ifindex, m.Header.Parent = p.ifindex, f.parent
	m.Header.Info = f.prio<<16 | uint32(ntohs(f.protocol))
	c := Change{Op: op.String(), Object: "filter", Kind: f.kind, Pref: f.prio, Chain: f.chain}
	var cmd strings.Builder
	cmd.WriteString("filter " + opWord(op))
	p.where(&c, &cmd, f.parent)
	if f.kind != "" {
		c.Protocol = tckind.EthProtocolName(f.protocol)
		cmd.WriteString(" protocol " + c.Protocol)
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
			c.Handle = tckind.FilterHandleWord(f.kind, f.handle, f.options)
			cmd.WriteString(" handle " + c.Handle)
		}
		cmd.WriteString(" " + kind)
		if op != netlink.Delete {
			m.Attrs.Options = sent(f.options, f.restore)
			c.Words = f.words
			writeWords(&cmd, f.words, f.options)
		}
	}
	c.Command = cmd.String()
	return Request{Object: netlink.Filter, Op: op, Msg: m, Change: c}
}

// where writes the place of a filter or chain at parent into its change
// and its command line: a device and its parent, or a shared block.
func (p *planner) where(c *Change, cmd *strings.Builder, parent uint32) {
	if p.block != 0 {
		c.Block = p.block
		fmt.Fprintf(cmd, " block %d", p.block)
		return
	}
	c.Device = p.dev
	cmd.WriteString(" dev " + p.dev)
	switch parent {
	case tcline.ParentIngress:
		c.Parent = "ingress"
		cmd.WriteString(" ingress")
	case tcline.ParentEgress:
		c.Parent = "egress"
		cmd.WriteString(" egress")
	default:
		c.Parent = tcfmt.FormatClassID(parent)
		cmd.WriteString(" parent " + c.Parent)
	}
}

// chainRequest builds a chain request and its description: an add
// carries the chain's template.
func (p *planner) chainRequest(op netlink.Op, ch *chainNode) Request {
	m := netlink.Msg{}
	m.Header.Ifindex, m.Header.Parent = p.ifindex, ch.parent
	index := ch.chain
	m.Attrs.Chain = &index
	c := Change{Op: op.String(), Object: "chain", Chain: ch.chain}
	var cmd strings.Builder
	cmd.WriteString("chain " + opWord(op))
	p.where(&c, &cmd, ch.parent)
	fmt.Fprintf(&cmd, " chain %d", ch.chain)
	if op != netlink.Delete && ch.kind != "" {
		m.Header.Info = uint32(ntohs(ch.protocol))
		if ch.protocol != 0 {
			c.Protocol = tckind.EthProtocolName(ch.protocol)
			cmd.WriteString(" protocol " + c.Protocol)
		}
		kind := ch.kind
		m.Attrs.Kind, m.Attrs.Options = &kind, sent(ch.options, ch.restore)
		c.Kind, c.Words = kind, ch.words
		cmd.WriteString(" " + kind)
		writeWords(&cmd, ch.words, ch.options)
	}
	c.Command = cmd.String()
	return Request{Object: netlink.Chain, Op: op, Msg: m, Change: c}
}

// sent is what a filter's or chain's request sends: for the kernel's
// object, restore, what its words ask for, where it has them (the
// kernel refuses some of what it dumps back); the options otherwise.
func sent(options, restore attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	if restore != nil {
		return restore
	}
	return options
}

// writeWords appends a node's option words to a command line: the file's,
// or for the kernel's state the keywords its options print as.
func writeWords(b *strings.Builder, words []string, opts attrs.TCOptionsMsg) {
	if words == nil && opts != nil {
		b.WriteString(" (options as the kernel dumped them)")
		return
	}
	if len(words) > 0 {
		b.WriteString(" " + tcline.JoinWords(words))
	}
}

// opWord is tc's command word for op.
func opWord(op netlink.Op) string {
	if op == netlink.Delete {
		return "del"
	}
	return op.String()
}

// filterCovers reports whether the kernel's filter options (have) are
// what the desired ones of a filter kind (want) ask for, as the kernel
// keeps them; an action that want binds by its index alone stands for
// the action there (tckind.ResolveActionReferences).
func filterCovers(kind string, want, have attrs.TCOptionsMsg) bool {
	return tckind.Covers(tckind.FilterDumped(kind, tckind.ResolveActionReferences(want, have)), have)
}

// noFilterChange reports a filter kind the kernel changes no filter of in
// place (Filter.NoChange).
func noFilterChange(kind string) bool {
	k := tckind.LookupFilter(kind)
	return k != nil && k.NoChange
}
