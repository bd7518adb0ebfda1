// SPDX-License-Identifier: Apache-2.0

package tcword

// Writers of dumped values as the words tc reads them back, for the kinds'
// Keywords, and the inverse of a kernel's rounding, for their Restoring.

import (
	"strconv"

	"github.com/gotc/gotc/tcfmt"
)

// UintWord writes an unsigned number in decimal.
func UintWord[T ~uint8 | ~uint16 | ~uint32 | ~uint64](v T) string {
	return strconv.FormatUint(uint64(v), 10)
}

// RateWord writes bytes/s as an exact rate in bits, in the largest of
// tc's decimal units that divides it.
func RateWord(bytesPerSec uint64) string {
	bits := bytesPerSec * 8
	for _, unit := range []struct {
		name string
		div  uint64
	}{{"gbit", 1e9}, {"mbit", 1e6}, {"kbit", 1e3}} {
		if bits%unit.div == 0 {
			return UintWord(bits/unit.div) + unit.name
		}
	}
	return UintWord(bits) + "bit"
}

// TimeWord writes microseconds exactly.
func TimeWord(us uint32) string {
	switch {
	case us != 0 && us%1e6 == 0:
		return UintWord(us/1e6) + "s"
	case us != 0 && us%1e3 == 0:
		return UintWord(us/1e3) + "ms"
	}
	return UintWord(us) + "us"
}

// OnOff writes a flag attribute as one of its two keywords.
func OnOff(w []string, v *uint32, on, off string) []string {
	switch {
	case v == nil:
		return w
	case *v != 0:
		return append(w, on)
	}
	return append(w, off)
}

// BurstOf is the burst in bytes whose transmission time at rate tc
// computes as ticks: what tc prints (truncated), raised until it gives
// ticks back where the truncation lost a byte.
func BurstOf(rate uint64, ticks uint32) uint64 {
	size := XmitSize(rate, ticks)
	for s := size; s < size+64; s++ {
		if XmitTime(rate, s) == ticks {
			return s
		}
	}
	return size
}

// ClassIDWord writes a class ID as tc reads it ("1:10").
func ClassIDWord(id uint32) string {
	return strconv.FormatUint(uint64(id>>16), 16) + ":" + strconv.FormatUint(uint64(id&0xffff), 16)
}

// SmallestDumpedAs inverts a rounding that loses less than a unit each
// way: the smallest request value next to the dumped one that the kernel
// dumps as it (the dumped value itself when none is).
func SmallestDumpedAs(dumpedAs func(uint32) uint32) func(uint32) uint32 {
	return func(d uint32) uint32 {
		for v := uint64(max(d, 1) - 1); v <= uint64(d)+3 && v <= 1<<32-1; v++ {
			if dumpedAs(uint32(v)) == d {
				return uint32(v)
			}
		}
		return d
	}
}

// MapPtr returns a pointer to f of *p, or nil for nil: a converted copy of
// an optional attribute.
func MapPtr(p *uint32, f func(uint32) uint32) *uint32 {
	if p == nil {
		return nil
	}
	v := f(*p)
	return &v
}

// ShortestFloatWord writes the shortest decimal, followed by suffix, that
// ok accepts, from the numbers near (each rounded to 1 to 17 significant
// digits, fewer digits first, and written without an exponent): a value
// tc scaled and truncated, such as a probability, is written "0.02" rather
// than as the quotient that gives it back. ok is false when no digits do.
func ShortestFloatWord(near []float64, suffix string, ok func(string) bool) (string, bool) {
	for prec := 1; prec <= 17; prec++ {
		for _, x := range near {
			r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', prec, 64), 64)
			if s := strconv.FormatFloat(r, 'f', -1, 64) + suffix; ok(s) {
				return s, true
			}
		}
	}
	return "", false
}

// Time64Word writes nanoseconds in the largest of tc's units that gives
// them back exactly through get_time64's double arithmetic.
func Time64Word(ns int64) string {
	for _, unit := range []struct {
		name string
		div  int64
	}{{"s", 1e9}, {"ms", 1e6}, {"us", 1e3}} {
		if ns != 0 && ns%unit.div == 0 {
			s := strconv.FormatInt(ns/unit.div, 10) + unit.name
			if v, err := tcfmt.ParseTime64(s); err == nil && v == ns {
				return s
			}
		}
	}
	return strconv.FormatInt(ns, 10) + "ns"
}
