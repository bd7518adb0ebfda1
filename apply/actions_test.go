// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tckind"
)

// withCounts returns a copy of an action's options with its index and
// counts set, where tckind.ActionCountsOf reads them.
func withCounts(opts attrs.ActOptionsMsg, c tckind.ActionCounts) attrs.ActOptionsMsg {
	v := reflect.ValueOf(opts).Elem()
	out := reflect.New(v.Type())
	out.Elem().Set(v)
	for i := range out.Elem().NumField() {
		f := out.Elem().Field(i)
		if f.Kind() != reflect.Pointer || f.IsNil() || f.Elem().Kind() != reflect.Struct || !f.Elem().FieldByName("Bindcnt").IsValid() {
			continue
		}
		parms := reflect.New(f.Elem().Type())
		parms.Elem().Set(f.Elem())
		parms.Elem().FieldByName("Index").SetUint(uint64(c.Index))
		parms.Elem().FieldByName("Refcnt").SetInt(c.Refs)
		parms.Elem().FieldByName("Bindcnt").SetInt(c.Binds)
		f.Set(parms)
	}
	return out.Interface().(attrs.ActOptionsMsg)
}

// bindings counts the filters that bind each standalone action.
func (k *fakeKernel) bindings() map[actionKey]int64 {
	out := map[actionKey]int64{}
	for _, f := range k.filters {
		acts, _ := tckind.FilterActions(f.Attrs.Options)
		for _, a := range acts {
			c, _ := tckind.ActionCountsOf(a.Options)
			if key := (actionKey{*a.Kind, c.Index}); a.Kind != nil && k.actions[key].Kind != nil {
				out[key]++
			}
		}
	}
	return out
}

// counted is a standalone action as a dump shows it: held by "actions
// add" and bound by its filters.
func (k *fakeKernel) counted(key actionKey, binds map[actionKey]int64) attrs.ActAttrs {
	a := k.actions[key]
	a.Options = withCounts(a.Options, tckind.ActionCounts{Index: key.index, Refs: 1 + binds[key], Binds: binds[key]})
	return a
}

// bound gives the filters' actions that bind a standalone action its
// options and counts, as the kernel dumps them.
func (k *fakeKernel) bound(filters []netlink.Msg) []netlink.Msg {
	binds := k.bindings()
	for i, f := range filters {
		acts, ok := tckind.FilterActions(f.Attrs.Options)
		if !ok {
			continue
		}
		acts = slices.Clone(acts)
		for j, a := range acts {
			c, _ := tckind.ActionCountsOf(a.Options)
			if key := (actionKey{*a.Kind, c.Index}); a.Kind != nil && k.actions[key].Kind != nil {
				acts[j] = k.counted(key, binds)
			}
		}
		filters[i].Attrs.Options = tckind.WithFilterActions(f.Attrs.Options, acts)
	}
	return filters
}

func (k *fakeKernel) DumpActions(_ context.Context, kind string) ([]attrs.ActAttrs, error) {
	binds := k.bindings()
	var out []attrs.ActAttrs
	for _, key := range slices.SortedFunc(func(yield func(actionKey) bool) {
		for key := range k.actions {
			if !yield(key) {
				return
			}
		}
	}, func(a, b actionKey) int { return int(int64(a.index) - int64(b.index)) }) {
		if key.kind == kind {
			out = append(out, k.counted(key, binds))
		}
	}
	return out, nil
}

func (k *fakeKernel) DoAction(_ context.Context, op netlink.ActionOp, m *netlink.ActionMsg) (string, error) {
	k.requests++
	a := m.Attrs.Tab[0]
	var index uint32
	if a.Index != nil {
		index = *a.Index
	} else if c, ok := tckind.ActionCountsOf(a.Options); ok {
		index = c.Index
	}
	key := actionKey{*a.Kind, index}
	k.log = append(k.log, fmt.Sprintf("action %d %s", op, key))
	if k.requests == k.failAt {
		return "", errRefused
	}
	if k.actions == nil {
		k.actions = map[actionKey]attrs.ActAttrs{}
	}
	_, there := k.actions[key]
	switch {
	case op == netlink.ActionAdd && there:
		return "", &netlink.Error{Errno: syscall.EEXIST, Message: "action exists"}
	case op == netlink.ActionDelete && !there:
		return "", &netlink.Error{Errno: syscall.ENOENT, Message: "action not found"}
	case op == netlink.ActionDelete && (k.bindings()[key] > 0 || k.unbindLag > 0):
		k.unbindLag--
		return "", &netlink.Error{Errno: syscall.EPERM, Message: "action is bound"}
	case op == netlink.ActionDelete:
		delete(k.actions, key)
	default:
		a.Options = tckind.ActionDumped(key.kind, a.Options)
		k.actions[key] = a
	}
	return "", nil
}

// sharedPolice is a file whose two devices' ingress filters bind one
// standalone police action.
const sharedPolice = `
actions:
  - police rate 1mbit burst 10k conform-exceed drop index 1
devices:
  eth0:
    ingress:
      qdisc: ingress
      filters:
        - protocol all pref 1 matchall action police index 1
  eth1:
    ingress:
      qdisc: ingress
      filters:
        - protocol all pref 1 matchall action police index 1
`

// TestStandaloneActions applies a file with an action two devices'
// filters share: the action is added before the filters, a second apply
// has nothing to do, a changed rate is one replace in place, and an
// action the file drops with its filters is deleted after them.
func TestStandaloneActions(t *testing.T) {
	k := newFake("eth0", "eth1")
	p := plan(t, k, sharedPolice)
	if len(p.Requests) == 0 || !strings.HasPrefix(p.Requests[0].Command, "actions add action police rate 1mbit") {
		t.Fatalf("the first request is not the action's add: %q", p.Commands())
	}
	run(t, k, p)
	if got := k.bindings()[actionKey{"police", 1}]; got != 2 {
		t.Fatalf("police index 1 is bound %d times, want 2", got)
	}
	if p := plan(t, k, sharedPolice); len(p.Requests) != 0 {
		t.Fatalf("a second apply plans %q", p.Commands())
	}
	faster := strings.Replace(sharedPolice, "rate 1mbit", "rate 2mbit", 1)
	p = plan(t, k, faster)
	if len(p.Requests) != 1 || p.Requests[0].Op != netlink.Replace || p.Requests[0].Object != netlink.Action {
		t.Fatalf("a changed rate plans %q, want one actions replace", p.Commands())
	}
	run(t, k, p)
	if p := plan(t, k, faster); len(p.Requests) != 0 {
		t.Fatalf("after the replace an apply plans %q", p.Commands())
	}
	if got := k.bindings()[actionKey{"police", 1}]; got != 2 {
		t.Fatalf("after the replace police index 1 is bound %d times, want 2", got)
	}
	// Both filters go, and the action with them, last.
	const none = "devices:\n  eth0:\n    ingress: ingress\n  eth1:\n    ingress: ingress\n"
	p = plan(t, k, none)
	last := p.Requests[len(p.Requests)-1]
	if last.Object != netlink.Action || last.Op != netlink.Delete || last.Command != "actions del action police index 1" {
		t.Fatalf("dropping the action plans %q, want its delete last", p.Commands())
	}
	// The kernel lets go of the filters' binds a moment after their
	// deletes: the action's delete waits for it.
	k.unbindLag = 3
	run(t, k, p)
	if len(k.actions) != 0 {
		t.Fatalf("the action is still there: %v", k.actions)
	}
	if p := plan(t, k, none); len(p.Requests) != 0 {
		t.Fatalf("after the delete an apply plans %q", p.Commands())
	}
}

// TestStandaloneActionKeptForOthers: an action that a filter of a device
// the file does not name binds too is not deleted.
func TestStandaloneActionKeptForOthers(t *testing.T) {
	k := newFake("eth0", "eth1")
	run(t, k, plan(t, k, sharedPolice))
	p := plan(t, k, "devices:\n  eth0:\n    ingress: ingress\n")
	if slices.ContainsFunc(p.Requests, func(r Request) bool { return r.Object == netlink.Action }) {
		t.Fatalf("an action eth1 still binds is planned: %q", p.Commands())
	}
}

// TestStandaloneActionUndo: a refused request after the action's add
// undoes it, and a replace's undo restores the earlier options.
func TestStandaloneActionUndo(t *testing.T) {
	k := newFake("eth0", "eth1")
	p := plan(t, k, sharedPolice)
	k.failAt = len(p.Requests)
	if _, err := p.Run(context.Background(), k, nil); err == nil {
		t.Fatal("the refused request did not fail the plan")
	}
	if len(k.actions) != 0 || len(k.filters) != 0 {
		t.Fatalf("the undo left actions %v and %d filters", k.actions, len(k.filters))
	}
}

// TestFromKernelActions writes a state with a shared action as a file
// that re-applies to it: the action under "actions", the filters binding
// it by index.
func TestFromKernelActions(t *testing.T) {
	k := newFake("eth0", "eth1")
	run(t, k, plan(t, k, sharedPolice))
	f, err := FromKernel(context.Background(), k, []string{"eth0", "eth1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Actions) != 1 || !strings.HasPrefix(f.Actions[0], "police ") || !strings.HasSuffix(f.Actions[0], " index 1") {
		t.Fatalf("--from-kernel wrote actions %q", f.Actions)
	}
	for _, dev := range []string{"eth0", "eth1"} {
		if fl := f.Devices[dev].Ingress.Filters; len(fl) != 1 || !strings.HasSuffix(fl[0], "action police index 1") {
			t.Fatalf("%s's filters are written %q", dev, fl)
		}
	}
	var b strings.Builder
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	if p := plan(t, k, b.String()); len(p.Requests) != 0 {
		t.Fatalf("the written file plans %q:\n%s", p.Commands(), b.String())
	}
}

// TestActionFaults: the faults of "actions" and of the filters that bind
// them, each at its line, before anything is read of the kernel.
func TestActionFaults(t *testing.T) {
	for _, c := range []struct{ name, file, want string }{
		{"no index", "actions:\n  - gact drop\ndevices:\n  eth0:\n    root: pfifo\n", "test.yaml:2:5: action \"gact drop\": index is required"},
		{"two a line", "actions:\n  - gact drop index 1 action pass index 2\ndevices:\n  eth0:\n    root: pfifo\n", "one action a line: this one has 2"},
		{"twice", "actions:\n  - gact drop index 1\n  - gact pass index 1\ndevices:\n  eth0:\n    root: pfifo\n", "test.yaml:3:5: action \"gact pass index 1\": gact index 1 is the action of line 2 too"},
		{"unknown kind", "actions:\n  - frob index 1\ndevices:\n  eth0:\n    root: pfifo\n", "test.yaml:2:5: action \"frob index 1\""},
		{"not listed", "devices:\n  eth0:\n    ingress:\n      qdisc: ingress\n      filters:\n        - pref 1 matchall action police index 4\n", `test.yaml:6:11: filter "pref 1 matchall action police index 4": action police index 4 binds an action that "actions" does not make`},
		{"words beside a listed one", "actions:\n  - gact drop index 3\ndevices:\n  eth0:\n    ingress:\n      qdisc: ingress\n      filters:\n        - pref 1 matchall action gact drop index 3\n", `bind it by its index alone ("action gact index 3")`},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := Load("test.yaml", strings.NewReader(c.file))
			if err == nil {
				_, err = Compute(context.Background(), newFake("eth0"), f)
			}
			var bad *BadFile
			if !errors.As(err, &bad) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want a bad file with %q", err, c.want)
			}
		})
	}
}

// run sends a plan to k and fails the test on a refusal.
func run(t *testing.T, k Kernel, p *Plan) {
	t.Helper()
	if _, err := p.Run(context.Background(), k, nil); err != nil {
		t.Fatal(err)
	}
}

// TestFleetActions: a fleet part's actions are its machines', and an
// action two selected parts give is refused at its line.
func TestFleetActions(t *testing.T) {
	const fleet = `
fleet:
  - hosts: [a]
    actions: [gact drop index 1]
    devices:
      eth0:
        ingress: { qdisc: ingress, filters: [pref 1 matchall action gact index 1] }
  - hosts: [b]
    actions: [gact pass index 1]
    devices:
      eth0:
        root: pfifo
  - hosts: [c]
    actions: [gact pass index 1]
    devices:
      eth1:
        root: pfifo
`
	f, err := LoadFleet("fleet.yaml", strings.NewReader(fleet), Node{Name: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.Actions, []string{"gact drop index 1"}) {
		t.Fatalf("host a's actions are %q", f.Actions)
	}
	both := strings.Replace(fleet, "hosts: [c]", "hosts: [a]", 1)
	both = strings.Replace(both, "eth1", "eth2", 1)
	f, err = LoadFleet("fleet.yaml", strings.NewReader(both), Node{Name: "a"})
	if err == nil {
		_, err = Compute(context.Background(), newFake("eth0", "eth2"), f)
	}
	if err == nil || !strings.Contains(err.Error(), "fleet.yaml:14:15: action \"gact pass index 1\": gact index 1 is the action of line 4 too") {
		t.Fatalf("an action of two parts: %v", err)
	}
}

// TestActionChangeWords: --diff -j gives an action's words after its
// kind, and keeps a verb that stands for gact.
func TestActionChangeWords(t *testing.T) {
	for line, want := range map[string]string{
		"gact drop index 3":                          "drop index 3",
		"drop index 3":                               "drop index 3",
		"police rate 1mbit burst 10k index 3":        "rate 1mbit burst 10k index 3",
		"action police rate 1mbit burst 10k index 3": "rate 1mbit burst 10k index 3",
	} {
		r := &resolver{}
		n, err := r.action(line)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(actionRequest(netlink.Add, n).Words, " "); got != want {
			t.Errorf("%q: words %q, want %q", line, got, want)
		}
	}
}

// TestFromKernelSharedByFilters: an action two filters share that no
// "actions add" holds is refused once, naming it.
func TestFromKernelSharedByFilters(t *testing.T) {
	k := newFake("eth0")
	run(t, k, plan(t, k, "devices:\n  eth0:\n    ingress:\n      qdisc: ingress\n      filters:\n        - pref 1 matchall action gact drop index 9\n        - pref 2 matchall action gact drop index 9\n"))
	// The kernel's counts of such an action: two binds, no other holder.
	for i := range k.filters {
		acts, _ := tckind.FilterActions(k.filters[i].Attrs.Options)
		acts = slices.Clone(acts)
		acts[0].Options = withCounts(acts[0].Options, tckind.ActionCounts{Index: 9, Refs: 2, Binds: 2})
		k.filters[i].Attrs.Options = tckind.WithFilterActions(k.filters[i].Attrs.Options, acts)
	}
	_, err := FromKernel(context.Background(), k, []string{"eth0"})
	if err == nil || strings.Count(err.Error(), "action gact index 9 is bound by 2 filters") != 1 {
		t.Fatalf("got %v, want one refusal of gact index 9", err)
	}
}
