package qdisc

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/gotc/gotc/attrs"
)

// This file writes dumped options back as tc keywords: the words that,
// given to the kind's parser, ask for the same options. tc's own text
// output is not that for every kind (htb prints direct_packets_stat, rates
// rounded to three digits), so these printers write exact values in forms
// the parsers read. "gotc apply --from-kernel" uses them.

// ErrNoKeywords reports options that no tc words ask for (a kind, or an
// option of one, that the keyword printers do not cover).
var ErrNoKeywords = errors.New("no tc keywords for these options")

func noKeywords(what string) error { return fmt.Errorf("%w: %s", ErrNoKeywords, what) }

// QdiscKeywords returns the words after the kind that ask for a qdisc's
// dumped options. A kind without options gives none.
func QdiscKeywords(kind string, opts attrs.TCOptionsMsg) ([]string, error) {
	switch o := opts.(type) {
	case nil:
		return nil, nil
	case attrs.TCOptionsMsgRaw:
		if len(o) == 0 {
			return nil, nil // the empty nest of ingress and clsact
		}
	case attrs.TCOptionsMsgNest:
		if len(o) == 0 {
			return nil, nil
		}
	case *attrs.CakeAttrs:
		return cakeKeywords(o), nil
	case *attrs.DualPI2Attrs:
		return dualpi2Words(o)
	case *attrs.FQCodelAttrs:
		return fqCodelKeywords(o), nil
	case *attrs.HTBAttrs:
		return htbQdiscKeywords(o)
	case *attrs.TBFAttrs:
		return tbfKeywords(o)
	case *attrs.TCFifoQopt:
		return []string{"limit", u(o.Limit)}, nil
	}
	if k := Lookup(kind); k == nil || k.ParseQdisc == nil {
		return nil, nil // a kind that takes no options (mq, ingress, pfifo_fast)
	}
	return nil, noKeywords("qdisc " + kind)
}

// ClassKeywords returns the words after the kind that ask for a class's
// dumped options.
func ClassKeywords(kind string, opts attrs.TCOptionsMsg) ([]string, error) {
	if o, ok := opts.(*attrs.HTBAttrs); ok && o.Parms != nil {
		return htbClassKeywords(o)
	}
	return nil, noKeywords("class " + kind)
}

// FilterKeywords returns the words after the kind that ask for a filter's
// dumped options (its handle and place aside), naming devices with links.
func FilterKeywords(kind string, opts attrs.TCOptionsMsg, links Links) ([]string, error) {
	var w []string
	var acts []attrs.ActAttrs
	var err error
	switch o := opts.(type) {
	case *attrs.MatchallAttrs:
		if w, err = filterFlagWords(o.Flags); err != nil {
			return nil, err
		}
		w = classidWords(w, o.Classid)
		acts = o.Act
	case *attrs.BasicAttrs:
		// The kernel dumps an empty tree when there are no ematches.
		if e := o.Ematches; (e != nil && (len(e.TreeList) > 0 || e.TreeHdr != nil && e.TreeHdr.Nmatches > 0)) || o.Police != nil {
			return nil, noKeywords("basic's ematches and police")
		}
		w = classidWords(w, o.Classid)
		acts = o.Act
	case *attrs.U32Attrs:
		if w, err = u32Keywords(o); err != nil {
			return nil, err
		}
		acts = o.Act
	default:
		return nil, noKeywords("filter " + kind)
	}
	for _, a := range acts {
		aw, err := actionKeywords(a, links)
		if err != nil {
			return nil, err
		}
		w = append(append(w, "action"), aw...)
	}
	return w, nil
}

func u[T ~uint8 | ~uint16 | ~uint32 | ~uint64](v T) string { return strconv.FormatUint(uint64(v), 10) }

// rateWord writes bytes/s as an exact rate in bits, in the largest of
// tc's decimal units that divides it.
func rateWord(bytesPerSec uint64) string {
	bits := bytesPerSec * 8
	for _, unit := range []struct {
		name string
		div  uint64
	}{{"gbit", 1e9}, {"mbit", 1e6}, {"kbit", 1e3}} {
		if bits%unit.div == 0 {
			return u(bits/unit.div) + unit.name
		}
	}
	return u(bits) + "bit"
}

// timeWord writes microseconds exactly.
func timeWord(us uint32) string {
	switch {
	case us != 0 && us%1e6 == 0:
		return u(us/1e6) + "s"
	case us != 0 && us%1e3 == 0:
		return u(us/1e3) + "ms"
	}
	return u(us) + "us"
}

func cakeKeywords(o *attrs.CakeAttrs) []string {
	var w []string
	if o.BaseRate64 != nil {
		if *o.BaseRate64 == 0 {
			w = append(w, "unlimited")
		} else {
			w = append(w, "bandwidth", rateWord(*o.BaseRate64))
		}
	}
	if o.Autorate != nil && *o.Autorate != 0 {
		w = append(w, "autorate-ingress")
	}
	if o.DiffservMode != nil {
		w = append(w, map[attrs.CakeDiffservMode]string{
			attrs.CakeDiffservModeDiffserv3: "diffserv3", attrs.CakeDiffservModeDiffserv4: "diffserv4",
			attrs.CakeDiffservModeDiffserv8: "diffserv8", attrs.CakeDiffservModeBesteffort: "besteffort",
			attrs.CakeDiffservModePrecedence: "precedence",
		}[*o.DiffservMode])
	}
	if o.FlowMode != nil {
		w = append(w, map[attrs.CakeFlowMode]string{
			attrs.CakeFlowModeNone: "flowblind", attrs.CakeFlowModeSrcIP: "srchost", attrs.CakeFlowModeDstIP: "dsthost",
			attrs.CakeFlowModeHosts: "hosts", attrs.CakeFlowModeFlows: "flows", attrs.CakeFlowModeDualSrc: "dual-srchost",
			attrs.CakeFlowModeDualDst: "dual-dsthost", attrs.CakeFlowModeTriple: "triple-isolate",
		}[*o.FlowMode])
	}
	w = onOff(w, o.NAT, "nat", "nonat")
	w = onOff(w, o.Wash, "wash", "nowash")
	w = onOff(w, o.Ingress, "ingress", "egress")
	w = onOff(w, o.SplitGSO, "split-gso", "no-split-gso")
	if o.AckFilter != nil {
		w = append(w, map[attrs.CakeAckFilter]string{
			attrs.CakeAckFilterNone: "no-ack-filter", attrs.CakeAckFilterFilter: "ack-filter",
			attrs.CakeAckFilterAggressive: "ack-filter-aggressive",
		}[*o.AckFilter])
	}
	if o.RTT != nil {
		w = append(w, "rtt", timeWord(*o.RTT))
	}
	// The kernel dumps RAW when no overhead was set: "raw" asks for that
	// (and resets the framing, so it comes before atm and ptm).
	if o.Raw != nil {
		w = append(w, "raw")
	} else if o.Overhead != nil {
		w = append(w, "overhead", strconv.Itoa(int(*o.Overhead)))
	}
	if o.ATM != nil {
		w = append(w, map[attrs.CakeATMMode]string{attrs.CakeATMModeNone: "noatm", attrs.CakeATMModeATM: "atm", attrs.CakeATMModePTM: "ptm"}[*o.ATM])
	}
	if o.MPU != nil && *o.MPU != 0 {
		w = append(w, "mpu", u(*o.MPU))
	}
	if o.Memory != nil && *o.Memory != 0 {
		w = append(w, "memlimit", u(*o.Memory))
	}
	if o.Fwmark != nil && *o.Fwmark != 0 {
		w = append(w, "fwmark", "0x"+strconv.FormatUint(uint64(*o.Fwmark), 16))
	}
	return w
}

// onOff writes a flag attribute as one of its two keywords.
func onOff(w []string, v *uint32, on, off string) []string {
	switch {
	case v == nil:
		return w
	case *v != 0:
		return append(w, on)
	}
	return append(w, off)
}

func dualpi2Words(o *attrs.DualPI2Attrs) ([]string, error) {
	var w []string
	opt := func(name string, v *uint32, format func(uint32) string) {
		if v != nil && *v != 0 {
			w = append(w, name, format(*v))
		}
	}
	opt("limit", o.Limit, u[uint32])
	opt("memlimit", o.MemoryLimit, u[uint32])
	opt("target", o.Target, timeWord)
	opt("tupdate", o.Tupdate, timeWord)
	// alpha and beta travel as Hz*256: v/256 is exact in decimal and in
	// the float tc reads it into (for v below 2^24).
	gain := func(v uint32) string { return strconv.FormatFloat(float64(v)/256, 'f', -1, 64) }
	opt("alpha", o.Alpha, gain)
	opt("beta", o.Beta, gain)
	if o.StepThreshPkts != nil {
		w = append(w, "step_thresh", u(*o.StepThreshPkts)+"p")
	} else {
		opt("step_thresh", o.StepThreshUS, func(v uint32) string { return u(v) + "us" })
	}
	if o.MinQlenStep != nil {
		w = append(w, "min_qlen_step", u(*o.MinQlenStep))
	}
	if o.Coupling != nil {
		w = append(w, "coupling_factor", u(*o.Coupling))
	}
	if o.DropOverload != nil {
		w = append(w, map[attrs.DualPI2DropOverload]string{attrs.DualPI2DropOverloadOverflow: "overflow", attrs.DualPI2DropOverloadDrop: "drop_on_overload"}[*o.DropOverload])
	}
	if o.DropEarly != nil {
		w = append(w, map[attrs.DualPI2DropEarly]string{attrs.DualPI2DropEarlyDropDequeue: "drop_dequeue", attrs.DualPI2DropEarlyDropEnqueue: "drop_enqueue"}[*o.DropEarly])
	}
	if o.CProtection != nil {
		w = append(w, "classic_protection", u(*o.CProtection)+"%")
	}
	if o.ECNMask != nil {
		switch *o.ECNMask {
		case attrs.DualPI2ECNMaskL4SECT:
			w = append(w, "l4s_ect")
		case attrs.DualPI2ECNMaskAnyECT:
			w = append(w, "any_ect")
		default:
			return nil, noKeywords(fmt.Sprintf("dualpi2 ECN mask %d", *o.ECNMask))
		}
	}
	if o.SplitGSO != nil {
		w = append(w, map[attrs.DualPI2SplitGSO]string{attrs.DualPI2SplitGSONoSplitGSO: "no_split_gso", attrs.DualPI2SplitGSOSplitGSO: "split_gso"}[*o.SplitGSO])
	}
	return w, nil
}

func fqCodelKeywords(o *attrs.FQCodelAttrs) []string {
	var w []string
	num := func(name string, v *uint32) {
		if v != nil {
			w = append(w, name, u(*v))
		}
	}
	num("limit", o.Limit)
	num("flows", o.Flows)
	num("quantum", o.Quantum)
	if o.Target != nil {
		w = append(w, "target", timeWord(*o.Target))
	}
	if o.Interval != nil {
		w = append(w, "interval", timeWord(*o.Interval))
	}
	num("memory_limit", o.MemoryLimit)
	num("drop_batch", o.DropBatchSize)
	w = onOff(w, o.ECN, "ecn", "noecn")
	if o.CEThreshold != nil {
		w = append(w, "ce_threshold", timeWord(*o.CEThreshold))
	}
	if o.CEThresholdSelector != nil && o.CEThresholdMask != nil && *o.CEThresholdMask != 0 {
		w = append(w, "ce_threshold_selector", fmt.Sprintf("%#x/%#x", *o.CEThresholdSelector, *o.CEThresholdMask))
	}
	return w
}

func htbQdiscKeywords(o *attrs.HTBAttrs) ([]string, error) {
	var w []string
	if g := o.Init; g != nil {
		if g.Debug != 0 {
			return nil, noKeywords("htb debug")
		}
		if g.Rate2quantum != htbR2QDefault {
			w = append(w, "r2q", u(g.Rate2quantum))
		}
		w = append(w, "default", strconv.FormatUint(uint64(g.Defcls), 16))
	}
	if o.DirectQlen != nil {
		w = append(w, "direct_qlen", u(*o.DirectQlen))
	}
	if o.Offload {
		w = append(w, "offload")
	}
	return w, nil
}

func htbClassKeywords(o *attrs.HTBAttrs) ([]string, error) {
	h := o.Parms
	rate, ceil := uint64(h.Rate.Rate), uint64(h.Ceil.Rate)
	if o.Rate64 != nil {
		rate = *o.Rate64
	}
	if o.Ceil64 != nil {
		ceil = *o.Ceil64
	}
	if rate == 0 || ceil == 0 {
		return nil, noKeywords("htb class without a rate")
	}
	w := []string{"rate", rateWord(rate), "ceil", rateWord(ceil),
		"burst", u(burstOf(rate, h.Buffer)), "cburst", u(burstOf(ceil, h.Cbuffer))}
	if h.Prio != 0 {
		w = append(w, "prio", u(h.Prio))
	}
	if h.Quantum != 0 {
		w = append(w, "quantum", u(h.Quantum))
	}
	rateSpecWords := func(r attrs.TCRatespec) []string {
		var w []string
		if r.Overhead != 0 {
			w = append(w, "overhead", u(r.Overhead))
		}
		if r.MPU != 0 {
			w = append(w, "mpu", u(r.MPU))
		}
		if r.Linklayer&linklayerMask == linklayerATM {
			w = append(w, "linklayer", "atm")
		}
		return w
	}
	return append(w, rateSpecWords(h.Rate)...), nil
}

// burstOf is the burst in bytes whose transmission time at rate tc
// computes as ticks: what tc prints (truncated), raised until it gives
// ticks back where the truncation lost a byte.
func burstOf(rate uint64, ticks uint32) uint64 {
	size := xmitSize(rate, ticks)
	for s := size; s < size+64; s++ {
		if xmitTime(rate, s) == ticks {
			return s
		}
	}
	return size
}

func tbfKeywords(o *attrs.TBFAttrs) ([]string, error) {
	p := o.Parms
	if p == nil {
		return nil, noKeywords("tbf without parameters")
	}
	if p.Peakrate.Rate != 0 {
		return nil, noKeywords("tbf peakrate")
	}
	rate := uint64(p.Rate.Rate)
	if o.Rate64 != nil {
		rate = *o.Rate64
	}
	// tc computes the bucket's time at the 32-bit rate.
	w := []string{"rate", rateWord(rate), "burst", u(burstOf(uint64(p.Rate.Rate), p.Buffer)), "limit", u(p.Limit)}
	if p.Rate.MPU != 0 {
		w = append(w, "mpu", u(p.Rate.MPU))
	}
	if p.Rate.Overhead != 0 {
		w = append(w, "overhead", u(p.Rate.Overhead))
	}
	if p.Rate.Linklayer&linklayerMask == linklayerATM {
		w = append(w, "linklayer", "atm")
	}
	return w, nil
}

// filterFlagWords writes the flags a request may carry (skip_hw,
// skip_sw); the kernel adds its own (in_hw, not_in_hw) to a dump.
func filterFlagWords(flags *uint32) ([]string, error) {
	if flags == nil {
		return nil, nil
	}
	switch *flags & (clsFlagSkipHW | clsFlagSkipSW) {
	case clsFlagSkipHW:
		return []string{"skip_hw"}, nil
	case clsFlagSkipSW:
		return []string{"skip_sw"}, nil
	case 0:
		return nil, nil
	}
	return nil, noKeywords("skip_hw with skip_sw")
}

func classidWords(w []string, classid *uint32) []string {
	if classid == nil {
		return w
	}
	return append(w, "classid", classIDWord(*classid))
}

// classIDWord writes a class ID as tc reads it ("1:10").
func classIDWord(id uint32) string {
	return strconv.FormatUint(uint64(id>>16), 16) + ":" + strconv.FormatUint(uint64(id&0xffff), 16)
}

func u32Keywords(o *attrs.U32Attrs) ([]string, error) {
	if o.Link != nil || o.Divisor != nil || o.Police != nil || o.Indev != nil || o.Mark != nil {
		return nil, noKeywords("u32 link, divisor, police, indev or mark")
	}
	w, err := filterFlagWords(o.Flags)
	if err != nil {
		return nil, err
	}
	if s := o.Sel; s != nil {
		if s.Offshift != 0 || s.Offmask != 0 || s.Off != 0 || s.Offoff != 0 || s.Hoff != 0 || s.Hmask != 0 {
			return nil, noKeywords("u32 offsets and hashing")
		}
		for _, k := range s.Keys {
			if k.Offmask != 0 {
				return nil, noKeywords("u32 nexthdr offsets")
			}
			w = append(w, "match", "u32", fmt.Sprintf("0x%08x", k.Val), fmt.Sprintf("0x%08x", k.Mask), "at", strconv.Itoa(int(k.Off)))
		}
	}
	return classidWords(w, o.Classid), nil
}

// actionKeywords writes one action of a filter as the words after
// "action".
func actionKeywords(a attrs.ActAttrs, links Links) ([]string, error) {
	kind := ""
	if a.Kind != nil {
		kind = *a.Kind
	}
	switch o := a.Options.(type) {
	case *attrs.ActMirredAttrs:
		p := o.Parms
		if p == nil || o.Blockid != nil {
			return nil, noKeywords("mirred without a device")
		}
		names := map[int32][3]string{
			mirredEgressRedir: {"egress", "redirect"}, mirredEgressMirror: {"egress", "mirror"},
			mirredIngressRedir: {"ingress", "redirect"}, mirredIngressMirror: {"ingress", "mirror"},
		}
		n, ok := names[p.Eaction]
		if !ok {
			return nil, noKeywords(fmt.Sprintf("mirred action %d", p.Eaction))
		}
		w := []string{"mirred", n[0], n[1], "dev", links.Name(int32(p.Ifindex))}
		dflt := int32(actStolen)
		if n[1] == "mirror" {
			dflt = actPipe
		}
		return controlWords(w, p.Action, dflt)
	case *attrs.ActCtinfoAttrs:
		if o.Act == nil {
			return nil, noKeywords("ctinfo without parameters")
		}
		w := []string{"ctinfo"}
		if o.ParmsDscpMask != nil && *o.ParmsDscpMask != 0 {
			w = append(w, "dscp", fmt.Sprintf("%#x", *o.ParmsDscpMask))
			if o.ParmsDscpStatemask != nil && *o.ParmsDscpStatemask != 0 {
				w = append(w, fmt.Sprintf("%#x", *o.ParmsDscpStatemask))
			}
		}
		if o.ParmsCpmarkMask != nil && *o.ParmsCpmarkMask != 0 {
			w = append(w, "cpmark", fmt.Sprintf("%#x", *o.ParmsCpmarkMask))
		}
		if o.Zone != nil && *o.Zone != 0 {
			w = append(w, "zone", u(*o.Zone))
		}
		return controlWords(w, o.Act.Action, actPipe)
	case *attrs.ActSkbeditAttrs:
		if o.Parms == nil || o.Ptype != nil || o.QueueMappingMax != nil {
			return nil, noKeywords("skbedit ptype or queue_mapping range")
		}
		w := []string{"skbedit"}
		if o.QueueMapping != nil {
			w = append(w, "queue_mapping", u(*o.QueueMapping))
		}
		if o.Priority != nil {
			w = append(w, "priority", classIDWord(*o.Priority))
		}
		if o.Mark != nil {
			m := fmt.Sprintf("%#x", *o.Mark)
			if o.Mask != nil {
				m += fmt.Sprintf("/%#x", *o.Mask)
			}
			w = append(w, "mark", m)
		}
		if o.Flags != nil && *o.Flags&skbeditInheritDSField != 0 {
			w = append(w, "inheritdsfield")
		}
		return controlWords(w, o.Parms.Action, actPipe)
	}
	return nil, noKeywords("action " + kind)
}

// controlWords appends an action's verdict unless it is the kind's default.
func controlWords(w []string, code, dflt int32) ([]string, error) {
	if code == dflt {
		return w, nil
	}
	name := actionControlName(code)
	if _, ok := actionControl(name); !ok || name == "goto" || name == "jump" {
		return nil, noKeywords("action verdict " + name)
	}
	return append(w, name), nil
}
