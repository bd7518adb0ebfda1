// SPDX-License-Identifier: Apache-2.0

package qdisc

// TBF (net/sched/sch_tbf.c): tc's keywords to netlink attributes and the
// options back to tc's text and JSON, as iproute2 7.x's tc/q_tbf.c does.
//
// What tc does, and gotc with it:
//
//   - rate, burst and one of limit or latency are required, and mtu with
//     peakrate; tc reports every missing one before the usage. A keyword
//     given twice is refused (linklayer excepted).
//   - latency becomes a limit: what the rate (or the peak rate, when that
//     gives less) sends in that time, plus the burst (or the mtu).
//   - burst travels twice: in bytes (TCA_TBF_BURST, when below 2^32) and as
//     transmission time at the 32-bit rate in psched ticks; the rate table
//     is sent, the peak rate's only with a peak rate.
//   - The kernel dumps times, not bytes: tc prints burst, minburst and the
//     latency derived back from them.

import (
	"math"
	"strconv"
	"strings"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// tbfUsage is gotc's summary of tc's tbf keywords.
const tbfUsage = `Usage: ... tbf limit BYTES | latency TIME  burst BYTES[/CELL]  rate RATE
               [ mtu BYTES[/CELL] | minburst BYTES[/CELL] ] [ mpu BYTES ]
               [ peakrate RATE ] [ overhead BYTES ] [ linklayer ethernet|atm|adsl ]
  burst is also buffer or maxburst; peakrate needs mtu.`

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:         "tbf",
			MakesClasses: true,
			Usage:        tbfUsage,
			ParseQdisc:   func(args []string, env tckind.ParseEnv) (attrs.TCOptionsMsg, error) { return parseTBF(args, env) },
			PrintOptions: printTBF,
			Keywords:     tckind.KeywordsOf("tbf", tbfKeywords),
			Dumped:       tbfDumped,
			Restoring:    tbfRestoring,
		})
	}, "tbf")
}

// tbfIllegal is tc's explain1 for tbf: keyword and value, without usage.
func tbfIllegal(keyword, value string) *tcword.ParseError {
	return tcword.Errorf(`tbf: illegal value for "%s": "%s"`, keyword, value)
}

// parseTBF reads tbf's keywords.
func parseTBF(args []string, env tckind.ParseEnv) (*attrs.TBFAttrs, error) {
	var (
		opt                 attrs.TCTBFQopt
		mtu, mpu, latency   uint32
		rcellLog, pcellLog  = -1, -1
		overhead            uint16
		linklayer           uint8 = tcword.LinklayerEthernet
		rate, prate, buffer uint64
	)
	dup := func(what string) error { return tcword.Errorf(`tbf: duplicate "%s" specification`, what) }
	for i := 0; i < len(args); i++ {
		kw := args[i]
		switch kw {
		case "help":
			return nil, &tcword.ParseError{ShowUsage: true}
		}
		if !tbfKnown(kw) {
			return nil, &tcword.ParseError{Msg: `tbf: unknown parameter "` + kw + `"`, ShowUsage: true}
		}
		if i+1 >= len(args) {
			return nil, tcword.IncompleteCommand()
		}
		i++
		v := args[i]
		switch {
		case tcfmt.Matches(kw, "limit"):
			if opt.Limit != 0 {
				return nil, dup("limit")
			}
			if latency != 0 {
				return nil, tcword.Errorf(`tbf: specifying both "latency" and "limit" is not allowed`)
			}
			n, err := tcfmt.ParseSize(v)
			if err != nil {
				return nil, tbfIllegal("limit", v)
			}
			opt.Limit = n
		case tcfmt.Matches(kw, "latency"):
			if latency != 0 {
				return nil, dup("latency")
			}
			if opt.Limit != 0 {
				// tc's message has the slash.
				return nil, tcword.Errorf(`tbf: specifying both "limit" and "/latency" is not allowed`)
			}
			t, err := tcfmt.ParseTime(v)
			if err != nil {
				return nil, tbfIllegal("latency", v)
			}
			latency = t
		case tcfmt.Matches(kw, "burst"), kw == "buffer", kw == "maxburst":
			if buffer != 0 {
				return nil, dup("buffer/burst/maxburst")
			}
			size, cl, shown, ok := tcword.SizeAndCell(v, math.MaxUint64)
			if !ok {
				return nil, tbfIllegal(kw, shown)
			}
			buffer = size
			if cl >= 0 {
				rcellLog = cl
			}
		case kw == "mtu", kw == "minburst":
			if mtu != 0 {
				return nil, dup("mtu/minburst")
			}
			size, cl, shown, ok := tcword.SizeAndCell(v, math.MaxUint32)
			if !ok {
				return nil, tbfIllegal(kw, shown)
			}
			mtu = uint32(size)
			if cl >= 0 {
				pcellLog = cl
			}
		case kw == "mpu":
			if mpu != 0 {
				return nil, dup("mpu")
			}
			n, err := tcfmt.ParseSize(v)
			if err != nil {
				return nil, tbfIllegal("mpu", v)
			}
			mpu = n
		case kw == "rate", tcfmt.Matches(kw, "peakrate"):
			name, target := "rate", &rate
			if kw != "rate" {
				name, target = "peakrate", &prate
			}
			if *target != 0 {
				return nil, dup(name)
			}
			r, ok := tcword.ParseRate64(v, env.Dev, env.Notes())
			if !ok {
				return nil, tbfIllegal(name, v)
			}
			*target = r
		case tcfmt.Matches(kw, "overhead"):
			if overhead != 0 {
				return nil, dup("overhead")
			}
			n, err := tcfmt.ParseUint(v, 10, 16)
			if err != nil {
				return nil, tbfIllegal("overhead", v)
			}
			overhead = uint16(n)
		default: // linklayer, as tbfKnown has it
			ll, ok := tcword.ParseLinklayer(v)
			if !ok {
				return nil, tbfIllegal("linklayer", v)
			}
			linklayer = ll
		}
	}

	// tc names every missing requirement before giving up.
	var missing []string
	if rate == 0 {
		missing = append(missing, `tbf: the "rate" parameter is mandatory.`)
	}
	if buffer == 0 {
		missing = append(missing, `tbf: the "burst" parameter is mandatory.`)
	}
	if prate != 0 && mtu == 0 {
		missing = append(missing, `tbf: when "peakrate" is specified, "mtu" must also be specified.`)
	}
	if opt.Limit == 0 && latency == 0 {
		missing = append(missing, `tbf: either "limit" or "latency" is required.`)
	}
	if missing != nil {
		return nil, &tcword.ParseError{Msg: strings.Join(missing, "\n"), ShowUsage: true}
	}

	opt.Rate.Rate = tcword.Rate32(rate)
	opt.Peakrate.Rate = tcword.Rate32(prate)
	if opt.Limit == 0 {
		lim := float64(float64(rate)*float64(latency))/tcword.TimeUnitsPerSec + float64(buffer)
		if prate != 0 {
			lim2 := float64(float64(prate)*float64(latency))/tcword.TimeUnitsPerSec + float64(mtu)
			if lim2 < lim {
				lim = lim2
			}
		}
		opt.Limit = tcfmt.CUint32(lim)
	}
	opt.Rate.MPU = uint16(mpu)
	opt.Rate.Overhead = overhead
	o := &attrs.TBFAttrs{Parms: &opt}
	o.Rtab = tcword.CalcRtable(&opt.Rate, rcellLog, mtu, linklayer)
	// The bucket's time is at the 32-bit rate, as tc computes it.
	opt.Buffer = tcword.XmitTime(uint64(opt.Rate.Rate), buffer)
	if opt.Buffer == math.MaxUint32 {
		return nil, tcword.Errorf("tbf: burst out of range")
	}
	if opt.Peakrate.Rate != 0 {
		opt.Peakrate.MPU = uint16(mpu)
		opt.Peakrate.Overhead = overhead
		o.Ptab = tcword.CalcRtable(&opt.Peakrate, pcellLog, mtu, linklayer)
		opt.Mtu = tcword.XmitTime(uint64(opt.Peakrate.Rate), uint64(mtu))
		o.Pburst = &mtu
		if prate >= 1<<32 {
			o.Prate64 = &prate
		}
	}
	if buffer < 1<<32 {
		b := uint32(buffer)
		o.Burst = &b
	}
	if rate >= 1<<32 {
		o.Rate64 = &rate
	}
	return o, nil
}

// tbfKnown reports whether kw is a tbf keyword, in tc's matching rules
// (some abbreviable, some exact).
func tbfKnown(kw string) bool {
	for _, k := range []string{"limit", "latency", "burst", "peakrate", "overhead", "linklayer"} {
		if tcfmt.Matches(kw, k) {
			return true
		}
	}
	switch kw {
	case "buffer", "maxburst", "mtu", "minburst", "mpu", "rate":
		return true
	}
	return false
}

// printTBF prints tbf's options (tbf_print_opt).
func printTBF(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
	o, ok := opts.(*attrs.TBFAttrs)
	if !ok || o.Parms == nil {
		return
	}
	q := o.Parms
	rate := uint64(q.Rate.Rate)
	if o.Rate64 != nil {
		rate = *o.Rate64
	}
	p.Rate(tcfmt.Any, "rate", "rate %s ", rate)
	printTBFBucket(p, rate, q.Buffer, &q.Rate, "burst", "burst", "burst_raw")
	prate := uint64(q.Peakrate.Rate)
	if o.Prate64 != nil {
		prate = *o.Prate64
	}
	if prate != 0 {
		// Text only: tc's JSON has no peakrate.
		p.Rate(tcfmt.FP, "peakrate", "peakrate %s ", prate)
		if q.Mtu != 0 || q.Peakrate.MPU != 0 {
			printTBFBucket(p, prate, q.Mtu, &q.Peakrate, "mtu", "minburst", "mtu_raw")
		}
	}
	// The latency the limit gives: its transmission time less the bucket's,
	// the longer of rate's and peak rate's.
	latency := float64(tcword.TimeUnitsPerSec*(float64(q.Limit)/float64(rate))) - tcword.TickToTime(float64(q.Buffer))
	if prate != 0 {
		lat2 := float64(tcword.TimeUnitsPerSec*(float64(q.Limit)/float64(prate))) - tcword.TickToTime(float64(q.Mtu))
		if lat2 > latency {
			latency = lat2
		}
	}
	if latency >= 0 {
		p.Uint(tcfmt.JSON, "lat", "", tcfmt.CUint64(latency))
		p.String(tcfmt.FP, "", "lat %s ", tcfmt.FormatTime(tcfmt.CUint32(latency)))
	}
	if p.Raw() || latency < 0 {
		p.Size(tcfmt.Any, "limit", "limit %s ", uint64(q.Limit))
	}
	if q.Rate.Overhead != 0 {
		p.Int(tcfmt.Any, "overhead", "overhead %d ", int64(q.Rate.Overhead))
	}
	if ll := q.Rate.Linklayer & tcword.LinklayerMask; ll > tcword.LinklayerEthernet || p.Details() {
		p.String(tcfmt.Any, "linklayer", "linklayer %s ", tcword.LinklayerName(ll))
	}
}

// sizeWithCell is tc's "SIZE/CELL" of -d: the size as sprint_size prints
// it and the cell size.
func sizeWithCell(size uint64, cellLog uint8) string {
	return tcfmt.FormatSize(size) + "/" + strconv.FormatUint(tcword.CellSize(cellLog), 10)
}

// printTBFBucket prints one of tbf's two buckets as tc does: its size (the
// transmission time ticks at rate, back in bytes) under detailKey with the
// cell size and the mpu after it for -d, under plainKey otherwise, and the
// raw ticks under rawKey for -raw.
func printTBFBucket(p *tcfmt.Printer, rate uint64, ticks uint32, spec *attrs.TCRatespec, detailKey, plainKey, rawKey tcfmt.Name) {
	size := tcword.XmitSize(rate, ticks)
	if p.Details() {
		p.String(tcfmt.Any, detailKey, string(detailKey)+" %s ", sizeWithCell(size, spec.CellLog))
		p.Size(tcfmt.Any, "mpu", "mpu %s ", uint64(spec.MPU))
	} else {
		p.Size(tcfmt.Any, plainKey, string(plainKey)+" %s ", size)
	}
	if p.Raw() {
		p.Hex(tcfmt.Any, rawKey, "[%08x] ", ticks)
	}
}

// tbfKeywords writes tbf's options back: rate, burst and limit, the
// peak rate with its mtu, and the rate's mpu, overhead and link layer. The
// bursts in bytes are those Restoring found; options without them (a dump
// not restored) get the bytes tc's own arithmetic gives the buckets' times.
func tbfKeywords(o *attrs.TBFAttrs) ([]string, error) {
	p := o.Parms
	if p == nil {
		return nil, tckind.NoKeywords("tbf without parameters")
	}
	rate, prate := tbfRates(o)
	// tc computes the buckets' times at the 32-bit rates.
	burst := tcword.BurstOf(uint64(p.Rate.Rate), p.Buffer)
	if o.Burst != nil {
		burst = uint64(*o.Burst)
	}
	w := []string{"rate", tcword.RateWord(rate), "burst", tcword.UintWord(burst), "limit", tcword.UintWord(p.Limit)}
	if prate != 0 {
		mtu := tcword.BurstOf(uint64(p.Peakrate.Rate), p.Mtu)
		if o.Pburst != nil {
			mtu = uint64(*o.Pburst)
		}
		w = append(w, "peakrate", tcword.RateWord(prate), "mtu", tcword.UintWord(mtu))
	}
	if p.Rate.MPU != 0 {
		w = append(w, "mpu", tcword.UintWord(p.Rate.MPU))
	}
	if p.Rate.Overhead != 0 {
		w = append(w, "overhead", tcword.UintWord(p.Rate.Overhead))
	}
	if p.Rate.Linklayer&tcword.LinklayerMask == tcword.LinklayerATM {
		w = append(w, "linklayer", "atm")
	}
	return w, nil
}

// tbfRates are the rate and the peak rate of tbf's options in bytes/s,
// from the 64-bit attributes where present.
func tbfRates(o *attrs.TBFAttrs) (rate, prate uint64) {
	rate, prate = uint64(o.Parms.Rate.Rate), uint64(o.Parms.Peakrate.Rate)
	if o.Rate64 != nil {
		rate = max(rate, *o.Rate64)
	}
	if o.Prate64 != nil && prate != 0 {
		prate = max(prate, *o.Prate64)
	}
	return rate, prate
}

// The kernel keeps tbf's buckets as nanoseconds and dumps them in psched
// ticks of 64 ns (PSCHED_SHIFT). Given a bucket in bytes (TCA_TBF_BURST,
// TCA_TBF_PBURST, which tc always sends) it ignores tc's time and computes
// its own, psched_l2t_ns: with the overhead, mpu and ATM cells of the rate,
// at the 64-bit rate, in its fixed-point arithmetic. A request's buffer
// therefore dumps as another number than tc computed (354437 ticks for
// tc's 320000 with "burst 5k overhead 10 mpu 64 linklayer atm" at 2mbit,
// 3276 for 3815 with "burst 1mb" at 40gbit), and a dumped one asked again
// as burst bytes in tc's arithmetic comes back different: tbfDumped and
// tbfRestoring do the kernel's arithmetic.

// tbfPschedShift is the kernel's PSCHED_SHIFT: a psched tick is 64 ns.
const tbfPschedShift = 6

// tbfRatecfg is the kernel's struct psched_ratecfg: the rate as a
// multiplier and shift from bytes to nanoseconds, and what the length of a
// packet is adjusted by.
type tbfRatecfg struct {
	mult      uint32
	shift     uint8
	overhead  uint16
	mpu       uint16
	linklayer uint8
}

// tbfRatecfgOf is psched_ratecfg_precompute for a rate in bytes/s and
// the adjustments of spec.
func tbfRatecfgOf(rate uint64, spec *attrs.TCRatespec) tbfRatecfg {
	r := tbfRatecfg{mult: 1, overhead: spec.Overhead, mpu: spec.MPU, linklayer: spec.Linklayer & tcword.LinklayerMask}
	if rate == 0 {
		return r
	}
	for factor := uint64(1e9); ; factor <<= 1 {
		r.mult = uint32(factor / rate)
		if r.mult&(1<<31) != 0 || factor&(1<<63) != 0 {
			return r
		}
		r.shift++
	}
}

// ticks is the bucket of size bytes as the kernel dumps it: psched_l2t_ns
// (in its unsigned int length, which the ATM cells may wrap) in psched
// ticks, truncated to the u32 of tc_tbf_qopt.
func (r tbfRatecfg) ticks(size uint32) uint32 { return uint32(r.ticks64(size)) }

// ticks64 is ticks before the truncation to 32 bits, which wraps: it
// grows with the size (but where the ATM cells wrap the length), so that
// a search over sizes can go by it.
func (r tbfRatecfg) ticks64(size uint32) uint64 {
	l := size + uint32(r.overhead)
	l = max(l, uint32(r.mpu))
	if r.linklayer == tcword.LinklayerATM {
		l = (l + 47) / 48 * 53
	}
	return uint64(l) * uint64(r.mult) >> r.shift >> tbfPschedShift
}

// smallest is the smallest bucket in bytes (at least 1: tc refuses a burst
// of 0) that the kernel dumps as ticks; ok is false when none does.
func (r tbfRatecfg) smallest(ticks uint32) (size uint32, ok bool) {
	lo, hi := uint64(1), uint64(math.MaxUint32)
	for lo < hi {
		mid := (lo + hi) / 2
		if r.ticks64(uint32(mid)) >= uint64(ticks) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return uint32(lo), r.ticks(uint32(lo)) == ticks
}

// tbfDumped is Kind.Dumped for tbf: the buckets' times the kernel computes
// from the bytes of the request (tbf_change); without them it keeps tc's.
func tbfDumped(opts attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	o, ok := opts.(*attrs.TBFAttrs)
	if !ok || o == nil || o.Parms == nil {
		return opts
	}
	c, p := *o, *o.Parms
	c.Parms = &p
	rate, prate := tbfRates(o)
	if o.Burst != nil {
		p.Buffer = tbfRatecfgOf(rate, &p.Rate).ticks(*o.Burst)
	}
	if o.Pburst != nil && prate != 0 {
		p.Mtu = tbfRatecfgOf(prate, &p.Peakrate).ticks(*o.Pburst)
	}
	return &c
}

// tbfRestoring is Kind.Restoring for tbf: the smallest bursts in bytes
// the kernel dumps as the buckets' times, with the times tc computes for
// them. A time no burst gives (set from tc's time alone, for a burst of
// 4 GiB or more) stays for the keywords to write in tc's arithmetic.
func tbfRestoring(dumped attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	o, ok := dumped.(*attrs.TBFAttrs)
	if !ok || o.Parms == nil {
		return dumped
	}
	c, p := *o, *o.Parms
	c.Parms = &p
	rate, prate := tbfRates(o)
	if b, ok := tbfRatecfgOf(rate, &p.Rate).smallest(p.Buffer); ok {
		c.Burst, p.Buffer = &b, tcword.XmitTime(uint64(p.Rate.Rate), uint64(b))
	}
	if prate != 0 {
		if m, ok := tbfRatecfgOf(prate, &p.Peakrate).smallest(p.Mtu); ok {
			c.Pburst, p.Mtu = &m, tcword.XmitTime(uint64(p.Peakrate.Rate), uint64(m))
		}
	}
	return &c
}
