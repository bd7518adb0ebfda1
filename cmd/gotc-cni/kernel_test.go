// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"context"
	"encoding/json"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/gotc/gotc/internal/hostns"

	"github.com/containernetworking/cni/pkg/skel"
	"github.com/containernetworking/cni/pkg/types"
	vnl "github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"

	"github.com/gotc/gotc"
	"github.com/gotc/gotc/apply"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
)

// inNewNetns runs the test on a thread in a network namespace of its own,
// skipping it where that cannot be made (not root) or the kernel lacks
// ifb and tbf.
func inNewNetns(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		hostns.Skip(t, "needs root for a network namespace")
	}
	runtime.LockOSThread()
	orig, err := netns.Get()
	if err != nil {
		t.Fatal(err)
	}
	ns, err := netns.New()
	if err != nil {
		runtime.UnlockOSThread()
		hostns.Skip(t, "no new network namespace: %v", err)
	}
	t.Cleanup(func() {
		ns.Close()
		if err := netns.Set(orig); err != nil {
			t.Errorf("back to the test's namespace: %v", err)
			return // the thread stays locked, and dies with the goroutine
		}
		orig.Close()
		runtime.UnlockOSThread()
	})
	if err := vnl.LinkAdd(&vnl.Ifb{LinkAttrs: vnl.LinkAttrs{Name: "probe0", TxQLen: -1}}); err != nil {
		hostns.Skip(t, "no ifb in this kernel: %v", err)
	}
}

// rootQdisc is the kernel's root qdisc of dev.
func rootQdisc(t *testing.T, dev string) *netlink.Msg {
	t.Helper()
	c, err := gotc.Dial(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	idx, err := c.Conn().LinkIndex(context.Background(), dev)
	if err != nil {
		t.Fatal(err)
	}
	for m, err := range c.Conn().Msgs(context.Background(), netlink.Qdisc, netlink.DumpFilter{Ifindex: idx}) {
		if err != nil {
			t.Fatal(err)
		}
		if m.Header.Parent == netlink.HandleRoot {
			return m
		}
	}
	return nil
}

func kind(m *netlink.Msg) string {
	if m == nil || m.Attrs.Kind == nil {
		return ""
	}
	return *m.Attrs.Kind
}

// TestKernelIngressOnly: on an ifb standing for the host veth (the host's
// kernel may lack veth, u32 and mirred), the ingress-rate state: applied,
// dumped back as the bandwidth plugin sends it, in sync on a second run,
// CHECK failing on drift and naming the repair, and gone after DEL's
// reconcile.
func TestKernelIngressOnly(t *testing.T) {
	inNewNetns(t)
	if err := vnl.LinkAdd(&vnl.Ifb{LinkAttrs: vnl.LinkAttrs{Name: "host0", TxQLen: -1}}); err != nil {
		t.Fatal(err)
	}
	conf, err := parseConf([]byte(`{"cniVersion": "1.1.0", "name": "n", "type": "gotc-cni", "ingressRate": 8000000, "ingressBurst": 160000}`))
	if err != nil {
		t.Fatal(err)
	}
	f, err := conf.desired("host0", ifbName("n", "c"), tickInUsec())
	if err != nil {
		t.Fatal(err)
	}
	if err := reconcile(f, true); err == nil {
		t.Fatal("CHECK before ADD passed")
	}
	if err := reconcile(f, false); err != nil {
		t.Fatalf("ADD: %v", err)
	}
	q := rootQdisc(t, "host0")
	o, ok := q.Attrs.Options.(*attrs.TBFAttrs)
	want := tbf(8000000, 160000, tickInUsec()).Parms
	if kind(q) != "tbf" || !ok || o.Parms == nil || *o.Parms != *want || q.Header.Handle != gotc.Handle(1, 0) {
		t.Fatalf("root qdisc %s %+v, want tbf 1: %+v", kind(q), q.Attrs.Options, *want)
	}
	if err := reconcile(f, false); err != nil {
		t.Fatalf("second ADD: %v", err)
	}
	if err := reconcile(f, true); err != nil {
		t.Fatalf("CHECK: %v", err)
	}
	// Drift: the rate halved behind the plugin's back.
	drift := tbf(4000000, 160000, tickInUsec())
	c, err := gotc.Dial(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.ChangeQdisc(context.Background(), gotc.Qdisc{Dev: "host0", Parent: gotc.Root, Handle: gotc.Handle(1, 0), Kind: "tbf", Options: drift}); err != nil {
		t.Fatal(err)
	}
	if err := reconcile(f, true); err == nil || !strings.Contains(err.Error(), "qdisc change dev host0 root handle 1: tbf") {
		t.Fatalf("CHECK after drift: %v, want the change that repairs it", err)
	}
	if err := reconcile(f, false); err != nil {
		t.Fatalf("ADD repairing drift: %v", err)
	}
	if err := reconcile(f, true); err != nil {
		t.Fatalf("CHECK after repair: %v", err)
	}
	if err := reconcile(&apply.File{Devices: map[string]*apply.Device{"host0": {}}}, false); err != nil {
		t.Fatalf("DEL: %v", err)
	}
	if q := rootQdisc(t, "host0"); q != nil && q.Header.Handle != 0 {
		t.Fatalf("after DEL: root qdisc %s %x", kind(q), q.Header.Handle)
	}
}

// TestKernelIfbAndGC: the ifb is made once (a second ADD keeps it), named
// and marked for GC, which deletes it once its attachment is no longer
// valid; DEL of an ifb already gone is no error.
func TestKernelIfbAndGC(t *testing.T) {
	inNewNetns(t)
	name := ifbName("n", "c1")
	for range 2 {
		if _, err := ensureIfb(name, "n", "c1", "eth0", 1400); err != nil {
			t.Fatal(err)
		}
	}
	l, err := vnl.LinkByName(name)
	if err != nil {
		t.Fatal(err)
	}
	if a := l.Attrs(); a.MTU != 1400 || a.Flags&1 == 0 || a.Alias != "gotc-cni n/c1/eth0" {
		t.Fatalf("ifb: mtu %d, flags %v, alias %q", a.MTU, a.Flags, a.Alias)
	}
	gc := func(valid ...string) {
		t.Helper()
		conf := map[string]any{"cniVersion": "1.1.0", "name": "n", "type": "gotc-cni"}
		var atts []types.GCAttachment
		for _, v := range valid {
			atts = append(atts, types.GCAttachment{ContainerID: v, IfName: "eth0"})
		}
		conf["cni.dev/valid-attachments"] = atts
		data, _ := json.Marshal(conf)
		if err := cmdGC(&skel.CmdArgs{StdinData: data}); err != nil {
			t.Fatalf("GC: %v", err)
		}
	}
	gc("c1")
	if _, err := vnl.LinkByName(name); err != nil {
		t.Fatalf("GC deleted a valid attachment's ifb: %v", err)
	}
	gc("c2")
	if _, err := vnl.LinkByName(name); err == nil {
		t.Fatal("GC kept the ifb of an attachment no longer valid")
	}
	if _, err := vnl.LinkByName("probe0"); err != nil {
		t.Fatalf("GC deleted an ifb not gotc-cni's: %v", err)
	}
	for range 2 {
		if err := cmdDel(&skel.CmdArgs{ContainerID: "c1", IfName: "eth0", StdinData: []byte(`{"cniVersion": "1.1.0", "name": "n", "type": "gotc-cni"}`)}); err != nil {
			t.Fatalf("DEL: %v", err)
		}
	}
}

// TestKernelLeafAndTree: the TBF of aqm fq_codel or fq with its leaf
// (pfifo here, for hosts without those AQMs: the tree is the same), and a
// tree configuration, each applied, in sync, and deleted.
func TestKernelLeafAndTree(t *testing.T) {
	inNewNetns(t)
	if err := vnl.LinkAdd(&vnl.Ifb{LinkAttrs: vnl.LinkAttrs{Name: "host0", TxQLen: -1}}); err != nil {
		t.Fatal(err)
	}
	root := shaper(8000000, 160000, "fq_codel", tickInUsec())
	root.Classes["1:1"].Leaf.Spec = "pfifo limit 50"
	leaf := &apply.File{Devices: map[string]*apply.Device{"host0": {Root: root}}}
	conf, err := parseConf([]byte(`{"name": "n", "tree": {"root": {"qdisc": "htb default 10", "handle": "1:", "classes": {"1:10": {"class": "htb rate 5mbit", "leaf": "pfifo limit 20"}}}, "ingress": {"qdisc": "ingress"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	tree, err := conf.desired("host0", "", tickInUsec())
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range []*apply.File{leaf, tree} {
		if err := reconcile(f, false); err != nil {
			t.Fatalf("ADD: %v", err)
		}
		if err := reconcile(f, true); err != nil {
			t.Fatalf("CHECK: %v", err)
		}
		if other := []*apply.File{tree, leaf}[i]; reconcile(other, true) == nil {
			t.Fatalf("CHECK of file %d passed on the state of the other", 1-i)
		}
		if i == 1 {
			break
		}
		// From one to the other at the same handle 1: the kernel
		// refuses to replace a qdisc by one of another kind in place.
		if err := reconcile(tree, false); err != nil {
			t.Fatalf("from the TBF to the tree: %v", err)
		}
		if err := reconcile(tree, true); err != nil {
			t.Fatalf("CHECK after the switch: %v", err)
		}
		if err := reconcile(&apply.File{Devices: map[string]*apply.Device{"host0": {}}}, false); err != nil {
			t.Fatalf("DEL: %v", err)
		}
		if q := rootQdisc(t, "host0"); q != nil && q.Header.Handle != 0 {
			t.Fatalf("after DEL: root qdisc %s %x", kind(q), q.Header.Handle)
		}
	}
}

// TestKernelEgressPlan: the egress state's plan (the host kernel may lack
// u32 and mirred, so nothing is sent): the ifb's TBF, the ingress qdisc
// and the redirect filter, whose words gotc's parsers take.
func TestKernelEgressPlan(t *testing.T) {
	inNewNetns(t)
	if err := vnl.LinkAdd(&vnl.Ifb{LinkAttrs: vnl.LinkAttrs{Name: "host0", TxQLen: -1}}); err != nil {
		t.Fatal(err)
	}
	conf, err := parseConf([]byte(`{"name": "n", "egressRate": 16000000, "egressBurst": 160000}`))
	if err != nil {
		t.Fatal(err)
	}
	ifb := ifbName("n", "c")
	if _, err := ensureIfb(ifb, "n", "c", "eth0", 1500); err != nil {
		t.Fatal(err)
	}
	f, err := conf.desired("host0", ifb, tickInUsec())
	if err != nil {
		t.Fatal(err)
	}
	k, done, err := kernel()
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	plan, err := apply.Compute(context.Background(), k, f)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(plan.Commands(), "\n")
	for _, want := range []string{
		"qdisc replace dev " + ifb + " root handle 1: tbf",
		"qdisc replace dev host0 ingress",
		"filter add dev host0 ingress protocol all pref 1 u32 match u32 0x00000000 0x00000000 at 0 classid 1:1" +
			" action mirred egress redirect dev " + ifb + " action mirred egress redirect dev " + ifb + " pass",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("plan lacks %q:\n%s", want, got)
		}
	}
	// The verdicts sent: stolen (4), then pass (0), as the plugin's.
	var verdicts []int32
	for _, r := range plan.Requests {
		if u, ok := r.Msg.Attrs.Options.(*attrs.U32Attrs); ok {
			for _, a := range u.Act {
				verdicts = append(verdicts, a.Options.(*attrs.ActMirredAttrs).Parms.Action)
			}
		}
	}
	if len(verdicts) != 2 || verdicts[0] != 4 || verdicts[1] != 0 {
		t.Errorf("mirred verdicts %v, want [4 0]", verdicts)
	}
}

// TestKernelFastRate: a rate beyond 32 bits of bytes a second (40 Gbit/s)
// travels as a 64-bit rate and is in sync once applied.
func TestKernelFastRate(t *testing.T) {
	inNewNetns(t)
	if err := vnl.LinkAdd(&vnl.Ifb{LinkAttrs: vnl.LinkAttrs{Name: "host0", TxQLen: -1}}); err != nil {
		t.Fatal(err)
	}
	conf, err := parseConf([]byte(`{"name": "n", "ingressRate": 40000000000, "ingressBurst": 400000000}`))
	if err != nil {
		t.Fatal(err)
	}
	f, err := conf.desired("host0", "", tickInUsec())
	if err != nil {
		t.Fatal(err)
	}
	if err := reconcile(f, false); err != nil {
		t.Fatalf("ADD: %v", err)
	}
	if err := reconcile(f, true); err != nil {
		t.Fatalf("CHECK: %v", err)
	}
	o, _ := rootQdisc(t, "host0").Attrs.Options.(*attrs.TBFAttrs)
	if o == nil || o.Rate64 == nil || *o.Rate64 != 5_000_000_000 {
		t.Fatalf("dumped %+v, want a 64-bit rate of 5e9 bytes/s", o)
	}
}
