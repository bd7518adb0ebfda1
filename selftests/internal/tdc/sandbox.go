// SPDX-License-Identifier: Apache-2.0

package tdc

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// A Sandboxer makes the per-test environment that the kernel's nsPlugin
// provides. Tests use a fake one, so the runner can be exercised without
// root or network namespaces.
type Sandboxer interface {
	// Open prepares the environment for one test. names holds the
	// per-test substitution values (NS, DEV0, DEV1, DUMMY, IFB, IP, ...).
	Open(ctx context.Context, names map[string]string) (Sandbox, error)
}

// A Sandbox runs one test's commands.
type Sandbox interface {
	// Wrap turns a (substituted) shell command into the argv to execute.
	Wrap(cmd string) []string
	// Close removes the environment; the runner calls it whatever happened.
	Close(ctx context.Context) error
}

// Host runs commands with /bin/sh in the caller's namespaces: what tdc.py
// does for a test that does not require nsPlugin.
type Host struct{}

// Open returns a sandbox with nothing to set up or remove.
func (Host) Open(context.Context, map[string]string) (Sandbox, error) { return hostSandbox{}, nil }

type hostSandbox struct{}

func (hostSandbox) Wrap(cmd string) []string    { return []string{"/bin/sh", "-c", cmd} }
func (hostSandbox) Close(context.Context) error { return nil }

// Device kinds that Netns can create in each test's namespace.
const (
	DevVeth  = "veth"
	DevDummy = "dummy"
	DevIFB   = "ifb"
)

// Netns gives each test a fresh network namespace, as the kernel's nsPlugin
// does (its pyroute2 path and its "ip -b" fallback build the same thing):
//
//   - namespace NS (tcut-<random>);
//   - a veth pair: DEV1 inside NS, its peer DEV0 outside, both up;
//   - a dummy device DUMMY and an ifb device IFB inside NS, both up.
//
// Every command then runs as "IP netns exec NS /bin/sh -c CMD", and the
// namespace is deleted after the test.
type Netns struct {
	// IP is the ip binary that creates and enters namespaces.
	IP string
	// Devices lists the device kinds to create (Dev* constants); nil means
	// all three. Leaving one out allows runs on a kernel without it.
	Devices []string
	// Timeout bounds each ip command (zero: no limit).
	Timeout time.Duration
}

// Open creates the namespace and its devices.
func (n Netns) Open(ctx context.Context, names map[string]string) (Sandbox, error) {
	ns := names["NS"]
	sb := &netnsSandbox{n: n, ns: ns}
	if r := runArgv(ctx, "", []string{n.IP, "netns", "add", ns}, "", n.Timeout); r.Code != 0 {
		return nil, fmt.Errorf("%s netns add %s: exit %d: %s", n.IP, ns, r.Code, strings.TrimSpace(r.Output()))
	}
	// Two batches instead of one ip process per step: spawning ip is the
	// dominant cost of a test in an emulated VM.
	var outside, inside []string
	if n.want(DevVeth) {
		outside = append(outside,
			fmt.Sprintf("link add %s type veth peer name %s netns %s", names["DEV0"], names["DEV1"], ns),
			fmt.Sprintf("link set %s up", names["DEV0"]))
		inside = append(inside, fmt.Sprintf("link set %s up", names["DEV1"]))
	}
	if n.want(DevDummy) {
		inside = append(inside,
			fmt.Sprintf("link add %s type dummy", names["DUMMY"]),
			fmt.Sprintf("link set %s up", names["DUMMY"]))
	}
	if n.want(DevIFB) {
		inside = append(inside,
			fmt.Sprintf("link add %s type ifb", names["IFB"]),
			fmt.Sprintf("link set %s up", names["IFB"]))
	}
	// The veth must exist before its inside end is set up.
	for _, batch := range []struct {
		argv  []string
		lines []string
	}{
		{[]string{n.IP, "-b", "-"}, outside},
		{[]string{n.IP, "-n", ns, "-b", "-"}, inside},
	} {
		if len(batch.lines) == 0 {
			continue
		}
		if err := n.batch(ctx, batch.argv, batch.lines); err != nil {
			sb.Close(context.WithoutCancel(ctx))
			return nil, err
		}
	}
	return sb, nil
}

// batch feeds lines to "ip -b -", which stops at the first failing line.
func (n Netns) batch(ctx context.Context, argv []string, lines []string) error {
	r := runArgv(ctx, "", argv, strings.Join(lines, "\n")+"\n", n.Timeout)
	if r.Code != 0 {
		return fmt.Errorf("creating the test's devices failed (%s, exit %d): %s; lines were:\n%s",
			strings.Join(argv, " "), r.Code, strings.TrimSpace(r.Stderr+r.Stdout), strings.Join(lines, "\n"))
	}
	return nil
}

func (n Netns) want(kind string) bool {
	if n.Devices == nil {
		return true
	}
	for _, d := range n.Devices {
		if d == kind {
			return true
		}
	}
	return false
}

type netnsSandbox struct {
	n  Netns
	ns string
}

// Wrap runs the whole command line inside the namespace. nsPlugin instead
// prefixes "ip netns exec NS" to the command text, so in tdc.py only the
// first simple command of "a | b", "a && b" or "a; b" enters the namespace;
// here all of it does, which is what test authors mean.
func (s *netnsSandbox) Wrap(cmd string) []string {
	return []string{s.n.IP, "netns", "exec", s.ns, "/bin/sh", "-c", cmd}
}

// Close deletes the namespace; its veth pair, dummy and ifb go with it.
func (s *netnsSandbox) Close(ctx context.Context) error {
	r := runArgv(ctx, "", []string{s.n.IP, "netns", "delete", s.ns}, "", s.n.Timeout)
	if r.Code != 0 {
		return fmt.Errorf("%s netns delete %s: exit %d: %s", s.n.IP, s.ns, r.Code, strings.TrimSpace(r.Output()))
	}
	return nil
}
