// SPDX-License-Identifier: Apache-2.0

// Command ratechange measures what an autorate daemon pays per bandwidth
// change: one in-process request on a kept gotc.Client against forking
// tc for "tc qdisc change dev DEV root KIND ...". Both change the same
// qdisc, alternating in rounds so that a load change on the machine hits
// both alike, and it prints each one's median ns per call and the ratio:
//
//	ratechange -netns NAME -dev DEV [-kind cake|tbf] [-tc PATH] [-n CALLS] [-rounds R]
//
// The device's root qdisc must exist and be of -kind. cake changes are
// gotc.Client.ChangeQdisc with the bandwidth alone; tbf ones (for a host
// without CAKE) parse tc's words once per call, as a daemon given words
// would, and send one change. Each call sets a different rate, so that the kernel always has
// something to do. The exit status is non-zero if any change failed or
// the qdisc does not end at the last rate.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/gotc/gotc"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
)

func main() {
	netns := flag.String("netns", "", "network namespace (ip netns name) of the device")
	dev := flag.String("dev", "", "device whose root qdisc is changed")
	kind := flag.String("kind", "cake", "root qdisc kind: cake or tbf")
	tc := flag.String("tc", "tc", "the tc to fork")
	n := flag.Int("n", 200, "calls per round and per side")
	rounds := flag.Int("rounds", 5, "rounds")
	flag.Parse()
	if err := run(*netns, *dev, *kind, *tc, *n, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "ratechange:", err)
		os.Exit(1)
	}
}

func run(netns, dev, kind, tc string, n, rounds int) error {
	ctx := context.Background()
	ns, err := netlink.OpenNetNS(netns)
	if err != nil {
		return err
	}
	defer ns.Close()
	c, err := gotc.Dial(ns)
	if err != nil {
		return err
	}
	defer c.Close()
	ifindex, err := c.Conn().LinkIndex(ctx, dev)
	if err != nil {
		return err
	}
	// Rates cycle over 10..19 Mbit/s.
	mbit := func(i int) int { return 10 + i%10 }
	inProcess := func(i int) error {
		root := gotc.Qdisc{Ifindex: ifindex, Parent: gotc.Root, Kind: kind}
		if kind == "cake" {
			rate := uint64(mbit(i)) * 1_000_000 / 8
			root.Options = &attrs.CakeAttrs{BaseRate64: &rate}
		} else if root.Options, err = gotc.QdiscOptions(kind, strings.Join(tbfWords(mbit(i)), " ")); err != nil {
			return err
		}
		return c.ChangeQdisc(ctx, root)
	}
	fork := func(i int) error {
		args := []string{"-netns", netns, "qdisc", "change", "dev", dev, "root", kind}
		if kind == "cake" {
			args = append(args, "bandwidth", fmt.Sprintf("%dmbit", mbit(i)))
		} else {
			args = append(args, tbfWords(mbit(i))...)
		}
		out, err := exec.Command(tc, args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s %s: %v: %s", tc, strings.Join(args, " "), err, out)
		}
		return nil
	}
	timeCalls := func(call func(int) error) (time.Duration, error) {
		start := time.Now()
		for i := range n {
			if err := call(i); err != nil {
				return 0, err
			}
		}
		return time.Since(start) / time.Duration(n), nil
	}
	var lib, forked []time.Duration
	for range rounds {
		d, err := timeCalls(inProcess)
		if err != nil {
			return err
		}
		lib = append(lib, d)
		if d, err = timeCalls(fork); err != nil {
			return err
		}
		forked = append(forked, d)
	}
	// Both sides ended each round at the same rate: check that the
	// kernel has it.
	want := uint64(mbit(n-1)) * 1_000_000 / 8
	got, err := rootRate(ctx, c.Conn(), ifindex)
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("the root %s ended at %d bytes/s, not %d", kind, got, want)
	}
	slices.Sort(lib)
	slices.Sort(forked)
	ml, mf := lib[len(lib)/2], forked[len(forked)/2]
	fmt.Printf("%s bandwidth change, median of %d rounds of %d calls: in-process %d ns/call, fork(%s) %d ns/call, ratio in-process/fork %.4f (fork/in-process %.0fx)\n",
		kind, rounds, n, ml.Nanoseconds(), tc, mf.Nanoseconds(), float64(ml)/float64(mf), float64(mf)/float64(ml))
	return nil
}

// tbfWords are tc's words of a tbf at rate Mbit/s.
func tbfWords(mbit int) []string {
	return []string{"rate", fmt.Sprintf("%dmbit", mbit), "burst", "32k", "latency", "50ms"}
}

// rootRate is the rate of the device's root cake or tbf, in bytes/s.
func rootRate(ctx context.Context, c *netlink.Conn, ifindex int32) (uint64, error) {
	for m, err := range c.Msgs(ctx, netlink.Qdisc, netlink.DumpFilter{Ifindex: ifindex}) {
		if err != nil {
			return 0, err
		}
		if m.Header.Parent != netlink.HandleRoot {
			continue
		}
		switch o := m.Attrs.Options.(type) {
		case *attrs.CakeAttrs:
			if o.BaseRate64 != nil {
				return *o.BaseRate64, nil
			}
		case *attrs.TBFAttrs:
			if o.Rate64 != nil {
				return *o.Rate64, nil
			}
			if o.Parms != nil {
				return uint64(o.Parms.Rate.Rate), nil
			}
		}
	}
	return 0, fmt.Errorf("no root qdisc with a rate on ifindex %d", ifindex)
}
