// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"context"
	"encoding/json"
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

// fakeKernel keeps qdiscs, classes, filters and chains the way the kernel
// links them, enough to run plans against: replacing or deleting a qdisc
// takes everything below it, deleting a class takes its leaf, and a
// shared block (filters and chains of ifindex netlink.IfindexBlock,
// parent the block's index) is there while a qdisc shares it.
type fakeKernel struct {
	devs    map[string]int32
	qdiscs  []netlink.Msg
	classes []netlink.Msg
	filters []netlink.Msg
	// chains are the chains added by a chain request: a filter's chain
	// is there besides, while it has filters.
	chains []netlink.Msg
	// actions are the standalone actions, as added: a filter's action
	// of the same kind and index is bound to one (actions_test.go).
	actions map[actionKey]attrs.ActAttrs
	// unbindLag is how many deletes of an action the fake refuses as
	// still bound, as the kernel does until its filters' RCU work ran.
	unbindLag int
	log       []string // "op object dev:handle" of every request
	failAt    int      // the request (1-based) to refuse, 0 for none
	warning   string   // the warning of every accepted request
	requests  int
	nextAuto  uint32
}

func newFake(devs ...string) *fakeKernel {
	k := &fakeKernel{devs: map[string]int32{}, nextAuto: 0x8001}
	for i, d := range devs {
		k.devs[d] = int32(i + 1)
	}
	return k
}

func (k *fakeKernel) LinkIndex(_ context.Context, name string) (int32, error) {
	if idx, ok := k.devs[name]; ok {
		return idx, nil
	}
	return 0, &netlink.NoDeviceError{Name: name}
}

func (k *fakeKernel) LinkNames(context.Context) (map[int32]string, error) {
	out := map[int32]string{}
	for n, i := range k.devs {
		out[i] = n
	}
	return out, nil
}

func (k *fakeKernel) Dump(_ context.Context, obj netlink.Object, ifindex int32, parent uint32) ([]netlink.Msg, error) {
	var out []netlink.Msg
	switch obj {
	case netlink.Qdisc:
		out = k.qdiscs
	case netlink.Class:
		out = k.classes
	case netlink.Filter:
		for _, f := range k.filters {
			if f.Header.Parent == parent {
				out = append(out, f)
			}
		}
		return k.bound(filterIf(out, ifindex)), nil
	case netlink.Chain:
		for _, c := range k.chainsAt(ifindex, parent) {
			m := netlink.Msg{Header: attrs.TCMsg{Ifindex: ifindex, Parent: parent}}
			m.Attrs.Chain = new(c)
			if j := k.chainIndex(ifindex, parent, c); j >= 0 {
				m.Attrs.Kind, m.Attrs.Options = k.chains[j].Attrs.Kind, k.chains[j].Attrs.Options
			}
			out = append(out, m)
		}
		return out, nil
	}
	return filterIf(out, ifindex), nil
}

// chainsAt are the chains of a place: those added, and those of its
// filters.
func (k *fakeKernel) chainsAt(ifindex int32, parent uint32) []uint32 {
	var out []uint32
	for _, m := range append(slices.Clone(k.chains), k.filters...) {
		if m.Header.Ifindex == ifindex && m.Header.Parent == parent && !slices.Contains(out, chainOf(&m)) {
			out = append(out, chainOf(&m))
		}
	}
	slices.Sort(out)
	return out
}

// chainIndex finds an added chain.
func (k *fakeKernel) chainIndex(ifindex int32, parent, chain uint32) int {
	return slices.IndexFunc(k.chains, func(m netlink.Msg) bool {
		return m.Header.Ifindex == ifindex && m.Header.Parent == parent && chainOf(&m) == chain
	})
}

// shared reports whether a qdisc shares block index.
func (k *fakeKernel) shared(index uint32) bool {
	return slices.ContainsFunc(k.qdiscs, func(q netlink.Msg) bool {
		in, eg := blocksOf(&q)
		return in == index || eg == index
	})
}

func (k *fakeKernel) doChain(op netlink.Op, m netlink.Msg) error {
	c := chainOf(&m)
	if m.Header.Ifindex == netlink.IfindexBlock && !k.shared(m.Header.Parent) {
		return &netlink.Error{Errno: syscall.EINVAL, Message: "Block of given index was not found"}
	}
	there := slices.Contains(k.chainsAt(m.Header.Ifindex, m.Header.Parent), c)
	switch {
	case op == netlink.Add && there:
		return &netlink.Error{Errno: syscall.EEXIST, Message: "Filter chain already exists"}
	case op == netlink.Add:
		k.chains = append(k.chains, m)
	case !there:
		return &netlink.Error{Errno: syscall.EINVAL, Message: "Cannot find specified filter chain"}
	default:
		if j := k.chainIndex(m.Header.Ifindex, m.Header.Parent, c); j >= 0 {
			k.chains = slices.Delete(k.chains, j, j+1)
		}
		k.filters = slices.DeleteFunc(k.filters, func(f netlink.Msg) bool {
			return f.Header.Ifindex == m.Header.Ifindex && f.Header.Parent == m.Header.Parent && chainOf(&f) == c
		})
	}
	return nil
}

// filterIf keeps the messages of one device; ifindex 0 keeps all.
func filterIf(ms []netlink.Msg, ifindex int32) []netlink.Msg {
	var out []netlink.Msg
	for _, m := range ms {
		if ifindex == 0 || m.Header.Ifindex == ifindex {
			out = append(out, m)
		}
	}
	return out
}

var errRefused = &netlink.Error{Errno: syscall.EINVAL, Message: "refused by the test"}

func (k *fakeKernel) Do(_ context.Context, obj netlink.Object, op netlink.Op, m *netlink.Msg) (string, error) {
	k.requests++
	k.log = append(k.log, fmt.Sprintf("%s %s %d:%x", op, obj, m.Header.Ifindex, m.Header.Handle))
	if k.requests == k.failAt {
		return "", errRefused
	}
	switch obj {
	case netlink.Qdisc:
		return k.warning, k.doQdisc(op, *m)
	case netlink.Class:
		return k.warning, k.doClass(op, *m)
	case netlink.Chain:
		return k.warning, k.doChain(op, *m)
	}
	return k.warning, k.doFilter(op, *m)
}

// qdiscAt finds the qdisc of a device at parent.
func (k *fakeKernel) qdiscAt(ifindex int32, parent uint32) int {
	return slices.IndexFunc(k.qdiscs, func(q netlink.Msg) bool { return q.Header.Ifindex == ifindex && q.Header.Parent == parent })
}

func (k *fakeKernel) doQdisc(op netlink.Op, m netlink.Msg) error {
	if kind := tckind.LookupQdisc(m.Kind()); op != netlink.Change && op != netlink.Delete && kind != nil && kind.KeptOnChange != nil {
		// A new qdisc has its kind's defaults for what it was not given.
		m.Attrs.Options, _ = kind.KeptOnChange(m.Attrs.Options)
	}
	m.Attrs.Options = tckind.Dumped(m.Kind(), m.Attrs.Options) // the kernel's rounding
	i := k.qdiscAt(m.Header.Ifindex, m.Header.Parent)
	switch op {
	case netlink.Change:
		if i < 0 || k.qdiscs[i].Header.Handle != m.Header.Handle || k.qdiscs[i].Kind() != m.Kind() {
			return &netlink.Error{Errno: syscall.ENOENT}
		}
		if kind := tckind.LookupQdisc(m.Kind()); kind != nil && kind.NoChange && m.Attrs.Options != nil {
			return &netlink.Error{Errno: syscall.EINVAL, Message: "Change operation not supported by specified qdisc"}
		}
		k.qdiscs[i].Attrs.Options = merge(k.qdiscs[i].Attrs.Options, m.Attrs.Options)
		return nil
	case netlink.Delete:
		if i < 0 {
			return &netlink.Error{Errno: syscall.ENOENT}
		}
		k.removeQdisc(i)
		return nil
	}
	if i >= 0 {
		if op == netlink.Add && k.qdiscs[i].Header.Handle != 0 {
			return &netlink.Error{Errno: syscall.EEXIST}
		}
		if h := k.qdiscs[i].Header.Handle; h != 0 && h == m.Header.Handle && k.qdiscs[i].Kind() != m.Kind() {
			return &netlink.Error{Errno: syscall.EINVAL, Message: "Invalid qdisc name"}
		}
		k.removeQdisc(i)
	}
	if m.Header.Handle == 0 {
		m.Header.Handle = k.nextAuto << 16
		k.nextAuto++
	}
	k.qdiscs = append(k.qdiscs, m)
	// ets makes a class for each band, with the band's quantum (none
	// for a strict band), as the kernel does.
	if o, ok := m.Attrs.Options.(*attrs.ETSAttrs); ok && o.Nbands != nil {
		var quanta []uint32
		if o.Quanta != nil {
			quanta = o.Quanta.QuantaBand
		}
		strict := 0
		if o.Nstrict != nil {
			strict = int(*o.Nstrict)
		}
		for band := range int(*o.Nbands) {
			c := netlink.Msg{Header: attrs.TCMsg{Ifindex: m.Header.Ifindex, Parent: m.Header.Handle, Handle: m.Header.Handle | uint32(band+1)}}
			c.Attrs.Kind = new("ets")
			class := &attrs.ETSAttrs{}
			if band >= strict && band-strict < len(quanta) {
				class.QuantaBand = []uint32{quanta[band-strict]}
			}
			c.Attrs.Options = class
			k.classes = append(k.classes, c)
		}
	}
	return nil
}

// removeQdisc removes a qdisc with its classes, their leaves and its filters.
func (k *fakeKernel) removeQdisc(i int) {
	q := k.qdiscs[i]
	k.qdiscs = slices.Delete(k.qdiscs, i, i+1)
	if q.Header.Handle == 0 {
		return
	}
	major := q.Header.Handle >> 16
	gone := func(f netlink.Msg) bool {
		in, eg := blocksOf(&q)
		if f.Header.Ifindex == netlink.IfindexBlock {
			return (f.Header.Parent == in || f.Header.Parent == eg) && !k.shared(f.Header.Parent)
		}
		return f.Header.Ifindex == q.Header.Ifindex && f.Header.Parent>>16 == major
	}
	k.filters = slices.DeleteFunc(k.filters, gone)
	k.chains = slices.DeleteFunc(k.chains, gone)
	for {
		j := slices.IndexFunc(k.classes, func(c netlink.Msg) bool {
			return c.Header.Ifindex == q.Header.Ifindex && c.Header.Handle>>16 == major
		})
		if j < 0 {
			return
		}
		k.removeClass(j)
	}
}

func (k *fakeKernel) removeClass(j int) {
	c := k.classes[j]
	k.classes = slices.Delete(k.classes, j, j+1)
	own := func(f netlink.Msg) bool {
		return f.Header.Ifindex == c.Header.Ifindex && f.Header.Parent == c.Header.Handle
	}
	k.filters = slices.DeleteFunc(k.filters, own)
	k.chains = slices.DeleteFunc(k.chains, own)
	if i := k.qdiscAt(c.Header.Ifindex, c.Header.Handle); i >= 0 {
		k.removeQdisc(i)
	}
}

func (k *fakeKernel) doClass(op netlink.Op, m netlink.Msg) error {
	j := slices.IndexFunc(k.classes, func(c netlink.Msg) bool {
		return c.Header.Ifindex == m.Header.Ifindex && c.Header.Handle == m.Header.Handle
	})
	switch {
	case op == netlink.Add && j >= 0:
		return &netlink.Error{Errno: syscall.EEXIST}
	case op == netlink.Add:
		k.classes = append(k.classes, m)
	case j < 0:
		return &netlink.Error{Errno: syscall.ENOENT}
	case op == netlink.Delete:
		k.removeClass(j)
	default:
		k.classes[j].Attrs.Options = merge(k.classes[j].Attrs.Options, m.Attrs.Options)
	}
	return nil
}

// merge is a change as the kernel makes it: the attributes the request
// sets replace the object's, the others stay.
func merge(old, req attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	o, r := reflect.ValueOf(old), reflect.ValueOf(req)
	if o.Kind() != reflect.Pointer || o.Type() != r.Type() || o.IsNil() || r.IsNil() {
		return req
	}
	out := reflect.New(o.Elem().Type())
	out.Elem().Set(o.Elem())
	for i := range r.Elem().NumField() {
		if f := r.Elem().Field(i); !f.IsZero() {
			out.Elem().Field(i).Set(f)
		}
	}
	return out.Interface().(attrs.TCOptionsMsg)
}

func (k *fakeKernel) doFilter(op netlink.Op, m netlink.Msg) error {
	if m.Header.Ifindex == netlink.IfindexBlock && !k.shared(m.Header.Parent) {
		return &netlink.Error{Errno: syscall.EINVAL, Message: "Block of given index was not found"}
	}
	if j := k.chainIndex(m.Header.Ifindex, m.Header.Parent, chainOf(&m)); op != netlink.Delete && j >= 0 && k.chains[j].Attrs.Kind != nil && *k.chains[j].Attrs.Kind != m.Kind() {
		return &netlink.Error{Errno: syscall.EINVAL, Message: "Chain template is set to a different filter kind"}
	}
	if op != netlink.Delete {
		m.Attrs.Options = tckind.FilterDumped(m.Kind(), m.Attrs.Options) // what the kernel keeps
	}
	same := func(f netlink.Msg) bool {
		return f.Header.Ifindex == m.Header.Ifindex && f.Header.Parent == m.Header.Parent && f.Header.Info>>16 == m.Header.Info>>16
	}
	switch op {
	case netlink.Delete:
		if m.Attrs.Kind == nil {
			k.filters = slices.DeleteFunc(k.filters, same)
		} else {
			k.filters = slices.DeleteFunc(k.filters, func(f netlink.Msg) bool { return same(f) && f.Header.Handle == m.Header.Handle })
		}
		return nil
	case netlink.Replace:
		if j := slices.IndexFunc(k.filters, func(f netlink.Msg) bool { return same(f) && f.Header.Handle == m.Header.Handle }); j >= 0 {
			k.filters[j].Attrs.Options = m.Attrs.Options
			return nil
		}
	}
	if m.Header.Handle == 0 {
		m.Header.Handle = 1
	}
	k.filters = append(k.filters, m)
	return nil
}

// plan computes the plan of a file against k.
func plan(t *testing.T, k Kernel, yaml string) *Plan {
	t.Helper()
	f, err := Load("test.yaml", strings.NewReader(yaml))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compute(context.Background(), k, f)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// commands are a plan's command lines.
func commands(t *testing.T, k Kernel, yaml string) []string {
	t.Helper()
	return plan(t, k, yaml).Commands()
}

// applyFile applies a file and returns the requests it sent.
func applyFile(t *testing.T, k *fakeKernel, yaml string) (int, error) {
	t.Helper()
	return plan(t, k, yaml).Run(context.Background(), k, nil)
}

const (
	routerFile = `
devices:
  eth0:
    root: cake bandwidth 100mbit diffserv4 nat
    ingress:
      qdisc: ingress
      filters:
        - protocol all pref 10 matchall action mirred egress redirect dev ifb0
  ifb0:
    root: cake bandwidth 500mbit besteffort ingress
`
	htbFile = `
devices:
  eth0:
    root:
      qdisc: htb default 10
      handle: "1:"
      classes:
        "1:1":
          class: htb rate 100mbit
          classes:
            "1:10": { class: htb rate 10mbit ceil 100mbit, leaf: fq_codel }
            "1:20": { class: htb rate 20mbit ceil 100mbit, leaf: { qdisc: fq_codel, handle: "20:" } }
`
)

const roundedFile = `
devices:
  eth0:
    root: { qdisc: dualpi2 alpha 0.15625 beta 3.1953125, handle: "1:" }
  ifb0:
    root: { qdisc: fq_codel target 5ms interval 100ms ce_threshold 1ms, handle: "2:" }
`

func TestPlan(t *testing.T) {
	tests := []struct {
		name          string
		kernel, file  string // the kernel's state is kernel applied to an empty one
		want          []string
		untouchedDevs []string
	}{{
		name: "in sync", kernel: routerFile, file: routerFile, want: nil,
	}, {
		// fq_codel dumps its 5 ms target as 4999 µs, dualpi2 its alpha
		// 0.15625 Hz (40) as 39.
		name:   "in sync despite the kernel's rounding",
		kernel: roundedFile, file: roundedFile, want: nil,
	}, {
		name:   "a rounded value changed",
		kernel: roundedFile, file: strings.Replace(roundedFile, "target 5ms", "target 6ms", 1),
		want: []string{"qdisc change dev ifb0 root handle 2: fq_codel target 6ms interval 100ms ce_threshold 1ms limit 10240 memory_limit 33554432 drop_batch 64 ecn"},
	}, {
		// fq_codel_change keeps a target it is not sent: the plan sends
		// the default the file now means.
		name:   "a setting removed goes back to its default",
		kernel: strings.Replace(roundedFile, "fq_codel target 5ms interval 100ms", "fq_codel target 7ms interval 100ms limit 500 noecn drop_batch 8", 1), file: roundedFile,
		want: []string{"qdisc change dev ifb0 root handle 2: fq_codel target 5ms interval 100ms ce_threshold 1ms limit 10240 memory_limit 33554432 drop_batch 64 ecn"},
	}, {
		name:   "bandwidth change",
		kernel: routerFile, file: strings.Replace(routerFile, "100mbit", "50mbit", 1),
		want: []string{"qdisc change dev eth0 root handle 8001: cake bandwidth 50mbit diffserv4 nat triple-isolate nowash egress split-gso no-ack-filter rtt 100ms raw noatm"},
	}, {
		name:   "kind change",
		kernel: routerFile, file: strings.Replace(routerFile, "cake bandwidth 500mbit besteffort ingress", "fq_codel", 1),
		want: []string{"qdisc replace dev ifb0 root fq_codel"},
	}, {
		name:   "removed child",
		kernel: htbFile, file: strings.Replace(htbFile, `            "1:20": { class: htb rate 20mbit ceil 100mbit, leaf: { qdisc: fq_codel, handle: "20:" } }`+"\n", "", 1),
		want: []string{"class del dev eth0 parent 1:1 classid 1:20"},
	}, {
		name:   "class rate change",
		kernel: htbFile, file: strings.Replace(htbFile, "rate 20mbit", "rate 30mbit", 1),
		want: []string{"class change dev eth0 parent 1:1 classid 1:20 htb rate 30mbit ceil 100mbit"},
	}, {
		name:   "leaf replaced",
		kernel: htbFile, file: strings.Replace(htbFile, `leaf: { qdisc: fq_codel, handle: "20:" }`, `leaf: { qdisc: cake bandwidth 20mbit, handle: "20:" }`, 1),
		// The kernel refuses a replace that keeps the handle, not the kind.
		want: []string{
			"qdisc del dev eth0 parent 1:20 handle 20:",
			"qdisc add dev eth0 parent 1:20 handle 20: cake bandwidth 20mbit",
		},
	}, {
		// Linux 7.2's sfq has no change: the plan deletes it and adds
		// it anew (its queue is lost, as a replace would lose it).
		name:   "sfq option changed",
		kernel: strings.Replace(htbFile, `leaf: { qdisc: fq_codel, handle: "20:" }`, `leaf: { qdisc: sfq perturb 10, handle: "20:" }`, 1),
		file:   strings.Replace(htbFile, `leaf: { qdisc: fq_codel, handle: "20:" }`, `leaf: { qdisc: sfq perturb 20, handle: "20:" }`, 1),
		want: []string{
			"qdisc del dev eth0 parent 1:20 handle 20:",
			"qdisc add dev eth0 parent 1:20 handle 20: sfq perturb 20",
		},
	}, {
		name:   "filter changed",
		kernel: routerFile, file: strings.Replace(routerFile, "redirect dev ifb0", "mirror dev ifb0", 1),
		want: []string{
			"filter del dev eth0 ingress protocol all pref 10 handle 0x1 matchall",
			"filter add dev eth0 ingress protocol all pref 10 matchall action mirred egress mirror dev ifb0",
		},
	}, {
		name:   "ingress removed",
		kernel: routerFile, file: strings.Replace(routerFile, `    ingress:
      qdisc: ingress
      filters:
        - protocol all pref 10 matchall action mirred egress redirect dev ifb0
`, "", 1),
		want: []string{"qdisc del dev eth0 ingress"},
	}, {
		name:   "device not owned",
		kernel: routerFile, file: "devices:\n  eth0:\n    root: cake bandwidth 100mbit diffserv4 nat\n",
		want:          []string{"qdisc del dev eth0 ingress"},
		untouchedDevs: []string{"ifb0"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := newFake("eth0", "ifb0")
			if _, err := applyFile(t, k, tt.kernel); err != nil {
				t.Fatal(err)
			}
			got := commands(t, k, tt.file)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("plan:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			before := len(k.log)
			sent, err := applyFile(t, k, tt.file)
			if err != nil || sent != len(tt.want) {
				t.Fatalf("apply sent %d requests (%v), want %d", sent, err, len(tt.want))
			}
			for _, dev := range tt.untouchedDevs {
				for _, l := range k.log[before:] {
					if strings.Contains(l, fmt.Sprintf(" %d:", k.devs[dev])) {
						t.Errorf("request %q touches %s, which the file does not own", l, dev)
					}
				}
			}
			// The second time, nothing is left to do.
			if again := commands(t, k, tt.file); len(again) != 0 {
				t.Errorf("applied twice, the second plan is %q", again)
			}
			sent, err = applyFile(t, k, tt.file)
			if err != nil || sent != 0 {
				t.Errorf("the second apply sent %d requests (%v)", sent, err)
			}
		})
	}
}

// TestMadeClasses: the classes ets makes for its bands take a leaf in the
// file but no words of their own (the qdisc's quanta are theirs), and are
// never added or deleted.
func TestMadeClasses(t *testing.T) {
	const file = `
devices:
  eth0:
    root:
      qdisc: ets bands 3 strict 1 quanta 1000 2000
      handle: "1:"
      classes:
        "1:3": { leaf: fq_codel }
`
	k := newFake("eth0")
	want := []string{
		"qdisc replace dev eth0 root handle 1: ets bands 3 strict 1 quanta 1000 2000",
		"qdisc replace dev eth0 parent 1:3 fq_codel",
	}
	if got := commands(t, k, file); !slices.Equal(got, want) {
		t.Fatalf("plan:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := applyFile(t, k, file); err != nil {
		t.Fatal(err)
	}
	if again := commands(t, k, file); len(again) != 0 {
		t.Errorf("applied twice, the second plan is %q", again)
	}
	// A band the file leaves out keeps its class and loses its leaf.
	if got, want := commands(t, k, strings.Replace(file, `"1:3": { leaf: fq_codel }`, `"1:2": {}`, 1)), []string{"qdisc del dev eth0 parent 1:3 handle 8001:"}; !slices.Equal(got, want) {
		t.Errorf("plan %q, want %q", got, want)
	}
	words, err := Load("ets.yaml", strings.NewReader(strings.Replace(file, `{ leaf: fq_codel }`, `{ class: ets quantum 5000 }`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Compute(context.Background(), k, words); err == nil || !strings.Contains(err.Error(), "makes its classes itself") {
		t.Errorf("words for a class ets makes: %v", err)
	}
}

// TestFirstApply checks the order of a tree created from nothing: parents
// before children, filters after the qdiscs they hang on.
func TestFirstApply(t *testing.T) {
	got := commands(t, newFake("eth0", "ifb0"), htbFile)
	want := []string{
		"qdisc replace dev eth0 root handle 1: htb default 10",
		"class add dev eth0 parent 1: classid 1:1 htb rate 100mbit",
		"class add dev eth0 parent 1:1 classid 1:10 htb rate 10mbit ceil 100mbit",
		"qdisc add dev eth0 parent 1:10 fq_codel",
		"class add dev eth0 parent 1:1 classid 1:20 htb rate 20mbit ceil 100mbit",
		"qdisc add dev eth0 parent 1:20 handle 20: fq_codel",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("plan:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestUndo refuses the third of three changes: the first two are changed
// back, latest first, and the kernel's state is what it was.
func TestUndo(t *testing.T) {
	k := newFake("eth0", "ifb0")
	if _, err := applyFile(t, k, htbFile); err != nil {
		t.Fatal(err)
	}
	before := [][]netlink.Msg{slices.Clone(k.qdiscs), slices.Clone(k.classes), slices.Clone(k.filters)}
	changed := strings.NewReplacer("rate 100mbit", "rate 90mbit", "rate 10mbit", "rate 11mbit", "rate 20mbit", "rate 21mbit").Replace(htbFile)
	if got := commands(t, k, changed); len(got) != 3 {
		t.Fatalf("plan %q, want 3 changes", got)
	}
	k.log, k.requests, k.failAt = nil, 0, 3
	sent, err := applyFile(t, k, changed)
	var perr *Error
	if !errors.As(err, &perr) || !errors.Is(err, errRefused) || perr.Sent != 2 || perr.Undone != 2 || perr.UndoErr != nil {
		t.Fatalf("err = %v", err)
	}
	want := []string{"change class 1:10001", "change class 1:10010", "change class 1:10020", "change class 1:10010", "change class 1:10001"}
	if !slices.Equal(k.log, want) || sent != 5 {
		t.Errorf("requests %q (%d sent), want %q", k.log, sent, want)
	}
	if after := [][]netlink.Msg{k.qdiscs, k.classes, k.filters}; !reflect.DeepEqual(after, before) {
		t.Errorf("state not restored:\n%+v\nwant\n%+v", after, before)
	}
}

// TestRunAnswers passes on each request sent and the kernel's answer: its
// warning, its refusal, and the undo requests marked as such.
func TestRunAnswers(t *testing.T) {
	k := newFake("eth0", "ifb0")
	if _, err := applyFile(t, k, htbFile); err != nil {
		t.Fatal(err)
	}
	changed := strings.NewReplacer("rate 10mbit", "rate 11mbit", "rate 20mbit", "rate 21mbit").Replace(htbFile)
	k.failAt, k.warning = k.requests+2, "quantum is big"
	var got []string
	_, err := plan(t, k, changed).Run(context.Background(), k, func(a Answer) {
		got = append(got, fmt.Sprintf("undo=%v warning=%q err=%v: %s", a.Undo, a.Warning, a.Err, a.Request.Command))
	})
	if !errors.Is(err, errRefused) {
		t.Fatalf("err = %v", err)
	}
	want := []string{
		`undo=false warning="quantum is big" err=<nil>: class change dev eth0 parent 1:1 classid 1:10 htb rate 11mbit ceil 100mbit`,
		`undo=false warning="" err=refused by the test: class change dev eth0 parent 1:1 classid 1:20 htb rate 21mbit ceil 100mbit`,
		`undo=true warning="quantum is big" err=<nil>: class change dev eth0 parent 1:1 classid 1:10 htb rate 10mbit ceil 100mbit burst 1600 cburst 1600`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("answers:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestUndoReplace restores a replaced subtree: the old qdisc and what was
// below it.
func TestUndoReplace(t *testing.T) {
	k := newFake("eth0", "ifb0")
	if _, err := applyFile(t, k, htbFile); err != nil {
		t.Fatal(err)
	}
	before := len(k.classes)
	file := strings.Replace(htbFile, "htb default 10", "tbf rate 1mbit burst 10k latency 10ms", 1)
	file = file[:strings.Index(file, "      classes:")]
	file += "  ifb0:\n    root: cake bandwidth 1mbit\n"
	k.failAt = k.requests + 2
	if _, err := applyFile(t, k, file); err == nil {
		t.Fatal("no error")
	}
	if len(k.classes) != before || k.qdiscs[k.qdiscAt(1, netlink.HandleRoot)].Kind() != "htb" {
		t.Errorf("htb tree not restored: %d classes, want %d", len(k.classes), before)
	}
}

// TestFromKernel writes the state as a file whose check is in sync.
func TestFromKernel(t *testing.T) {
	const clsactFile = `
devices:
  eth0:
    ingress:
      qdisc: clsact
      filters:
        - protocol all pref 10 u32 match u32 0 0 classid 1:1 action ctinfo dscp 0xfc000000 0x1000000 action mirred egress redirect dev ifb0
        - protocol ip pref 20 u32 match ip tos 0x20 0xfc match ip sport 53 0xffff classid 1:2
      egress_filters:
        - protocol ip pref 1 basic action skbedit priority 1:2 mark 7/0xff
        - protocol all pref 2 bpf bytecode '1,6 0 0 0' classid 1:1
        - protocol all pref 3 matchall action tunnel_key unset
  ifb0:
    root: tbf rate 2mbit burst 10k latency 50ms
`
	for _, file := range []string{routerFile, htbFile, roundedFile, clsactFile} {
		k := newFake("eth0", "ifb0")
		if _, err := applyFile(t, k, file); err != nil {
			t.Fatal(err)
		}
		f, err := FromKernel(context.Background(), k, nil)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := f.Write(&b); err != nil {
			t.Fatal(err)
		}
		if got := commands(t, k, b.String()); len(got) != 0 {
			t.Errorf("from the kernel:\n%s\nthe plan is %q", b.String(), got)
		}
		// A word with blanks (a classic BPF program) is quoted, as tc's
		// batch files quote it.
		if file == clsactFile && !strings.Contains(b.String(), "bytecode '1,6 0 0 0' classid 1:1") {
			t.Errorf("the bpf filter's bytecode is not one quoted word:\n%s", b.String())
		}
	}
}

func TestExampleLoads(t *testing.T) {
	f, err := Load("test.yaml", strings.NewReader(Example))
	if err != nil {
		t.Fatal(err)
	}
	k := newFake("eth0", "eth1", "eth2", "eth3", "eth4", "eth5", "ifb0", "ifb1")
	if _, err := Compute(context.Background(), k, f); err != nil {
		t.Fatal(err)
	}
}

// TestClasslessClasses ignores what classless kinds dump as classes: a
// flow of fq_codel's (a class the qdisc makes) and dualpi2's entry with
// the qdisc's own handle (which once looped the reader forever).
func TestClasslessClasses(t *testing.T) {
	const file = "devices:\n  eth0:\n    root: { qdisc: dualpi2 target 15ms, handle: \"1:\" }\n  ifb0:\n    root: { qdisc: fq_codel, handle: \"2:\" }\n"
	k := newFake("eth0", "ifb0")
	if _, err := applyFile(t, k, file); err != nil {
		t.Fatal(err)
	}
	kind := func(s string) *string { return &s }
	own := netlink.Msg{Attrs: attrs.TCAttrs{Kind: kind("dualpi2")}}
	own.Header.Ifindex, own.Header.Handle, own.Header.Parent = 1, 0x10000, 0x10000
	flow := netlink.Msg{Attrs: attrs.TCAttrs{Kind: kind("fq_codel")}}
	flow.Header.Ifindex, flow.Header.Handle, flow.Header.Parent = 2, 0x20003, 0x20000
	k.classes = append(k.classes, own, flow)
	if got := commands(t, k, file); len(got) != 0 {
		t.Errorf("plan %q, want none", got)
	}
	f, err := FromKernel(context.Background(), k, []string{"eth0", "ifb0"})
	if err != nil {
		t.Fatal(err)
	}
	if c := f.Devices["ifb0"].Root.Classes; c != nil {
		t.Errorf("fq_codel's flow written as a class: %v", c)
	}
}

// TestPlanChanges describes each request of a plan as --diff -j prints it:
// where, what, in tc's words, and why.
func TestPlanChanges(t *testing.T) {
	const ingress = "    ingress:\n      qdisc: ingress\n      filters:\n        - protocol all pref 10 matchall action mirred egress redirect dev ifb0\n"
	kernel := htbFile + ingress + "  ifb0:\n    root: cake bandwidth 500mbit\n"
	k := newFake("eth0", "ifb0")
	if _, err := applyFile(t, k, kernel); err != nil {
		t.Fatal(err)
	}
	file := strings.NewReplacer(
		"rate 20mbit", "rate 30mbit", // a class changed
		`{ class: htb rate 10mbit ceil 100mbit, leaf: fq_codel }`, `{ class: htb rate 10mbit ceil 100mbit, classes: { "1:11": { class: htb rate 1mbit } } }`, // a leaf gone, a class added
		"redirect dev ifb0", "mirror dev ifb0", // a filter changed
		"cake bandwidth 500mbit", "fq_codel", // a kind replaced
	).Replace(kernel)
	var got []string
	for _, c := range plan(t, k, file).Changes() {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(b))
	}
	want := []string{
		`{"op":"delete","object":"filter","device":"eth0","parent":"ingress","handle":"0x1","kind":"matchall","protocol":"all","pref":10,` +
			`"command":"filter del dev eth0 ingress protocol all pref 10 handle 0x1 matchall",` +
			`"reason":"the kernel's options differ: it has action mirred egress redirect dev ifb0; matchall changes no filter in place"}`,
		`{"op":"add","object":"class","device":"eth0","parent":"1:10","handle":"1:11","kind":"htb","words":["rate","1mbit"],` +
			`"command":"class add dev eth0 parent 1:10 classid 1:11 htb rate 1mbit","reason":"not in the kernel"}`,
		`{"op":"change","object":"class","device":"eth0","parent":"1:1","handle":"1:20","kind":"htb","words":["rate","30mbit","ceil","100mbit"],` +
			`"command":"class change dev eth0 parent 1:1 classid 1:20 htb rate 30mbit ceil 100mbit",` +
			`"reason":"the kernel's options differ: it has rate 20mbit ceil 100mbit burst 1600 cburst 1600"}`,
		`{"op":"add","object":"filter","device":"eth0","parent":"ingress","kind":"matchall","protocol":"all","pref":10,"words":["action","mirred","egress","mirror","dev","ifb0"],` +
			`"command":"filter add dev eth0 ingress protocol all pref 10 matchall action mirred egress mirror dev ifb0",` +
			`"reason":"the kernel's options differ: it has action mirred egress redirect dev ifb0; matchall changes no filter in place"}`,
		`{"op":"delete","object":"qdisc","device":"eth0","parent":"1:10","handle":"8001:","kind":"fq_codel",` +
			`"command":"qdisc del dev eth0 parent 1:10 handle 8001:","reason":"not in the file"}`,
		`{"op":"replace","object":"qdisc","device":"ifb0","parent":"root","kind":"fq_codel",` +
			`"command":"qdisc replace dev ifb0 root fq_codel","reason":"the kernel has cake here"}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// A shared block's filter has its block, and neither device nor parent.
	k = newFake("eth0")
	blocks := "devices:\n  eth0:\n    ingress: ingress_block 5 clsact\nblocks:\n  5:\n    filters: [protocol ip pref 1 matchall action drop]\n"
	if _, err := applyFile(t, k, "devices:\n  eth0:\n    ingress: ingress_block 5 clsact\n"); err != nil {
		t.Fatal(err)
	}
	changes := plan(t, k, blocks).Changes()
	b, err := json.Marshal(changes)
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"op":"add","object":"filter","block":5,"kind":"matchall","protocol":"ip","pref":1,"words":["action","drop"],` +
		`"command":"filter add block 5 protocol ip pref 1 matchall action drop","reason":"not in the kernel"}]`; string(b) != want {
		t.Errorf("a block's filter:\n%s\nwant:\n%s", b, want)
	}
}

// TestSizeTable: a qdisc's "stab" words before its kind are sent with it,
// compared with the base the kernel dumps (a change without one takes it
// away), and written back by --from-kernel.
func TestSizeTable(t *testing.T) {
	const file = `
devices:
  eth0:
    root: { qdisc: stab overhead 18 linklayer atm tbf rate 1mbit burst 10k latency 10ms, handle: "1:" }
`
	k := newFake("eth0")
	want := []string{"qdisc replace dev eth0 root handle 1: stab overhead 18 linklayer atm tbf rate 1mbit burst 10k latency 10ms"}
	if got := commands(t, k, file); !slices.Equal(got, want) {
		t.Fatalf("plan %q, want %q", got, want)
	}
	if _, err := applyFile(t, k, file); err != nil {
		t.Fatal(err)
	}
	if st := k.qdiscs[0].Attrs.Stab; st == nil || st.Base == nil || st.Base.Overhead != 18 || len(st.Data) == 0 {
		t.Fatalf("the request's size table: %+v", st)
	}
	if again := commands(t, k, file); len(again) != 0 {
		t.Errorf("applied twice, the second plan is %q", again)
	}
	f, err := FromKernel(context.Background(), k, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "stab mtu 2047 tsize 512 overhead 18 linklayer atm tbf") {
		t.Errorf("--from-kernel wrote no size table:\n%s", b.String())
	}
	if again := commands(t, k, b.String()); len(again) != 0 {
		t.Errorf("--from-kernel's file plans %q", again)
	}
	without := strings.Replace(file, "stab overhead 18 linklayer atm ", "", 1)
	if got, want := commands(t, k, without), []string{"qdisc change dev eth0 root handle 1: tbf rate 1mbit burst 10k latency 10ms"}; !slices.Equal(got, want) {
		t.Errorf("without the size table: plan %q, want %q", got, want)
	}
}

// TestFilterActionsAsKept: a filter's actions are compared as the kernel
// keeps them. tc sends tunnel_key's checksum flag with every tunnel_key,
// and the kernel keeps it only for "set": a filter whose unset action
// were compared with the flag would never be in sync, and --from-kernel
// would refuse its words.
func TestFilterActionsAsKept(t *testing.T) {
	opts, _, err := tckind.LookupFilter("matchall").Parse([]string{"action", "tunnel_key", "unset"}, tckind.FilterEnv{Protocol: 3})
	if err != nil {
		t.Fatal(err)
	}
	acts, ok := tckind.FilterActions(opts)
	if !ok || len(acts) != 1 || acts[0].Options.(*attrs.ActTunnelKeyAttrs).NoCsum == nil {
		t.Fatalf("matchall's parse of tunnel_key unset: %+v, %v", acts, ok)
	}
	kept, _ := tckind.FilterActions(tckind.FilterDumped("matchall", opts))
	if c := kept[0].Options.(*attrs.ActTunnelKeyAttrs).NoCsum; c != nil {
		t.Errorf("FilterDumped keeps tunnel_key unset's checksum flag (%d), which the kernel drops", *c)
	}
	if acts[0].Options.(*attrs.ActTunnelKeyAttrs).NoCsum == nil {
		t.Error("FilterDumped changed the options it was given")
	}
}

// TestGREDQueues: a gred qdisc with virtual queues, which the kernel
// takes as its table (the setup) and then one change per queue, is
// created that way, is in sync with the kernel's dump of it, and has
// just the changed queue's change sent, or is made anew when a queue is
// to go (no change removes one).
func TestGREDQueues(t *testing.T) {
	const setup = "gred setup vqs 4 default 1 grio"
	vq0 := "vq 0 prio 2 limit 60KB min 15K max 25K avpkt 1500"
	vq1 := "vq 1 limit 100k min 20k max 60k avpkt 1000 probability 0.05"
	file := func(spec string) string {
		return "devices:\n  eth0:\n    root: { qdisc: " + spec + ", handle: \"1:\" }\n"
	}
	k := newFake("eth0")
	if got := commands(t, k, file(setup+" "+vq0+" "+vq1)); len(got) != 3 ||
		got[0] != "qdisc replace dev eth0 root handle 1: gred setup vqs 4 default 1 grio" ||
		!strings.HasPrefix(got[1], "qdisc change dev eth0 root handle 1: gred vq 0 prio 2 limit 61440 ") ||
		!strings.HasPrefix(got[2], "qdisc change dev eth0 root handle 1: gred vq 1 limit 102400 ") {
		t.Fatalf("a new gred's requests:\n%s", strings.Join(got, "\n"))
	}
	// The kernel's state: the table with its queues, as it dumps them.
	kind := "gred"
	opts, err := parseQdiscOptions(kind, strings.Fields(setup + " " + vq0 + " " + vq1)[1:])
	if err != nil {
		t.Fatal(err)
	}
	m := netlink.Msg{}
	m.Header.Ifindex, m.Header.Parent, m.Header.Handle = 1, netlink.HandleRoot, netlink.MakeHandle(1, 0)
	m.Attrs.Kind, m.Attrs.Options = &kind, tckind.Dumped(kind, opts)
	k.qdiscs = []netlink.Msg{m}
	if got := commands(t, k, file(setup+" "+vq0+" "+vq1)); len(got) != 0 {
		t.Errorf("a gred as the kernel has it sends:\n%s", strings.Join(got, "\n"))
	}
	f, err := FromKernel(context.Background(), k, []string{"eth0"})
	if err != nil {
		t.Fatal(err)
	}
	if spec := f.Devices["eth0"].Root.Spec; !strings.HasPrefix(spec, setup+" vq 0 prio 2 ") || !strings.Contains(spec, " vq 1 ") {
		t.Errorf("--from-kernel writes %q", spec)
	}
	vq1b := strings.Replace(vq1, "limit 100k", "limit 200k", 1)
	if got := commands(t, k, file(setup+" "+vq0+" "+vq1b)); len(got) != 1 ||
		!strings.HasPrefix(got[0], "qdisc change dev eth0 root handle 1: gred vq 1 limit 204800 ") {
		t.Errorf("one queue changed sends:\n%s", strings.Join(got, "\n"))
	}
	if got := commands(t, k, file(setup+" "+vq0)); len(got) != 3 || !strings.HasPrefix(got[0], "qdisc del dev eth0 root handle 1:") ||
		got[1] != "qdisc add dev eth0 root handle 1: gred setup vqs 4 default 1 grio" || !strings.Contains(got[2], "gred vq 0 ") {
		t.Errorf("a queue removed sends:\n%s", strings.Join(got, "\n"))
	}
}
