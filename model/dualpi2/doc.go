// SPDX-License-Identifier: Apache-2.0

// Package dualpi2 is a userspace reference model of the Linux dualpi2 qdisc
// (net/sched/sch_dualpi2.c, read from a 6.18 stable tree; RFC 9332). Given a
// configuration (attrs.DualPI2Attrs, as the CLI sends it or a dump returns
// it) and a packet trace on a virtual nanosecond clock, it predicts each
// packet's fate and what a dump of the qdisc reports: gnet_stats_basic,
// gnet_stats_queue and tc_dualpi2_xstats. It has no goroutines and never
// reads the wall clock.
//
// # What is modelled
//
// Configuration. New applies dualpi2_reset_default, then the attributes
// with dualpi2_change's semantics and netlink policy (limit recomputes
// memory_limit = limit*2*psched_mtu, an explicit memory_limit wins; times
// in µs become ns, tupdate and step_thresh saturating at 2^32-1 ns;
// alpha/beta scaled by ScaleAlphaBeta; c_protection sets wc, wl = 100-wc
// and credit = psched_mtu*(wc-wl)). Config is dualpi2_dump, including the
// lossy gain round trip (41 → 44 → 40). Change is dualpi2_change on a live
// qdisc, including its trimming of the queues (C heads, then L heads).
// Reset is dualpi2_reset.
//
// Classification (dualpi2_skb_classify): ECN & ecn_mask → L4S; otherwise a
// priority whose major is the qdisc handle and minor 0, 1 or 2 selects C,
// L4S or LLLL; otherwise C.
//
// Enqueue (dualpi2_qdisc_enqueue, dualpi2_enqueue_skb): GSO splitting into
// segments of HdrLen + gso_size bytes that inherit class and ECN; the
// packet limit and memory limit (truesize) checks, which count drops and
// overlimits; must_drop at enqueue with drop_early; enqueue timestamp,
// memory_used/max_memory_used, maxq (qlen before the packet), apply_step
// (L4S and qlen(L) >= min_qlen_step), packets_in_c/l.
//
// Dequeue (dualpi2_qdisc_dequeue, dequeue_packet, must_drop, do_step_aqm):
// the credit-based WRR between L and C, reset to its initial value by every
// dequeue that finds both queues empty; must_drop with drop_early off (no
// action below a backlog of 2*psched_mtu; C: drop or mark with two draws,
// p'^2; L4S: one draw at k*p', or under overload (k*p' > 1) drop with p'^2
// if drop_overload, else mark); the step threshold on L4S packets (sojourn
// time or qlen(L) after the pop, strictly above step_thresh: mark, or drop
// a not-ECT packet); CE marking as INET_ECN_set_ce (succeeds and counts for
// ECT(0), ECT(1) and CE, fails for not-ECT); bytes and gso_segs of the sent
// packet into the basic counters.
//
// PI2 (dualpi2_timer, calculate_probability): the timer fires at creation
// + tupdate and is re-armed tupdate after each run; qdelay is the older of
// the two queue heads; delta = (qdelay-target)*alpha + (qdelay-last)*beta
// in wrapping signed 64-bit arithmetic, prob moves by delta/64 truncated to
// 32 bits before the kernel's overflow test, clamped to [0, 2^32-1], capped
// at (2^32-1)/k when drop_overload is off. delay_c/delay_l are the head
// ages at dump time (Delays, StatsAt), kept stale after Change trims a
// queue, as in the kernel.
//
// Randomness: the kernel's get_random_u32 draws come from a Rand (default:
// a seeded PCG), in the kernel's order and number (0 to 2 per decision,
// short-circuited), and succeed when draw <= prob, so even prob 0 succeeds
// for a zero draw. Const makes every draw decide the same way.
//
// Sim and Simulate drive a qdisc with a trace and a Link: LinkImmediate
// (dequeue until empty after every enqueue, like a veth root) or LinkRate
// (an ideal serializer standing for a parent shaper such as HTB).
//
// # What is not modelled
//
//   - tc filters attached to the qdisc (and so TC_ACT_SHOT drops, stolen
//     packets and filter classids); classification stops at the priority.
//   - dualpi2_peek, used by parents that peek (TBF): it runs the AQM at peek
//     time and parks the packet in gso_skb.
//   - The parent's view: qdisc_tree_reduce_backlog after deferred dequeue
//     drops and GSO splits, and the L queue's own pfifo counters (no dump
//     shows them for a root dualpi2). Requeues are always 0.
//   - Packet contents: non-IP packets must be given ECN 0, and header pull
//     failures (which classify a packet as not-ECT) are not represented.
//     truesize is an input: calibrate it on the target kernel.
//   - HTB's token buckets (burst, cburst, quantum): LinkRate is a perfect
//     serializer charged with qdisc_pkt_len.
//   - Kernel timing. The kernel's clock reads, hrtimer latency (the timer
//     is re-armed from when it ran, so lateness accumulates; WithTimerSlack
//     adds a fixed amount per tick), __qdisc_run's quota and softirq deferral, and
//     the time between a packet's send and its enqueue are not known to the
//     model. Every timing-dependent decision therefore has a margin
//     (Margins): a comparison with a kernel should only treat a run as
//     exact when Margins.Min exceeds the kernel's timing uncertainty (about
//     200 µs), and compare prob and the delays with a tolerance of about
//     (alpha+beta)/64 per ns of timer lateness.
//   - Older versions of the file. The model follows the version with
//     pkt_segs and deferred dequeue drops (6.18 stable). An earlier one
//     (torvalds/linux 92b9c2b7) returned the last segment's code from a
//     split enqueue even when earlier segments were queued, and its
//     change() trimmed through the C queue only.
package dualpi2
