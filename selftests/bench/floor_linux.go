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
	"github.com/gotc/gotc/qdisc"
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
		reqs = append(reqs, netlink.PipelineRequest{Object: netlink.Qdisc, Op: netlink.Replace, Msg: replaceMsg(l, index)})
	}
	start := time.Now()
	if withDump {
		dumpFloor()
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

// replaceMsg builds the request of a line "qdisc replace dev D parent M:N KIND OPTIONS...",
// the only form the benchmark's batch uses.
func replaceMsg(line string, index map[string]int32) *netlink.Msg {
	f := strings.Fields(line)
	if len(f) < 7 || f[0] != "qdisc" || f[1] != "replace" || f[2] != "dev" || f[4] != "parent" {
		fail("floor: unexpected line %q", line)
	}
	major, minor, ok := strings.Cut(f[5], ":")
	maj, err1 := strconv.ParseUint(major, 16, 16)
	min, err2 := strconv.ParseUint(minor, 16, 16)
	if !ok || err1 != nil || err2 != nil {
		fail("floor: parent %q", f[5])
	}
	kind := qdisc.Lookup(f[6])
	if kind == nil || kind.ParseQdisc == nil {
		fail("floor: kind %q", f[6])
	}
	opts, err := kind.ParseQdisc(f[7:], qdisc.ParseEnv{Stderr: os.Stderr})
	if err != nil {
		fail("floor: %q: %v", line, err)
	}
	m := &netlink.Msg{}
	m.Header.Family = unix.AF_UNSPEC
	m.Header.Ifindex = index[f[3]]
	m.Header.Parent = netlink.MakeHandle(uint16(maj), uint16(min))
	m.Attrs.Kind = &f[6]
	m.Attrs.Options = opts
	return m
}

// dumpFloor times a qdisc dump with statistics read into one buffer and
// thrown away: the kernel's work and the copies, nothing decoded or printed.
func dumpFloor() (time.Duration, int) {
	start := time.Now()
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		fail("floor: %v", err)
	}
	defer unix.Close(fd)
	req := make([]byte, unix.NLMSG_HDRLEN, unix.NLMSG_HDRLEN+attrs.TCMsgLen)
	req = append(req, make([]byte, attrs.TCMsgLen)...)
	binary.NativeEndian.PutUint32(req, uint32(len(req)))
	binary.NativeEndian.PutUint16(req[4:], unix.RTM_GETQDISC)
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
			case unix.RTM_NEWQDISC:
				qdiscs++
			}
			if l < unix.NLMSG_HDRLEN || l > len(b) {
				fail("floor: malformed dump")
			}
			b = b[min(len(b), (l+3)&^3):]
		}
	}
}
