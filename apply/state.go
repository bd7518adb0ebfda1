// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"context"
	"fmt"
	"slices"
	"strings"

	_ "github.com/gotc/gotc/allkinds"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
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
	// stab is its size table (tc's "stab" words before the kind; the
	// kernel's: the base it dumps), nil for none.
	stab          *attrs.TCSizespec
	words         []string // the options in tc's words (nil for the kernel's where none print)
	classes       []*classNode
	filters       []*filterNode // attached to the qdisc (ingress hook for ingress/clsact)
	egressFilters []*filterNode // clsact's egress hook
	// chains and egressChains are the chains of filters' and
	// egressFilters' place: the file's, those it names; the kernel's,
	// every one it dumps.
	chains, egressChains []*chainNode
	// ingressBlock and egressBlock are the shared blocks of an ingress
	// or clsact qdisc's hooks, 0 for a hook of its own; a shared hook's
	// filters and chains are the block's, not the qdisc's.
	ingressBlock, egressBlock uint32
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
	// filters and chains are the class's own (classFilters kinds).
	filters []*filterNode
	chains  []*chainNode
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
	// restore, for the kernel's, is what its words parse to: the
	// request that makes it again where options, as dumped, are refused
	// (flags the kernel sets itself, as not_in_hw; actions' counts);
	// nil where it has no words.
	restore attrs.TCOptionsMsg
}

// chainNode is a chain of filters: one the file names, or one the kernel
// dumps (which it does for a chain with filters, a template, or added by
// "tc chain add").
type chainNode struct {
	// parent is the chain's place, as a filter's: a qdisc handle, an
	// ingress or egress hook, or a shared block's index.
	parent uint32
	chain  uint32
	// kind is the template's filter kind, "" for a chain without;
	// protocol, options and words (after the kind) are the template's.
	kind     string
	protocol uint16
	options  attrs.TCOptionsMsg
	words    []string
	// restore is as a filter's.
	restore attrs.TCOptionsMsg
}

// blockState is a shared block's filters and chains.
type blockState struct {
	index   uint32
	filters []*filterNode
	chains  []*chainNode
}

// deviceState is one device's trees.
type deviceState struct {
	name    string
	ifindex int32
	root    *qdiscNode
	ingress *qdiscNode
}

// madeClasses reports whether a qdisc kind's classes are its own, not a
// file's to add (Qdisc.MakesClasses, and classless kinds that dump classes,
// as cake its tins).
func madeClasses(kind string) bool {
	k := tckind.LookupQdisc(kind)
	return k == nil || k.ParseClass == nil || k.MakesClasses
}

// filterHooks is the number of filter hooks a qdisc kind opens at ffff:
// (Qdisc.FilterHooks): 1 for ingress, 2 for clsact, 0 for the others.
func filterHooks(kind string) int {
	if k := tckind.LookupQdisc(kind); k != nil {
		return k.FilterHooks
	}
	return 0
}

// classFilters reports a qdisc kind whose classes hold filters of their
// own (Qdisc.ClassFilters).
func classFilters(kind string) bool {
	k := tckind.LookupQdisc(kind)
	return k != nil && k.ClassFilters
}

// nestedClasses reports a qdisc kind that makes classes in two levels
// (Qdisc.MakesNestedClasses).
func nestedClasses(kind string) bool {
	k := tckind.LookupQdisc(kind)
	return k != nil && k.MakesNestedClasses
}

// resolver turns a File into qdisc, class and filter nodes, parsing every
// kind's words with gotc's parsers. It collects a fault, at its place in
// the file, for everything the kernel would refuse or read otherwise than
// the file means, and goes on past it, so that one run shows them all.
type resolver struct {
	links *netlink.Links
	faults
	// deviceName is the device being resolved, named in the faults of a
	// File made in Go, which have no place.
	deviceName string
	// handles and classIDs are where the device's qdisc handles and class
	// IDs were met: each names one object.
	handles, classIDs map[uint32]place
	// standalone are the file's standalone actions, which its filters
	// bind by index.
	standalone map[actionKey]*actionNode
}

func (r *resolver) fault(at place, format string, args ...any) {
	if at == (place{}) && r.deviceName != "" {
		format = r.deviceName + ": " + format
	}
	r.add(at, format, args...)
}

// device resolves one device's trees; its ifindex is the caller's to fill.
func (r *resolver) device(name string, d *Device) *deviceState {
	r.deviceName, r.handles, r.classIDs = name, map[uint32]place{}, map[uint32]place{}
	ds := &deviceState{name: name}
	if d.Root != nil {
		ds.root = r.qdisc(d.Root, netlink.HandleRoot)
	}
	if d.Ingress != nil {
		ds.ingress = r.qdisc(d.Ingress, netlink.HandleIngress)
	}
	return ds
}

// qdisc resolves a qdisc at parent and what is below it; nil when it has
// no kind.
// noEstimators is the fault of a qdisc's or class's "estimator" words.
const noEstimators = "estimator: gotc apply keeps no rate estimators: the kernel dumps an estimator's rates but not its interval or time constant, so apply could neither write one back nor see it change; leave it out of the file"

func (r *resolver) qdisc(q *Qdisc, parent uint32) *qdiscNode {
	words, err := tcline.SplitWords(q.Spec)
	if err != nil {
		r.fault(q.specAt, "qdisc %q: %v", q.Spec, err)
		return nil
	}
	n := &qdiscNode{parent: parent}
	// A size table and shared blocks come before the kind, as in tc's
	// command.
prefix:
	for len(words) > 0 {
		word := words[0]
		// A kind's name is the kind (tc reads "ingress" so too), not a
		// keyword it is the start of.
		keyword := func(k string) bool { return tckind.LookupQdisc(word) == nil && tcfmt.Matches(word, k) }
		switch {
		case keyword("estimator"):
			r.fault(q.specAt, "qdisc %q: %s", q.Spec, noEstimators)
			return nil
		case keyword("stab"):
			spec, rest, err := tckind.ParseSizeTable(words[1:])
			if err != nil {
				r.fault(q.specAt, "qdisc %q: stab: %s", q.Spec, kindMessage(err))
				return nil
			}
			n.stab, words = &spec, rest
		case keyword("ingress_block"), keyword("egress_block"):
			hook, block := "ingress", &n.ingressBlock
			if keyword("egress_block") {
				hook, block = "egress", &n.egressBlock
			}
			index, err := tcline.BlockIndex(words, hook)
			if err != nil {
				r.fault(q.specAt, "qdisc %q: %s", q.Spec, kindMessage(err))
				return nil
			}
			*block, words = *index, words[2:]
		default:
			break prefix
		}
	}
	if len(words) == 0 {
		r.fault(q.specAt, "a qdisc needs its kind, the first of its tc words")
		return nil
	}
	n.kind, n.words = words[0], words[1:]
	kindKnown := r.qdiscKind(n, q.specAt)
	switch hooks := filterHooks(n.kind); {
	case !kindKnown:
	case n.ingressBlock != 0 && hooks == 0:
		r.fault(q.specAt, "qdisc %q: %s has no ingress hook to share (ingress and clsact have)", q.Spec, n.kind)
	case n.egressBlock != 0 && hooks < 2:
		r.fault(q.specAt, "qdisc %q: %s has no egress hook to share (clsact has)", q.Spec, n.kind)
	case n.ingressBlock != 0 && (len(q.Filters) > 0 || len(q.Chains) > 0):
		r.fault(q.specAt, "qdisc %q: its ingress hook shares block %d, so its filters and chains are the block's: write them under \"blocks\"", q.Spec, n.ingressBlock)
	case n.egressBlock != 0 && (len(q.EgressFilters) > 0 || len(q.EgressChains) > 0):
		r.fault(q.specAt, "qdisc %q: its egress hook shares block %d, so its filters and chains are the block's: write them under \"blocks\"", q.Spec, n.egressBlock)
	}
	switch {
	case kindKnown && q.Options != nil && len(n.words) > 0:
		r.fault(q.specAt, "qdisc %q: typed options and option words both", q.Spec)
	case kindKnown && q.Options != nil:
		// The words are only the plan's description: tc's words for the
		// options where the kind has them.
		n.options, n.words = q.Options, nil
		if k := tckind.LookupQdisc(n.kind); k != nil && k.Keywords != nil {
			if w, err := k.Keywords(q.Options); err == nil {
				n.words = nonNil(w)
			}
		}
	case kindKnown:
		var err error
		if n.options, err = parseQdiscOptions(n.kind, n.words); err != nil {
			r.fault(q.specAt, "qdisc %q: %s", q.Spec, kindMessage(err))
		}
	}
	if !r.qdiscHandle(n, q) {
		return n // what is below it hangs on the handle
	}
	if n.handle == 0 && (len(q.Classes) > 0 || len(q.Filters) > 0 || len(q.Chains) > 0) {
		r.fault(q.at, "qdisc %s has classes, filters or chains, so it needs its handle (\"1:\")", n.kind)
		return n
	}
	if len(q.EgressFilters) > 0 && kindKnown && filterHooks(n.kind) < 2 {
		r.fault(q.egressFiltersAt[0], "egress_filters are clsact's, not %s's", n.kind)
	}
	if len(q.EgressChains) > 0 && kindKnown && filterHooks(n.kind) < 2 {
		r.fault(q.egressChainsAt[0], "egress_chains are clsact's, not %s's", n.kind)
	}
	if len(q.Classes) > 0 && kindKnown {
		if k := tckind.LookupQdisc(n.kind); k == nil || k.MakesClasses || k.ParseClass != nil {
			n.classes = r.classes(q.Classes, n, n.handle)
		} else {
			first := q.Classes[sortedKeys(q.Classes)[0]]
			r.fault(first.idAt, "qdisc %s is classless: it has no classes", n.kind)
		}
	}
	filterParent := n.handle
	if parent == netlink.HandleIngress {
		filterParent = tcline.ParentIngress
	}
	n.filters = r.filters(q.Filters, q.filtersAt, filterParent)
	if q.EditFilter != nil && len(n.filters) == len(q.Filters) {
		for i, f := range n.filters {
			f.options = q.EditFilter(i, f.options)
			// The words only describe the plan: tc's for the options.
			if k := tckind.LookupFilter(f.kind); k != nil && k.Keywords != nil {
				if w, err := k.Keywords(f.options, r.links); err == nil {
					f.words = nonNil(w)
				}
			}
		}
	}
	n.egressFilters = r.filters(q.EgressFilters, q.egressFiltersAt, tcline.ParentEgress)
	n.chains = r.chains(q.Chains, q.chainsAt, filterParent, n.filters)
	n.egressChains = r.chains(q.EgressChains, q.egressChainsAt, tcline.ParentEgress, n.egressFilters)
	return n
}

// block resolves a shared block's filters and chains.
func (r *resolver) block(index uint32, b *Block) *blockState {
	bs := &blockState{index: index}
	if b == nil {
		return bs
	}
	bs.filters = r.filters(b.Filters, b.filtersAt, index)
	bs.chains = r.chains(b.Chains, b.chainsAt, index, bs.filters)
	return bs
}

// chains resolves the chain lines of one place, parent as for its
// filters, and checks that each chain is named once and that the filters
// of a chain with a template are of its kind, as the kernel requires.
func (r *resolver) chains(lines []string, at []place, parent uint32, filters []*filterNode) []*chainNode {
	var out []*chainNode
	seen := map[uint32]place{}
	for i, line := range lines {
		where := placeAt(at, i)
		c, err := r.chain(line, parent)
		if err != nil {
			r.fault(where, "chain %q: %s", line, kindMessage(err))
			continue
		}
		if first, dup := seen[c.chain]; dup {
			r.fault(where, "chain %d is given twice (first at line %d)", c.chain, first.line)
			continue
		}
		seen[c.chain] = where
		for _, f := range filters {
			if c.kind != "" && f.chain == c.chain && f.kind != c.kind {
				r.fault(where, "chain %d's template is %s, but its filter of pref %d is %s: the filters of a chain with a template are of its kind", c.chain, c.kind, f.prio, f.kind)
			}
		}
		out = append(out, c)
	}
	return out
}

// chain parses the words after "tc chain add dev D parent P" with tc's
// grammar for them: "chain N", and for a template the filter's protocol,
// kind and options, which the kind's parser reads.
func (r *resolver) chain(line string, parent uint32) (*chainNode, error) {
	w, err := placedWhere(line, "chain")
	switch {
	case err != nil:
		return nil, err
	case w.Prio != 0 || w.HandleSet || w.Estimator != nil || w.Help:
		return nil, fmt.Errorf("a chain takes \"chain N\" and a template's protocol, kind and options, no pref, handle or estimator")
	case !w.ChainSet:
		return nil, fmt.Errorf("\"chain N\" is required")
	case w.Kind == "" && w.ProtocolSet:
		return nil, fmt.Errorf("a protocol without a filter kind: a template is a protocol, a kind and its options")
	}
	c := &chainNode{parent: parent, chain: w.Chain, protocol: w.Protocol}
	if w.Kind == "" {
		return c, nil
	}
	k := tckind.LookupFilter(w.Kind)
	if k == nil {
		return nil, fmt.Errorf("unknown filter kind %q: %s", w.Kind, suggest(w.Kind, tckind.FilterNames()))
	}
	c.kind, c.words = w.Kind, w.Opts
	c.options, _, err = k.Parse(w.Opts, tckind.FilterEnv{Protocol: c.protocol, Parent: parent, ActionEnv: tckind.ActionEnv{Links: r.links}})
	return c, err
}

// placeAt is where the i-th line of a list stands, none for a File made
// in Go.
func placeAt(at []place, i int) place {
	if i < len(at) {
		return at[i]
	}
	return place{}
}

// qdiscKind reports whether n's kind is one gotc knows, in a place the
// kernel takes it; if not, it says so at the qdisc's words.
func (r *resolver) qdiscKind(n *qdiscNode, at place) bool {
	switch hooks := filterHooks(n.kind); {
	case tckind.LookupQdisc(n.kind) == nil:
		r.fault(at, "unknown qdisc kind %q: %s", n.kind, suggest(n.kind, tckind.QdiscNames()))
		return false
	case n.parent == netlink.HandleIngress && hooks == 0:
		r.fault(at, "\"ingress\" holds an ingress or clsact qdisc, not %s", n.kind)
		return false
	case n.parent != netlink.HandleIngress && hooks > 0:
		r.fault(at, "%s goes under \"ingress\", not in the root tree", n.kind)
		return false
	}
	return true
}

// qdiscHandle reads the file's handle of a qdisc (ingress and clsact's is
// ffff:) and checks that no other qdisc of the device has it; false when
// the file's is no handle.
func (r *resolver) qdiscHandle(n *qdiscNode, q *Qdisc) bool {
	if n.parent == netlink.HandleIngress {
		n.handle = netlink.MakeHandle(0xffff, 0)
	}
	at := q.at
	if q.Handle != "" {
		at = q.handleAt
		h, err := tcfmt.ParseQdiscHandle(q.Handle)
		switch {
		case err != nil || h == 0:
			r.fault(at, "handle %q is not a qdisc handle: a hex major number and a colon, from \"1:\" to \"ffff:\"", q.Handle)
			return false
		case n.parent == netlink.HandleIngress && h != n.handle:
			r.fault(at, "the %s qdisc's handle is ffff:, not %s", n.kind, q.Handle)
			return true // the qdisc's own handle serves what is below it
		}
		n.handle = h
	}
	if n.handle == 0 {
		return true // the kernel picks one
	}
	if first, taken := r.handles[n.handle]; taken {
		r.fault(at, "qdisc handle %s is given twice (first at line %d)", tcfmt.FormatQdiscHandle(n.handle), first.line)
	} else {
		r.handles[n.handle] = at
	}
	return true
}

// parseQdiscOptions parses a qdisc kind's words as "tc qdisc add" does; a
// kind gotc has no parser for takes no words.
func parseQdiscOptions(kind string, words []string) (attrs.TCOptionsMsg, error) {
	k := tckind.LookupQdisc(kind)
	if k == nil || k.ParseQdisc == nil {
		if len(words) > 0 {
			return nil, fmt.Errorf("%s takes no options", kind)
		}
		return nil, nil
	}
	return k.ParseQdisc(words, tckind.ParseEnv{})
}

// kindMessage is a kind parser's error as a file's message: tc's own
// words on one line, where "Command line is not complete" means that the
// last word lacks its value.
func kindMessage(err error) string {
	msg := strings.TrimSpace(err.Error())
	if msg == tcword.IncompleteCommand().Msg {
		return "the last word needs a value after it"
	}
	lines := strings.Split(msg, "\n")
	for i := range len(lines) - 1 {
		lines[i] = strings.TrimSuffix(lines[i], ".")
	}
	return strings.Join(lines, "; ")
}

// classes resolves the classes of qdisc q below parent (q's handle or one
// of its classes).
func (r *resolver) classes(m map[string]*Class, q *qdiscNode, parent uint32) []*classNode {
	made := madeClasses(q.kind)
	var out []*classNode
	for _, key := range sortedKeys(m) {
		c := m[key]
		if c == nil {
			c = &Class{}
		}
		id, err := tcfmt.ParseClassID(key)
		if err != nil || id>>16 != q.handle>>16 || id&0xffff == 0 {
			r.fault(c.idAt, "%q is not a class of qdisc %s: its class IDs are %sN, N a hex number from 1", key, tcfmt.FormatQdiscHandle(q.handle), tcfmt.FormatQdiscHandle(q.handle))
			continue
		}
		if first, taken := r.classIDs[id]; taken {
			r.fault(c.idAt, "class %s is given twice (first at line %d)", key, first.line)
			continue
		}
		r.classIDs[id] = c.idAt
		n := &classNode{parent: parent, id: id, made: made}
		words, err := tcline.SplitWords(c.Spec)
		if err != nil {
			r.fault(c.specAt, "class %s %q: %v", key, c.Spec, err)
			continue
		}
		switch {
		case made && len(words) > 0:
			r.fault(c.specAt, "class %s: qdisc %s makes its classes itself, so \"class\" takes no words here", key, q.kind)
		case !made && len(words) == 0:
			r.fault(c.idAt, "class %s needs its \"class\" words: %s and its options", key, q.kind)
		case !made && words[0] != q.kind && tcfmt.Matches(words[0], "estimator"):
			r.fault(c.specAt, "class %s %q: %s", key, c.Spec, noEstimators)
		case !made && words[0] != q.kind:
			r.fault(c.specAt, "class %s is a class of qdisc %s, so its words start with %q, not %q", key, q.kind, q.kind, words[0])
		case !made:
			n.kind, n.words = words[0], words[1:]
			if n.options, err = tckind.LookupQdisc(n.kind).ParseClass(n.words, tckind.ParseEnv{}); err != nil {
				r.fault(c.specAt, "class %s %q: %s", key, c.Spec, kindMessage(err))
			}
		}
		if c.Leaf != nil {
			n.leaf = r.qdisc(c.Leaf, id)
		}
		if (len(c.Filters) > 0 || len(c.Chains) > 0) && !classFilters(q.kind) {
			r.fault(c.idAt, "class %s: the classes of qdisc %s hold no filters of their own: its filters are the qdisc's", key, q.kind)
		} else {
			n.filters = r.filters(c.Filters, c.filtersAt, id)
			n.chains = r.chains(c.Chains, c.chainsAt, id, n.filters)
		}
		if len(c.Classes) > 0 && made && !nestedClasses(q.kind) {
			r.fault(c.idAt, "class %s: qdisc %s makes its classes itself, without child classes", key, q.kind)
			continue
		}
		// The children of a class its qdisc makes are the qdisc's too
		// (mqprio's queues below its traffic classes).
		n.children = r.classes(c.Classes, q, id)
		out = append(out, n)
	}
	return sortClasses(out)
}

// filters resolves the filter lines of one parent, and checks that the
// filters of one priority share their kind and protocol, as the kernel
// requires.
func (r *resolver) filters(lines []string, at []place, parent uint32) []*filterNode {
	var out []*filterNode
	type prio struct{ chain, prio uint32 }
	type first struct {
		f  *filterNode
		at place
	}
	firsts := map[prio]first{}
	for i, line := range lines {
		where := placeAt(at, i)
		f, err := r.filter(line, parent)
		if err != nil {
			r.fault(where, "filter %q: %s", line, kindMessage(err))
			continue
		}
		p := prio{f.chain, f.prio}
		if fst, ok := firsts[p]; !ok {
			firsts[p] = first{f, where}
		} else if fst.f.kind != f.kind || fst.f.protocol != f.protocol {
			r.fault(where, "filter %q: pref %d holds %s filters of protocol %s (line %d): the filters of one pref share their kind and protocol", line, f.prio, fst.f.kind, tckind.EthProtocolName(fst.f.protocol), fst.at.line)
		}
		out = append(out, f)
	}
	return out
}

// placedWhere reads a chain's or filter's line (what) with tc's grammar
// for the words after "tc filter add": the file's structure places it, so
// words that name a device, block or parent are refused.
func placedWhere(line, what string) (tcline.FilterWhere, error) {
	words, err := tcline.SplitWords(line)
	if err != nil {
		return tcline.FilterWhere{}, err
	}
	w, err := tcline.ParseFilterWhere(tcline.FilterModify, words, nil)
	if err == nil && (w.Dev != "" || w.Block != 0 || w.Parent != 0) {
		err = fmt.Errorf("the device, block and parent are where the %s stands in the file", what)
	}
	return w, err
}

// filter parses the words after "tc filter add dev D parent P" with tc's
// grammar for them, and its messages. The file's structure places the
// filter: words that name a device, block or parent are refused.
func (r *resolver) filter(line string, parent uint32) (*filterNode, error) {
	w, err := placedWhere(line, "filter")
	switch {
	case err != nil:
		return nil, err
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
		return nil, fmt.Errorf("unknown filter kind %q: %s", f.kind, suggest(f.kind, tckind.FilterNames()))
	}
	f.options, f.handle, err = k.Parse(f.words, tckind.FilterEnv{Handle: w.Handle, Protocol: f.protocol, Parent: parent, ActionEnv: tckind.ActionEnv{Links: r.links}})
	if err != nil {
		return nil, err
	}
	return f, r.checkBinds(f)
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
		if m.Attrs.Stab != nil {
			n.stab = m.Attrs.Stab.Base
		}
		n.ingressBlock, n.egressBlock = blocksOf(m)
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
	var link func(c *classNode, kind string) error
	link = func(c *classNode, kind string) error {
		c.made = madeClasses(kind)
		if classFilters(kind) {
			var err error
			if c.filters, c.chains, err = readPlace(ctx, k, ifindex, c.id); err != nil {
				return err
			}
		}
		if leaves := byParent[c.id]; len(leaves) > 0 {
			c.leaf = leaves[0]
			if err := build(c.leaf); err != nil {
				return err
			}
		}
		c.children = sortClasses(classesOf[c.id])
		for _, ch := range c.children {
			if err := link(ch, kind); err != nil {
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
			// A shared hook's filters are its block's, which the dump of
			// the hook lists too.
			if q.ingressBlock == 0 {
				if q.filters, q.chains, err = readPlace(ctx, k, ifindex, tcline.ParentIngress); err != nil {
					return err
				}
			}
			if filterHooks(q.kind) == 2 && q.egressBlock == 0 {
				q.egressFilters, q.egressChains, err = readPlace(ctx, k, ifindex, tcline.ParentEgress)
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
			if err := link(c, q.kind); err != nil {
				return err
			}
		}
		q.filters, q.chains, err = readPlace(ctx, k, ifindex, q.handle)
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

// blocksOf is the shared blocks of a dumped qdisc's hooks, 0 for none.
func blocksOf(m *netlink.Msg) (ingress, egress uint32) {
	if m.Attrs.IngressBlock != nil {
		ingress = *m.Attrs.IngressBlock
	}
	if m.Attrs.EgressBlock != nil {
		egress = *m.Attrs.EgressBlock
	}
	return ingress, egress
}

// readPlace dumps the filters and the chains of one place: a device's
// parent, or a shared block's (ifindex netlink.IfindexBlock, parent its
// index).
//
// The chains come first: a place without chains has no filters (a
// filter's chain is dumped), which spares the filter dump of each of
// many classes.
func readPlace(ctx context.Context, k Kernel, ifindex int32, parent uint32) ([]*filterNode, []*chainNode, error) {
	msgs, err := k.Dump(ctx, netlink.Chain, ifindex, parent)
	if err != nil {
		return nil, nil, fmt.Errorf("chain dump of %s: %w", placeName(ifindex, parent), err)
	}
	var chains []*chainNode
	for i := range msgs {
		m := &msgs[i]
		c := &chainNode{parent: parent, chain: chainOf(m), kind: m.Kind(), options: m.Attrs.Options}
		if f := tckind.LookupFilter(c.kind); f != nil && f.TemplateProtocol != nil {
			c.protocol, _ = f.TemplateProtocol(c.options)
		}
		chains = append(chains, c)
	}
	// The dump's order is the order the chains were made in, which tc
	// lists them in: a file written from it makes them so again.
	if len(chains) == 0 {
		return nil, nil, nil
	}
	filters, err := readFilters(ctx, k, ifindex, parent)
	if err != nil {
		return nil, nil, err
	}
	return filters, chains, nil
}

// readBlock reads a shared block's filters and chains.
func readBlock(ctx context.Context, k Kernel, index uint32) (*blockState, error) {
	filters, chains, err := readPlace(ctx, k, netlink.IfindexBlock, index)
	if err != nil {
		return nil, err
	}
	return &blockState{index: index, filters: filters, chains: chains}, nil
}

// placeName names a place of filters in messages: a parent's handle, or
// "block N".
func placeName(ifindex int32, parent uint32) string {
	if ifindex == netlink.IfindexBlock {
		return fmt.Sprintf("block %d", parent)
	}
	return tcfmt.FormatClassID(parent)
}

// readFilters dumps the filters attached to parent. Of u32's hash
// tables (Filter.IsTable), the one the kernel made with the priority is
// its bookkeeping, not a filter a file writes; the others were asked for.
func readFilters(ctx context.Context, k Kernel, ifindex int32, parent uint32) ([]*filterNode, error) {
	msgs, err := k.Dump(ctx, netlink.Filter, ifindex, parent)
	if err != nil {
		return nil, fmt.Errorf("filter dump of %s: %w", placeName(ifindex, parent), err)
	}
	isTable := func(m *netlink.Msg) bool {
		k := tckind.LookupFilter(m.Kind())
		return m.Attrs.Options != nil && k != nil && k.IsTable != nil && k.IsTable(m.Header.Handle)
	}
	// The kernel's table of each priority is the last table dumped in it.
	type group struct{ chain, prio uint32 }
	kernels := map[group]int{}
	for i := range msgs {
		if isTable(&msgs[i]) {
			kernels[group{chainOf(&msgs[i]), msgs[i].Header.Info >> 16}] = i
		}
	}
	var out []*filterNode
	for i := range msgs {
		m := &msgs[i]
		if m.Attrs.Kind == nil || m.Attrs.Options == nil {
			continue // a priority's head, without a filter
		}
		if j, ok := kernels[group{chainOf(m), m.Header.Info >> 16}]; ok && j == i {
			continue
		}
		f := &filterNode{
			parent: parent, prio: m.Header.Info >> 16, protocol: ntohs(uint16(m.Header.Info)),
			handle: m.Header.Handle, kind: m.Kind(), options: m.Attrs.Options,
		}
		f.chain = chainOf(m)
		out = append(out, f)
	}
	return out, nil
}

// chainOf is the chain of a dumped filter.
func chainOf(m *netlink.Msg) uint32 {
	if m.Attrs.Chain != nil {
		return *m.Attrs.Chain
	}
	return 0
}

func ntohs(v uint16) uint16 { return v<<8 | v>>8 }
