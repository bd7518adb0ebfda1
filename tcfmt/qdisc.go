// SPDX-License-Identifier: Apache-2.0

package tcfmt

// QdiscHeader holds what the first line of a qdisc listing is made of: the
// tcmsg header fields and the generic attributes print_qdisc
// (tc/tc_qdisc.c) shows before a kind's own options.
type QdiscHeader struct {
	Kind   string // TCA_KIND
	Handle uint32 // tcm_handle
	Parent uint32 // tcm_parent
	Info   uint32 // tcm_info: the reference count

	// Dev is the interface name (tc prints "if%d" for an index it cannot
	// name). ShowDev: tc prints "dev NAME" only when the listing was not
	// filtered by a device ("tc qdisc show" without "dev").
	Dev     string
	ShowDev bool

	// Event flags, set when printing a monitor or echo message:
	// Deleted for RTM_DELQDISC, Replaced for RTM_NEWQDISC with
	// NLM_F_CREATE|NLM_F_REPLACE, Added with NLM_F_CREATE|NLM_F_EXCL.
	Deleted, Replaced, Added bool

	// Raw is tc's -raw flag: the full handle is shown as "[%08x]".
	Raw bool

	Offloaded    bool   // TCA_HW_OFFLOAD non-zero
	IngressBlock uint32 // TCA_INGRESS_BLOCK, shown when non-zero
	EgressBlock  uint32 // TCA_EGRESS_BLOCK, shown when non-zero
}

// QdiscHead opens a qdisc's JSON object and prints its header, as
// print_qdisc does up to the options:
//
//	[deleted |replaced |added ]qdisc KIND HANDLE: [dev DEV ]root |parent ID [refcnt N ][offloaded ][ingress_block N ][egress_block N ]
//
// Every text token ends with a blank. "root" is printed for parent
// TC_H_ROOT, "parent ID" (AppendClassID, e.g. "parent 1:1", an ingress
// qdisc's "parent ffff:fff1") for any other non-zero parent, and nothing
// for parent 0; refcnt only when tcm_info is not 1. JSON members, in order:
// deleted/replaced/added (true), kind, handle ("1:"), dev, root (true) or
// parent, refcnt, offloaded, ingress_block, egress_block.
//
// A kind then prints its options between OpenObject("options") and
// CloseObject (print_qdisc opens "options" even when there is no
// TCA_OPTIONS, giving "options": {}), then calls NL; see QdiscTail.
func (p *Printer) QdiscHead(h *QdiscHeader) {
	p.OpenObject("")
	if h.Deleted {
		p.Bool(Any, "deleted", "deleted ", true)
	}
	if h.Replaced {
		p.Bool(Any, "replaced", "replaced ", true)
	}
	if h.Added {
		p.Bool(Any, "added", "added ", true)
	}
	p.String(Any, "kind", "qdisc %s", h.Kind)
	var b [24]byte
	hs := AppendQdiscHandle(b[:0], h.Handle)
	if p.json {
		p.value("handle")
		p.buf = appendJSONString(p.buf, string(hs))
	} else {
		p.buf = append(p.buf, ' ')
		p.buf = append(p.buf, hs...)
		if h.Raw {
			p.buf = append(p.buf, '[')
			var x [8]byte
			v := h.Handle
			for i := 7; i >= 0; i-- {
				x[i] = hexDigits[v&15]
				v >>= 4
			}
			p.buf = append(p.buf, x[:]...)
			p.buf = append(p.buf, ']')
		}
		p.buf = append(p.buf, ' ')
	}
	if h.ShowDev {
		p.Text("dev ")
		p.String(Any, "dev", "%s ", h.Dev)
	}
	if h.Parent == HandleRoot {
		p.Bool(Any, "root", "root ", true)
	} else if h.Parent != 0 {
		var c [24]byte
		cs := AppendClassID(c[:0], h.Parent)
		if p.json {
			p.value("parent")
			p.buf = appendJSONString(p.buf, string(cs))
		} else {
			p.buf = append(p.buf, "parent "...)
			p.buf = append(p.buf, cs...)
			p.buf = append(p.buf, ' ')
		}
	}
	if h.Info != 1 {
		p.Uint(Any, "refcnt", "refcnt %u ", uint64(h.Info))
	}
	if h.Offloaded {
		p.Bool(Any, "offloaded", "offloaded ", true)
	}
	if h.IngressBlock != 0 {
		p.Uint(Any, "ingress_block", "ingress_block %u ", uint64(h.IngressBlock))
	}
	if h.EgressBlock != 0 {
		p.Uint(Any, "egress_block", "egress_block %u ", uint64(h.EgressBlock))
	}
}

// QdiscTail finishes a qdisc after its options (and after the statistics
// and xstats, which the caller prints in between when -s was given), as
// the end of print_qdisc does: the extended warning TCA_EXT_WARN_MSG when
// hasWarn ("warn" in JSON, then a line separator in text), then the close
// of the qdisc's JSON object.
//
// The whole sequence for one qdisc is:
//
//	p.QdiscHead(&h)
//	p.OpenObject("options"); /* kind options */; p.CloseObject()
//	p.NL()
//	if showStats {
//		if hasStats { p.Stats(&st, " "); p.NL() }   // TCA_STATS2, TCA_STATS or TCA_XSTATS present
//		if hasXstats { /* kind xstats */; p.NL() }
//	}
//	p.QdiscTail(warn, hasWarn)
func (p *Printer) QdiscTail(warn string, hasWarn bool) {
	if hasWarn {
		p.String(Any, "warn", "%s", warn)
		p.NL()
	}
	p.CloseObject()
}

// BasicStats is struct gnet_stats_basic (TCA_STATS_BASIC).
type BasicStats struct {
	Bytes   uint64
	Packets uint32
}

// QueueStats is struct gnet_stats_queue (TCA_STATS_QUEUE).
type QueueStats struct {
	Qlen       uint32
	Backlog    uint32
	Drops      uint32
	Requeues   uint32
	Overlimits uint32
}

// RateEst is a rate estimate: struct gnet_stats_rate_est (32-bit fields,
// TCA_STATS_RATE_EST) or gnet_stats_rate_est64 (TCA_STATS_RATE_EST64). BPS
// is in bytes per second.
type RateEst struct {
	BPS uint64
	PPS uint64
}

// Stats2 is the part of a TCA_STATS2 nest that tc's generic statistics
// block reads. The kernel sends RATE_EST only for a qdisc with an
// estimator, and RATE_EST64 in addition only when the 32-bit rate
// saturates; PKT64 follows BASIC only when the packet count exceeds 32
// bits.
type Stats2 struct {
	HasBasic  bool
	Basic     BasicStats
	Packets64 uint64 // TCA_STATS_PKT64 after TCA_STATS_BASIC; 0 if absent

	HasQueue bool
	Queue    QueueStats

	HasRateEst   bool // TCA_STATS_RATE_EST present
	RateEst      RateEst
	HasRateEst64 bool // TCA_STATS_RATE_EST64 present (takes precedence)
	RateEst64    RateEst
}

// Stats prints the generic statistics block as print_tcstats2_attr
// (tc/tc_util.c) does, with prefix at the start of each line (tc_qdisc.c
// passes " "). Text, with every part present and prefix " ":
//
//	Sent 1024 bytes 8 pkt (dropped 0, overlimits 0 requeues 0)
//	rate 0bit 0pps backlog 0b 0p requeues 0
//
// Note the trailing blank after ")" and that the rate line starts with a
// hard "\n" (not the -oneline separator). Without a rate estimate the
// backlog goes on its own line after a line separator. tc tests only
// RATE_EST for that, so a RATE_EST64 without RATE_EST (which the kernel
// never sends) also gets the separator. JSON members:
// bytes, packets, drops, overlimits, requeues, rate, pps, backlog, qlen.
// The caller prints the separator that ends the block.
func (p *Printer) Stats(s *Stats2, prefix string) {
	if s.HasBasic {
		p.Text(prefix)
		p.Uint(Any, "bytes", "Sent %llu bytes", s.Basic.Bytes)
		if s.Packets64 != 0 {
			p.Uint(Any, "packets", " %llu pkt", s.Packets64)
		} else {
			p.Uint(Any, "packets", " %u pkt", uint64(s.Basic.Packets))
		}
	}
	if s.HasQueue {
		q := &s.Queue
		p.Uint(Any, "drops", " (dropped %u", uint64(q.Drops))
		p.Uint(Any, "overlimits", ", overlimits %u", uint64(q.Overlimits))
		p.Uint(Any, "requeues", " requeues %u) ", uint64(q.Requeues))
	}
	var re *RateEst
	if s.HasRateEst64 {
		re = &s.RateEst64
	} else if s.HasRateEst {
		re = &s.RateEst
	}
	if re != nil {
		bps, pps := re.BPS, re.PPS
		if !s.HasRateEst64 {
			bps, pps = uint64(uint32(bps)), uint64(uint32(pps))
		}
		if !p.json {
			p.buf = append(p.buf, '\n')
			p.buf = append(p.buf, prefix...)
		}
		p.Rate(Any, "rate", "rate %s", bps)
		p.Uint(Any, "pps", " %llupps", pps)
	}
	if s.HasQueue {
		if !s.HasRateEst {
			p.NL()
		}
		p.Text(prefix)
		p.Size(Any, "backlog", "backlog %s", uint64(s.Queue.Backlog))
		p.Uint(Any, "qlen", " %up", uint64(s.Queue.Qlen))
		p.Uint(FP, "", " requeues %u", uint64(s.Queue.Requeues))
	}
	p.maybeFlush()
}

// CompatStats is the old struct tc_stats (TCA_STATS), which tc prints only
// when a message has no TCA_STATS2.
type CompatStats struct {
	Bytes      uint64
	Packets    uint32
	Drops      uint32
	Overlimits uint32
	BPS        uint32
	PPS        uint32
	Qlen       uint32
	Backlog    uint32
}

// CompatStatsBlock prints TCA_STATS as print_tcstats_attr's fallback
// does: " Sent N bytes N pkts (dropped N, overlimits N) " and, when any
// is non-zero, a line with "rate R Npps " and "backlog Sb Np " parts
// showing only the non-zero values. Its JSON keys differ from Stats's:
// "dropped" instead of "drops", and "rate" as a number of bytes/s.
func (p *Printer) CompatStatsBlock(st *CompatStats, prefix string) {
	p.Text(prefix)
	p.Uint(Any, "bytes", "Sent %llu bytes", st.Bytes)
	p.Uint(Any, "packets", " %u pkts", uint64(st.Packets))
	p.Uint(Any, "dropped", " (dropped %u,", uint64(st.Drops))
	p.Uint(Any, "overlimits", " overlimits %u) ", uint64(st.Overlimits))
	if st.BPS != 0 || st.PPS != 0 || st.Qlen != 0 || st.Backlog != 0 {
		p.NL()
		p.Text(prefix)
		if st.BPS != 0 || st.PPS != 0 {
			p.Text("rate ")
			if st.BPS != 0 {
				p.Rate(Any, "rate", "%s ", uint64(st.BPS))
			}
			if st.PPS != 0 {
				p.Uint(Any, "pps", "%upps ", uint64(st.PPS))
			}
		}
		if st.Qlen != 0 || st.Backlog != 0 {
			p.Text("backlog ")
			if st.Backlog != 0 {
				p.Size(Any, "backlog", "%s ", uint64(st.Backlog))
			}
			if st.Qlen != 0 {
				p.Uint(Any, "qlen", "%up ", uint64(st.Qlen))
			}
		}
	}
}
