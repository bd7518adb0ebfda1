// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"context"
	"errors"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gotc/gotc/internal/hostns"

	"github.com/gotc/gotc/netlink"
)

// hostNS is a network namespace of its own with an ifb0 that is up, on the
// host's kernel, and a Kernel in it; it skips where it cannot be made
// (not root, no ip or tc, no ifb).
func hostNS(t *testing.T) (string, Kernel) {
	t.Helper()
	if _, err := exec.LookPath("tc"); err != nil {
		hostns.Skip(t, "needs tc(8)")
	}
	ns := hostns.New(t, "apply", "ifb0")
	h, err := netlink.OpenNetNS(ns)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	c, err := h.Dial(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return ns, KernelConn{Conn: c}
}

// sh runs a command line (words split on spaces) and fails the test if it
// fails.
func sh(t *testing.T, line string) string {
	t.Helper()
	w := strings.Fields(line)
	out, err := exec.Command(w[0], w[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
	return string(out)
}

// directPackets is htb's count of packets sent unclassified, which the
// device's own traffic (IPv6's, once it is up) moves: not state.
var directPackets = regexp.MustCompile(`direct_packets_stat \d+`)

// tcState is tc's -d view of ifb0's qdiscs, classes and filters, its lines
// sorted (the kernel lists classes in an order that depends on the order
// they were made in).
func tcState(t *testing.T, ns string) string {
	t.Helper()
	var lines []string
	for _, obj := range []string{"qdisc", "class", "filter"} {
		lines = append(lines, strings.Split(sh(t, "tc -n "+ns+" -d "+obj+" show dev ifb0"), "\n")...)
	}
	slices.Sort(lines)
	return directPackets.ReplaceAllString(strings.TrimSpace(strings.Join(lines, "\n")), "direct_packets_stat N")
}

// hostApply loads text and runs its plan against k.
func hostApply(t *testing.T, k Kernel, text string) (*Plan, error) {
	t.Helper()
	f, err := Load("test.yaml", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compute(context.Background(), k, f)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Run(context.Background(), k, nil)
	return p, err
}

const hostHTB = `devices:
  ifb0:
    root:
      qdisc: htb default 10
      handle: "1:"
      classes:
        "1:1":
          class: htb rate 100mbit
          classes:
            "1:10": { class: htb rate 10mbit ceil 100mbit, leaf: { qdisc: pfifo limit 50, handle: "10:" } }
            "1:20": { class: htb rate 20mbit ceil 50mbit, leaf: { qdisc: tbf rate 20mbit burst 32k latency 50ms, handle: "20:" } }
`

// TestRecheckHost: a tc command that changes a class between the plan
// and its sending makes the plan stale; nothing of it was sent.
func TestRecheckHost(t *testing.T) {
	ns, k := hostNS(t)
	if _, err := hostApply(t, k, hostHTB); err != nil {
		t.Fatal(err)
	}
	p := plan(t, k, strings.Replace(hostHTB, "rate 10mbit", "rate 15mbit", 1))
	if err := p.Recheck(context.Background(), k); err != nil {
		t.Fatalf("nobody else wrote: %v", err)
	}
	sh(t, "tc -n "+ns+" class change dev ifb0 parent 1:1 classid 1:20 htb rate 25mbit ceil 50mbit")
	err := p.Recheck(context.Background(), k)
	var stale *Stale
	if !errors.As(err, &stale) || !slices.Equal(stale.Devices, []string{"ifb0"}) {
		t.Fatalf("after tc's change: %v, want ifb0 stale", err)
	}
}

// TestLeafKindChangeHost: a leaf that changes kind and keeps its handle
// (pfifo to tbf, tbf to pfifo, htb to bfifo, and the root htb to prio) is
// deleted and added, which the kernel accepts, and the next plan is
// empty.
func TestLeafKindChangeHost(t *testing.T) {
	ns, k := hostNS(t)
	const before = `devices:
  ifb0:
    root:
      qdisc: htb default 10
      handle: "1:"
      classes:
        "1:10": { class: htb rate 10mbit, leaf: { qdisc: pfifo limit 50, handle: "10:" } }
        "1:20": { class: htb rate 20mbit, leaf: { qdisc: tbf rate 20mbit burst 32k latency 50ms, handle: "20:" } }
        "1:30":
          class: htb rate 30mbit
          leaf:
            qdisc: htb
            handle: "30:"
            classes: { "30:1": { class: htb rate 5mbit } }
`
	if _, err := hostApply(t, k, before); err != nil {
		t.Fatal(err)
	}
	after := strings.NewReplacer(
		"pfifo limit 50", "tbf rate 10mbit burst 16k latency 20ms",
		"tbf rate 20mbit burst 32k latency 50ms", "pfifo limit 70",
		"qdisc: htb\n", "qdisc: bfifo limit 9000\n",
		`            classes: { "30:1": { class: htb rate 5mbit } }`+"\n", "",
	).Replace(before)
	if _, err := hostApply(t, k, after); err != nil {
		t.Fatalf("leaf kinds changed: %v", err)
	}
	out := sh(t, "tc -n "+ns+" qdisc show dev ifb0")
	for _, want := range []string{"qdisc tbf 10: parent 1:10", "qdisc pfifo 20: parent 1:20 limit 70p", "qdisc bfifo 30: parent 1:30 limit 9000b"} {
		if !strings.Contains(out, want) {
			t.Errorf("tc shows\n%s\nwithout %q", out, want)
		}
	}
	if again := plan(t, k, after).Commands(); len(again) != 0 {
		t.Errorf("the next plan is %q", again)
	}
	root := "devices:\n  ifb0:\n    root: { qdisc: tbf rate 1mbit burst 10k latency 10ms, handle: \"1:\" }\n"
	if _, err := hostApply(t, k, root); err != nil {
		t.Fatalf("root htb to tbf with handle 1: kept: %v", err)
	}
	if again := plan(t, k, root).Commands(); len(again) != 0 {
		t.Errorf("the next plan is %q", again)
	}
	if out := sh(t, "tc -n "+ns+" qdisc show dev ifb0"); !strings.Contains(out, "qdisc tbf 1: root") {
		t.Errorf("tc shows\n%s", out)
	}
}

// TestUndoDeleteHost: the undo of deleting an htb tree (what Run sends
// when a later request is refused) brings back tc's exact -d view: htb's
// dumped version (3.17) goes back as tc sends it (3).
func TestUndoDeleteHost(t *testing.T) {
	ns, k := hostNS(t)
	if _, err := hostApply(t, k, hostHTB); err != nil {
		t.Fatal(err)
	}
	before := tcState(t, ns)
	ctx := context.Background()
	idx, err := k.LinkIndex(ctx, "ifb0")
	if err != nil {
		t.Fatal(err)
	}
	have, err := readDevice(ctx, k, "ifb0", idx)
	if err != nil {
		t.Fatal(err)
	}
	p := &planner{dev: "ifb0", ifindex: idx}
	del := p.deleteQdisc(have.root)
	for _, r := range append([]Request{del}, del.undo...) {
		if _, err := k.Do(ctx, r.Object, r.Op, &r.Msg); err != nil {
			t.Fatalf("%s: %v", r.Command, err)
		}
	}
	if got := tcState(t, ns); got != before {
		t.Errorf("after the undo tc shows\n%s\nbefore\n%s", got, before)
	}
}

// TestCrashAtEveryRequestHost: an apply killed after any number of its
// requests leaves a state that the next apply of the same file brings to
// exactly the state of an apply never killed (tc -d's view), with nothing
// left to do after it. Each request is one kernel transaction, so a kill
// lands between two; the first k requests of the plan are sent and the
// rest never are, for every k, on the host's kernel (htb on ifb), for
// three plans: changes in place with a leaf of a new kind, classes
// removed and added; a first apply onto the kernel's default; and htb's
// default class changed, which the kernel changes only by a new tree.
func TestCrashAtEveryRequestHost(t *testing.T) {
	ns, k := hostNS(t)
	const empty = "devices:\n  ifb0: {}\n"
	changed := strings.NewReplacer(
		"rate 10mbit ceil 100mbit", "rate 15mbit ceil 90mbit",
		`"1:20": { class: htb rate 20mbit ceil 50mbit, leaf: { qdisc: tbf rate 20mbit burst 32k latency 50ms, handle: "20:" } }`,
		`"1:30": { class: htb rate 5mbit ceil 10mbit, leaf: { qdisc: bfifo limit 30000, handle: "30:" } }
            "1:40": { class: htb rate 1mbit ceil 10mbit, leaf: { qdisc: pfifo limit 10, handle: "40:" } }`,
		"pfifo limit 50", "tbf rate 10mbit burst 16k latency 20ms",
	).Replace(hostHTB)
	newDefault := strings.Replace(changed, "htb default 10", "htb default 30", 1)
	ctx := context.Background()
	for _, tt := range []struct{ name, from, to string }{
		{"in place", hostHTB, changed},
		{"first apply", empty, hostHTB},
		{"new default", hostHTB, newDefault},
	} {
		t.Run(tt.name, func(t *testing.T) {
			reset := func() {
				t.Helper()
				exec.Command("tc", "-n", ns, "qdisc", "del", "dev", "ifb0", "root").Run()
				if _, err := hostApply(t, k, tt.from); err != nil {
					t.Fatal(err)
				}
			}
			reset()
			full, err := hostApply(t, k, tt.to)
			if err != nil {
				t.Fatal(err)
			}
			want := tcState(t, ns)
			n := len(full.Requests)
			if n < 2 {
				t.Fatalf("a plan of %d requests", n)
			}
			for killed := 1; killed < n; killed++ {
				reset()
				p := plan(t, k, tt.to)
				for _, r := range p.Requests[:killed] {
					if _, err := k.Do(ctx, r.Object, r.Op, &r.Msg); err != nil {
						t.Fatalf("killed after %d: %s: %v", killed, r.Command, err)
					}
				}
				again, err := hostApply(t, k, tt.to)
				if err != nil {
					t.Fatalf("killed after %d of %d requests, the next apply: %v\nits plan:\n%s", killed, n, err, strings.Join(again.Commands(), "\n"))
				}
				if got := tcState(t, ns); got != want {
					t.Errorf("killed after %d of %d requests, then applied: tc shows\n%s\nwant\n%s", killed, n, got, want)
				}
				if left := plan(t, k, tt.to).Commands(); len(left) != 0 {
					t.Errorf("killed after %d of %d requests, then applied: still %q", killed, n, left)
				}
			}
			t.Logf("%d requests, killed after each of 1..%d, converged:\n%s", n, n-1, strings.Join(full.Commands(), "\n"))
		})
	}
}

// TestDroppedSettingHost: a setting the file stops naming goes back to
// the kind's default, because the file is the whole state: htb's default
// class, an htb class's prio and ceil, tbf's peak rate, the fifos'
// limits (the device's queue length, in frames for bfifo). Each is applied
// with the setting, then without it: the state is then the one an apply
// of the file without it onto a bare device makes (tc -d's view), and the
// next plan is empty.
func TestDroppedSettingHost(t *testing.T) {
	ns, k := hostNS(t)
	const without = `devices:
  ifb0:
    root:
      qdisc: htb
      handle: "1:"
      classes:
        "1:10": { class: htb rate 10mbit, leaf: { qdisc: tbf rate 10mbit burst 16k latency 20ms, handle: "10:" } }
        "1:20": { class: htb rate 1mbit, leaf: { qdisc: pfifo, handle: "20:" } }
        "1:30": { class: htb rate 1mbit, leaf: { qdisc: bfifo, handle: "30:" } }
        "1:40": { class: htb rate 1mbit, leaf: { qdisc: pfifo_head_drop, handle: "40:" } }
`
	with := strings.NewReplacer(
		"qdisc: pfifo,", "qdisc: pfifo limit 7,",
		"qdisc: bfifo,", "qdisc: bfifo limit 7000,",
		"qdisc: pfifo_head_drop,", "qdisc: pfifo_head_drop limit 9,",
		"qdisc: htb\n", "qdisc: htb default 10\n",
		"class: htb rate 10mbit", "class: htb rate 10mbit ceil 20mbit prio 3",
		"latency 20ms", "latency 20ms peakrate 20mbit mtu 2000",
	).Replace(without)
	// The leaves' and classes' settings go first, htb's default (which
	// takes a new tree, so the rest with it) after.
	mid := strings.Replace(without, "qdisc: htb\n", "qdisc: htb default 10\n", 1)
	ref := map[string]string{}
	for _, f := range []string{with, mid, without} {
		exec.Command("tc", "-n", ns, "qdisc", "del", "dev", "ifb0", "root").Run()
		if _, err := hostApply(t, k, f); err != nil {
			t.Fatal(err)
		}
		ref[f] = tcState(t, ns)
	}
	for _, w := range []string{"default 0x10", "prio 3", "ceil 20Mbit", "peakrate 20Mbit", "limit 7p", "limit 7000b", "limit 9p"} {
		if !strings.Contains(ref[with], w) {
			t.Fatalf("the file with the settings lacks %q:\n%s", w, ref[with])
		}
		if strings.Contains(ref[without], w) {
			t.Fatalf("the file without the settings gives %q:\n%s", w, ref[without])
		}
	}
	exec.Command("tc", "-n", ns, "qdisc", "del", "dev", "ifb0", "root").Run()
	if _, err := hostApply(t, k, with); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{mid, without} {
		p, err := hostApply(t, k, f)
		if err != nil {
			t.Fatal(err)
		}
		if got := tcState(t, ns); got != ref[f] {
			t.Errorf("settings dropped by the plan\n%s\ntc shows\n%s\nwant\n%s", strings.Join(p.Commands(), "\n"), got, ref[f])
		}
		if left := plan(t, k, f).Commands(); len(left) != 0 {
			t.Errorf("then the plan is %q", left)
		}
	}
}

// TestBlocksHost makes shared blocks and chains on the host's kernel,
// which needs no classifier for chains without templates: applied, in
// sync; a chain dropped, one request; written by FromKernel and applied
// to the device wiped, the same chains; moved to another block, the
// qdisc is made again with it.
func TestBlocksHost(t *testing.T) {
	ns, k := hostNS(t)
	const file = `devices:
  ifb0:
    root:
      qdisc: htb
      handle: "1:"
      chains: [chain 4]
    ingress: ingress_block 5 egress_block 6 clsact
blocks:
  5:
    chains: [chain 2, chain 7]
  6:
    chains: [chain 0]
`
	chains := func() string {
		return sh(t, "tc -n "+ns+" chain show block 5") + sh(t, "tc -n "+ns+" chain show block 6") +
			sh(t, "tc -n "+ns+" chain show dev ifb0 parent 1:") + sh(t, "tc -n "+ns+" qdisc show dev ifb0 ingress")
	}
	if _, err := hostApply(t, k, file); err != nil {
		t.Fatal(err)
	}
	want := chains()
	for _, line := range []string{"chain chain 2 \nchain chain 7 \n", "chain chain 0 \n", "chain chain 4 \n", "ingress_block 5 egress_block 6"} {
		if !strings.Contains(want, line) {
			t.Fatalf("the kernel's chains and blocks:\n%s\nwithout %q", want, line)
		}
	}
	if got := commands(t, k, file); len(got) > 0 {
		t.Fatalf("changes pending after apply: %q", got)
	}
	dropped := strings.Replace(file, "[chain 2, chain 7]", "[chain 2]", 1)
	if got := commands(t, k, dropped); !slices.Equal(got, []string{"chain del block 5 chain 7"}) {
		t.Errorf("chain 7 dropped: %q", got)
	}

	f, err := FromKernel(context.Background(), k, []string{"ifb0"})
	if err != nil {
		t.Fatal(err)
	}
	var written strings.Builder
	if err := f.Write(&written); err != nil {
		t.Fatal(err)
	}
	sh(t, "tc -n "+ns+" qdisc del dev ifb0 root")
	sh(t, "tc -n "+ns+" qdisc del dev ifb0 clsact")
	if _, err := hostApply(t, k, written.String()); err != nil {
		t.Fatalf("%v; --from-kernel wrote:\n%s", err, written.String())
	}
	if got := chains(); got != want {
		t.Errorf("--from-kernel, wipe, apply:\n%s\nwant\n%s\n--from-kernel wrote:\n%s", got, want, written.String())
	}

	moved := strings.Replace(strings.Replace(file, "ingress_block 5", "ingress_block 8", 1), "  5:", "  8:", 1)
	if _, err := hostApply(t, k, moved); err != nil {
		t.Fatal(err)
	}
	if got := commands(t, k, moved); len(got) > 0 {
		t.Fatalf("changes pending after the move: %q", got)
	}
	if got := sh(t, "tc -n "+ns+" chain show block 8"); got != "chain chain 2 \nchain chain 7 \n" {
		t.Errorf("block 8's chains: %q", got)
	}
}

// TestClassChainsHost: a chain at an htb class, on the host's kernel (a
// class's filters need a classifier, which the VM's tests have): applied,
// in sync, dropped in one request, and gone with its class.
func TestClassChainsHost(t *testing.T) {
	ns, k := hostNS(t)
	file := strings.Replace(hostHTB, `"1:10": { class: htb rate 10mbit ceil 100mbit,`, `"1:10": { chains: [chain 3], class: htb rate 10mbit ceil 100mbit,`, 1)
	if _, err := hostApply(t, k, file); err != nil {
		t.Fatal(err)
	}
	if got := sh(t, "tc -n "+ns+" chain show dev ifb0 parent 1:10"); got != "chain parent 1: chain 3 \n" {
		t.Fatalf("class 1:10's chains: %q", got)
	}
	if got := commands(t, k, file); len(got) > 0 {
		t.Fatalf("changes pending after apply: %q", got)
	}
	if got := commands(t, k, hostHTB); !slices.Equal(got, []string{"chain del dev ifb0 parent 1:10 chain 3"}) {
		t.Errorf("the chain dropped: %q", got)
	}
	if _, err := hostApply(t, k, hostHTB); err != nil {
		t.Fatal(err)
	}
	if got := sh(t, "tc -n "+ns+" chain show dev ifb0 parent 1:10"); got != "" {
		t.Errorf("class 1:10's chains after the drop: %q", got)
	}
}
