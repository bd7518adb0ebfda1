// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/gotc/gotc/action"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tckind"
	"github.com/gotc/gotc/tcline"
)

// actionKey names a standalone action: its kind and index.
type actionKey struct {
	kind  string
	index uint32
}

func (a actionKey) String() string { return fmt.Sprintf("%s index %d", a.kind, a.index) }

// actionNode is a standalone action: one of the file's "actions", or one
// of the kernel's.
type actionNode struct {
	actionKey
	act attrs.ActAttrs
	// words are the words after "action": the file's, or those the
	// kernel's action is written as (nil where it has none).
	words []string
	// restore, for the kernel's, is what its words parse to: what an undo
	// sends (a dump lacks what some kinds need sent, police's rate
	// table); nil where it has no words.
	restore *attrs.ActAttrs
	// counts are the kernel's references to it.
	counts tckind.ActionCounts
	at     place
}

// actions resolves the file's standalone actions, each the words after
// "tc actions add action": one action, with its index, named once.
func (r *resolver) actions(lines []string, at []place) map[actionKey]*actionNode {
	out := map[actionKey]*actionNode{}
	for i, line := range lines {
		where := placeAt(at, i)
		n, err := r.action(line)
		if err != nil {
			r.fault(where, "action %q: %s", line, kindMessage(err))
			continue
		}
		n.at = where
		if first, ok := out[n.actionKey]; ok {
			r.fault(where, "action %q: %s is the action of line %d too: an index names one action of its kind", line, n.actionKey, first.at.line)
			continue
		}
		out[n.actionKey] = n
	}
	return out
}

// action parses one line of "actions".
func (r *resolver) action(line string) (*actionNode, error) {
	words, err := tcline.SplitWords(line)
	if err != nil {
		return nil, err
	}
	if len(words) > 0 && words[0] == "action" {
		words = words[1:]
	}
	acts, rest, err := action.ParseActions(words, tckind.ActionEnv{Links: r.links})
	switch {
	case err != nil:
		return nil, err
	case len(rest) > 0:
		return nil, fmt.Errorf("%q is not an action's word", rest[0])
	case len(acts) != 1:
		return nil, fmt.Errorf("one action a line: this one has %d", len(acts))
	}
	c, ok := tckind.ActionCountsOf(acts[0].Options)
	if !ok || c.Index == 0 {
		return nil, fmt.Errorf("index is required: the filters that bind the action name it by its index (\"action %s index N\")", *acts[0].Kind)
	}
	return &actionNode{actionKey: actionKey{*acts[0].Kind, c.Index}, act: acts[0], words: words}, nil
}

// checkBinds checks a filter's actions against the file's standalone
// ones: an action of the file is bound by its index alone ("action gact
// index 7"), since the kernel binds the one there and ignores the rest of
// the words; and a reference binds an action the file makes.
func (r *resolver) checkBinds(f *filterNode) error {
	acts, _ := tckind.FilterActions(f.options)
	for _, a := range acts {
		c, ok := tckind.ActionCountsOf(a.Options)
		if !ok || c.Index == 0 || a.Kind == nil {
			continue
		}
		key := actionKey{*a.Kind, c.Index}
		_, listed := r.standalone[key]
		switch ref := tckind.IsActionReference(a); {
		case ref && !listed:
			return fmt.Errorf("action %s binds an action that \"actions\" does not make: add it there (the file says every action its filters bind)", key)
		case !ref && listed:
			return fmt.Errorf("action %s is an action of \"actions\": bind it by its index alone (\"action %s\"), for the kernel binds the one there and ignores the other words", key, strings.Join(tckind.ActionReferenceWords(key.kind, key.index), " "))
		}
	}
	return nil
}

// readActions reads the kernel's standalone actions of the kinds given:
// each kind's table (every action of the kind, those its filters made
// too), by kind and index.
func readActions(ctx context.Context, k Kernel, l tckind.Links, kinds []string) (map[actionKey]*actionNode, error) {
	out := map[actionKey]*actionNode{}
	for _, kind := range kinds {
		acts, err := k.DumpActions(ctx, kind)
		if err != nil {
			return nil, fmt.Errorf("action %s dump: %w", kind, err)
		}
		for _, a := range acts {
			c, ok := tckind.ActionCountsOf(a.Options)
			if !ok || a.Kind == nil {
				continue
			}
			n := &actionNode{actionKey: actionKey{*a.Kind, c.Index}, act: a, counts: c}
			actionWords(l, n)
			out[n.actionKey] = n
		}
	}
	return out, nil
}

// actionWords gives a kernel's action its words where they parse back to
// options its dump covers, and nil otherwise.
func actionWords(l tckind.Links, n *actionNode) {
	w, err := tckind.StandaloneActionKeywords(n.act, l)
	if err != nil {
		return
	}
	back, rest, err := action.ParseActions(w, tckind.ActionEnv{Links: l})
	if err != nil || len(rest) > 0 || len(back) != 1 || !sameStandalone(back[0], n.act) {
		return
	}
	n.words, n.restore = w, &back[0]
}

// sameStandalone reports whether the kernel's action (have) is what the
// desired one asks for: its options as its kind keeps them, its cookie.
func sameStandalone(want, have attrs.ActAttrs) bool {
	return tckind.Covers(tckind.ActionDumped(*want.Kind, want.Options), have.Options) &&
		slices.Equal(want.Cookie, have.Cookie)
}

// binds counts the bindings of actions by filters, by kind and index;
// for the kernel's filters, held marks the actions that something besides
// filters holds (tckind.ActionCounts.Held).
type binds struct {
	count map[actionKey]int
	held  map[actionKey]bool
}

func newBinds() binds { return binds{map[actionKey]int{}, map[actionKey]bool{}} }

// add counts the actions of filters.
func (b binds) add(filters []*filterNode) {
	for _, f := range filters {
		acts, _ := tckind.FilterActions(f.options)
		for _, a := range acts {
			if c, ok := tckind.ActionCountsOf(a.Options); ok && c.Index != 0 && a.Kind != nil {
				key := actionKey{*a.Kind, c.Index}
				b.count[key]++
				if c.Held() {
					b.held[key] = true
				}
			}
		}
	}
}

// deviceFilters are every filter of a device's trees.
func deviceFilters(d *deviceState) []*filterNode {
	var out []*filterNode
	var q func(n *qdiscNode)
	var c func(n *classNode)
	q = func(n *qdiscNode) {
		if n == nil {
			return
		}
		out = append(append(out, n.filters...), n.egressFilters...)
		for _, ch := range n.classes {
			c(ch)
		}
	}
	c = func(n *classNode) {
		out = append(out, n.filters...)
		q(n.leaf)
		for _, ch := range n.children {
			c(ch)
		}
	}
	q(d.root)
	q(d.ingress)
	return out
}

// planActions compares the file's standalone actions (want) with the
// kernel's, given how often the kernel's filters of the file's devices and
// blocks bind each action now (haveBinds) and how often the file's
// filters will (wantBinds). The file's actions missing are added and
// those that differ replaced in place (their filters stay bound): first,
// before the filters that bind them. A held action the file does not name
// (a "tc actions add" made it) is deleted last, when no filter binds it
// any more: when the file's devices' and blocks' filters were all its
// binders, and the file's bind it no more. Other actions are not the
// file's, and are left alone.
func planActions(want, have map[actionKey]*actionNode, haveBinds, wantBinds binds) (first, last []Request) {
	for _, key := range sortedActions(want) {
		w, h := want[key], have[key]
		switch {
		case h == nil:
			r := actionRequest(netlink.Add, w)
			r.Reason = "not in the kernel"
			r.undo = []Request{actionRequest(netlink.Delete, w)}
			first = append(first, r)
		case !sameStandalone(w.act, h.act):
			r := actionRequest(netlink.Replace, w)
			r.Reason = "the kernel's options differ: it has " + wordsOrDumped(h.words)
			r.undo = []Request{actionRequest(netlink.Replace, h)}
			first = append(first, r)
		}
	}
	for _, key := range sortedActions(have) {
		h := have[key]
		if want[key] != nil || !h.counts.Held() || h.counts.Binds == 0 || int64(haveBinds.count[key]) != h.counts.Binds || wantBinds.count[key] > 0 {
			continue
		}
		r := actionRequest(netlink.Delete, h)
		r.Reason = "not in the file, and bound by no filter after this apply"
		r.undo = []Request{actionRequest(netlink.Add, h)}
		last = append(last, r)
	}
	return first, last
}

// wordsOrDumped writes an action's words for a reason.
func wordsOrDumped(words []string) string {
	if words == nil {
		return "(options as the kernel dumped them)"
	}
	return tcline.JoinWords(words)
}

// sortedActions are a map's actions by kind, then index.
func sortedActions(m map[actionKey]*actionNode) []actionKey {
	keys := make([]actionKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b actionKey) int {
		if c := strings.Compare(a.kind, b.kind); c != 0 {
			return c
		}
		return int(int64(a.index) - int64(b.index))
	})
	return keys
}

// actionRequest builds a request about a standalone action and its
// description: an add or a replace sends its options (restore, for the
// kernel's own), a delete its kind and index.
func actionRequest(op netlink.Op, n *actionNode) Request {
	kind, index := n.kind, n.index
	a := attrs.ActAttrs{Kind: &kind, Index: &index}
	c := Change{Op: op.String(), Object: "action", Kind: kind}
	cmd := "actions " + opWord(op) + " action "
	if op == netlink.Delete {
		cmd += n.actionKey.String()
	} else {
		a = n.act
		if n.restore != nil {
			a = *n.restore
		}
		a.Stats, a.UsedHWStats, a.InHWCount = nil, nil, nil
		if c.Words = n.words; len(c.Words) > 0 && c.Words[0] == kind {
			c.Words = c.Words[1:] // after the kind (a verb stands for gact's)
		}
		cmd += wordsOrDumped(n.words)
	}
	c.Command = cmd
	return Request{Object: netlink.Action, Op: op, Action: &netlink.ActionMsg{Attrs: attrs.ActRootAttrs{Tab: []attrs.ActAttrs{a}}}, Change: c}
}

// unbindWait bounds how long an action's delete waits for the filters
// deleted before it to let go of it.
const unbindWait = 2 * time.Second

// doAction sends a request about a standalone action. The kernel lets go
// of a deleted filter's actions after an RCU grace period, not when it
// answers the delete, and refuses to delete an action a filter still
// binds (EPERM, "Failed to delete TC action"): the plan deletes an
// action after its filters, so a delete refused so is sent again, until
// unbindWait has passed.
func doAction(ctx context.Context, k Kernel, r Request) (string, error) {
	deadline := time.Now().Add(unbindWait)
	for {
		warning, err := k.DoAction(ctx, actionOp(r.Op), r.Action)
		if r.Op != netlink.Delete || !errors.Is(err, syscall.EPERM) || time.Now().After(deadline) {
			return warning, err
		}
		select {
		case <-ctx.Done():
			return warning, err
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// actionOp is the "tc actions" request of a plan's op.
func actionOp(op netlink.Op) netlink.ActionOp {
	switch op {
	case netlink.Add:
		return netlink.ActionAdd
	case netlink.Delete:
		return netlink.ActionDelete
	}
	return netlink.ActionReplace
}
