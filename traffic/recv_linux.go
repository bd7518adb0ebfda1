// SPDX-License-Identifier: Apache-2.0

package traffic

import (
	"fmt"
	"net/netip"
	"time"

	"golang.org/x/sys/unix"
)

// Receiver captures what arrives on a device (the veth peer), in order.
type Receiver struct {
	fd    int
	sinks []int
	// Drops is the kernel's count of frames the capture socket lost
	// (PACKET_STATISTICS), read when Run returns.
	Drops uint32
}

// NewReceiver opens a capture on dev in namespace ns and, for each of
// sinkPorts, a UDP socket bound to that port on every address. The sinks
// are never read: they exist so that a datagram to the peer's own address
// finds a socket instead of triggering an ICMP port unreachable, whose
// ARP or error would come back through the qdisc under test.
func NewReceiver(ns, dev string, sinkPorts []SinkPort) (*Receiver, error) {
	r := &Receiver{fd: -1}
	err := InNetns(ns, func() error {
		l, err := lookupLink("", dev)
		if err != nil {
			return fmt.Errorf("%s: %w", dev, err)
		}
		// Protocol 0 first, bind with ETH_P_ALL after: the socket then
		// never holds frames of other devices.
		fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return err
		}
		r.fd = fd
		if err := unix.SetsockoptInt(fd, unix.SOL_PACKET, unix.PACKET_VNET_HDR, 1); err != nil {
			return fmt.Errorf("PACKET_VNET_HDR: %w", err)
		}
		// A burst of GSO packets must not overflow the socket while the
		// reader is descheduled; FORCE needs root, plain is the fallback.
		if unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, 32<<20) != nil {
			_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, 32<<20)
		}
		if err := unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_ALL), Ifindex: l.Index}); err != nil {
			return fmt.Errorf("bind %s: %w", dev, err)
		}
		for _, sp := range sinkPorts {
			fam := unix.AF_INET6
			if sp.V4 {
				fam = unix.AF_INET
			}
			sfd, err := unix.Socket(fam, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				return err
			}
			r.sinks = append(r.sinks, sfd)
			if err := unix.Bind(sfd, sockaddr(netip.Addr{}, sp.Port, sp.V4)); err != nil {
				return fmt.Errorf("UDP sink on port %d: %w", sp.Port, err)
			}
		}
		return nil
	})
	if err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// Run captures frames until count packets have arrived, counted as a
// qdisc counts them (a GSO frame counts its segments, so the count is the
// same whether or not a qdisc split them), or until the timeout (count
// <= 0: always), then keeps listening for linger to catch anything
// unexpected that follows. Frames the peer itself sends are ignored. It returns the
// capture in arrival order; reaching the timeout is not an error.
func (r *Receiver) Run(count int, timeout, linger time.Duration) ([]Record, error) {
	var recs []Record
	got := 0
	buf := make([]byte, vnetHdrLen+65536+ethHdrLen)
	deadline := time.Now().Add(timeout)
	for {
		now := time.Now()
		if count > 0 && got >= count {
			if d := now.Add(linger); d.Before(deadline) {
				deadline = d
			}
			count = 0
		}
		wait := deadline.Sub(now)
		if wait <= 0 {
			break
		}
		fds := []unix.PollFd{{Fd: int32(r.fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(wait/time.Millisecond)+1)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return recs, err
		}
		if n == 0 {
			continue
		}
		m, from, err := unix.Recvfrom(r.fd, buf, unix.MSG_DONTWAIT)
		if err == unix.EAGAIN || err == unix.EINTR {
			continue
		}
		if err != nil {
			return recs, err
		}
		t := monotonic()
		if ll, ok := from.(*unix.SockaddrLinklayer); ok && ll.Pkttype == unix.PACKET_OUTGOING {
			continue
		}
		rec, err := decodeCapture(buf[:m])
		if err != nil {
			return recs, err
		}
		if ll, ok := from.(*unix.SockaddrLinklayer); ok {
			rec.PktType = ll.Pkttype
		}
		rec.I, rec.T = len(recs), t
		recs = append(recs, rec)
		got += rec.Segs()
	}
	var st unix.TpacketStats
	if s, err := unix.GetsockoptTpacketStats(r.fd, unix.SOL_PACKET, unix.PACKET_STATISTICS); err == nil {
		st = *s
	}
	r.Drops = st.Drops
	return recs, nil
}

// Close closes the capture and the sinks.
func (r *Receiver) Close() error {
	if r.fd >= 0 {
		unix.Close(r.fd)
		r.fd = -1
	}
	for _, fd := range r.sinks {
		unix.Close(fd)
	}
	r.sinks = nil
	return nil
}
