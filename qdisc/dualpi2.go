// SPDX-License-Identifier: Apache-2.0

package qdisc

// DualPI2 (RFC 9332, net/sched/sch_dualpi2.c): tc's keywords to netlink
// attributes, and the kernel's attributes and xstats back to tc's text and
// JSON output.
//
// Behaviour mirrored from iproute2 7.x (tc/q_dualpi2.c), all checked against
// Debian unstable's tc on a real kernel (see testdata/dualpi2/README.md):
//
//   - Only what the user named is sent, so "change" keeps the rest. Values
//     that tc treats as "not given" are dropped silently even when typed:
//     limit 0, memlimit 0, target 0, tupdate 0, a step_thresh of 0 (time or
//     packets) and max_rtt/typical_rtt 0. min_qlen_step, coupling_factor,
//     classic_protection, alpha and beta are sent whatever their value (the
//     kernel then refuses coupling_factor 0 and alpha/beta 0).
//   - The TCA_OPTIONS nest is always sent, with NLA_F_NESTED, even when empty:
//     "add" then gets the kernel's defaults, while "change" with no option is
//     refused by the kernel ("Dualpi2 options are required").
//   - A keyword given twice: the last one wins.
//   - max_rtt/typical_rtt override target, tupdate, alpha and beta wherever
//     they appear on the line.

import (
	"io"
	"math"
	"strconv"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

const (
	// dualpi2AlphaBetaMax is the largest alpha or beta (in Hz) tc accepts:
	// (2<<23)-1, as a float. Multiplied by 256 it still fits in 32 bits, but
	// it exceeds the kernel's own limit of 2^31-1 on the wire value, so the
	// kernel refuses the top half of this range.
	dualpi2AlphaBetaMax = float32((2 << 23) - 1)
	// dualpi2AlphaBetaScale: alpha and beta travel in units of 1/256 Hz.
	dualpi2AlphaBetaScale = 256
	// dualpi2TypToMax is the max_rtt/typical_rtt ratio tc assumes when only
	// one of them is given.
	dualpi2TypToMax = 6
	// dualpi2MaxProb is the kernel's probability scale (U32_MAX).
	dualpi2MaxProb = float64(math.MaxUint32)
)

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:  "dualpi2",
			Usage: dualPI2Usage(),
			ParseQdisc: func(args []string, env tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
				o, err := ParseDualPI2(args, env.Stderr)
				if err != nil {
					return nil, err
				}
				return o, nil
			},
			PrintOptions: func(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
				if o, ok := opts.(*attrs.DualPI2Attrs); ok {
					PrintDualPI2Options(p, o)
				}
			},
			PrintXstats: func(p *tcfmt.Printer, x tckind.Xstats) {
				if s := dualpi2StatsOf(x); s != nil {
					printDualPI2Stats(p, s)
				}
			},
			ChangeAccepted: dualpi2ChangeAccepted,
			Stats:          dualpi2StatsTable,
			Keywords:       tckind.KeywordsOf("dualpi2", dualpi2Words),
			KeptOnChange:   dualpi2Kept,
			Dumped:         func(o attrs.TCOptionsMsg) attrs.TCOptionsMsg { return dualpi2Gains(o, dualpi2GainDumped) },
			Restoring: func(o attrs.TCOptionsMsg) attrs.TCOptionsMsg {
				return dualpi2Gains(o, tcword.SmallestDumpedAs(dualpi2GainDumped))
			},
		})
	}, "dualpi2")
}

// dualpi2StatsOf returns DualPI2's xstats from TCA_STATS_APP or else
// TCA_XSTATS; nil when neither decoded as DualPI2's.
func dualpi2StatsOf(x tckind.Xstats) *attrs.TCDualPI2Xstats {
	if s, ok := x.App.(*attrs.TCDualPI2Xstats); ok {
		return s
	}
	s, _ := x.Legacy.(*attrs.TCDualPI2Xstats)
	return s
}

// dualpi2StatsTable is DualPI2's statistics (struct tc_dualpi2_xstats, all
// always present) under the keys of tc -s -j, for package watch and package
// exporter.
var dualpi2StatsTable = &tckind.StatsTable{
	Of: func(x tckind.Xstats) any {
		if s := dualpi2StatsOf(x); s != nil {
			return s
		}
		return nil
	},
	Fields: tcDualPI2XstatsFields,
}

// dualpi2Usage is gotc's own wording of the DualPI2 options; tc prints its
// usage to stderr after an unknown keyword and for "help".
const dualpi2Usage = `Usage: ... dualpi2 [ limit PACKETS ] [ memlimit BYTES ]
                  [ target TIME ] [ tupdate TIME ] [ alpha HZ ] [ beta HZ ]
                  [ max_rtt TIME [ typical_rtt TIME ] ]
                  [ step_thresh TIME | step_thresh PACKETS{p|pkt|pkts|packet|packets} ]
                  [ min_qlen_step PACKETS ] [ coupling_factor NUMBER ]
                  [ drop_on_overload | overflow ] [ drop_enqueue | drop_dequeue ]
                  [ classic_protection PERCENT ] [ l4s_ect | any_ect ]
                  [ split_gso | no_split_gso ]
  max_rtt and typical_rtt derive target, tupdate, alpha and beta and take
  precedence over them; either one alone implies the other (ratio 6).
`

// dualPI2Usage returns the usage text that gotc prints for "dualpi2 help" and
// after an unknown DualPI2 keyword (ending with a newline). The text is gotc's
// own; the keywords are tc's.
func dualPI2Usage() string { return dualpi2Usage }

// ParseDualPI2 turns the words after "dualpi2" into the qdisc's options as tc
// 7.x does. Only the options the user named are set (nil fields are absent),
// so that "change" and "replace" keep the others. The result is never nil on
// success: tc always sends the TCA_OPTIONS nest (flagged NLA_F_NESTED, which
// the kernel requires), empty when no option was given; the generated encoder
// writes it that way, in tc's attribute order.
//
// Warnings and the "Auto-config ..." line of max_rtt/typical_rtt go to stderr
// as tc prints them, before any error is returned. Errors are *ParseError
// (tc exits 1; ShowUsage means tc prints the usage after Msg, and "help" gives
// an empty Msg with ShowUsage), except a keyword missing its value, which
// has Code 255 (see incompleteCommand).
func ParseDualPI2(args []string, stderr io.Writer) (*attrs.DualPI2Attrs, error) {
	if stderr == nil {
		stderr = io.Discard
	}
	// The state mirrors tc's: what was given, and with which value.
	var (
		limit, memlimit, target, tupdate uint32
		alpha, beta                      *uint32
		stepThresh                       uint32
		stepInPackets                    bool
		minQlenStep                      *uint32
		coupling                         *uint8
		dropOverload                     *attrs.DualPI2DropOverload
		dropEarly                        *attrs.DualPI2DropEarly
		cProtection                      *uint8
		ecnMask                          *attrs.DualPI2ECNMask
		splitGSO                         *attrs.DualPI2SplitGSO
		rttMax, rttTyp                   uint32
	)

	for i := 0; i < len(args); i++ {
		kw := args[i]
		// value consumes the keyword's argument, as NEXT_ARG does.
		value := func() (string, error) {
			if i+1 >= len(args) {
				return "", tcword.IncompleteCommand()
			}
			i++
			return args[i], nil
		}
		switch kw {
		case "limit", "memlimit", "min_qlen_step":
			v, err := value()
			if err != nil {
				return nil, err
			}
			n, perr := tcfmt.ParseUint(v, 10, 32)
			if perr != nil {
				return nil, tcword.Errorf("Illegal %q", kw)
			}
			switch kw {
			case "limit":
				limit = uint32(n)
			case "memlimit":
				memlimit = uint32(n)
			default:
				minQlenStep = dualpi2Ptr(uint32(n))
			}
		case "target", "tupdate", "max_rtt", "typical_rtt":
			v, err := value()
			if err != nil {
				return nil, err
			}
			t, perr := tcfmt.ParseTime(v)
			if perr != nil {
				return nil, tcword.Errorf("Illegal %q", kw)
			}
			switch kw {
			case "target":
				target = t
			case "tupdate":
				tupdate = t
			case "max_rtt":
				rttMax = t
			default:
				rttTyp = t
			}
		case "alpha", "beta":
			v, err := value()
			if err != nil {
				return nil, err
			}
			n, perr := parseDualPI2Gain(kw, v, stderr)
			if perr != nil {
				return nil, perr
			}
			if kw == "alpha" {
				alpha = &n
			} else {
				beta = &n
			}
		case "coupling_factor":
			v, err := value()
			if err != nil {
				return nil, err
			}
			// get_s32 with base 0: hex and octal are accepted; the value
			// must then fit in the u8 attribute. 0 passes here and is left
			// to the kernel to refuse.
			n, perr := tcfmt.ParseInt(v, 0, 32)
			if perr != nil || n < 0 || n > 0xff {
				return nil, tcword.Errorf(`Illegal "coupling_factor"`)
			}
			coupling = dualpi2Ptr(uint8(n))
		case "step_thresh":
			v, err := value()
			if err != nil {
				return nil, err
			}
			// A time first (a bare number is microseconds), then a packet
			// count, which needs one of the packet suffixes.
			if t, perr := tcfmt.ParseTime(v); perr == nil {
				stepThresh, stepInPackets = t, false
			} else if n, ok := parseDualPI2Packets(v); ok {
				stepThresh, stepInPackets = n, true
			} else {
				return nil, tcword.Errorf(`Illegal "step_thresh"`)
			}
		case "classic_protection":
			v, err := value()
			if err != nil {
				return nil, err
			}
			pct, ok := parseDualPI2Percent(v)
			if !ok {
				return nil, tcword.Errorf(`Illegal "classic_protection"`)
			}
			cProtection = dualpi2Ptr(pct)
		case "help":
			return nil, &tcword.ParseError{ShowUsage: true}
		default:
			// The words of the modes are those tc prints, the spec's.
			if v, ok := attrs.DualPI2ECNMaskByTCName(kw); ok {
				ecnMask = &v
			} else if v, ok := attrs.DualPI2DropOverloadByTCName(kw); ok {
				dropOverload = &v
			} else if v, ok := attrs.DualPI2DropEarlyByTCName(kw); ok {
				dropEarly = &v
			} else if v, ok := attrs.DualPI2SplitGSOByTCName(kw); ok {
				splitGSO = &v
			} else {
				// tc quotes the word as is, without escaping.
				return nil, tcword.UsageErrorf("What is \"%s\"?", kw)
			}
		}
	}

	if rttMax != 0 || rttTyp != 0 {
		a, b, tg, tu, err := dualpi2AutoConfig(rttMax, rttTyp,
			alpha != nil || beta != nil || tupdate != 0 || target != 0, stderr)
		if err != nil {
			return nil, err
		}
		alpha, beta, target, tupdate = &a, &b, tg, tu
	}

	o := &attrs.DualPI2Attrs{
		Alpha:        alpha,
		Beta:         beta,
		MinQlenStep:  minQlenStep,
		Coupling:     coupling,
		DropOverload: dropOverload,
		DropEarly:    dropEarly,
		CProtection:  cProtection,
		ECNMask:      ecnMask,
		SplitGSO:     splitGSO,
	}
	// tc uses 0 to mean "not given" for these, so a typed 0 is not sent.
	if limit != 0 {
		o.Limit = &limit
	}
	if memlimit != 0 {
		o.MemoryLimit = &memlimit
	}
	if target != 0 {
		o.Target = &target
	}
	if tupdate != 0 {
		o.Tupdate = &tupdate
	}
	if stepThresh != 0 {
		if stepInPackets {
			o.StepThreshPkts = &stepThresh
		} else {
			o.StepThreshUS = &stepThresh
		}
	}
	return o, nil
}

func dualpi2Ptr[T any](v T) *T { return &v }

// parseDualPI2Gain parses alpha or beta in Hz and returns the wire value
// (Hz*256). tc reads a C float (strtof), bounds it to [0, 2^24-1], warns when
// it is below 1/256 Hz, and converts float*256 (float arithmetic) to u32.
func parseDualPI2Gain(name, s string, stderr io.Writer) (uint32, error) {
	f, err := tcfmt.ParseFloat32(s, 0, dualpi2AlphaBetaMax)
	if err != nil {
		return 0, tcword.Errorf("Illegal %q", name)
	}
	// A NaN passes tc's range check and fails this comparison, so tc prints
	// no warning for it.
	if f < 1.0/dualpi2AlphaBetaScale {
		io.WriteString(stderr, `Warning: "`+name+`" is too small and will be rounded to zero.`+"\n")
	}
	scaled := f * dualpi2AlphaBetaScale
	if scaled != scaled {
		// x86-64 converts a NaN float to u32 through a 64-bit cvttss2si,
		// whose "indefinite" result has zero low bits.
		return 0, nil
	}
	return uint32(scaled), nil
}

// parseDualPI2Packets parses a packet count as step_thresh's second form: a
// base-10 strtoul number followed by exactly one of tc's packet suffixes
// (case-sensitive), fitting in 32 bits.
func parseDualPI2Packets(s string) (uint32, bool) {
	v, n, erange := tcfmt.Strtoul(s, 10)
	if n == 0 || erange || v > math.MaxUint32 {
		return 0, false
	}
	switch s[n:] {
	case "p", "pkt", "pkts", "packet", "packets":
		return uint32(v), true
	}
	return 0, false
}

// parseDualPI2Percent parses classic_protection as tc's parse_percent plus
// rint: the fraction multiplied back by 100 and rounded half to even.
func parseDualPI2Percent(s string) (uint8, bool) {
	per, ok := tcword.ParsePercent(s)
	if !ok {
		return 0, false
	}
	r := math.RoundToEven(per * 100)
	if r != r {
		// NaN passes the range check; converted to int it becomes INT_MIN,
		// which tc's "< 0" check refuses.
		return 0, false
	}
	return uint8(r), true // r is in [0, 100]
}

// dualpi2AutoConfig derives target, tupdate, alpha and beta from max_rtt and
// typical_rtt (µs, at least one non-zero) with tc's arithmetic: the float
// constants 0.1f, 0.3f and 3.0f are widened to double, every operation is in
// double, and the results are truncated to u32. It prints tc's notices on
// stderr.
func dualpi2AutoConfig(rttMax, rttTyp uint32, overridden bool, stderr io.Writer) (alpha, beta, target, tupdate uint32, err error) {
	switch {
	case rttTyp == 0:
		rttTyp = max(rttMax/dualpi2TypToMax, 1)
	case rttMax == 0:
		rttMax = rttTyp * dualpi2TypToMax // wraps modulo 2^32, as in C
	case rttTyp > rttMax:
		return 0, 0, 0, 0, tcword.Errorf("typical_rtt must be <= max_rtt!")
	}
	if overridden {
		io.WriteString(stderr, "rtt_max is specified, ignore alpha/beta/tupdate/target\n")
	}
	var (
		maxD   = float64(rttMax)
		three  = float64(float32(3.0))
		tenth  = float64(float32(0.1))
		thirty = float64(float32(0.3))
		unit   = float64(1000000) // TIME_UNITS_PER_SEC
		minAB  = float64(float32(1.0) / dualpi2AlphaBetaScale)
	)
	target = rttTyp
	if float64(rttTyp) < maxD/three {
		tupdate = rttTyp
	} else {
		tupdate = uint32(maxD / three) // in [0, 2^32/3): the conversion is exact truncation
	}
	tupdate = max(tupdate, 1)
	// Each step separately, left to right as C evaluates it, so that Go
	// cannot reassociate or fuse anything.
	alphaF := float64(tupdate) / maxD
	alphaF /= maxD
	alphaF *= unit
	alphaF *= tenth
	betaF := thirty / maxD
	betaF *= unit

	if betaF > float64(dualpi2AlphaBetaMax) {
		return 0, 0, 0, 0, tcword.Errorf("max_rtt=%s is too low and cause beta to overflow!",
			tcfmt.FormatTime(rttMax))
	}
	if alphaF < minAB || betaF < minAB {
		return 0, 0, 0, 0, tcword.Errorf("Large max_rtt=%s rounds down alpha=%s and/or beta=%s!",
			tcfmt.FormatTime(rttMax), tcfmt.Sprintf("%f", alphaF), tcfmt.Sprintf("%f", betaF))
	}
	io.WriteString(stderr, "Auto-config [max_rtt: "+tcfmt.FormatTime(rttMax)+
		", typical_rtt: "+tcfmt.FormatTime(rttTyp)+"]: target="+tcfmt.FormatTime(target)+
		" tupdate="+tcfmt.FormatTime(tupdate)+" alpha="+tcfmt.Sprintf("%f", alphaF)+
		" beta="+tcfmt.Sprintf("%f", betaF)+"\n")
	// Both lie in [1, 2^32) here (beta <= (2^24-1)*256), so the
	// truncating conversion matches C's.
	return uint32(alphaF * dualpi2AlphaBetaScale), uint32(betaF * dualpi2AlphaBetaScale), target, tupdate, nil
}

// dualpi2Gain converts a wire alpha or beta back to Hz as tc does: the u32 is
// first converted to a C float (losing precision above 2^24) and divided in
// float arithmetic, then widened for printf.
func dualpi2Gain(v uint32) float64 {
	return float64(float32(v) / dualpi2AlphaBetaScale)
}

// PrintDualPI2Options prints a dualpi2 qdisc's options (TCA_OPTIONS) as tc
// does, in text (each token followed by a blank) or JSON (hyphenated keys,
// raw µs for times, strings for the modes, "split-gso": null only when
// splitting). Only the attributes present are printed; the kernel always
// dumps all of them, in this order:
//
//	limit 10000p memlimit 30280000B target 15ms tupdate 16ms alpha 0.156250 beta 3.195312 step_thresh 1ms min_qlen_step 0p coupling_factor 2 drop_on_overload drop_dequeue classic_protection 10% l4s_ect split_gso
//
// tc prints the same with or without -d. The caller opens and closes the
// "options" object around this call.
func PrintDualPI2Options(p *tcfmt.Printer, o *attrs.DualPI2Attrs) {
	if o == nil {
		return
	}
	const both, fp, js = tcfmt.Any, tcfmt.FP, tcfmt.JSON
	if o.Limit != nil {
		p.Uint(both, "limit", "limit %up ", uint64(*o.Limit))
	}
	if o.MemoryLimit != nil {
		p.Uint(both, "memory-limit", "memlimit %uB ", uint64(*o.MemoryLimit))
	}
	if o.Target != nil {
		p.Time(both, "target", "target %s ", *o.Target)
	}
	if o.Tupdate != nil {
		p.Time(both, "tupdate", "tupdate %s ", *o.Tupdate)
	}
	if o.Alpha != nil {
		p.Float(both, "alpha", "alpha %f ", dualpi2Gain(*o.Alpha))
	}
	if o.Beta != nil {
		p.Float(both, "beta", "beta %f ", dualpi2Gain(*o.Beta))
	}
	// Both step forms print if both are present (the kernel sends one).
	if o.StepThreshPkts != nil {
		p.Uint(both, "step-thresh-pkts", "step_thresh %up ", uint64(*o.StepThreshPkts))
	}
	if o.StepThreshUS != nil {
		p.Time(both, "step-thresh-us", "step_thresh %s ", *o.StepThreshUS)
	}
	if o.MinQlenStep != nil {
		p.Uint(both, "min-qlen-step", "min_qlen_step %up ", uint64(*o.MinQlenStep))
	}
	if o.Coupling != nil {
		p.Uint(both, "coupling", "coupling_factor %u ", uint64(*o.Coupling))
	}
	// A mode prints as tc's word in text and the spec's name in JSON.
	if o.DropOverload != nil {
		// Any non-zero value means drop, as in the kernel.
		v := attrs.DualPI2DropOverloadOverflow
		if *o.DropOverload != v {
			v = attrs.DualPI2DropOverloadDrop
		}
		text, _ := v.TCName()
		p.String(fp, "", "%s ", text)
		p.String(js, "drop-overload", "", v.String())
	}
	if o.DropEarly != nil {
		// Any non-zero value means at enqueue.
		v := attrs.DualPI2DropEarlyDropDequeue
		if *o.DropEarly != v {
			v = attrs.DualPI2DropEarlyDropEnqueue
		}
		text, _ := v.TCName()
		p.String(fp, "", "%s ", text)
		p.String(js, "drop-early", "", v.String())
	}
	if o.CProtection != nil {
		p.Uint(both, "c-protection", "classic_protection %u%% ", uint64(*o.CProtection))
	}
	if o.ECNMask != nil {
		// tc looks at the two low bits only; ECT(0)-only (2) shows as
		// any_ect. 0, which the kernel never holds, prints as an empty word
		// (tc also warns "Unexpected ecn type" on stderr; gotc does not).
		v := *o.ECNMask & attrs.DualPI2ECNMaskAnyECT
		if v == attrs.DualPI2ECNMaskClaECT {
			v = attrs.DualPI2ECNMaskAnyECT
		}
		text, js2 := "", ""
		if name, ok := v.TCName(); ok {
			text, js2 = name, v.String()
		}
		p.String(fp, "", "%s ", text)
		p.String(js, "ecn-mask", "", js2)
	}
	if o.SplitGSO != nil {
		// Any non-zero value splits; JSON has a member only then.
		v := attrs.DualPI2SplitGSONoSplitGSO
		if *o.SplitGSO != v {
			v = attrs.DualPI2SplitGSOSplitGSO
		}
		text, _ := v.TCName()
		p.Text(text + " ")
		if v == attrs.DualPI2SplitGSOSplitGSO {
			p.Null(js, "split-gso", "", "")
		}
	}
}

// printDualPI2Stats prints DualPI2's extended statistics (-s) as tc does:
//
//	prob 0.000000 delay_c 0us delay_l 0us
//	pkts_in_c 0 pkts_in_l 0 maxq 0
//	ecn_mark 0 step_mark 0
//	credit -121120 (L-queue)
//	memory_used 0 (max 0) of memory limit 30280000
//
// each line ended by a line separator (so with the separator that tc's
// print_qdisc adds after the xstats, the text block ends in a blank line). In
// JSON the members are prob, delay-c, delay-l, pkts-in-c, pkts-in-l, maxq,
// ecn-mark, step-mark, credit, memory-used, max-memory-used and memory-limit,
// at the qdisc's top level.
func printDualPI2Stats(p *tcfmt.Printer, x *attrs.TCDualPI2Xstats) {
	if x == nil {
		return
	}
	const both = tcfmt.Any
	p.Float(both, "prob", "prob %f ", float64(x.Prob)/dualpi2MaxProb)
	p.Uint(both, "delay-c", "delay_c %uus ", uint64(x.DelayC))
	p.Uint(both, "delay-l", "delay_l %uus", uint64(x.DelayL))
	p.NL()
	p.Uint(both, "pkts-in-c", "pkts_in_c %u ", uint64(x.PacketsInC))
	p.Uint(both, "pkts-in-l", "pkts_in_l %u ", uint64(x.PacketsInL))
	p.Uint(both, "maxq", "maxq %u", uint64(x.Maxq))
	p.NL()
	p.Uint(both, "ecn-mark", "ecn_mark %u ", uint64(x.ECNMark))
	p.Uint(both, "step-mark", "step_mark %u", uint64(x.StepMarks))
	p.NL()
	p.Int(both, "credit", "credit %d ", int64(x.Credit))
	// The queue the scheduler favours next: a positive credit is the C
	// queue's, zero and below the L queue's.
	queue := "L-queue"
	if x.Credit > 0 {
		queue = "C-queue"
	}
	p.String(tcfmt.FP, "", "(%s)", queue)
	p.NL()
	p.Uint(both, "memory-used", "memory_used %u ", uint64(x.MemoryUsed))
	p.Uint(both, "max-memory-used", "(max %u) ", uint64(x.MaxMemoryUsed))
	p.Uint(both, "memory-limit", "of memory limit %u", uint64(x.MemoryLimit))
	p.NL()
}

// dualpi2ChangeAccepted is Kind.ChangeAccepted for dualpi2: dualpi2_change
// refuses only empty options, values outside dualpi2_policy (the spec's
// checks, which Validate runs), and both step thresholds at once (Linux 6.17
// to 7.2).
func dualpi2ChangeAccepted(opts attrs.TCOptionsMsg, _ string) bool {
	o, ok := opts.(*attrs.DualPI2Attrs)
	if !ok || len(o.Unknown) != 0 {
		return false
	}
	// Empty options are refused. The encoding is the test for "empty" that
	// needs no list of fields: a buffer on the stack holds all of them.
	var buf [128]byte
	e := attrs.NewEncoder(buf[:0])
	o.Encode(e)
	// The step thresholds exclude each other in dualpi2_change's code, not
	// in its policy.
	bothSteps := o.StepThreshPkts != nil && o.StepThreshUS != nil
	return len(e.Bytes()) != 0 && !bothSteps && o.Validate() == nil
}

// dualpi2Kept is Kind.KeptOnChange for dualpi2, whose change keeps what a
// request omits: dualpi2_reset_default's values. Not the memory limit,
// which a limit sent sets anew (from the device's MTU); the step
// threshold in time only when the request gives none in packets, which
// the kernel refuses beside it.
func dualpi2Kept(opts attrs.TCOptionsMsg) (attrs.TCOptionsMsg, []string) {
	if o, ok := opts.(*attrs.DualPI2Attrs); ok && o.StepThreshPkts != nil {
		return dualpi2KeptBut(opts)
	}
	return dualpi2KeptStep(dualpi2KeptBut(opts))
}

var (
	dualpi2KeptBut = tckind.KeptDefaults("dualpi2", dualpi2Words, attrs.DualPI2Attrs{
		Limit: new(uint32(10000)), Target: new(uint32(15000)), Tupdate: new(uint32(16000)),
		Alpha: new(uint32(41)), Beta: new(uint32(819)), MinQlenStep: new(uint32(0)), Coupling: new(uint8(2)),
		DropOverload: new(attrs.DualPI2DropOverloadDrop), DropEarly: new(attrs.DualPI2DropEarlyDropDequeue),
		CProtection: new(uint8(10)), ECNMask: new(attrs.DualPI2ECNMaskL4SECT), SplitGSO: new(attrs.DualPI2SplitGSOSplitGSO),
	})
	dualpi2Step = tckind.KeptDefaults("dualpi2", dualpi2Words, attrs.DualPI2Attrs{StepThreshUS: new(uint32(1000))})
)

// dualpi2KeptStep adds the step threshold's default to what
// dualpi2KeptBut returned, and its words to those.
func dualpi2KeptStep(opts attrs.TCOptionsMsg, words []string) (attrs.TCOptionsMsg, []string) {
	o, w := dualpi2Step(opts)
	return o, append(words, w...)
}

func dualpi2Words(o *attrs.DualPI2Attrs) ([]string, error) {
	var w []string
	opt := func(name string, v *uint32, format func(uint32) string) {
		if v != nil && *v != 0 {
			w = append(w, name, format(*v))
		}
	}
	opt("limit", o.Limit, tcword.UintWord[uint32])
	opt("memlimit", o.MemoryLimit, tcword.UintWord[uint32])
	opt("target", o.Target, tcword.TimeWord)
	opt("tupdate", o.Tupdate, tcword.TimeWord)
	// alpha and beta travel as Hz*256: v/256 is exact in decimal and in
	// the float tc reads it into (for v below 2^24).
	gain := func(v uint32) string { return strconv.FormatFloat(float64(v)/256, 'f', -1, 64) }
	opt("alpha", o.Alpha, gain)
	opt("beta", o.Beta, gain)
	if o.StepThreshPkts != nil {
		w = append(w, "step_thresh", tcword.UintWord(*o.StepThreshPkts)+"p")
	} else {
		opt("step_thresh", o.StepThreshUS, func(v uint32) string { return tcword.UintWord(v) + "us" })
	}
	if o.MinQlenStep != nil {
		w = append(w, "min_qlen_step", tcword.UintWord(*o.MinQlenStep))
	}
	if o.Coupling != nil {
		w = append(w, "coupling_factor", tcword.UintWord(*o.Coupling))
	}
	var err error
	if o.DropOverload != nil {
		if w, err = tckind.AppendTCName(w, "dualpi2 drop overload", *o.DropOverload); err != nil {
			return nil, err
		}
	}
	if o.DropEarly != nil {
		if w, err = tckind.AppendTCName(w, "dualpi2 drop early", *o.DropEarly); err != nil {
			return nil, err
		}
	}
	if o.CProtection != nil {
		w = append(w, "classic_protection", tcword.UintWord(*o.CProtection)+"%")
	}
	if o.ECNMask != nil {
		if w, err = tckind.AppendTCName(w, "dualpi2 ECN mask", *o.ECNMask); err != nil {
			return nil, err
		}
	}
	if o.SplitGSO != nil {
		if w, err = tckind.AppendTCName(w, "dualpi2 split gso", *o.SplitGSO); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// dualpi2GainDumped is alpha or beta (Hz*256) as dualpi2 keeps it (scaled
// to its probability range in 64 ns units) and dumps it.
func dualpi2GainDumped(v uint32) uint32 {
	const maxProb, nsPerSec, scaling = 1<<32 - 1, 1e9, 2
	kept := uint64(v) * maxProb >> scaling / nsPerSec
	return uint32(kept * nsPerSec << scaling / maxProb)
}

// dualpi2Gains returns a copy of dualpi2's options with alpha and beta
// converted by f (options of another type as they are).
func dualpi2Gains(opts attrs.TCOptionsMsg, f func(uint32) uint32) attrs.TCOptionsMsg {
	o, ok := opts.(*attrs.DualPI2Attrs)
	if !ok {
		return opts
	}
	c := *o
	c.Alpha, c.Beta = tcword.MapPtr(o.Alpha, f), tcword.MapPtr(o.Beta, f)
	return &c
}
