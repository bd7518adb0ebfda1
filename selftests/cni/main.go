// SPDX-License-Identifier: Apache-2.0

// Command cni is gotc-cni's differential test against the bandwidth CNI
// plugin (containernetworking/plugins v1.10.0, built from the module that
// go.mod pins as a tool), run as root inside the test bed's VM, whose
// kernel has veth, u32, mirred and the AQMs:
//
//	selftests/vm/run --build ./cmd/gotc-cni --build github.com/containernetworking/plugins/plugins/meta/bandwidth \
//	    --build ./selftests/cni -- /gotc/bin/cni
//
// For each configuration (ingress only, egress only, both, runtimeConfig,
// subnets, bad ones), each plugin in turn gets a pod of its own (a veth
// pair, the far end in a namespace) and runs ADD, CHECK, CHECK after a
// rate changed with tc, a second ADD and DEL. The kernel's state after ADD
// (tc -d of qdiscs, classes and filters on the host veth and the ifb, the
// ifb's MTU and queue length), the verdicts and, for bad configurations,
// the error messages must be the same; the differences the plugins are
// known to have are printed as such and not counted. Then gotc-cni alone:
// its AQM options and tree, CHECK on drifts the bandwidth plugin does not
// look at, DEL after a crash, STATUS, GC and VERSION. Last, N pods' ADD and
// DEL with each plugin, timed, and what is left after: -pods N, 500 by
// default (the command above); ../vm-suite.sh runs 100 to keep the
// suite's time, the VM being emulated (TCG). -pods 0 skips the timed run.
//
// It prints "ok:", "FAIL:" and "differs (known):" lines and ends with
// "cni: N passed, M failed"; it exits 1 on any failure.
package main

import (
	"bytes"
	"crypto/sha512"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"
)

var (
	tcBin   = flag.String("tc", "/ref/bin/tc", "the reference tc, to read and change the state")
	ipBin   = flag.String("ip", "/ref/bin/ip", "the reference ip, to make the pods")
	binDir  = flag.String("bin", "/gotc/bin", "where gotc-cni and bandwidth are")
	pods    = flag.Int("pods", 500, "pods in the timed ADD/DEL run (0: none)")
	passed  int
	failed  int
	known   int
	network = "diffnet"
)

func ok(format string, a ...any) { passed++; fmt.Printf("ok: "+format+"\n", a...) }
func fail(format string, a ...any) {
	failed++
	fmt.Printf("FAIL: "+format+"\n", a...)
}
func differs(format string, a ...any) { known++; fmt.Printf("differs (known): "+format+"\n", a...) }

// run runs a command and returns its standard output; an error carries its
// standard error.
func run(name string, args ...string) (string, error) {
	var out, errb bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

func must(name string, args ...string) string {
	out, err := run(name, args...)
	if err != nil {
		fmt.Println("setup failed:", err)
		os.Exit(2)
	}
	return out
}

// pod is a veth pair: host in the host's namespace, ifname in netns.
type pod struct {
	id, netns, host, ifname string
}

// newPod names a pod; id is made a valid container ID (letters, digits,
// "-", "_" and ".").
func newPod(id, netns, host, ifname string) pod {
	id = invalidID.ReplaceAllString(id, "-")
	return pod{id: id, netns: netns, host: host, ifname: ifname}
}

var invalidID = regexp.MustCompile(`[^a-zA-Z0-9_.-]+`)

// make creates the pod's namespace (when new) and veth pair, both up.
func (p pod) make() {
	if _, err := os.Stat(nsPath(p.netns)); err != nil {
		must(*ipBin, "netns", "add", p.netns)
	}
	must(*ipBin, "link", "add", p.host, "type", "veth", "peer", "name", p.ifname, "netns", p.netns)
	must(*ipBin, "link", "set", p.host, "up")
	must(*ipBin, "-n", p.netns, "link", "set", p.ifname, "up")
}

// nsPath is where ip keeps the namespace called name: /var/run/netns, or
// /run/netns for an ip built so.
func nsPath(name string) string {
	if _, err := os.Stat("/run/netns/" + name); err == nil {
		if _, err := os.Stat("/var/run/netns/" + name); err != nil {
			return "/run/netns/" + name
		}
	}
	return "/var/run/netns/" + name
}

// remove deletes the pod's veth pair and namespace, and whatever ifb a
// plugin left.
func (p pod) remove() {
	_, _ = run(*ipBin, "link", "del", p.host)
	_, _ = run(*ipBin, "netns", "del", p.netns)
	_, _ = run(*ipBin, "link", "del", ifbName(p.id))
}

// ifbName is the bandwidth plugin's name for the pod's ifb, computed here
// from its definition: "bwp" and the hex SHA-512 of network and container
// ID, 15 characters in all.
func ifbName(containerID string) string {
	return fmt.Sprintf("bwp%x", sha512.Sum512([]byte(network+containerID)))[:15]
}

// prevResult is what the plugin before it (ptp, bridge) would return.
func (p pod) prevResult() map[string]any {
	return map[string]any{
		"cniVersion": "1.0.0",
		"interfaces": []map[string]any{
			{"name": p.host},
			{"name": p.ifname, "sandbox": nsPath(p.netns)},
		},
		"ips": []map[string]any{{"address": "10.9.0.2/24", "interface": 1}},
	}
}

// answer is a plugin's: its exit status, its output, and the CNI error's
// message when it failed.
type answer struct {
	ok   bool
	out  string
	msg  string
	took time.Duration
}

func (a answer) String() string {
	if a.ok {
		return "success"
	}
	return fmt.Sprintf("error %q", a.msg)
}

// call runs a plugin (gotc-cni or bandwidth) on a pod with a
// configuration; conf's "prevResult" is filled in unless noPrev.
func call(plugin, command string, p pod, conf map[string]any, noPrev bool) answer {
	c := map[string]any{}
	for k, v := range conf {
		c[k] = v
	}
	c["type"], c["name"] = plugin, network
	if _, set := c["cniVersion"]; !set {
		c["cniVersion"] = "1.0.0"
	}
	if !noPrev {
		c["prevResult"] = p.prevResult()
	}
	stdin, _ := json.Marshal(c)
	cmd := exec.Command(*binDir + "/" + plugin)
	cmd.Env = []string{"CNI_COMMAND=" + command, "CNI_CONTAINERID=" + p.id, "CNI_NETNS=" + nsPath(p.netns),
		"CNI_IFNAME=" + p.ifname, "CNI_PATH=" + *binDir, "PATH=/gotc/bin:/ref/bin:/bin:/sbin"}
	cmd.Stdin = bytes.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	a := answer{ok: err == nil, out: out.String(), took: time.Since(start)}
	if err != nil {
		var e struct {
			Msg     string `json:"msg"`
			Details string `json:"details"`
		}
		if json.Unmarshal(out.Bytes(), &e) == nil && e.Msg != "" {
			a.msg = e.Msg
			if e.Details != "" {
				a.msg += ": " + e.Details
			}
		} else {
			a.msg = strings.TrimSpace(out.String())
		}
	}
	return a
}

var (
	actionIndex = regexp.MustCompile(`index \d+ ref`)
	macs        = regexp.MustCompile(`"mac": "[0-9a-f:]*"`)
	linkIndex   = regexp.MustCompile(`^\d+: `)
	// ingressParent is what tc prints of a filter on the ingress qdisc
	// that was added with the qdisc's handle (ffff:) as its parent, as the
	// bandwidth plugin adds its own, where gotc-cni (apply) adds it at
	// tc's ingress hook (ffff:fff2); the kernel reports the parent each
	// was given, and both filters are on the same qdisc's block.
	ingressParent = regexp.MustCompile(`(?m)^filter parent ffff: `)
)

// state is what tc -d shows of the pod's host veth and ifb (action
// indexes masked: the kernel numbers them), and the ifb's link line
// without its index, address and alias.
func (p pod) state() string {
	var b strings.Builder
	for _, dev := range []string{p.host, ifbName(p.id)} {
		if _, err := run(*ipBin, "link", "show", dev); err != nil {
			fmt.Fprintf(&b, "no device %s\n", dev)
			continue
		}
		link, _ := run(*ipBin, "-o", "link", "show", "dev", dev)
		if dev != p.host {
			// ip -o's first line only: its continuations (after "\\")
			// are the address, the alias and altnames.
			first, _, _ := strings.Cut(strings.TrimSpace(link), `\`)
			fmt.Fprintf(&b, "link %s\n", linkIndex.ReplaceAllString(strings.TrimSpace(first), ""))
		}
		for _, args := range [][]string{{"qdisc"}, {"class"}, {"filter"}, {"filter", "ingress"}} {
			show := append([]string{"-d", args[0], "show", "dev", dev}, args[1:]...)
			out, _ := run(*tcBin, show...)
			fmt.Fprintf(&b, "tc %s:\n%s", strings.Join(show, " "), out)
		}
	}
	return actionIndex.ReplaceAllString(b.String(), "index N ref")
}

// outcome is one plugin's run of a case.
type outcome struct {
	add, check, drifted, again, del, del2 answer
	state, after                          string
	untouched                             bool
	ifbGone                               bool
}

// drift is a tc command that changes the host veth's root TBF (or the
// ifb's, for an egress-only case) to another rate.
func drift(p pod, conf map[string]any) []string {
	dev := p.host
	if _, ok := conf["ingressRate"]; !ok {
		dev = ifbName(p.id)
	}
	return []string{"qdisc", "change", "dev", dev, "root", "handle", "1:", "tbf", "rate", "3mbit", "burst", "20k", "latency", "25ms"}
}

func runCase(plugin string, p pod, conf map[string]any, noPrev, shapes bool) outcome {
	p.make()
	defer p.remove()
	var o outcome
	before := p.state()
	o.add = call(plugin, "ADD", p, conf, noPrev)
	o.state = p.state()
	o.untouched = o.state == before
	o.check = call(plugin, "CHECK", p, conf, noPrev)
	if o.add.ok && shapes {
		if _, err := run(*tcBin, drift(p, conf)...); err != nil {
			fmt.Println("  drift:", err)
		}
		o.drifted = call(plugin, "CHECK", p, conf, noPrev)
	}
	o.again = call(plugin, "ADD", p, conf, noPrev)
	o.del = call(plugin, "DEL", p, conf, noPrev)
	o.after = p.state()
	_, err := run(*ipBin, "link", "show", ifbName(p.id))
	o.ifbGone = err != nil
	o.del2 = call(plugin, "DEL", p, conf, noPrev)
	return o
}

// diffCase runs a configuration with both plugins and compares.
type diffCase struct {
	name   string
	conf   map[string]any
	noPrev bool
	// bad: both must refuse it, with the same message, the kernel untouched.
	bad bool
	// shapes: the state has a TBF to drift.
	shapes bool
	// gotcRefuses: gotc-cni refuses what the bandwidth plugin takes (a
	// known difference, with the reason).
	gotcRefuses string
}

func differential(c diffCase) {
	p := newPod("c-"+c.name, "podns", "vethpod", "eth0")
	ref := runCase("bandwidth", p, c.conf, c.noPrev, c.shapes)
	got := runCase("gotc-cni", p, c.conf, c.noPrev, c.shapes)
	if c.gotcRefuses != "" {
		if !got.add.ok && got.untouched && ref.add.ok {
			differs("%s: the bandwidth plugin takes it; gotc-cni refuses (%s), kernel untouched: %s", c.name, c.gotcRefuses, got.add.msg)
		} else {
			fail("%s: bandwidth ADD %s, gotc-cni ADD %s (untouched %t); want gotc-cni to refuse", c.name, ref.add, got.add, got.untouched)
		}
		return
	}
	if c.bad {
		switch {
		case ref.add.ok || got.add.ok:
			fail("%s: ADD bandwidth %s, gotc-cni %s; want both refused", c.name, ref.add, got.add)
		case ref.add.msg != got.add.msg:
			fail("%s: messages differ: bandwidth %q, gotc-cni %q", c.name, ref.add.msg, got.add.msg)
		case !got.untouched:
			fail("%s: gotc-cni's refused ADD changed the kernel:\n%s", c.name, got.state)
		default:
			ok("%s: both refuse ADD with %q; kernel untouched", c.name, got.add.msg)
		}
		if ref.check.ok != got.check.ok || ref.check.msg != got.check.msg {
			fail("%s: CHECK bandwidth %s, gotc-cni %s", c.name, ref.check, got.check)
		} else {
			ok("%s: both CHECK %s", c.name, got.check)
		}
		return
	}
	if !ref.add.ok || !got.add.ok {
		fail("%s: ADD bandwidth %s, gotc-cni %s", c.name, ref.add, got.add)
		return
	}
	switch {
	case ref.state == got.state:
		ok("%s: same kernel state after ADD (%d lines)", c.name, strings.Count(got.state, "\n"))
	case ingressParent.ReplaceAllString(ref.state, "filter ") == got.state:
		differs("%s: same kernel state after ADD (%d lines) but for the ingress filter's parent: bandwidth's given as ffff:, gotc-cni's as the ingress hook (ffff:fff2), on the same qdisc",
			c.name, strings.Count(got.state, "\n"))
	default:
		fail("%s: kernel state after ADD differs\n--- bandwidth\n%s--- gotc-cni\n%s", c.name, ref.state, got.state)
	}
	if r, g := macs.ReplaceAllString(ref.add.out, `"mac": "M"`), macs.ReplaceAllString(got.add.out, `"mac": "M"`); r != g {
		fail("%s: ADD's results differ\n--- bandwidth\n%s\n--- gotc-cni\n%s", c.name, r, g)
	} else {
		ok("%s: same ADD result (the ifb's address aside)", c.name)
	}
	if ref.check.ok != got.check.ok || !got.check.ok {
		fail("%s: CHECK bandwidth %s, gotc-cni %s; want both success", c.name, ref.check, got.check)
	} else {
		ok("%s: both CHECK success", c.name)
	}
	if c.shapes {
		if ref.drifted.ok || got.drifted.ok {
			fail("%s: CHECK after a rate changed by tc: bandwidth %s, gotc-cni %s; want both to fail", c.name, ref.drifted, got.drifted)
		} else {
			ok("%s: both CHECK fail after a rate changed by tc (gotc-cni: %.80s)", c.name, got.drifted.msg)
		}
	}
	if !got.again.ok {
		fail("%s: gotc-cni's second ADD: %s", c.name, got.again)
	} else if !ref.again.ok {
		differs("%s: second ADD: bandwidth %s; gotc-cni success (idempotent)", c.name, ref.again)
	} else {
		ok("%s: both take a second ADD", c.name)
	}
	if !ref.del.ok || !got.del.ok || !ref.del2.ok || !got.del2.ok {
		fail("%s: DEL, DEL again: bandwidth %s, %s; gotc-cni %s, %s", c.name, ref.del, ref.del2, got.del, got.del2)
	} else {
		ok("%s: both DEL twice", c.name)
	}
	if !got.ifbGone || !ref.ifbGone {
		fail("%s: ifb left after DEL: bandwidth %t, gotc-cni %t", c.name, !ref.ifbGone, !got.ifbGone)
	}
	if strings.Contains(got.after, "qdisc tbf") || strings.Contains(got.after, "qdisc ingress") {
		fail("%s: gotc-cni's DEL left qdiscs:\n%s", c.name, got.after)
	} else {
		ok("%s: nothing of gotc-cni's left after DEL", c.name)
	}
}

func bw(ir, ib, er, eb uint64) map[string]any {
	m := map[string]any{}
	if ir != 0 || ib != 0 {
		m["ingressRate"], m["ingressBurst"] = ir, ib
	}
	if er != 0 || eb != 0 {
		m["egressRate"], m["egressBurst"] = er, eb
	}
	return m
}

func with(m map[string]any, kv ...any) map[string]any {
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func main() {
	flag.Parse()
	cases := []diffCase{
		{name: "ingress only", conf: bw(8_000_000, 80_000, 0, 0), shapes: true},
		{name: "egress only", conf: bw(0, 0, 16_000_000, 160_000), shapes: true},
		{name: "ingress and egress", conf: bw(100_000_000, 1_000_000, 50_000_000, 500_000), shapes: true},
		{name: "slow and small", conf: bw(1_000_000, 16_000, 512_000, 12_000), shapes: true},
		{name: "fast", conf: bw(10_000_000_000, 100_000_000, 40_000_000_000, 400_000_000), shapes: true},
		{name: "runtimeConfig", conf: map[string]any{"runtimeConfig": map[string]any{"bandwidth": bw(20_000_000, 200_000, 30_000_000, 300_000)}}, shapes: true},
		{name: "top level over runtimeConfig", conf: with(bw(20_000_000, 200_000, 0, 0), "runtimeConfig", map[string]any{"bandwidth": bw(0, 0, 30_000_000, 300_000)}), shapes: true},
		{name: "cniVersion 1.1.0", conf: with(bw(8_000_000, 80_000, 8_000_000, 80_000), "cniVersion", "1.1.0"), shapes: true},
		{name: "no limits", conf: map[string]any{}},
		{name: "zero limits", conf: bw(0, 0, 0, 0)},
		{name: "rate without burst", conf: map[string]any{"ingressRate": 1000}, bad: true},
		{name: "burst without rate", conf: map[string]any{"egressBurst": 1000}, bad: true},
		{name: "burst over 4GB", conf: bw(8_000_000, 40_000_000_000, 0, 0), bad: true},
		{name: "rate of the wrong type", conf: map[string]any{"ingressRate": "10mbit", "ingressBurst": 1000}, bad: true},
		{name: "not chained", conf: bw(8_000_000, 80_000, 0, 0), noPrev: true, bad: true},
		{name: "unshapedSubnets", conf: with(bw(8_000_000, 80_000, 0, 0), "unshapedSubnets", []string{"10.0.0.0/8"}), gotcRefuses: "the pinned plugin has no such key and shapes all"},
		{name: "shapedSubnets", conf: with(bw(0, 0, 8_000_000, 80_000), "shapedSubnets", []string{"192.168.0.0/16"}), gotcRefuses: "the pinned plugin has no such key and shapes all"},
	}
	for _, c := range cases {
		differential(c)
	}
	gotcOnly()
	if *pods > 0 {
		timed(*pods)
	}
	fmt.Printf("cni: %d passed, %d failed (%d known differences)\n", passed, failed, known)
	if failed > 0 {
		os.Exit(1)
	}
}
