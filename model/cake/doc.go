// SPDX-License-Identifier: Apache-2.0

// Package cake is a userspace reference model of the Linux CAKE qdisc
// (net/sched/sch_cake.c, read at 6.18, whose CAKE code matches the latest
// torvalds/linux revision available to us): given a configuration and a
// packet trace it predicts what the kernel reports in "tc -s qdisc".
//
// # Use
//
// New(cfg) applies cake_init's defaults and then cfg as cake_change does;
// Change applies a later "tc qdisc change"; Config returns what cake_dump
// shows. Enqueue and Dequeue are cake_enqueue and cake_dequeue on a virtual
// clock in nanoseconds (CLOCK_MONOTONIC: start traces well after 0, e.g. at
// 10 s, because the kernel compares against timers initialised to 0, such
// as the BLUE timer and the 250 ms autorate guard). NextWakeup is the qdisc
// watchdog. Simulate and Driver feed a veth-like "immediate" device: after
// each enqueue, and at each watchdog expiry, they dequeue until the qdisc
// returns nothing, as __dev_xmit_skb/__qdisc_run and net_tx_action do.
// Stats returns the TCA_STATS_APP attributes (global fields and one
// TinStats entry per tin in dump order, exactly the fields the kernel
// sends) and the generic basic/queue counters.
//
// # What is modelled
//
//   - Configuration: defaults, cake_change's partial updates and their
//     truncations (u8 modes, s16 overhead, u16 mpu), cake_reconfigure and
//     cake_config_{besteffort,precedence,diffserv3,4,8}: per-tin rate_ns
//     and shift, flow_quantum, tin_quantum, mtu_time, target, interval;
//     buffer_limit; the dump.
//   - cake_select_tin / cake_handle_diffserv: DSCP tables, wash (DSCP
//     cleared, ECN kept, tin unchanged), fwmark and skb->priority
//     overrides (WithHandle sets the qdisc handle), ARP as CS7.
//   - cake_hash: the flow partition of every flow mode, host slots for the
//     dual and triple modes, skb->hash for connected sockets, and the 8-way
//     set-associative lookup with way_directs/hits/misses/collisions. The
//     kernel's hashes are keyed per boot, so the model uses its own seeded
//     hash (the same partition) or one injected with WithHasher.
//   - cake_overhead / cake_calc_overhead: overhead, mpu, ATM and PTM in the
//     kernel's u32 arithmetic; min/max netlen and adjlen (u16); avg_netoff.
//   - The shaper: per-tin and global time_next, failsafe, the stale-state
//     reset at an idle enqueue, overlimits, tin choice in shaped mode and
//     WRR over tin_quantum when unlimited; the single reprogrammable
//     watchdog.
//   - COBALT: cobalt_should_drop with the inverse-sqrt cache and Newton
//     step, reciprocal_scale's 32-bit interval, BLUE (cobalt_queue_full /
//     cobalt_queue_empty), the zero rec_inv_sqrt of a fresh flow (its first
//     over-target packet makes the next one a signal), ECN marking
//     (INET_ECN_set_ce: CE counts as marked), "never drop the last packet",
//     ingress-mode drops charged to the shaper and deficits.
//   - DRR++: new/old/decaying lists, sparse/sparse-wait/bulk/decaying
//     states, per-host quantum division with get_random_u16 dithering.
//   - cake_ack_filter in filter and aggressive modes, from structured TCP
//     fields (flags incl. the reserved nibble, ack, timestamps, SACK
//     blocks, payload length, "other options").
//   - The memory limit: truesize accounting, cake_drop from the fattest
//     queue through the kernel's 8×1024-entry max-heap (mirrored operation
//     for operation, so ties break as in the kernel), NET_XMIT_CN.
//   - GSO: splitting into segments (each counted in the tin's packets) or,
//     with no-split-gso, one skb whose adjusted length sums its segments
//     and whose dequeue adds gso_segs packets to the generic counter.
//   - Autorate (the ingress capacity estimate), including the kernel's
//     never-updated last_reconfig_time.
//   - Randomness through Rand (WithRand; a seeded generator by default):
//     u16 draws are the low 16 bits of a u32 draw.
//
// # Timing margins
//
// Enqueue times in a recorded trace are exact, but the kernel runs
// dequeues later than the model's instants. Margins reports, per category
// (shaper, AQM), the smallest margin by which a decision could have gone
// the other way (see Margins); a model-vs-kernel comparison should only
// demand exact agreement of the counters a category governs when its
// margin exceeds ~200 µs. Overlimits and delay statistics under sustained
// shaping are inherently timing-dependent.
//
// # What is not modelled (or not verified)
//
//   - tc filters attached to CAKE (flow/host overrides from classid, SHOT),
//     the NAT conntrack lookup (the nat flag is stored and dumped only),
//     6in4 inner headers, VLAN-tagged frames, cake_mq.
//   - truesize: an input (Packet.Truesize, SegTruesize), not derived; the
//     research notes say to calibrate it from memory_used.
//   - Per-class (per-flow) dumps (cake_dump_class_stats) and cake_reset.
//   - The kernel's qdisc run quota (64 packets, then softirq) and timer
//     latency: the model serves the watchdog exactly at its deadline.
//   - Nothing here has yet been compared with a running kernel; the
//     per-mode tin counts of the research notes are the only measured
//     numbers the tests check.
package cake
