// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"context"
	"encoding/binary"
	"os"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tckind"
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
		dumpFloor(false, 0)
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
// writes: "qdisc|class add|change|replace|del dev D [parent P|root]
// [handle H|classid C] [KIND OPTIONS...]", handles in hex with or without 0x.
func request(line string, index map[string]int32) netlink.PipelineRequest {
	f := strings.Fields(line)
	if len(f) < 4 || f[2] != "dev" {
		fail("floor: unexpected line %q", line)
	}
	r := netlink.PipelineRequest{Object: netlink.Qdisc, Msg: &netlink.Msg{}}
	if f[0] == "class" {
		r.Object = netlink.Class
	} else if f[0] != "qdisc" {
		fail("floor: unexpected line %q", line)
	}
	ops := map[string]netlink.Op{"add": netlink.Add, "change": netlink.Change, "replace": netlink.Replace, "del": netlink.Delete}
	op, ok := ops[f[1]]
	if !ok {
		fail("floor: unexpected verb in %q", line)
	}
	r.Op = op
	m := r.Msg
	m.Header.Family = unix.AF_UNSPEC
	m.Header.Ifindex = index[f[3]]
	words := f[4:]
	for len(words) > 0 {
		switch words[0] {
		case "root":
			m.Header.Parent = netlink.HandleRoot
			words = words[1:]
			continue
		case "parent", "handle", "classid":
			if len(words) < 2 {
				fail("floor: %q: %s without a value", line, words[0])
			}
			h := parseHandle(words[1])
			if words[0] == "parent" {
				m.Header.Parent = h
			} else {
				m.Header.Handle = h
			}
			words = words[2:]
			continue
		}
		break
	}
	if len(words) == 0 {
		return r
	}
	kind := tckind.LookupQdisc(words[0])
	parse := (func([]string, tckind.ParseEnv) (attrs.TCOptionsMsg, error))(nil)
	if kind != nil {
		parse = kind.ParseQdisc
		if r.Object == netlink.Class {
			parse = kind.ParseClass
		}
	}
	m.Attrs.Kind = &words[0]
	if parse == nil {
		if len(words) > 1 {
			fail("floor: kind %q with options %q", words[0], words[1:])
		}
		return r
	}
	opts, err := parse(words[1:], tckind.ParseEnv{Dev: f[3], Stderr: os.Stderr})
	if err != nil {
		fail("floor: %q: %v", line, err)
	}
	m.Attrs.Options = opts
	return r
}

// parseHandle reads "M:N", "M:" or "0xM:0xN" (hex, as tc's get_tc_classid).
func parseHandle(s string) uint32 {
	major, minor, ok := strings.Cut(s, ":")
	hex := func(w string) uint64 {
		if w == "" {
			return 0
		}
		v, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(w), "0x"), 16, 16)
		if err != nil {
			fail("floor: handle %q", s)
		}
		return v
	}
	if !ok {
		fail("floor: handle %q", s)
	}
	return netlink.MakeHandle(uint16(hex(major)), uint16(hex(minor)))
}

// dumpFloor times a dump of qdiscs (or of classes; of device ifindex, 0:
// every device, which a class dump does not allow) with statistics read into
// one buffer and thrown away: the kernel's work and the copies, nothing
// decoded or printed.
func dumpFloor(classes bool, ifindex int32) (time.Duration, int) {
	msgType := uint16(unix.RTM_GETQDISC)
	if classes {
		msgType = unix.RTM_GETTCLASS
	}
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
			case unix.RTM_NEWQDISC, unix.RTM_NEWTCLASS:
				qdiscs++
			}
			if l < unix.NLMSG_HDRLEN || l > len(b) {
				fail("floor: malformed dump")
			}
			b = b[min(len(b), (l+3)&^3):]
		}
	}
}
