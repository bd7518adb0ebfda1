// SPDX-License-Identifier: Apache-2.0

package qdisc

// fq (net/sched/sch_fq.c, Fair Queue with pacing): tc's keywords to
// netlink attributes, and the kernel's attributes and xstats back to tc's
// text and JSON.
//
// Behaviour mirrored from iproute2 7.x (tc/q_fq.c):
//
//   - Keywords are matched exactly; the last of a repeated keyword wins,
//     but for bands (with its priomap) and weights, which tc refuses twice.
//   - Every option named is sent, 0 included, but buckets, which is sent
//     (as its ceiling log2) only when not 0.
//   - maxrate and the obsolete defrate take a share of the device's speed
//     ("10%"); every rate must fit in 32 bits. timer_slack is read in
//     nanoseconds; the other times in microseconds.
//   - orphan_mask's bad value is reported as tc reports it, as
//     `Illegal "initial_quantum"`.
//   - The nest goes without NLA_F_NESTED; the kernel dumps every option but
//     defrate.

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// fqUsage is tc's explain() of fq.
const fqUsage = "Usage: ... fq\t[ limit PACKETS ] [ flow_limit PACKETS ]\n" +
	"\t\t[ quantum BYTES ] [ initial_quantum BYTES ]\n" +
	"\t\t[ maxrate RATE ] [ buckets NUMBER ]\n" +
	"\t\t[ [no]pacing ] [ refill_delay TIME ]\n" +
	"\t\t[ bands 3 priomap P0 P1 ... P14 P15 ]\n" +
	"\t\t[ weights W1 W2 W3 ]\n" +
	"\t\t[ low_rate_threshold RATE ]\n" +
	"\t\t[ orphan_mask MASK]\n" +
	"\t\t[ timer_slack TIME]\n" +
	"\t\t[ ce_threshold TIME ]\n" +
	"\t\t[ horizon TIME ]\n" +
	"\t\t[ horizon_{cap|drop} ]\n" +
	"\t\t[ offload_horizon TIME ]"

const (
	// fqBands is the number of fq's bands (FQ_BANDS): tc takes no other.
	fqBands = 3
	// fqMinWeight is the smallest band weight (FQ_MIN_WEIGHT).
	fqMinWeight = 16384
)

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:       "fq",
			Usage:      fqUsage,
			ParseQdisc: tckind.TypedParser(parseFQ),
			PrintOptions: func(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
				if o, ok := opts.(*attrs.FQAttrs); ok {
					printFQOptions(p, o)
				}
			},
			PrintXstats: func(p *tcfmt.Printer, x tckind.Xstats) {
				printFQXstats(p, fqStatsOf(x))
			},
			ChangeAccepted: fqChangeAccepted,
			Stats:          fqStatsTable,
			Keywords:       tckind.KeywordsOf("fq", fqKeywords),
			KeptOnChange:   fqKept,
			Dumped:         fqDumped,
		})
	}, "fq")
}

// fqKept is Kind.KeptOnChange for fq, whose change keeps what a request
// omits. Not the quantum and initial quantum, whose defaults are the
// device's MTU, the obsolete defrate, nor a ce_threshold, offload_horizon,
// priomap and weights, which tc cannot send as the kernel dumps them.
var fqKept = tckind.KeptDefaults("fq", fqKeywords, attrs.FQAttrs{
	Plimit: new(uint32(10000)), FlowPlimit: new(uint32(100)), RateEnable: new(uint32(1)),
	FlowMaxRate: new(uint32(1<<32 - 1)), BucketsLog: new(uint32(10)), FlowRefillDelay: new(uint32(40000)),
	OrphanMask: new(uint32(1023)), LowRateThreshold: new(uint32(550000 / 8)), TimerSlack: new(uint32(10000)),
	Horizon: new(uint32(10000000)), HorizonDrop: new(uint8(1)),
})

// fqKeywords writes fq's options back, each as the parser reads it: rates
// in bits, times in µs but timer_slack's in ns, the bucket count as the
// power of two the kernel keeps.
func fqKeywords(o *attrs.FQAttrs) ([]string, error) {
	var w []string
	for _, n := range []struct {
		name string
		v    *uint32
		word func(uint32) string
	}{
		{"limit", o.Plimit, tcword.UintWord[uint32]}, {"flow_limit", o.FlowPlimit, tcword.UintWord[uint32]},
		{"quantum", o.Quantum, tcword.UintWord[uint32]}, {"initial_quantum", o.InitialQuantum, tcword.UintWord[uint32]},
		{"maxrate", o.FlowMaxRate, fqRateWord}, {"defrate", o.FlowDefaultRate, fqRateWord},
		{"low_rate_threshold", o.LowRateThreshold, fqRateWord},
		{"refill_delay", o.FlowRefillDelay, tcword.TimeWord}, {"orphan_mask", o.OrphanMask, tcword.UintWord[uint32]},
		{"ce_threshold", o.CEThreshold, tcword.TimeWord},
		{"timer_slack", o.TimerSlack, func(ns uint32) string { return tcword.UintWord(ns) + "ns" }},
		{"horizon", o.Horizon, tcword.TimeWord}, {"offload_horizon", o.OffloadHorizon, tcword.TimeWord},
	} {
		if n.v != nil {
			w = append(w, n.name, n.word(*n.v))
		}
	}
	if o.BucketsLog != nil {
		if *o.BucketsLog > 31 {
			return nil, tckind.NoKeywords(fmt.Sprintf("fq buckets log %d", *o.BucketsLog))
		}
		w = append(w, "buckets", tcword.UintWord(uint32(1)<<*o.BucketsLog))
	}
	w = tcword.OnOff(w, o.RateEnable, "pacing", "nopacing")
	if o.HorizonDrop != nil {
		w = append(w, map[bool]string{true: "horizon_drop", false: "horizon_cap"}[*o.HorizonDrop != 0])
	}
	if m := o.Priomap; m != nil {
		if m.Bands != fqBands {
			return nil, tckind.NoKeywords(fmt.Sprintf("fq with %d bands", m.Bands))
		}
		w = append(w, "bands", tcword.UintWord(uint32(fqBands)), "priomap")
		for _, b := range m.Priomap {
			w = append(w, tcword.UintWord(b))
		}
	}
	if len(o.Weights) != 0 {
		if len(o.Weights) != fqBands {
			return nil, tckind.NoKeywords(fmt.Sprintf("fq with %d weights", len(o.Weights)))
		}
		w = append(w, "weights")
		for _, v := range o.Weights {
			w = append(w, strconv.Itoa(int(v)))
		}
	}
	return w, nil
}

// fqRateWord writes one of fq's 32-bit rates (bytes/s) in bits.
func fqRateWord(r uint32) string { return tcword.RateWord(uint64(r)) }

// parseFQ turns the words after "fq" into the qdisc's options as tc 7.x
// does; env gives the device for rates in percent. Only what the user
// named is set, so that "change" keeps the rest; the result is never nil
// on success (tc always sends the nest). Errors are *ParseError: exit 1,
// with the usage after an unknown keyword and for "help"; a keyword
// missing its value exits 255.
func parseFQ(args []string, env tckind.ParseEnv) (*attrs.FQAttrs, error) {
	o := &attrs.FQAttrs{}
	var buckets uint32
	pacing := tcword.SwitchUnset
	rate := func(kw string, value tcword.ValueFunc, percent bool) (uint32, error) {
		v, err := value()
		if err != nil {
			return 0, err
		}
		var r uint32
		ok := false
		if percent && strings.Contains(v, "%") {
			r, ok = tcword.PercentRate32(v, env.Dev, env.Notes())
		} else if n, perr := tcfmt.ParseRate32(v); perr == nil {
			r, ok = n, true
		}
		if !ok {
			return 0, tcword.Errorf("Illegal %q", kw)
		}
		return r, nil
	}
	err := tcword.ParseWords(args, func(kw string, value tcword.ValueFunc) (ok bool, err error) {
		switch kw {
		case "limit":
			err = setU32(&o.Plimit)(tcword.UintArg(kw, value))
		case "flow_limit":
			err = setU32(&o.FlowPlimit)(tcword.UintArg(kw, value))
		case "buckets":
			buckets, err = tcword.UintArg(kw, value)
		case "maxrate":
			err = setU32(&o.FlowMaxRate)(rate(kw, value, true))
		case "defrate":
			err = setU32(&o.FlowDefaultRate)(rate(kw, value, true))
		case "low_rate_threshold":
			err = setU32(&o.LowRateThreshold)(rate(kw, value, false))
		case "ce_threshold":
			err = setU32(&o.CEThreshold)(tcword.TimeArg(kw, value))
		case "timer_slack":
			v, verr := value()
			if verr != nil {
				return true, verr
			}
			ns, perr := tcfmt.ParseTime64(v)
			if perr != nil {
				return true, tcword.Errorf(`Illegal "timer_slack"`)
			}
			if ns != int64(uint32(ns)) {
				return true, tcword.Errorf(`Illegal (out of range) "timer_slack"`)
			}
			slack := uint32(ns)
			o.TimerSlack = &slack
		case "horizon_drop", "horizon_cap":
			var drop uint8
			if kw == "horizon_drop" {
				drop = 1
			}
			o.HorizonDrop = &drop
		case "horizon":
			err = setU32(&o.Horizon)(tcword.TimeArg(kw, value))
		case "offload_horizon":
			err = setU32(&o.OffloadHorizon)(tcword.TimeArg(kw, value))
		case "quantum":
			err = setU32(&o.Quantum)(tcword.UintArg(kw, value))
		case "initial_quantum":
			err = setU32(&o.InitialQuantum)(tcword.UintArg(kw, value))
		case "orphan_mask":
			// tc names the wrong keyword in this message.
			err = setU32(&o.OrphanMask)(tcword.UintArg("initial_quantum", value))
		case "refill_delay":
			err = setU32(&o.FlowRefillDelay)(tcword.TimeArg(kw, value))
		case "pacing":
			pacing = 1
		case "nopacing":
			pacing = 0
		case "bands":
			if o.Priomap != nil {
				return true, tcword.Errorf(`Duplicate "bands"`)
			}
			o.Priomap, err = parseFQPriomap(value)
		case "weights":
			if o.Weights != nil {
				return true, tcword.Errorf(`Duplicate "weights"`)
			}
			o.Weights, err = parseFQWeights(value)
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return nil, err
	}
	if buckets != 0 {
		log := ceilLog2(buckets)
		o.BucketsLog = &log
	}
	o.RateEnable = pacing.Attr()
	return o, nil
}

// setU32 returns a function storing a parsed u32 in *dst when it parsed,
// so that each of ParseFQ's keywords is one line.
func setU32(dst **uint32) func(uint32, error) error {
	return func(v uint32, err error) error {
		if err == nil {
			*dst = &v
		}
		return err
	}
}

// ceilLog2 is tc's ilog2 of the bucket count: the smallest n with
// 2^n >= v, for v > 0.
func ceilLog2(v uint32) uint32 {
	var n uint32
	for v--; v != 0; v >>= 1 {
		n++
	}
	return n
}

// parseFQPriomap reads what follows "bands": tc takes only "3 priomap"
// and then 16 bands below 3, with its messages for anything else.
func parseFQPriomap(value tcword.ValueFunc) (*attrs.TCPrioQopt, error) {
	v, err := value()
	if err != nil {
		return nil, err
	}
	bands, perr := tcfmt.ParseInt(v, 10, 32)
	if perr != nil {
		return nil, tcword.Errorf(`Illegal "bands"`)
	}
	if bands != fqBands {
		return nil, tcword.Errorf(`"bands" must be %d`, fqBands)
	}
	if v, err = value(); err != nil {
		return nil, err
	}
	if v != "priomap" {
		return nil, tcword.Errorf(`"priomap" expected`)
	}
	m := &attrs.TCPrioQopt{Bands: fqBands}
	for i := range m.Priomap {
		v, err := value()
		if err != nil {
			// tc checks for a word before it reads one.
			return nil, tcword.Errorf("Not enough elements in priomap")
		}
		band, perr := tcfmt.ParseUint(v, 10, 32)
		if perr != nil {
			return nil, tcword.Errorf(`Illegal "priomap" element, number in [0..%d] expected`, fqBands-1)
		}
		if band >= fqBands {
			return nil, tcword.Errorf(`"priomap" element %d too big`, band)
		}
		m.Priomap[i] = byte(band)
	}
	return m, nil
}

// parseFQWeights reads the three band weights after "weights", each at
// least fqMinWeight.
func parseFQWeights(value tcword.ValueFunc) ([]int32, error) {
	w := make([]int32, fqBands)
	for i := range w {
		v, err := value()
		if err != nil {
			return nil, tcword.Errorf("Not enough elements in weights")
		}
		n, perr := tcfmt.ParseInt(v, 10, 32)
		if perr != nil {
			return nil, tcword.Errorf(`Illegal "weights" element, positive number expected`)
		}
		if n < fqMinWeight {
			return nil, tcword.Errorf(`"weight" element %d too small`, n)
		}
		w[i] = int32(n)
	}
	return w, nil
}

// printFQOptions prints an fq qdisc's options as tc does; the kernel's
// defaults on a dummy device read:
//
//	limit 10000p flow_limit 100p buckets 1024 orphan_mask 1023 bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1 weights 589824 196608 65536 quantum 3028b initial_quantum 15140b low_rate_threshold 550Kbit refill_delay 40ms timer_slack 10us horizon 10s horizon_drop
//
// pacing is printed only when off ("nopacing", "pacing": false in JSON),
// maxrate only when set, ce_threshold only when on. Times are raw (µs,
// timer_slack ns) and sizes and rates bytes in JSON; the priomap and
// weights are arrays under tc's keys "priomap " and "weights ", their
// trailing blank included.
func printFQOptions(p *tcfmt.Printer, o *attrs.FQAttrs) {
	if o == nil {
		return
	}
	const both = tcfmt.Any
	if o.Plimit != nil {
		p.Uint(both, "limit", "limit %up ", uint64(*o.Plimit))
	}
	if o.FlowPlimit != nil {
		p.Uint(both, "flow_limit", "flow_limit %up ", uint64(*o.FlowPlimit))
	}
	if o.BucketsLog != nil {
		// C's 1U << n, which x86 takes modulo 32.
		p.Uint(both, "buckets", "buckets %u ", uint64(uint32(1)<<(*o.BucketsLog&31)))
	}
	if o.OrphanMask != nil {
		p.Uint(both, "orphan_mask", "orphan_mask %u ", uint64(*o.OrphanMask))
	}
	if o.RateEnable != nil && *o.RateEnable == 0 {
		p.Bool(both, "pacing", "nopacing ", false)
	}
	if m := o.Priomap; m != nil {
		p.Uint(both, "bands", "bands %u ", uint64(uint32(m.Bands)))
		p.OpenArray(both, "priomap ")
		for _, b := range m.Priomap {
			p.Uint(both, "", "%d ", uint64(b))
		}
		p.CloseArray(both, "")
	}
	if len(o.Weights) >= fqBands {
		p.OpenArray(both, "weights ")
		for _, w := range o.Weights[:fqBands] {
			// tc prints the int as an unsigned int.
			p.Uint(both, "", "%d ", uint64(uint32(w)))
		}
		p.CloseArray(both, "")
	}
	if o.Quantum != nil {
		p.Size(both, "quantum", "quantum %s ", uint64(*o.Quantum))
	}
	if o.InitialQuantum != nil {
		p.Size(both, "initial_quantum", "initial_quantum %s ", uint64(*o.InitialQuantum))
	}
	if o.FlowMaxRate != nil && *o.FlowMaxRate != math.MaxUint32 {
		p.Rate(both, "maxrate", "maxrate %s ", uint64(*o.FlowMaxRate))
	}
	if o.FlowDefaultRate != nil && *o.FlowDefaultRate != 0 {
		p.Rate(both, "defrate", "defrate %s ", uint64(*o.FlowDefaultRate))
	}
	if o.LowRateThreshold != nil && *o.LowRateThreshold != 0 {
		p.Rate(both, "low_rate_threshold", "low_rate_threshold %s ", uint64(*o.LowRateThreshold))
	}
	if o.FlowRefillDelay != nil {
		p.Time(both, "refill_delay", "refill_delay %s ", *o.FlowRefillDelay)
	}
	if o.CEThreshold != nil && *o.CEThreshold != math.MaxUint32 {
		p.Time(both, "ce_threshold", "ce_threshold %s ", *o.CEThreshold)
	}
	if o.TimerSlack != nil {
		p.Uint(tcfmt.JSON, "timer_slack", "", uint64(*o.TimerSlack))
		p.String(tcfmt.FP, "", "timer_slack %s ", tcfmt.FormatTime64(int64(*o.TimerSlack)))
	}
	if o.Horizon != nil {
		p.Time(both, "horizon", "horizon %s ", *o.Horizon)
	}
	if o.HorizonDrop != nil {
		if *o.HorizonDrop == 0 {
			p.Null(both, "horizon_cap", "horizon_cap ", "")
		} else {
			p.Null(both, "horizon_drop", "horizon_drop ", "")
		}
	}
	if o.OffloadHorizon != nil {
		p.Time(both, "offload_horizon", "offload_horizon %s ", *o.OffloadHorizon)
	}
}

// fqPrint says how tc's -s writes one of fq's statistics.
type fqPrint uint8

const (
	fqPlain    fqPrint = iota // a number
	fqOmitZero                // a number, only when non-zero
	fqTime64                  // nanoseconds, a time in text, only when positive
	fqLine3                   // on a third line, which tc prints when one of them is not zero; only when non-zero
)

// fqText is how tc's -s text writes one of fq's statistics: its format (a
// leading blank included), its JSON key when it is not the statistic's
// (tc prints "throttled" twice), and when and how.
type fqText struct {
	format string
	json   string
	print  fqPrint
}

// fqTexts are tc's -s text of fq's statistics by JSON key; the
// statistics, in tc's order, are tcFQQdStatsFields (from the spec). The
// second line starts at gc.
var fqTexts = map[string]fqText{
	"flows":             {format: "  flows %u"},
	"inactive":          {format: " (inactive %u"},
	"throttled_flows":   {format: " throttled %u)", json: "throttled"},
	"band0_pkts":        {format: " band0_pkts %u"},
	"band1_pkts":        {format: " band1_pkts %u"},
	"band2_pkts":        {format: " band2_pkts %u"},
	"next_packet_delay": {format: " next_packet_delay %s", print: fqTime64},
	"gc":                {format: "  gc %llu"},
	"highprio":          {format: " highprio %llu"},
	"fastpath":          {format: " fastpath %llu", print: fqOmitZero},
	"retrans":           {format: " retrans %llu", print: fqOmitZero},
	"throttled":         {format: " throttled %llu"},
	"latency":           {format: " latency %s", print: fqTime64},
	"ce_mark":           {format: " ce_mark %llu", print: fqOmitZero},
	"flows_plimit":      {format: " flows_plimit %llu", print: fqOmitZero},
	"pkts_too_long":     {format: " pkts_too_long %llu", print: fqLine3},
	"alloc_errors":      {format: " alloc_errors %llu", print: fqLine3},
	"horizon_drops":     {format: " horizon_drops %llu", print: fqLine3},
	"horizon_caps":      {format: "  horizon_caps %llu", print: fqLine3},
	"band0_drops":       {format: " band0_drops %llu", print: fqLine3},
	"band1_drops":       {format: " band1_drops %llu", print: fqLine3},
	"band2_drops":       {format: " band2_drops %llu", print: fqLine3},
}

// fqStatsTable is fq's statistics for the registry's consumers.
var fqStatsTable = &tckind.StatsTable{
	Of: func(x tckind.Xstats) any {
		if s := fqStatsOf(x); s != nil {
			return s
		}
		return nil
	},
	Fields: tcFQQdStatsFields,
}

// fqStatsOf returns fq's xstats (see fixedXstats: tc zero-fills a short
// payload); nil when there are none.
func fqStatsOf(x tckind.Xstats) *attrs.TCFQQdStats {
	return tckind.FixedXstats[attrs.TCFQQdStats](x, attrs.TCFQQdStatsLen)
}

// printFQXstats prints fq's xstats (-s) as tc does:
//
//	flows 0 (inactive 0 throttled 0) band0_pkts 0 band1_pkts 0 band2_pkts 0
//	gc 0 highprio 0 throttled 0
//
// with next_packet_delay on the first line while a flow is throttled,
// fastpath, retrans, latency, ce_mark and flows_plimit on the second when
// not zero, and a third line of the drop counters that are not zero. In
// JSON the members sit in the qdisc's object, the times in nanoseconds;
// "throttled" is there twice, the flows then the counter, as tc prints it.
func printFQXstats(p *tcfmt.Printer, x *attrs.TCFQQdStats) {
	if x == nil {
		return
	}
	fields := tcFQQdStatsFields
	line3 := false
	for i := range fields {
		if f := &fields[i]; fqTexts[f.Key].print == fqLine3 {
			if v, _ := f.Get(x); v != 0 {
				line3 = true
			}
		}
	}
	for i := range fields {
		f := &fields[i]
		t := fqTexts[f.Key]
		v, ok := f.Get(x)
		key := f.Key
		if t.json != "" {
			key = t.json
		}
		if f.Key == "gc" {
			p.NL()
		}
		switch t.print {
		case fqPlain:
			p.Uint(tcfmt.Any, tcfmt.Name(key), t.format, v)
		case fqOmitZero:
			if v != 0 {
				p.Uint(tcfmt.Any, tcfmt.Name(key), t.format, v)
			}
		case fqTime64:
			if ok && v != 0 {
				p.Uint(tcfmt.JSON, tcfmt.Name(key), "", v)
				p.String(tcfmt.FP, "", t.format, tcfmt.FormatTime64(int64(v)))
			}
		case fqLine3:
			if !line3 {
				continue
			}
			if f.Key == "pkts_too_long" {
				p.NL()
			}
			if v != 0 {
				p.Uint(tcfmt.Any, tcfmt.Name(key), t.format, v)
			}
		}
	}
}

// fqChangeAccepted is Kind.ChangeAccepted for fq: fq_change refuses a
// bucket count outside 2..2^18 (a log of 1..18), and an offload_horizon
// beyond what the device can offload, which gotc does not know; tc's
// parser keeps pacing, the priomap and the weights within what the kernel
// takes, and the policy bounds initial_quantum.
func fqChangeAccepted(opts attrs.TCOptionsMsg, _ string) bool {
	o, ok := opts.(*attrs.FQAttrs)
	if !ok || len(o.Unknown) != 0 || o.OffloadHorizon != nil || o.Validate() != nil {
		return false
	}
	return o.BucketsLog == nil || *o.BucketsLog >= 1 && *o.BucketsLog <= 18
}

// fqDumped is Kind.Dumped for fq: a quantum clamped to 256 bytes .. 1 MiB,
// the refill delay kept in jiffies of the running kernel, and defrate,
// which the kernel has not used for years, not kept. There is nothing for
// a Restoring to undo.
func fqDumped(opts attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	o, ok := opts.(*attrs.FQAttrs)
	if !ok || o == nil {
		return opts
	}
	c := *o
	c.Quantum = tcword.MapPtr(c.Quantum, func(q uint32) uint32 { return min(max(q, 256), 1<<20) })
	c.FlowRefillDelay = tcword.MapPtr(c.FlowRefillDelay, tcword.JiffiesKept)
	c.FlowDefaultRate = nil
	return &c
}
