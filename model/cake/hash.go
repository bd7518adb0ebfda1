// SPDX-License-Identifier: Apache-2.0

package cake

import "encoding/binary"

// Hasher replaces the kernel's flow dissector hashes, which are keyed with a
// random per-boot secret and so cannot be reproduced; only the partition
// they induce is predictable. A nil field keeps the default.
type Hasher struct {
	// Flow is flow_hash_from_keys() over the packet's 5-tuple. The kernel
	// sorts the (address, port) pairs first, so both directions of a
	// connection hash alike; the default does the same. It must not
	// return 0 (the kernel maps 0 to 1).
	Flow func(p *Packet) uint32
	// Host is the hash of one host address (the kernel hashes the keys
	// with the other address, the ports and the protocol zeroed). It is
	// called only for IPv4 and IPv6 packets; non-IP hosts hash to 0.
	Host func(l3 L3, addr *[16]byte) uint32
}

// mix64 is a 64-bit finaliser (splitmix64): fast, allocation-free, and good
// enough to spread flows uniformly, which is all the default needs.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

func nonzero(h uint32) uint32 {
	if h == 0 {
		return 1
	}
	return h
}

// defaultFlowHash hashes the symmetric 5-tuple with the model's seed: the
// words are folded with odd multipliers and finalised once, which spreads
// flows uniformly at a fraction of a keyed hash's cost.
func (q *Qdisc) defaultFlowHash(p *Packet) uint32 {
	h := q.seed ^ uint64(p.L3)<<8 ^ uint64(p.Proto)
	if p.L3 != L3IPv4 && p.L3 != L3IPv6 {
		return nonzero(uint32(mix64(h) >> 32))
	}
	a0 := binary.LittleEndian.Uint64(p.Src[0:])
	a1 := binary.LittleEndian.Uint64(p.Src[8:])
	b0 := binary.LittleEndian.Uint64(p.Dst[0:])
	b1 := binary.LittleEndian.Uint64(p.Dst[8:])
	ap, bp := p.SrcPort, p.DstPort
	// __flow_hash_consistentify: order the endpoints.
	if b0 < a0 || (b0 == a0 && (b1 < a1 || (b1 == a1 && bp < ap))) {
		a0, a1, b0, b1, ap, bp = b0, b1, a0, a1, bp, ap
	}
	h += a0*0x9e3779b97f4a7c15 + a1*0xc2b2ae3d27d4eb4f + b0*0x165667b19e3779f9 +
		b1*0xd6e8feb86659fd93 + (uint64(ap)<<16|uint64(bp))*0xff51afd7ed558ccd
	return nonzero(uint32(mix64(h) >> 32))
}

func (q *Qdisc) defaultHostHash(l3 L3, a *[16]byte) uint32 {
	h := q.seed ^ 0x5bd1e995 ^ uint64(l3)
	h += binary.LittleEndian.Uint64(a[0:])*0x9e3779b97f4a7c15 + binary.LittleEndian.Uint64(a[8:])*0xc2b2ae3d27d4eb4f
	return nonzero(uint32(mix64(h) >> 32))
}

func (q *Qdisc) flowHash(p *Packet) uint32 {
	if q.hashFlow != nil {
		return q.hashFlow(p)
	}
	return q.defaultFlowHash(p)
}

func dsrc(fm uint8) bool { return fm&flowDual == flowDual }
func ddst(fm uint8) bool { return fm&flowDualD == flowDualD }

func (t *tin) decSrcHost(f *flow, fm uint8) {
	if dsrc(fm) && t.hosts[f.srchost].srcBulk != 0 {
		t.hosts[f.srchost].srcBulk--
	}
}

func (t *tin) incSrcHost(f *flow, fm uint8) {
	if dsrc(fm) && t.hosts[f.srchost].srcBulk < numQueues {
		t.hosts[f.srchost].srcBulk++
	}
}

func (t *tin) decDstHost(f *flow, fm uint8) {
	if ddst(fm) && t.hosts[f.dsthost].dstBulk != 0 {
		t.hosts[f.dsthost].dstBulk--
	}
}

func (t *tin) incDstHost(f *flow, fm uint8) {
	if ddst(fm) && t.hosts[f.dsthost].dstBulk < numQueues {
		t.hosts[f.dsthost].dstBulk++
	}
}

// flowQuantum is cake_get_flow_quantum: the flow quantum divided by the
// host's bulk-flow load, dithered by a random u16.
func (q *Qdisc) flowQuantum(t *tin, f *flow) int32 {
	fm := q.p.flowMode
	load := uint16(1)
	if dsrc(fm) {
		load = max(load, t.hosts[f.srchost].srcBulk)
	}
	if ddst(fm) {
		load = max(load, t.hosts[f.dsthost].dstBulk)
	}
	var r uint32 // q.rand32(), inlined: this runs for most dequeues
	if q.rnd != nil {
		r = q.rnd.Uint32()
	} else {
		q.rngState += 0x9e3779b97f4a7c15
		r = uint32(mix64(q.rngState) >> 32)
	}
	return int32(uint16((uint32(t.flowQuantum)*uint32(quantumDiv[load]) + uint32(uint16(r))) >> 16))
}

// hash is cake_hash without tc filter overrides: it picks the queue of p in
// tin t, with the 8-way set-associative lookup and its statistics, and
// attaches the source/destination host slots for dual and triple modes.
func (q *Qdisc) hash(t *tin, p *Packet) uint32 {
	fm := q.p.flowMode // includes the NAT flag, as in the kernel's test
	if fm == 0 {
		return 0
	}
	hashFlows := fm&flowFlows != 0
	hashHosts := fm&(flowSrcIP|flowDstIP) != 0
	nat := fm&flowNAT != 0
	useSkb := p.L4Hash
	var flowH, srcH, dstH uint32
	// With flows in the hash, the host hashes only serve to claim host
	// slots; the default host hash is a pure function, so it is computed
	// only then (an injected one is called exactly as the kernel would).
	lazyHosts := false

	// Connected sockets in flows-type modes skip dissection; the NAT
	// conntrack lookup (which could disable this) is not modelled.
	if !((!hashFlows || (useSkb && !nat)) && !hashHosts) && !(useSkb && !hashHosts) {
		if p.L3 == L3IPv4 || p.L3 == L3IPv6 {
			if q.hashHost == nil {
				if hashFlows {
					lazyHosts = true
				} else {
					dstH = q.defaultHostHash(p.L3, &p.Dst)
					srcH = q.defaultHostHash(p.L3, &p.Src)
				}
			} else {
				dstH = q.hashHost(p.L3, &p.Dst)
				srcH = q.hashHost(p.L3, &p.Src)
			}
		}
		if hashFlows && !useSkb {
			if q.hashFlow == nil {
				flowH = q.defaultFlowHash(p)
			} else {
				flowH = q.hashFlow(p)
			}
		}
	}
	if useSkb && hashFlows {
		flowH = p.SKBHash
	}
	if !hashFlows {
		if fm&flowSrcIP != 0 {
			flowH ^= srcH
		}
		if fm&flowDstIP != 0 {
			flowH ^= dstH
		}
	}

	reduced := flowH % numQueues
	if t.tags[reduced] == flowH && t.flows[reduced].set != setNone {
		t.wayDirects++
		return reduced
	}
	inner := reduced % setWays
	outer := reduced - inner
	// The set's ways as arrays, indexed k%setWays (k < setWays anyway):
	// no bounds checks.
	tags := (*[setWays]uint32)(t.tags[outer:])
	ways := (*[setWays]flow)(t.flows[outer:])
	allocSrc, allocDst := false, false
	var i, k uint32
	found := false
	for i, k = 0, inner; i < setWays; i, k = i+1, (k+1)%setWays {
		if tags[k%setWays] == flowH {
			if i != 0 {
				t.wayHits++
			}
			if ways[k%setWays].set == setNone {
				allocSrc, allocDst = dsrc(fm), ddst(fm)
			}
			found = true
			break
		}
	}
	if !found {
		for i = 0; i < setWays; i, k = i+1, (k+1)%setWays {
			if ways[k%setWays].set == setNone {
				t.wayMisses++
				allocSrc, allocDst = dsrc(fm), ddst(fm)
				found = true
				break
			}
		}
	}
	if !found {
		// No idle way: share the queue (k is back at inner_hash).
		t.wayCollisions++
		allocSrc, allocDst = dsrc(fm), ddst(fm)
		if ways[k%setWays].set == setBulk {
			t.decSrcHost(&ways[k%setWays], fm)
			t.decDstHost(&ways[k%setWays], fm)
		}
	}
	reduced = outer + k
	t.tags[reduced] = flowH
	f := &t.flows[reduced]
	if lazyHosts && (allocSrc || allocDst) {
		dstH = q.defaultHostHash(p.L3, &p.Dst)
		srcH = q.defaultHostHash(p.L3, &p.Src)
	}
	if allocSrc {
		f.srchost = uint16(t.hostSlot(srcH, true))
		if f.set == setBulk {
			t.incSrcHost(f, fm)
		}
	}
	if allocDst {
		f.dsthost = uint16(t.hostSlot(dstH, false))
		if f.set == setBulk {
			t.incDstHost(f, fm)
		}
	}
	return reduced
}

// hostSlot finds (or claims) the host slot for a source or destination
// host hash, with the same 8-way probing as the flow slots.
func (t *tin) hostSlot(h uint32, src bool) uint32 {
	idx := h % numQueues
	inner := idx % setWays
	outer := idx - inner
	var i, k uint32
	for i, k = 0, inner; i < setWays; i, k = i+1, (k+1)%setWays {
		hs := &t.hosts[outer+k]
		if (src && hs.srcTag == h) || (!src && hs.dstTag == h) {
			return outer + k
		}
	}
	for i = 0; i < setWays; i, k = i+1, (k+1)%setWays {
		hs := &t.hosts[outer+k]
		if (src && hs.srcBulk == 0) || (!src && hs.dstBulk == 0) {
			break
		}
	}
	if src {
		t.hosts[outer+k].srcTag = h
	} else {
		t.hosts[outer+k].dstTag = h
	}
	return outer + k
}
