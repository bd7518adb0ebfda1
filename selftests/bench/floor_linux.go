// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"context"
	"encoding/binary"
	"os"
	"strings"
	"time"
	"unsafe"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcline"
	"golang.org/x/sys/unix"
)

// The floors: how long the kernel alone takes for the batch and the dump,
// measured with everything a client does in userspace taken out. No client
// can be faster than its floor, so a floor above half of tc's time shows a
// "0.5 × tc" target cannot be met by any tool on that kernel.

// batchFloor parses the batch's lines before the clock starts and times only
// sending the requests, window per write, and reading their
// acknowledgements. With window 1 each request waits for the previous one's
// acknowledgement: the floor of any client that keeps tc's rule that
// nothing after a refused line is sent. With withDump the clock also runs
// through one qdisc dump (dumpFloor's) before the requests: the floor of a
// client that keeps that rule with larger windows by reading the qdiscs first
// to know which requests the kernel will accept, as gotc does.
func batchFloor(lines []string, window int, withDump bool) time.Duration {
	c, err := netlink.Dial(nil)
	if err != nil {
		fail("floor: %v", err)
	}
	defer c.Close()
	names, err := c.LinkNames(context.Background())
	if err != nil {
		fail("floor: %v", err)
	}
	index := map[string]int32{}
	for i, n := range names {
		index[n] = i
	}
	reqs := make([]netlink.PipelineRequest, 0, len(lines))
	for _, l := range lines {
		reqs = append(reqs, request(l, index))
	}
	start := time.Now()
	if withDump {
		dumpFloor(dumpQdiscs, 0, 0)
	}
	err = c.Pipeline(context.Background(), func(yield func(netlink.PipelineRequest) bool) {
		for _, r := range reqs {
			if !yield(r) {
				return
			}
		}
	}, window, func(i int, err error) bool {
		if err != nil {
			fail("floor: line %d refused: %v", i+1, err)
		}
		return true
	})
	if err != nil {
		fail("floor: %v", err)
	}
	return time.Since(start)
}

// request builds the request of one batch line of the forms the benchmark
// writes, "qdisc|class VERB WORDS...", as gotc reads it (package tcline):
// the request gotc's batch sends for it.
func request(line string, index map[string]int32) netlink.PipelineRequest {
	f := strings.Fields(line)
	objects := map[string]netlink.Object{"qdisc": netlink.Qdisc, "class": netlink.Class}
	if len(f) < 2 {
		fail("floor: unexpected line %q", line)
	}
	obj, ok := objects[f[0]]
	if !ok {
		fail("floor: unexpected line %q", line)
	}
	op, ok := tcline.ChangeVerb(obj, f[1])
	if !ok {
		fail("floor: unexpected verb in %q", line)
	}
	r, err := tcline.ParseQdiscRequest(obj, op, f[2:], tcline.QdiscEnv{Stderr: os.Stderr})
	if err != nil {
		tcline.PrintError(os.Stderr, err)
		fail("floor: %q refused", line)
	}
	idx, ok := index[r.Dev]
	if !ok {
		fail("floor: %q: no device %q", line, r.Dev)
	}
	r.Msg.Header.Ifindex = idx
	return netlink.PipelineRequest{Object: obj, Op: r.Op, Msg: r.Msg}
}

// dumpFloor times a dump of qdiscs, classes or filters (of device ifindex,
// 0: every device, which only a qdisc dump allows; a filter dump reads the
// filters under parent, 0: the root qdisc's, as "tc filter show dev X"
// does) with statistics read into one buffer and thrown away: the kernel's
// work and the copies, nothing decoded or printed.
func dumpFloor(what dumpWhat, ifindex int32, parent uint32) (time.Duration, int) {
	msgType := [...]uint16{dumpQdiscs: unix.RTM_GETQDISC, dumpClasses: unix.RTM_GETTCLASS, dumpFilters: unix.RTM_GETTFILTER}[what]
	start := time.Now()
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		fail("floor: %v", err)
	}
	defer unix.Close(fd)
	req := make([]byte, unix.NLMSG_HDRLEN, unix.NLMSG_HDRLEN+attrs.TCMsgLen)
	req = append(req, make([]byte, attrs.TCMsgLen)...)
	binary.NativeEndian.PutUint32(req, uint32(len(req)))
	binary.NativeEndian.PutUint16(req[4:], msgType)
	binary.NativeEndian.PutUint32(req[unix.NLMSG_HDRLEN+4:], uint32(ifindex)) // tcm_ifindex
	binary.NativeEndian.PutUint32(req[unix.NLMSG_HDRLEN+12:], parent)         // tcm_parent
	binary.NativeEndian.PutUint16(req[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
	binary.NativeEndian.PutUint32(req[8:], 1)
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		fail("floor: %v", err)
	}
	buf := make([]byte, 64<<10)
	qdiscs := 0
	for {
		n, _, e := unix.Syscall6(unix.SYS_RECVFROM, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, 0, 0)
		if e != 0 {
			fail("floor: %v", e)
		}
		for b := buf[:n]; len(b) >= unix.NLMSG_HDRLEN; {
			l := int(binary.NativeEndian.Uint32(b))
			switch binary.NativeEndian.Uint16(b[4:]) {
			case unix.NLMSG_DONE:
				return time.Since(start), qdiscs
			case unix.NLMSG_ERROR:
				fail("floor: dump refused")
			case unix.RTM_NEWQDISC, unix.RTM_NEWTCLASS, unix.RTM_NEWTFILTER:
				qdiscs++
			}
			if l < unix.NLMSG_HDRLEN || l > len(b) {
				fail("floor: malformed dump")
			}
			b = b[min(len(b), (l+3)&^3):]
		}
	}
}
