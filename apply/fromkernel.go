// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	_ "github.com/gotc/gotc/allkinds"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
	"github.com/gotc/gotc/tcline"
)

// describe gives the kernel's objects of a device their options as tc
// words, where the keyword printers have them, for the command lines of
// the plan and its undo; an object without stays nil (its options are
// sent as dumped all the same).
func describe(l tckind.Links, d *deviceState) {
	_ = words(l, d, false)
}

// words fills in the tc words of every kernel object of d. With strict,
// it fails on the first object that has none or whose words do not parse
// back to options the kernel's cover (so that a file written from them is
// in sync); otherwise it leaves such an object without words.
func words(l tckind.Links, d *deviceState, strict bool) error {
	var errs []error
	fail := func(what string, err error) {
		if strict {
			errs = append(errs, fmt.Errorf("%s: %s: %w", d.name, what, err))
		}
	}
	var q func(n *qdiscNode)
	var c func(n *classNode)
	q = func(n *qdiscNode) {
		if n == nil || n.handle == 0 {
			return
		}
		what := "qdisc " + n.kind + " " + tcfmt.FormatQdiscHandle(n.handle)
		if w, err := tckind.QdiscKeywords(n.kind, n.options); err != nil {
			fail(what, err)
		} else if back, err := parseQdiscOptions(n.kind, w); err != nil || !tckind.Covers(tckind.Dumped(n.kind, back), n.dumped) {
			fail(what, fmt.Errorf("the words %q do not ask for the kernel's options (%v)", strings.Join(w, " "), err))
		} else {
			n.words = nonNil(w)
		}
		for _, ch := range n.classes {
			c(ch)
		}
		placeWords(l, append(n.filters, n.egressFilters...), append(n.chains, n.egressChains...), fail)
	}
	c = func(n *classNode) {
		if !n.made {
			what := "class " + tcfmt.FormatClassID(n.id)
			if w, err := tckind.ClassKeywords(n.kind, n.options); err != nil {
				fail(what, err)
			} else if back, err := tckind.LookupQdisc(n.kind).ParseClass(w, tckind.ParseEnv{}); err != nil || !tckind.Covers(back, n.options) {
				fail(what, fmt.Errorf("the words %q do not ask for the kernel's options (%v)", strings.Join(w, " "), err))
			} else {
				n.words = nonNil(w)
			}
		}
		q(n.leaf)
		for _, ch := range n.children {
			c(ch)
		}
		placeWords(l, n.filters, n.chains, fail)
	}
	q(d.root)
	q(d.ingress)
	return errors.Join(errs...)
}

// describePlace gives the kernel's filters and chains of a place their
// tc words where they have them, as describe.
func describePlace(l tckind.Links, filters []*filterNode, chains []*chainNode) {
	placeWords(l, filters, chains, func(string, error) {})
}

// placeWords fills in the words of the kernel's filters and chains of a
// place; fail is told of each that has none.
func placeWords(l tckind.Links, filters []*filterNode, chains []*chainNode, fail func(string, error)) {
	for _, f := range filters {
		filterWords(l, f, fail)
	}
	for _, c := range chains {
		if c.kind != "" {
			chainWords(l, c, fail)
		}
	}
}

// chainWords fills in the words of a chain's template.
func chainWords(l tckind.Links, c *chainNode, fail func(string, error)) {
	what := fmt.Sprintf("chain %d's template %s", c.chain, c.kind)
	w, err := tckind.FilterKeywords(c.kind, c.options, l)
	if err != nil {
		fail(what, err)
		return
	}
	back, _, err := tckind.LookupFilter(c.kind).Parse(w, tckind.FilterEnv{Protocol: c.protocol, Parent: c.parent, ActionEnv: tckind.ActionEnv{Links: l}})
	if err != nil || !sameTemplate(&chainNode{kind: c.kind, protocol: c.protocol, options: back}, &chainNode{kind: c.kind, protocol: c.protocol, options: c.options, words: w}) {
		fail(what, fmt.Errorf("the words %q do not ask for the kernel's template (%v)", strings.Join(w, " "), err))
		return
	}
	c.words, c.restore = nonNil(w), back
}

func filterWords(l tckind.Links, f *filterNode, fail func(string, error)) {
	what := fmt.Sprintf("filter %s pref %d", f.kind, f.prio)
	w, err := tckind.FilterKeywords(f.kind, f.options, l)
	if err != nil {
		fail(what, err)
		return
	}
	k := tckind.LookupFilter(f.kind)
	back, _, err := k.Parse(w, tckind.FilterEnv{Protocol: f.protocol, Parent: f.parent, ActionEnv: tckind.ActionEnv{Links: l}})
	if err != nil || !filterCovers(f.kind, back, f.options) {
		fail(what, fmt.Errorf("the words %q do not ask for the kernel's options (%v)", strings.Join(w, " "), err))
		return
	}
	f.words, f.restore = nonNil(w), back
}

// nonNil marks words as known even when there are none.
func nonNil(w []string) []string {
	if w == nil {
		return []string{}
	}
	return w
}

// FromKernel writes the kernel's state of the named devices as a file;
// without names, of every device that has a qdisc of its own (not the
// kernel's default). It fails, naming them, on objects whose options it
// cannot write as tc words.
func FromKernel(ctx context.Context, k Kernel, devices []string) (*File, error) {
	l := kernelLinks(ctx, k)
	if err := l.Load(); err != nil {
		return nil, err
	}
	names := l.Names()
	all := len(devices) == 0
	if all {
		for _, n := range names {
			devices = append(devices, n)
		}
	}
	f := &File{Devices: map[string]*Device{}}
	var errs []error
	blocks := map[uint32]bool{}
	// The filters written, whose held actions the file makes.
	var written []*filterNode
	for _, name := range devices {
		idx, err := k.LinkIndex(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("device %s: %w", name, err)
		}
		d, err := readDevice(ctx, k, name, idx)
		if err != nil {
			return nil, err
		}
		if err := words(l, d, true); err != nil {
			errs = append(errs, err)
			continue
		}
		dev := &Device{Root: fileQdisc(d.root), Ingress: fileQdisc(d.ingress)}
		if all && dev.Root == nil && dev.Ingress == nil {
			continue
		}
		f.Devices[name] = dev
		written = append(written, deviceFilters(d)...)
		if q := d.ingress; q != nil {
			blocks[q.ingressBlock], blocks[q.egressBlock] = true, true
		}
	}
	delete(blocks, 0)
	for _, index := range slices.Sorted(maps.Keys(blocks)) {
		b, err := readBlock(ctx, k, index)
		if err != nil {
			return nil, err
		}
		var bad []error
		placeWords(l, b.filters, b.chains, func(what string, err error) {
			bad = append(bad, fmt.Errorf("block %d: %s: %w", index, what, err))
		})
		if len(bad) > 0 {
			errs = append(errs, bad...)
			continue
		}
		written = append(written, b.filters...)
		fb := &Block{Chains: fileChains(b.chains, b.filters)}
		for _, fl := range b.filters {
			fb.Filters = append(fb.Filters, fileFilter(fl))
		}
		if len(fb.Filters) > 0 || len(fb.Chains) > 0 {
			if f.Blocks == nil {
				f.Blocks = map[uint32]*Block{}
			}
			f.Blocks[index] = fb
		}
	}
	acts, err := fileActions(ctx, k, l, written)
	if err != nil {
		errs = append(errs, err)
	}
	f.Actions = acts
	return f, errors.Join(errs...)
}

// fileActions writes the standalone actions that filters bind: those that
// something besides filters holds (a "tc actions add" made them), which
// the filters' words bind by index. An action that two filters share and
// nothing else holds (the first filter made it, the next bound it by its
// index) has no file: made by "actions", it would hold one reference
// more.
func fileActions(ctx context.Context, k Kernel, l tckind.Links, filters []*filterNode) ([]string, error) {
	b := newBinds()
	b.add(filters)
	var errs []error
	kinds := map[string]bool{}
	for key := range b.count {
		if b.held[key] {
			kinds[key.kind] = true
		}
	}
	refused := map[actionKey]bool{}
	for _, f := range filters {
		acts, _ := tckind.FilterActions(f.options)
		for _, a := range acts {
			c, ok := tckind.ActionCountsOf(a.Options)
			if !ok || a.Kind == nil || c.Binds < 2 || c.Held() || refused[actionKey{*a.Kind, c.Index}] {
				continue
			}
			refused[actionKey{*a.Kind, c.Index}] = true
			errs = append(errs, fmt.Errorf("filter %s pref %d: action %s index %d is bound by %d filters and made by one of them: a file says a shared action under \"actions\", which would hold one reference more", f.kind, f.prio, *a.Kind, c.Index, c.Binds))
		}
	}
	if len(kinds) == 0 {
		return nil, errors.Join(errs...)
	}
	have, err := readActions(ctx, k, l, slices.Sorted(maps.Keys(kinds)))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, key := range sortedActions(have) {
		if !b.held[key] {
			continue
		}
		if n := have[key]; n.words == nil {
			errs = append(errs, fmt.Errorf("action %s: no tc words ask for the kernel's options", key))
		} else {
			out = append(out, tcline.JoinWords(n.words))
		}
	}
	return out, errors.Join(errs...)
}

// fileChains writes the kernel's chains of a place that a file names
// (namedChains).
func fileChains(chains []*chainNode, filters []*filterNode) []string {
	var out []string
	for _, c := range namedChains(chains, filters) {
		w := []string{"chain", fmt.Sprint(c.chain)}
		if c.kind != "" {
			if c.protocol != 0 {
				w = append(w, "protocol", tckind.EthProtocolName(c.protocol))
			}
			w = append(append(w, c.kind), c.words...)
		}
		out = append(out, tcline.JoinWords(w))
	}
	return out
}

// fileQdisc writes a kernel qdisc and what is below it; nil for none or
// the kernel's default.
func fileQdisc(n *qdiscNode) *Qdisc {
	if n == nil || n.handle == 0 {
		return nil
	}
	var words []string
	if n.stab != nil {
		words = tckind.SizeTableKeywords(*n.stab)
	}
	words = append(words, blockWords(n)...)
	q := &Qdisc{Spec: tcline.JoinWords(append(append(words, n.kind), n.words...))}
	if n.parent != netlink.HandleIngress {
		q.Handle = tcfmt.FormatQdiscHandle(n.handle)
	}
	q.Classes = fileClasses(n.classes)
	for _, f := range n.filters {
		q.Filters = append(q.Filters, fileFilter(f))
	}
	for _, f := range n.egressFilters {
		q.EgressFilters = append(q.EgressFilters, fileFilter(f))
	}
	q.Chains = fileChains(n.chains, n.filters)
	q.EgressChains = fileChains(n.egressChains, n.egressFilters)
	return q
}

func fileClasses(cs []*classNode) map[string]*Class {
	out := map[string]*Class{}
	for _, c := range cs {
		fc := &Class{Leaf: fileQdisc(c.leaf), Classes: fileClasses(c.children), Chains: fileChains(c.chains, c.filters)}
		for _, f := range c.filters {
			fc.Filters = append(fc.Filters, fileFilter(f))
		}
		if !c.made {
			fc.Spec = tcline.JoinWords(append([]string{c.kind}, c.words...))
		} else if fc.Leaf == nil && fc.Classes == nil && fc.Filters == nil && fc.Chains == nil {
			continue // a class of its qdisc's with the default leaf: nothing to say
		}
		out[tcfmt.FormatClassID(c.id)] = fc
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func fileFilter(f *filterNode) string {
	w := []string{"protocol", tckind.EthProtocolName(f.protocol), "pref", fmt.Sprint(f.prio)}
	if f.chain != 0 {
		w = append(w, "chain", fmt.Sprint(f.chain))
	}
	if f.handle != 0 {
		w = append(w, "handle", tckind.FilterHandleWord(f.kind, f.handle, f.options))
	}
	return tcline.JoinWords(append(append(w, f.kind), f.words...))
}
