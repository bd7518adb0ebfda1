// SPDX-License-Identifier: Apache-2.0

// Package fqcodel is a userspace reference model of the Linux fq_codel
// qdisc (net/sched/sch_fq_codel.c with include/net/codel.h and
// codel_impl.h). Given a configuration (attrs.FQCodelAttrs as the CLI sends
// it or a dump returns it) and a packet trace on a virtual nanosecond
// clock, it predicts each packet's fate and what a dump of the qdisc
// reports: gnet_stats_basic, gnet_stats_queue and tc_fq_codel_xstats. It
// has no goroutines and never reads the wall clock.
//
// # What is modelled
//
// Configuration (fq_codel_init, fq_codel_change): limit 10240 packets,
// 1024 flows, memory_limit 32 MiB, drop_batch_size 64, quantum psched_mtu,
// target 5 ms, interval 100 ms, ecn on, ce_threshold off; times in µs
// become codel_time_t (ns>>10) and dump back as (t<<10)/1000 µs, so 1 µs
// dumps as 0; quantum is raised to 256 and must not exceed 2^20; flows
// must be in 1..65536; drop_batch_size is raised to 1; memory_limit is
// capped at 2^31.
//
// Classification (fq_codel_classify): a skb->priority whose major is the
// qdisc's handle and whose minor is in 1..flows selects flow minor-1.
// Otherwise the kernel hashes the flow with a per-boot random seed, which
// a model cannot know: the model then takes the packet's Flow field as
// the hash (modulo flows), which is right exactly when distinct test
// flows land in distinct kernel buckets. Deterministic tests therefore
// pin their flows with SO_PRIORITY = handle:minor.
//
// Bypass: fq_codel sets TCQ_F_CAN_BYPASS when limit >= 1, so a packet that
// finds the root qdisc empty and idle goes straight to the device,
// counted in bytes/packets only. On an immediate link (a veth) every
// packet of one sender does so; a Link with a rate (and HTB's burst)
// models a parent shaper that pulls packets instead (no bypass, as for a
// leaf of HTB).
//
// Enqueue (fq_codel_enqueue, fq_codel_drop): per-flow FIFO, backlogs,
// new flows joining new_flows with deficit = quantum (new_flow_count),
// memory_usage += truesize (none for an skb a local socket's write memory
// holds, is_skb_wmem), and when qlen > limit or memory_usage >
// memory_limit the batch drop from the flow with the largest byte backlog
// (first index on ties): head packets until half its backlog or
// drop_batch_size packets, count += dropped on that flow's codel, drops,
// drop_overlimit and (if memory was over) drop_overmemory.
//
// Dequeue (fq_codel_dequeue, codel_dequeue): DRR over new_flows then
// old_flows, a flow with no credit gets quantum and moves to old_flows,
// an emptied new flow moves to old_flows if that list is non-empty,
// otherwise it leaves the lists; CoDel per flow with the kernel's u32
// codel_time_t arithmetic: should_drop (sojourn below target or backlog
// <= mtu resets first_above_time), the dropping state, the control law
// t + interval*rec_inv_sqrt and the Newton step on the 16-bit
// rec_inv_sqrt, count/lastcount reuse within 16 intervals, ECN marking
// (INET_ECN_set_ce: ECT(0), ECT(1) and CE succeed) instead of dropping,
// maxpacket, and ce_threshold marking with its selector and mask on the
// DS field.
//
// # What is not
//
// External filters (tcf_classify), Change on a live qdisc (its trimming),
// GSO segments (fq_codel does not split; a GSO packet is one skb of
// qdisc_pkt_len bytes), and the timing of a real device: the margins say
// how close each timing decision came (in ns) to going the other way,
// CoDel's (Qdisc.Margin) and, below a rate, the order of arrivals and the
// link's dequeues (Result.Order).
package fqcodel
