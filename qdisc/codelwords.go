// SPDX-License-Identifier: Apache-2.0

package qdisc

import (
	"math"

	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
)

// What codel and fq_codel share: the keywords tc reads alike for both,
// the printing of their signed drop_next, and the kernel keeping their
// times in units of 1.024 µs, so that a dump gives back a time rounded
// down.

// codelDumped is a codel time in µs as the kernel keeps it (ns >> 10) and
// dumps it (back to µs, truncated).
func codelDumped(us uint32) uint32 {
	kept := uint64(us) * 1000 >> 10
	return uint32(kept << 10 / 1000)
}

// convertTimes converts a codel family's optional times by f, in place.
func convertTimes(f func(uint32) uint32, times ...**uint32) {
	for _, t := range times {
		*t = tcword.MapPtr(*t, f)
	}
}

// codelWords are the keywords codel and fq_codel share (tc's q_codel.c and
// q_fq_codel.c read them alike), with tc's "not given" values: 0 for
// limit, target and interval, 2^32-1 for ce_threshold.
type codelWords struct {
	limit, target, interval, ceThreshold uint32
	ecn                                  tcword.SwitchArg
}

func newCodelWords() *codelWords {
	return &codelWords{ceThreshold: math.MaxUint32, ecn: tcword.SwitchUnset}
}

// word takes kw (and its value, read with value) when it is one of the
// shared keywords; ok is false for any other word.
func (w *codelWords) word(kw string, value tcword.ValueFunc) (ok bool, err error) {
	switch kw {
	case "limit":
		w.limit, err = tcword.UintArg(kw, value)
	case "target":
		w.target, err = tcword.TimeArg(kw, value)
	case "interval":
		w.interval, err = tcword.TimeArg(kw, value)
	case "ce_threshold":
		w.ceThreshold, err = tcword.TimeArg(kw, value)
	case "ecn":
		w.ecn = 1
	case "noecn":
		w.ecn = 0
	default:
		return false, nil
	}
	return true, err
}

// ceThresholdAttr is the CE threshold to send: none unless one was given.
func (w *codelWords) ceThresholdAttr() *uint32 {
	if w.ceThreshold == math.MaxUint32 {
		return nil
	}
	t := w.ceThreshold
	return &t
}

// printSignedTime writes signed microseconds as tc's codel and fq_codel
// write drop_next: the magnitude as a time, a minus sign in front when
// negative. format has one %s.
func printSignedTime(p *tcfmt.Printer, format string, us int32) {
	if us < 0 {
		// The magnitude of math.MinInt32 still fits a uint32.
		p.String(tcfmt.FP, "", format, "-"+tcfmt.FormatTime(uint32(-int64(us))))
		return
	}
	p.String(tcfmt.FP, "", format, tcfmt.FormatTime(uint32(us)))
}
