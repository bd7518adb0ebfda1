// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gotc/gotc/netlink"
)

// TestLock: a device's lock is held once (the second Lock, even from the
// same process, is refused naming the holder), another device's is free,
// and release frees them.
func TestLock(t *testing.T) {
	dir := t.TempDir()
	release, err := Lock(dir, "net-1", []string{"eth1", "eth0", "eth0"}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Lock(dir, "net-1", []string{"eth2", "eth1"}, nil, false)
	var busy *Busy
	if !errors.As(err, &busy) || busy.Device != "eth1" || busy.Pid != os.Getpid() {
		t.Fatalf("second lock: %v, want eth1 busy by this process", err)
	}
	// eth2, taken before eth1 was found busy, was let go.
	r2, err := Lock(dir, "net-1", []string{"eth2"}, nil, false)
	if err != nil {
		t.Fatalf("eth2 after a refused lock: %v", err)
	}
	r2()
	other, err := Lock(dir, "net-2", []string{"eth0"}, nil, false)
	if err != nil {
		t.Fatalf("eth0 of another namespace: %v", err)
	}
	other()
	release()
	r3, err := Lock(dir, "net-1", []string{"eth0", "eth1"}, nil, false)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	r3()

	// A shared block's lock is its own, beside any device's.
	rb, err := Lock(dir, "net-1", []string{"eth0"}, []uint32{6, 5}, false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Lock(dir, "net-1", []string{"eth1"}, []uint32{5}, false)
	if !errors.As(err, &busy) || busy.Device != "" || busy.Block != 5 || busy.Pid != os.Getpid() {
		t.Fatalf("a held block: %v, want block 5 busy by this process", err)
	}
	if want := "block 5 is being changed by process "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a held block: %q, want it to begin %q", err, want)
	}
	r4, err := Lock(dir, "net-1", []string{"eth1"}, []uint32{7}, false)
	if err != nil {
		t.Fatalf("another block: %v", err)
	}
	r4()
	rb()

	// The standalone actions have one lock, whatever the devices.
	ra, err := Lock(dir, "net-1", []string{"eth0"}, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Lock(dir, "net-1", []string{"eth1"}, nil, true)
	if !errors.As(err, &busy) || !busy.Actions || busy.Pid != os.Getpid() {
		t.Fatalf("held actions: %v, want the actions busy by this process", err)
	}
	if want := "the standalone actions are being changed by process "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("held actions: %q", err)
	}
	ra()
}

// TestRecheck: a plan rechecked against an unchanged kernel is current;
// after another writer changed a device it owns, it is stale, naming the
// device, and a change to a device the file does not name goes unseen.
func TestRecheck(t *testing.T) {
	k := newFake("eth0", "ifb0", "eth1")
	if _, err := applyFile(t, k, htbFile); err != nil {
		t.Fatal(err)
	}
	want := `
devices:
  eth0:
    root: { qdisc: htb default 10, handle: "1:", classes: { "1:1": { class: htb rate 50mbit } } }
  ifb0:
    root: pfifo
`
	p := plan(t, k, want)
	if err := p.Recheck(context.Background(), k); err != nil {
		t.Fatalf("unchanged: %v", err)
	}
	// Another writer, on a device of no file's.
	other := plan(t, k, "devices:\n  eth1:\n    root: pfifo\n")
	if _, err := other.Run(context.Background(), k, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.Recheck(context.Background(), k); err != nil {
		t.Fatalf("a change to eth1: %v", err)
	}
	// Another writer changes class 1:20 of eth0.
	var m netlink.Msg
	m.Header.Ifindex, m.Header.Handle = k.devs["eth0"], netlink.MakeHandle(1, 0x20)
	if _, err := k.Do(context.Background(), netlink.Class, netlink.Delete, &m); err != nil {
		t.Fatal(err)
	}
	err := p.Recheck(context.Background(), k)
	var stale *Stale
	if !errors.As(err, &stale) || !slices.Equal(stale.Devices, []string{"eth0"}) {
		t.Fatalf("after a class delete: %v, want eth0 stale", err)
	}
	if (&Plan{}).Recheck(context.Background(), k) == nil {
		t.Error("a plan not made by Compute rechecks")
	}
}
