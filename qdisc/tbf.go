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
	tckind.MustRegisterQdisc(&tckind.Qdisc{
		Name:         "tbf",
		Usage:        tbfUsage,
		ParseQdisc:   func(args []string, env tckind.ParseEnv) (attrs.TCOptionsMsg, error) { return parseTBF(args, env) },
		PrintOptions: printTBF,
		Keywords:     tckind.KeywordsOf("tbf", tbfKeywords),
	})
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
	return tcfmt.FormatSize(size) + "/" + strconv.FormatUint(cellSize(cellLog), 10)
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

func tbfKeywords(o *attrs.TBFAttrs) ([]string, error) {
	p := o.Parms
	if p == nil {
		return nil, tckind.NoKeywords("tbf without parameters")
	}
	if p.Peakrate.Rate != 0 {
		return nil, tckind.NoKeywords("tbf peakrate")
	}
	rate := uint64(p.Rate.Rate)
	if o.Rate64 != nil {
		rate = *o.Rate64
	}
	// tc computes the bucket's time at the 32-bit rate.
	w := []string{"rate", tcword.RateWord(rate), "burst", tcword.UintWord(tcword.BurstOf(uint64(p.Rate.Rate), p.Buffer)), "limit", tcword.UintWord(p.Limit)}
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
