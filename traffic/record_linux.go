// SPDX-License-Identifier: Apache-2.0

package traffic

import (
	"fmt"
	"net"
	"time"

	"golang.org/x/sys/unix"
)

// RecordSnap is the most of a frame RecordFrames keeps: a GSO super-packet of
// BIG TCP's size whole, so that a replay sees the packet the qdisc saw.
const RecordSnap = 262144

// RecordFrames captures the frames that arrive on dev in namespace ns, whole
// and as the kernel hands them to a packet socket (a GSO super-packet is
// one frame), and passes each to emit with its arrival time. Frames the
// device sends are left out: on a veth's far end what arrives is what
// went through the near end's qdisc, and the far end's replies are not.
// dev must be an Ethernet device (or loopback, whose frames have the
// same header). It stops after count frames (count <= 0: no limit) or at the end of
// d, and returns the kernel's count of frames the socket lost.
func RecordFrames(ns, dev string, count int, d time.Duration, emit func(t time.Time, frame []byte) error) (drops uint32, err error) {
	fd := -1
	err = InNetns(ns, func() error {
		l, err := net.InterfaceByName(dev)
		if err != nil {
			return fmt.Errorf("%s: %w", dev, err)
		}
		// As Receiver: protocol 0 first, so that no frame of another
		// device is queued before the bind.
		fd, err = unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return err
		}
		if unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, 32<<20) != nil {
			_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, 32<<20)
		}
		return unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_ALL), Ifindex: l.Index})
	})
	if fd >= 0 {
		defer unix.Close(fd)
	}
	if err != nil {
		return 0, err
	}
	buf := make([]byte, RecordSnap)
	deadline := time.Now().Add(d)
	for n := 0; count <= 0 || n < count; {
		wait := time.Until(deadline)
		if wait <= 0 {
			break
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		ready, err := unix.Poll(fds, int(wait/time.Millisecond)+1)
		if err == unix.EINTR || ready == 0 {
			continue
		}
		if err != nil {
			return 0, err
		}
		m, from, err := unix.Recvfrom(fd, buf, unix.MSG_DONTWAIT)
		if err == unix.EAGAIN || err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		t := time.Now()
		ll, ok := from.(*unix.SockaddrLinklayer)
		if !ok {
			return 0, fmt.Errorf("%s: a frame from %T", dev, from)
		}
		// The pcap says Ethernet: loopback's frames have its header too.
		if ll.Hatype != unix.ARPHRD_ETHER && ll.Hatype != unix.ARPHRD_LOOPBACK {
			return 0, fmt.Errorf("%s: its frames are not Ethernet (ARPHRD %d)", dev, ll.Hatype)
		}
		if ll.Pkttype == unix.PACKET_OUTGOING {
			continue
		}
		if err := emit(t, buf[:m]); err != nil {
			return 0, err
		}
		n++
	}
	if s, err := unix.GetsockoptTpacketStats(fd, unix.SOL_PACKET, unix.PACKET_STATISTICS); err == nil {
		drops = s.Drops
	}
	return drops, nil
}
