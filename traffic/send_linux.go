// SPDX-License-Identifier: Apache-2.0

package traffic

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// leadNS is how far in the future the first send is scheduled, so that the
// plan's timeline is not already late when the loop starts.
const leadNS = 2_000_000

// flowSock is the socket of one flow and what its sends share.
type flowSock struct {
	fd    int
	udp   bool
	v4    bool
	ds    int // DS byte currently set on a UDP socket (-1: unknown)
	src   netip.Addr
	sport uint16
	ll    unix.SockaddrLinklayer // destination of crafted frames
}

// Sender sends a plan's packets from Dev and records what it sent. Create
// it with NewSender (which opens every socket, so the send loop does no
// setup), run it once with Run, then Close it.
type Sender struct {
	plan  *Plan
	dev   link
	socks []flowSock
	slots []Slot
	// recs and bufs are prepared per send: the record template and the
	// bytes to write (a UDP payload or a whole frame).
	recs []Record
	bufs [][]byte
}

// NewSender opens the flows' sockets in Dev's namespace, resolves the
// peer's MAC and, unless the plan says skip_neigh, installs permanent
// neighbour entries on both sides.
func NewSender(p *Plan) (*Sender, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	dev, err := lookupLink(p.Netns, p.Dev)
	if err != nil {
		return nil, fmt.Errorf("dev %s: %w", p.Dev, err)
	}
	var peerMAC net.HardwareAddr
	var peer link
	if p.Peer != "" {
		if peer, err = lookupLink(p.PeerNetns, p.Peer); err != nil {
			return nil, fmt.Errorf("peer %s: %w", p.Peer, err)
		}
		peerMAC = peer.MAC
	}
	if p.PeerMAC != "" {
		peerMAC, _ = parseMAC(p.PeerMAC) // validated
	}
	s := &Sender{plan: p, dev: dev}
	ok := false
	defer func() {
		if !ok {
			s.Close()
		}
	}()
	for i := range p.Flows {
		f := &p.Flows[i]
		var fs flowSock
		err := InNetns(p.Netns, func() (err error) {
			if f.Proto == ProtoUDP {
				fs, err = openUDP(f, p.Dev)
			} else {
				fs, err = openPacket(f, dev, peerMAC)
			}
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("flow %d: %w", i, err)
		}
		s.socks = append(s.socks, fs)
	}
	s.prepare()
	if !p.SkipNeigh {
		if err := s.setNeighbours(peer, peerMAC); err != nil {
			return nil, err
		}
	}
	ok = true
	return s, nil
}

// setNeighbours makes every destination resolve on Dev and every source on
// Peer without ARP/ND: a request or reply would pass through the qdisc
// under test (CAKE files ARP in its top tin) and pollute its counters.
func (s *Sender) setNeighbours(peer link, peerMAC net.HardwareAddr) error {
	p := s.plan
	if peerMAC == nil {
		return errors.New("cannot install neighbours without the peer's MAC: name peer or peer_mac, or set skip_neigh")
	}
	done := map[string]bool{}
	// Every send's addresses (a replayed capture's vary by packet).
	for i := range s.recs {
		dst, src := s.recs[i].Dst, s.recs[i].Src
		if dst.IsValid() && !done["d"+dst.String()] {
			if err := setNeigh(p.Netns, s.dev.Index, dst, peerMAC); err != nil {
				return fmt.Errorf("neighbour %s on %s: %w", dst, p.Dev, err)
			}
			done["d"+dst.String()] = true
		}
		if p.Peer != "" && src.IsValid() && !done["s"+src.String()] {
			if err := setNeigh(p.PeerNetns, peer.Index, src, s.dev.MAC); err != nil {
				return fmt.Errorf("neighbour %s on %s: %w", src, p.Peer, err)
			}
			done["s"+src.String()] = true
		}
	}
	return nil
}

// openUDP opens a connected UDP socket bound to dev. Connecting gives the
// socket a txhash, so its skbs carry skb->hash (l4_hash), as a real
// application's would.
func openUDP(f *Flow, dev string) (fs flowSock, err error) {
	dst := netip.MustParseAddr(f.Dst)
	fs = flowSock{udp: true, v4: dst.Is4(), ds: -1}
	fam := unix.AF_INET6
	if fs.v4 {
		fam = unix.AF_INET
	}
	fd, err := unix.Socket(fam, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fs, err
	}
	fs.fd = fd
	fail := func(what string, err error) (flowSock, error) {
		unix.Close(fd)
		return flowSock{}, fmt.Errorf("%s: %w", what, err)
	}
	if err := unix.SetsockoptString(fd, unix.SOL_SOCKET, unix.SO_BINDTODEVICE, dev); err != nil {
		return fail("SO_BINDTODEVICE", err)
	}
	if f.Mark != 0 {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_MARK, int(f.Mark)); err != nil {
			return fail("SO_MARK", err)
		}
	}
	if f.GSOSegs > 1 {
		if err := unix.SetsockoptInt(fd, unix.SOL_UDP, unix.UDP_SEGMENT, f.Size-ipHeaderLen(fs.v4)-8); err != nil {
			return fail("UDP_SEGMENT", err)
		}
	}
	if f.Src != "" || f.SPort != 0 {
		var src netip.Addr
		if f.Src != "" {
			src = netip.MustParseAddr(f.Src)
		}
		if err := unix.Bind(fd, sockaddr(src, f.SPort, fs.v4)); err != nil {
			return fail("bind", err)
		}
	}
	if err := unix.Connect(fd, sockaddr(dst, f.DPort, fs.v4)); err != nil {
		return fail("connect", err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return fail("getsockname", err)
	}
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		fs.src, fs.sport = netip.AddrFrom4(a.Addr), uint16(a.Port)
	case *unix.SockaddrInet6:
		fs.src, fs.sport = netip.AddrFrom16(a.Addr), uint16(a.Port)
	}
	return fs, nil
}

// sockaddr builds a unix.Sockaddr; an invalid addr means "any".
func sockaddr(a netip.Addr, port uint16, v4 bool) unix.Sockaddr {
	if v4 {
		sa := &unix.SockaddrInet4{Port: int(port)}
		if a.IsValid() {
			sa.Addr = a.As4()
		}
		return sa
	}
	sa := &unix.SockaddrInet6{Port: int(port)}
	if a.IsValid() {
		sa.Addr = a.As16()
	}
	return sa
}

// openPacket opens the AF_PACKET socket of a tcp-ack flow. Its sends go
// through dev_queue_xmit and so through the qdisc; skb->priority and
// skb->mark come from the socket's SO_PRIORITY and SO_MARK. Protocol 0
// keeps it from receiving anything.
func openPacket(f *Flow, dev link, peerMAC net.HardwareAddr) (flowSock, error) {
	if peerMAC == nil {
		return flowSock{}, fmt.Errorf("%s needs the peer's MAC: name peer or peer_mac", f.Proto)
	}
	// A pcap flow has no address of its own.
	fs := flowSock{ds: -1, sport: f.SPort}
	if f.Src != "" {
		fs.src = netip.MustParseAddr(f.Src)
	}
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fs, err
	}
	fs.fd = fd
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_PRIORITY, int(f.Priority)); err != nil {
		unix.Close(fd)
		return fs, fmt.Errorf("SO_PRIORITY: %w", err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_MARK, int(f.Mark)); err != nil {
		unix.Close(fd)
		return fs, fmt.Errorf("SO_MARK: %w", err)
	}
	// Run sets sll_protocol per send, from the frame.
	fs.ll = unix.SockaddrLinklayer{Ifindex: dev.Index, Halen: 6}
	copy(fs.ll.Addr[:], peerMAC)
	return fs, nil
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// prepare builds every send's bytes and record template before the timed
// loop, which then only sets socket options and writes.
func (s *Sender) prepare() {
	eps := make([]endpoint, len(s.socks))
	for i, fs := range s.socks {
		eps[i] = endpoint{src: fs.src, sport: fs.sport}
	}
	var peerMAC net.HardwareAddr
	for _, fs := range s.socks {
		if !fs.udp {
			peerMAC = fs.ll.Addr[:6]
		}
	}
	s.slots, s.recs, s.bufs = buildSends(s.plan, eps, s.dev.MAC, peerMAC)
}

// Run sends the plan once, pacing on CLOCK_MONOTONIC: it sleeps until
// shortly before each send's due time and spins the rest, so sends are
// within a few µs of the plan unless a send blocks. It returns the trace
// (every send, with its actual time) and an error if any send failed for
// a reason other than a qdisc drop (those are in the trace's Err).
func (s *Sender) Run() ([]Record, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0 := monotonic() + leadNS
	var firstErr error
	for i, sl := range s.slots {
		fs := &s.socks[sl.Flow]
		r := &s.recs[i]
		if err := s.setDS(fs, sl.Flow, r.DSCP<<2|r.ECN); err != nil {
			return s.recs[:i], fmt.Errorf("send %d: %w", i, err)
		}
		if !fs.udp {
			// sll_protocol becomes skb->protocol, which the qdisc's
			// classifier reads: the frame's EtherType.
			fs.ll.Protocol = htons(binary.BigEndian.Uint16(s.bufs[i][12:]))
		}
		waitUntil(t0 + sl.At)
		r.T = monotonic()
		var err error
		if fs.udp {
			_, err = unix.Write(fs.fd, s.bufs[i])
		} else {
			err = unix.Sendto(fs.fd, s.bufs[i], 0, &fs.ll)
		}
		r.Dur = monotonic() - r.T
		if err != nil {
			r.Err = err.Error()
			if err != unix.ENOBUFS && firstErr == nil {
				firstErr = fmt.Errorf("send %d (flow %d): %w", i, sl.Flow, err)
			}
		}
	}
	return s.recs, firstErr
}

// setDS sets a UDP socket's DS byte when it changes. IP_TOS also resets
// sk_priority to rt_tos2priority(tos), so SO_PRIORITY is set again after
// it: skb->priority must be the plan's, which the trace records.
func (s *Sender) setDS(fs *flowSock, flow int, ds uint8) error {
	if !fs.udp || fs.ds == int(ds) {
		return nil
	}
	var err error
	if fs.v4 {
		err = unix.SetsockoptInt(fs.fd, unix.IPPROTO_IP, unix.IP_TOS, int(ds))
	} else {
		err = unix.SetsockoptInt(fs.fd, unix.IPPROTO_IPV6, unix.IPV6_TCLASS, int(ds))
	}
	if err != nil {
		return fmt.Errorf("setting DS field %#x: %w", ds, err)
	}
	if err := unix.SetsockoptInt(fs.fd, unix.SOL_SOCKET, unix.SO_PRIORITY, int(s.plan.Flows[flow].Priority)); err != nil {
		return fmt.Errorf("SO_PRIORITY: %w", err)
	}
	fs.ds = int(ds)
	return nil
}

// waitUntil returns at CLOCK_MONOTONIC t: a sleep for all but the last
// 200 µs (timer slack and wakeup latency), then a spin.
func waitUntil(t int64) {
	for {
		d := t - monotonic()
		if d <= 0 {
			return
		}
		if d > 300_000 {
			time.Sleep(time.Duration(d - 200_000))
		}
	}
}

// Close closes the flows' sockets.
func (s *Sender) Close() error {
	for _, fs := range s.socks {
		if fs.fd > 0 {
			unix.Close(fs.fd)
		}
	}
	s.socks = nil
	return nil
}

// span is the plan's duration in ns plus the lead before its first send.
func (s *Sender) span() int64 {
	if len(s.slots) == 0 {
		return leadNS
	}
	return s.slots[len(s.slots)-1].At + leadNS
}
