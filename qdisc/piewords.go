// SPDX-License-Identifier: Apache-2.0

package qdisc

// The part of pie's options that fq_pie has too (tc's q_pie.c and
// q_fq_pie.c read, print and, here, write them alike): the keywords, the
// attributes they make, their printing and their writing back.

import (
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
)

// pieGainMax is the largest alpha and beta tc takes (its ALPHA_MAX and
// BETA_MAX); the kernel takes any u32.
const pieGainMax = 32

// pieWords are the keywords pie and fq_pie share, with tc's "not given"
// values (0, and switchUnset for the on/off pairs).
type pieWords struct {
	limit, target, tupdate, alpha, beta uint32
	ecn, bytemode, dqRateEstimator      tcword.SwitchArg
}

func newPIEWords() *pieWords {
	return &pieWords{ecn: tcword.SwitchUnset, bytemode: tcword.SwitchUnset, dqRateEstimator: tcword.SwitchUnset}
}

// word takes kw (and its value) when it is one of the shared keywords; ok
// is false for any other word.
func (w *pieWords) word(kw string, value tcword.ValueFunc) (ok bool, err error) {
	switch kw {
	case "limit":
		w.limit, err = tcword.UintArg(kw, value)
	case "target":
		w.target, err = tcword.TimeArg(kw, value)
	case "tupdate":
		w.tupdate, err = tcword.TimeArg(kw, value)
	case "alpha", "beta":
		var g uint32
		g, err = tcword.UintArg(kw, value)
		if err == nil && g > pieGainMax {
			err = tcword.Errorf("Illegal %q", kw)
		}
		if kw == "alpha" {
			w.alpha = g
		} else {
			w.beta = g
		}
	case "ecn":
		w.ecn = 1
	case "noecn":
		w.ecn = 0
	case "bytemode":
		w.bytemode = 1
	case "nobytemode":
		w.bytemode = 0
	case "dq_rate_estimator":
		w.dqRateEstimator = 1
	case "no_dq_rate_estimator":
		w.dqRateEstimator = 0
	default:
		return false, nil
	}
	return true, err
}

// params are the shared options to send.
func (w *pieWords) params() pieParams {
	return pieParams{
		Limit: tcword.NonZero(w.limit), Target: tcword.NonZero(w.target), Tupdate: tcword.NonZero(w.tupdate),
		Alpha: tcword.NonZero(w.alpha), Beta: tcword.NonZero(w.beta),
		ECN: w.ecn.Attr(), Bytemode: w.bytemode.Attr(), DQRateEstimator: w.dqRateEstimator.Attr(),
	}
}

// pieParams are the options pie and fq_pie have alike, as attributes.
type pieParams struct {
	Limit, Target, Tupdate, Alpha, Beta *uint32
	ECN, Bytemode, DQRateEstimator      *uint32
}

// printControl prints target, tupdate, alpha and beta, which both kinds
// print in this order after their sizes.
func (v *pieParams) printControl(p *tcfmt.Printer) {
	const both = tcfmt.Any
	if v.Target != nil {
		p.Time(both, "target", "target %s ", *v.Target)
	}
	if v.Tupdate != nil {
		p.Time(both, "tupdate", "tupdate %s ", *v.Tupdate)
	}
	if v.Alpha != nil {
		p.Uint(both, "alpha", "alpha %u ", uint64(*v.Alpha))
	}
	if v.Beta != nil {
		p.Uint(both, "beta", "beta %u ", uint64(*v.Beta))
	}
}

// printSwitches prints ecn, bytemode and dq_rate_estimator, each only when
// on, last of both kinds' options.
func (v *pieParams) printSwitches(p *tcfmt.Printer) {
	for _, s := range []struct {
		key string
		v   *uint32
	}{{"ecn", v.ECN}, {"bytemode", v.Bytemode}, {"dq_rate_estimator", v.DQRateEstimator}} {
		if s.v != nil && *s.v != 0 {
			p.Bool(tcfmt.Any, tcfmt.Name(s.key), s.key+" ", true)
		}
	}
}

// keywords writes the shared options back, limit first: a 0 is left out,
// as tc takes it for "not given" and sends nothing.
func (v *pieParams) keywords() []string {
	var w []string
	for _, n := range []struct {
		name string
		v    *uint32
		time bool
	}{{"limit", v.Limit, false}, {"target", v.Target, true}, {"tupdate", v.Tupdate, true}, {"alpha", v.Alpha, false}, {"beta", v.Beta, false}} {
		switch {
		case n.v == nil || *n.v == 0:
		case n.time:
			w = append(w, n.name, tcword.TimeWord(*n.v))
		default:
			w = append(w, n.name, tcword.UintWord(*n.v))
		}
	}
	w = tcword.OnOff(w, v.ECN, "ecn", "noecn")
	w = tcword.OnOff(w, v.Bytemode, "bytemode", "nobytemode")
	return tcword.OnOff(w, v.DQRateEstimator, "dq_rate_estimator", "no_dq_rate_estimator")
}

// pieTargetDumped is a pie family's target in µs as the kernel keeps it
// (psched ticks of 64 ns, PSCHED_SHIFT 6) and dumps it back through a u32
// of ns, which wraps above 4.29 s.
func pieTargetDumped(us uint32) uint32 {
	ticks := uint64(us) * 1000 >> 6
	return uint32(ticks<<6) / 1000
}

// pieTimes converts a pie family's target and tupdate in place: by the
// kernel's rounding for Dumped, by its inverse for Restoring (a tupdate
// dumped is whole jiffies, which the kernel keeps as they are).
func pieTimes(target, tupdate **uint32, dumped bool) {
	if dumped {
		convertTimes(pieTargetDumped, target)
		convertTimes(tcword.JiffiesKept, tupdate)
		return
	}
	convertTimes(tcword.SmallestDumpedAs(pieTargetDumped), target)
}
