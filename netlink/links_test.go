// SPDX-License-Identifier: Apache-2.0

package netlink

import (
	"context"
	"errors"
	"testing"
)

// fakeConn is a kernel with two devices that counts its link dumps.
type fakeConn struct{ dumps int }

func (f *fakeConn) LinkIndex(_ context.Context, name string) (int32, error) {
	for idx, n := range f.names() {
		if n == name {
			return idx, nil
		}
	}
	return 0, errors.New("no such device")
}

func (f *fakeConn) LinkNames(context.Context) (map[int32]string, error) {
	f.dumps++
	return f.names(), nil
}

func (f *fakeConn) names() map[int32]string { return map[int32]string{1: "lo", 7: "eth0"} }

func TestLinksNames(t *testing.T) {
	c := &fakeConn{}
	l := NewLinks(context.Background(), c)
	// Index asks the kernel; naming 0 needs no dump.
	if idx, ok := l.Index("eth0"); !ok || idx != 7 {
		t.Errorf("Index(eth0) = %d, %v", idx, ok)
	}
	if _, ok := l.Index("nope"); ok {
		t.Error("Index(nope) found a device")
	}
	if got := l.Name(0); got != "*" || c.dumps != 0 {
		t.Errorf("Name(0) = %q after %d dumps", got, c.dumps)
	}
	for idx, want := range map[int32]string{1: "lo", 7: "eth0", 3: "if3", -1: "if-1"} {
		if got := l.Name(idx); got != want {
			t.Errorf("Name(%d) = %q, want %q", idx, got, want)
		}
	}
	if err := l.Load(); err != nil || c.dumps != 1 {
		t.Errorf("Load: %v after %d dumps, want one for every name", err, c.dumps)
	}
	names := l.Names()
	if len(names) != 2 || names[7] != "eth0" || c.dumps != 1 {
		t.Errorf("Names() = %v after %d dumps", names, c.dumps)
	}
	names[7] = "changed"
	if got := l.Name(7); got != "eth0" {
		t.Errorf("Name(7) = %q after a change to what Names returned", got)
	}
	// A known device keeps the names; an unknown one has them read again.
	l.Notice(7)
	l.Name(1)
	if c.dumps != 1 {
		t.Errorf("%d dumps after a known device, want 1", c.dumps)
	}
	l.Notice(9)
	l.Name(1)
	if c.dumps != 2 {
		t.Errorf("%d dumps after a new device, want 2", c.dumps)
	}
}

// noConn is a connection that cannot be opened, counting the tries.
type noConn struct{ tries int }

func (n *noConn) LinkIndex(context.Context, string) (int32, error) {
	n.tries++
	return 0, errors.New("no netlink")
}

func (n *noConn) LinkNames(context.Context) (map[int32]string, error) {
	n.tries++
	return nil, errors.New("no netlink")
}

// TestLinksNoConn names nothing when the connection cannot be opened, and
// does not try again for every name.
func TestLinksNoConn(t *testing.T) {
	c := &noConn{}
	l := NewLinks(context.Background(), c)
	if _, ok := l.Index("lo"); ok {
		t.Error("Index found a device without a connection")
	}
	if err := l.Load(); err == nil || err.Error() != "no netlink" {
		t.Errorf("Load: %v, want the connection's failure", err)
	}
	if got := l.Name(0); got != "*" {
		t.Errorf("Name(0) = %q", got)
	}
	if got, again := l.Name(1), l.Name(2); got != "if1" || again != "if2" {
		t.Errorf("Name(1), Name(2) = %q, %q", got, again)
	}
	if c.tries != 2 {
		t.Errorf("the kernel was asked %d times, want 2 (Index, then one Load for every later name)", c.tries)
	}
}

// failingDump is a kernel whose link dump fails.
type failingDump struct{ fakeConn }

func (f *failingDump) LinkNames(context.Context) (map[int32]string, error) {
	f.dumps++
	return nil, errors.New("dump failed")
}

// TestLinksFailedDump returns the dump's failure once and names no index.
func TestLinksFailedDump(t *testing.T) {
	c := &failingDump{}
	l := NewLinks(context.Background(), c)
	if err := l.Load(); err == nil || err.Error() != "dump failed" {
		t.Errorf("Load: %v, want the dump's failure", err)
	}
	if err := l.Load(); err != nil || c.dumps != 1 {
		t.Errorf("second Load: %v after %d dumps, want nil after 1", err, c.dumps)
	}
	if got := l.Name(7); got != "if7" || len(l.Names()) != 0 {
		t.Errorf("Name(7) = %q, Names() = %v", got, l.Names())
	}
	// Index still asks the kernel by name.
	if idx, ok := l.Index("eth0"); !ok || idx != 7 {
		t.Errorf("Index(eth0) = %d, %v", idx, ok)
	}
}
