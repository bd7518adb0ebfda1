// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gotc/gotc/netlink"
)

// listen subscribes a connection of its own in ns to the kernel's
// announcements.
func listen(t *testing.T, ns string) Announcements {
	t.Helper()
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
	l := EventConn{Conn: c}
	if _, err := l.Pending(context.Background()); err != nil {
		t.Fatal(err)
	}
	return l
}

// TestForeignWriterHost: a tc command run between two of the plan's
// requests stops the apply, which undoes what it sent and names the
// change; without one, the plan's own announcements (changes, a leaf
// replaced by another kind, deletes) stop nothing.
func TestForeignWriterHost(t *testing.T) {
	ns, k := hostNS(t)
	if _, err := hostApply(t, k, hostHTB); err != nil {
		t.Fatal(err)
	}
	before := tcState(t, ns)
	next := strings.Replace(hostHTB, "rate 10mbit", "rate 15mbit", 1)
	next = strings.Replace(next, "rate 20mbit ceil", "rate 25mbit ceil", 1)
	p := plan(t, k, next)
	if len(p.Requests) < 2 {
		t.Fatalf("want 2 requests or more, plan:\n%s", strings.Join(p.Commands(), "\n"))
	}
	p.Listen = listen(t, ns)
	p.afterRequest = func(i int) {
		if i == 0 {
			// Changes nothing, yet the kernel announces it.
			sh(t, "tc -n "+ns+" qdisc change dev ifb0 parent 1:10 handle 10: pfifo limit 50")
		}
	}
	_, err := p.Run(context.Background(), k, nil)
	var f *Foreign
	if !errors.As(err, &f) || f.UndoErr != nil || f.Sent != 1 {
		t.Fatalf("got %v, want a Foreign after 1 request, undone", err)
	}
	if !strings.Contains(err.Error(), "qdisc 10: pfifo added or changed, parent 1:10") {
		t.Errorf("message %q does not name tc's change", err)
	}
	if got := tcState(t, ns); got != before {
		t.Errorf("state after the stopped apply:\n%s\nwant the one before:\n%s", got, before)
	}

	// Alone, the same plan, one with replaces and deletes, and chains
	// added and deleted at the qdisc, a class and shared blocks, run
	// through.
	chains := strings.Replace(hostHTB, `"1:10": { class:`, `"1:10": { chains: [chain 3], class:`, 1)
	chains = strings.Replace(chains, `      handle: "1:"`, "      handle: \"1:\"\n      chains: [chain 1, chain 2]", 1)
	chains += "    ingress: ingress_block 5 egress_block 6 clsact\nblocks:\n  5:\n    chains: [chain 2, chain 7]\n"
	for _, text := range []string{chains, strings.Replace(strings.Replace(chains, "[chain 2, chain 7]", "[chain 4]", 1), "[chain 1, chain 2]", "[chain 2]", 1), hostHTB} {
		p := plan(t, k, text)
		p.Listen = listen(t, ns)
		if _, err := p.Run(context.Background(), k, nil); err != nil {
			t.Fatalf("no other writer, plan:\n%s\n%v", strings.Join(p.Commands(), "\n"), err)
		}
	}
	// Alone, the same plan and one with replaces and deletes run through.
	for _, text := range []string{next, strings.Replace(strings.Replace(hostHTB, "qdisc: pfifo limit 50", "qdisc: bfifo limit 9000", 1), `"1:20": { class: htb rate 20mbit ceil 50mbit, leaf: { qdisc: tbf rate 20mbit burst 32k latency 50ms, handle: "20:" } }`, "", 1)} {
		p := plan(t, k, text)
		p.Listen = listen(t, ns)
		if _, err := p.Run(context.Background(), k, nil); err != nil {
			t.Fatalf("no other writer, plan:\n%s\n%v", strings.Join(p.Commands(), "\n"), err)
		}
		if p := plan(t, k, text); len(p.Requests) != 0 {
			t.Fatalf("not in sync after: %v", p.Commands())
		}
	}
}
