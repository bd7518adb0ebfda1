// SPDX-License-Identifier: Apache-2.0

// Package traffic sends a described packet trace through a real kernel's
// qdisc on a veth device, records exactly what it offered the qdisc, and
// captures what arrives on the veth peer, so that the trace can be
// replayed into the reference models (model/cake, model/dualpi2) and their
// predictions compared with the kernel's statistics. cmd/gotc-traffic is
// its command-line front end.
//
// # Plan (input)
//
// A plan is a small JSON object; a tdc-style test case embeds it as its
// "traffic" block:
//
//	{
//	  "dev": "v0", "netns": "",          egress device (qdisc under test), its netns
//	  "peer": "v1", "peer_netns": "nsb", veth peer where the capture runs
//	  "peer_mac": "",                    only if the peer cannot be looked up
//	  "skip_neigh": false,               leave the neighbour tables alone
//	  "flows": [
//	    {"proto": "udp", "src": "10.0.0.1", "dst": "10.0.0.2", "sport": 4000, "dport": 5000,
//	     "dscp": 46, "ecn": 1, "priority": 0, "mark": 0,
//	     "size": 1000, "count": 100, "burst": 1, "start_us": 0, "interval_us": 100,
//	     "gso_segs": 0},
//	    {"proto": "tcp-ack", "src": "10.0.0.1", "dst": "10.0.0.2", "sport": 4001, "dport": 80,
//	     "count": 10, "interval_us": 50,
//	     "tcp": {"flags": "A", "seq": 1, "ack": 1000, "ack_step": 1448, "win": 512,
//	             "ts": true, "tsval": 100, "tsval_step": 1, "tsecr": 7,
//	             "sack": [[1448, 2896]], "sack_step": 0, "payload": 0}}
//	  ]
//	}
//
// Netns names are looked up under /run/netns (as "ip netns" creates them)
// or taken as paths. Flow fields: "dscps"/"ecns" give per-packet cycles
// instead of one value (packet k uses dscps[k % len]); "size" is the IP
// length of a UDP packet, headers included (so the qdisc sees size+14),
// and with "gso_segs" >= 2 each send is one UDP_SEGMENT super-packet of
// that many segments of "size" bytes. Sends come in bursts of "burst"
// back-to-back packets, "interval_us" apart, starting "start_us" after
// the plan's start; flows share one timeline and sends due at the same
// instant go in flow order. A tcp-ack flow sends crafted TCP segments whose
// ack (and tsval) advance by ack_step (tsval_step) per packet; SACK blocks
// are relative to the packet's ack. Flags are letters F S R P A U E(ECE)
// C(CWR) N(AE). Sizes stay within 1500 bytes (MaxSize), GSO within 64
// segments.
//
// A pcap flow, {"proto": "pcap", "pcap": "up.pcap", "start_us": 0},
// replays a capture (see ReadPcap): each packet rebuilt from its headers
// (addresses, ports, DS field, IPv4 ID, TCP header, as much zero payload
// as its length needs) and sent through an AF_PACKET socket at start_us
// plus its capture time since the first packet's. Only priority and mark
// apply besides; the capture must hold IP packets of at most 1514 bytes.
// The send trace records the packets as sent, so the models see the
// replay as the kernel did.
//
// # How packets are sent
//
// UDP flows use one connected UDP socket each, bound to dev: IP_TOS (or
// IPV6_TCLASS) carries DSCP and ECN, SO_PRIORITY and SO_MARK set
// skb->priority and skb->mark (SO_PRIORITY is set again after every
// IP_TOS, which resets it), UDP_SEGMENT makes GSO packets, and the
// connected socket's txhash gives skb->hash as for a real application.
// tcp-ack flows write whole Ethernet frames with computed checksums to an
// AF_PACKET socket, which goes through dev_queue_xmit and so the qdisc.
// Before sending, the tool installs permanent neighbour entries for every
// destination on dev and every source on the peer, so that no ARP request
// or reply passes through the qdisc under test; the receiver binds a UDP
// socket to each UDP destination port so that no ICMP port unreachable is
// provoked. With IPv6 on, the devices themselves still send MLD and router
// solicitations: run with IPv6 disabled unless the test needs it.
//
// Sends follow the plan on CLOCK_MONOTONIC (sleep, then spin), and each
// send's actual time is recorded.
//
// # Trace and capture (output)
//
// Both are JSONL, one Record per line. A send:
//
//	{"i":3,"flow":0,"k":3,"t_ns":123456789,"dur_ns":2100,"len":1014,"l3":"ipv4","proto":17,
//	 "src":"10.0.0.1","dst":"10.0.0.2","sport":4000,"dport":5000,"dscp":46,"ecn":1,
//	 "priority":0,"mark":0,"l4_hash":true,"payload":972,"tag":3}
//
// t_ns is CLOCK_MONOTONIC just before the send syscall and dur_ns its
// duration (the enqueue happened in between); len is skb->len at the qdisc
// on a veth (IP length + 14; for GSO the whole super-packet, with
// gso_segs, gso_size and hdr_len); tag is the send index written into the
// first 8 payload bytes ("GOTC" + u32) of UDP packets (of every segment
// of a GSO packet), -1 if too short.
// TCP records add "tcp": {"flags","seq","ack","win","ts","tsval","tsecr",
// "sack":[[start,end]],"other_opts"} and "ip_id" (the send index, which
// tells duplicate ACKs apart). "err" is a failed send ("no buffer space
// available" is a qdisc drop reported to a packet socket: that packet was
// still offered to the qdisc). A capture record has the same fields as
// decoded from the frame (flow -1, no priority/mark), the sll_pkttype,
// and GSO fields when the frame arrived as a GSO super-packet.
//
// # Captures (pcap, pcapng)
//
// ReadPcap turns a user's capture (tcpdump -w, Wireshark) into send
// records: each packet offered at its timestamp, its length the one the IP
// header declares plus an Ethernet header, flows numbered by 5-tuple, and
// a TCP or UDP packet longer than the MTU taken as a GSO super-packet.
// pcapgo reads the files; a corrupt one is an error naming the packet.
//
// # Replaying into the models
//
// model/predict's CakeArrivals and DualPI2Arrivals turn a send trace into the
// models' Simulate input (this package does not depend on the models);
// ModelOptions supplies truesize (which must be calibrated on the kernel)
// and the choice of enqueue instant. Compare matches a
// capture with its trace (order, CE marks, rewritten fields, extras); a
// GSO send may arrive whole or, when the qdisc splits GSO, as segments.
//
// testdata/*.sh are runs for the test VM (selftests/vm/run with
// GOTC_VM_PAYLOAD=traffic); the traces and dumps they recorded are
// replayed into the models by model/predict's tests.
package traffic
