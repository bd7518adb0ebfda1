// SPDX-License-Identifier: Apache-2.0

package traffic

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// netnsPath resolves a namespace name the way "ip netns" stores it.
func netnsPath(name string) string {
	if strings.ContainsRune(name, '/') {
		return name
	}
	return "/run/netns/" + name
}

// InNetns runs fn on an OS thread that has joined the network namespace
// name ("" = the caller's). Sockets created in fn stay in that namespace
// after it returns, which is how the tool sends and captures in two
// namespaces from one process. If the thread cannot be moved back it is
// left locked, so that the runtime discards it instead of reusing a thread
// in the wrong namespace.
func InNetns(name string, fn func() error) error {
	runtime.LockOSThread()
	if name == "" {
		defer runtime.UnlockOSThread()
		return fn()
	}
	orig, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		runtime.UnlockOSThread()
		return err
	}
	defer orig.Close()
	target, err := os.Open(netnsPath(name))
	if err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("netns %s: %w", name, err)
	}
	defer target.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("setns %s: %w", name, err)
	}
	ferr := fn()
	if err := unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET); err != nil {
		return fmt.Errorf("returning from netns %s: %w", name, err) // thread stays locked
	}
	runtime.UnlockOSThread()
	return ferr
}

// link is what the tool needs of an interface.
type link struct {
	Index int
	MAC   net.HardwareAddr
}

// lookupLink finds dev in namespace ns.
func lookupLink(ns, dev string) (link, error) {
	var l link
	err := InNetns(ns, func() error {
		ifi, err := net.InterfaceByName(dev)
		if err != nil {
			return err
		}
		l = link{Index: ifi.Index, MAC: ifi.HardwareAddr}
		return nil
	})
	if err == nil && len(l.MAC) != 6 {
		err = fmt.Errorf("%s has no Ethernet address", dev)
	}
	return l, err
}

// TxPackets returns dev's tx_packets (as /sys/class/net/DEV/statistics
// shows, which in another namespace is only reachable through
// /proc/thread-self/net/dev). veth counts one per skb, GSO or not.
func TxPackets(ns, dev string) (uint64, error) {
	var n uint64
	err := InNetns(ns, func() error {
		f, err := os.Open("/proc/thread-self/net/dev")
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			name, rest, ok := strings.Cut(sc.Text(), ":")
			if !ok || strings.TrimSpace(name) != dev {
				continue
			}
			fs := strings.Fields(rest)
			if len(fs) < 10 {
				return fmt.Errorf("/proc/net/dev: short line for %s", dev)
			}
			n, err = strconv.ParseUint(fs[9], 10, 64) // rx: 8 fields, tx bytes, tx packets
			return err
		}
		return fmt.Errorf("/proc/net/dev: no %s", dev)
	})
	return n, err
}

// setNeigh installs a permanent neighbour entry (ip neigh replace ADDR
// lladdr MAC dev IFINDEX nud permanent) through rtnetlink in namespace ns,
// so that the kernel never resolves ADDR with ARP/ND through the qdisc.
func setNeigh(ns string, ifindex int, addr netip.Addr, mac net.HardwareAddr) error {
	return InNetns(ns, func() error {
		fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
			return err
		}
		fam := uint8(unix.AF_INET)
		ab := addr.AsSlice()
		if addr.Is6() {
			fam = unix.AF_INET6
		}
		b := make([]byte, unix.SizeofNlMsghdr, 64)
		// struct ndmsg
		b = append(b, fam, 0, 0, 0)
		b = binary.NativeEndian.AppendUint32(b, uint32(ifindex))
		b = binary.NativeEndian.AppendUint16(b, unix.NUD_PERMANENT)
		b = append(b, 0, 0) // ndm_flags, ndm_type
		b = appendAttr(b, unix.NDA_DST, ab)
		b = appendAttr(b, unix.NDA_LLADDR, mac)
		binary.NativeEndian.PutUint32(b[0:], uint32(len(b)))
		binary.NativeEndian.PutUint16(b[4:], unix.RTM_NEWNEIGH)
		binary.NativeEndian.PutUint16(b[6:], unix.NLM_F_REQUEST|unix.NLM_F_ACK|unix.NLM_F_CREATE|unix.NLM_F_REPLACE)
		binary.NativeEndian.PutUint32(b[8:], 1)
		if err := unix.Sendto(fd, b, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
			return err
		}
		resp := make([]byte, 4096)
		n, _, err := unix.Recvfrom(fd, resp, 0)
		if err != nil {
			return err
		}
		if n < unix.SizeofNlMsghdr+4 || binary.NativeEndian.Uint16(resp[4:]) != unix.NLMSG_ERROR {
			return fmt.Errorf("RTM_NEWNEIGH: unexpected reply")
		}
		if e := int32(binary.NativeEndian.Uint32(resp[unix.SizeofNlMsghdr:])); e != 0 {
			return fmt.Errorf("RTM_NEWNEIGH %s: %w", addr, unix.Errno(-e))
		}
		return nil
	})
}

func appendAttr(b []byte, typ uint16, data []byte) []byte {
	b = binary.NativeEndian.AppendUint16(b, uint16(4+len(data)))
	b = binary.NativeEndian.AppendUint16(b, typ)
	b = append(b, data...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// monotonic returns CLOCK_MONOTONIC in ns, the clock the kernel's qdiscs
// timestamp with (ktime_get_ns).
func monotonic() int64 {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return ts.Nano()
}
