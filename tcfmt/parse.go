// SPDX-License-Identifier: Apache-2.0

package tcfmt

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// Reasons carried by a *NumError. tc itself reports every one of these
// cases the same way (its get_* helpers return -1 and the caller prints
// "Illegal ..."), so they only help gotc's own messages and tests.
var (
	// ErrEmpty: no number at the start of the string.
	ErrEmpty = errors.New("no number")
	// ErrNegative: a negative value where tc wants a non-negative one.
	ErrNegative = errors.New("negative value")
	// ErrRange: the value overflows its type (or strtod/strtoul overflowed).
	ErrRange = errors.New("value out of range")
	// ErrSuffix: an unknown unit or trailing characters after the number.
	ErrSuffix = errors.New("unknown unit or trailing characters")
)

// NumError records a failed parse: which tc helper's rules were applied,
// the input and why it was refused.
type NumError struct {
	Func  string // the iproute2 helper mirrored, e.g. "get_rate64"
	Input string
	Err   error // one of ErrEmpty, ErrNegative, ErrRange, ErrSuffix
}

// Error implements error.
func (e *NumError) Error() string {
	return "tcfmt: " + e.Func + " " + strconv.Quote(e.Input) + ": " + e.Err.Error()
}

// Unwrap returns the reason, for errors.Is.
func (e *NumError) Unwrap() error { return e.Err }

func numErr(fn, in string, err error) error {
	return &NumError{Func: fn, Input: in, Err: err}
}

// rateUnits is tc's table of rate units (bits per second per unit),
// compared case-insensitively with the whole suffix, first match wins.
var rateUnits = [...]struct {
	name  string
	scale float64
}{
	{"bit", 1},
	{"kibit", 1024},
	{"kbit", 1000},
	{"mibit", 1024 * 1024},
	{"mbit", 1000000},
	{"gibit", 1024 * 1024 * 1024},
	{"gbit", 1000000000},
	{"tibit", 1024 * 1024 * 1024 * 1024},
	{"tbit", 1000000000000},
	{"bps", 8},
	{"kibps", 8 * 1024},
	{"kbps", 8000},
	{"mibps", 8 * 1024 * 1024},
	{"mbps", 8000000},
	{"gibps", 8 * 1024 * 1024 * 1024},
	{"gbps", 8000000000},
	{"tibps", 8 * 1024 * 1024 * 1024 * 1024},
	{"tbps", 8000000000000},
}

// parseRateBits is the shared front half of get_rate and get_rate64: the
// value in bytes per second as a double.
func parseRateBits(fn, s string) (float64, error) {
	bps, n, erange := Strtod(s)
	if n == 0 {
		return 0, numErr(fn, s, ErrEmpty)
	}
	if bps < 0 {
		return 0, numErr(fn, s, ErrNegative)
	}
	if math.IsInf(bps, 1) && erange {
		return 0, numErr(fn, s, ErrRange)
	}
	if suf := s[n:]; suf != "" {
		found := false
		for _, u := range rateUnits {
			if equalFold(suf, u.name) {
				bps *= u.scale
				found = true
				break
			}
		}
		if !found {
			return 0, numErr(fn, s, ErrSuffix)
		}
	}
	return bps / 8, nil
}

// ParseRate parses a rate as tc's get_rate64 (lib/utils_math.c) does and
// returns bytes per second, the unit the kernel wants (cake's
// TCA_CAKE_BASE_RATE64).
//
// A bare number is in bits per second; the units are bit, kbit, mbit, gbit,
// tbit (powers of 1000), kibit, mibit, gibit, tibit (powers of 1024), and
// the byte forms bps, kbps, mbps, gbps, tbps, kibps, ... (times 8), all
// case-insensitive and only as the whole rest of the string. The number is
// read by strtod, so "1.5Mbit", "1e6", " 10mbit" (leading blank) and hex
// floats work, fractions of a byte are truncated, and negative values and
// overflow to HUGE_VAL are refused. A result of 2^64 bytes/s or more is not
// an error in tc: it is converted as x86-64 does, giving 0 (and "inf" gives
// 0 too).
func ParseRate(s string) (uint64, error) {
	b, err := parseRateBits("get_rate64", s)
	if err != nil {
		return 0, err
	}
	return cvtU64(b), nil
}

// ParseRate32 parses a rate as tc's get_rate does (the 32-bit variant used
// by older qdiscs): like ParseRate, but a value that does not fit in 32 bits
// is refused (tc compares the truncated result with floor of the double).
func ParseRate32(s string) (uint32, error) {
	b, err := parseRateBits("get_rate", s)
	if err != nil {
		return 0, err
	}
	r := cvtU32(b)
	if float64(r) != math.Floor(b) {
		return 0, numErr("get_rate", s, ErrRange)
	}
	return r, nil
}

// ParseTime parses a time as tc's get_time (lib/utils.c) does and returns
// microseconds, the unit of tc's 32-bit times (TIME_UNITS_PER_SEC is
// 1000000).
//
// A bare number is in microseconds; the units are s, sec, secs, ms, msec,
// msecs, us, usec, usecs (case-insensitive, whole suffix only). Input is read
// by strtod (so "1.5ms" is 1500 and fractions of a microsecond are
// truncated); negative values and strtod overflow are refused. tc does not
// check the 32-bit range: larger values wrap as x86-64 converts them (a
// 64-bit truncation keeping the low 32 bits), so "5000s" gives 705032704,
// and values of 2^63 µs or more, and "inf", give 0.
func ParseTime(s string) (uint32, error) {
	t, n, erange := Strtod(s)
	if n == 0 {
		return 0, numErr("get_time", s, ErrEmpty)
	}
	if t < 0 {
		return 0, numErr("get_time", s, ErrNegative)
	}
	if math.IsInf(t, 1) && erange {
		return 0, numErr("get_time", s, ErrRange)
	}
	switch suf := s[n:]; {
	case suf == "":
	case equalFold(suf, "s") || equalFold(suf, "sec") || equalFold(suf, "secs"):
		t *= 1000000
	case equalFold(suf, "ms") || equalFold(suf, "msec") || equalFold(suf, "msecs"):
		t *= 1000
	case equalFold(suf, "us") || equalFold(suf, "usec") || equalFold(suf, "usecs"):
		// microseconds already
	default:
		return 0, numErr("get_time", s, ErrSuffix)
	}
	return cvtU32(t), nil
}

// ParseTime64 parses a time as tc's get_time64 (lib/utils.c) does and
// returns nanoseconds: a bare number is in nanoseconds and "ns", "nsec",
// "nsecs" are accepted besides the units of ParseTime.
func ParseTime64(s string) (int64, error) {
	t, n, erange := Strtod(s)
	if n == 0 {
		return 0, numErr("get_time64", s, ErrEmpty)
	}
	if t < 0 {
		return 0, numErr("get_time64", s, ErrNegative)
	}
	if math.IsInf(t, 1) && erange {
		return 0, numErr("get_time64", s, ErrRange)
	}
	switch suf := s[n:]; {
	case suf == "":
	case equalFold(suf, "s") || equalFold(suf, "sec") || equalFold(suf, "secs"):
		t *= 1e9
	case equalFold(suf, "ms") || equalFold(suf, "msec") || equalFold(suf, "msecs"):
		t *= 1e6
	case equalFold(suf, "us") || equalFold(suf, "usec") || equalFold(suf, "usecs"):
		t *= 1e3
	case equalFold(suf, "ns") || equalFold(suf, "nsec") || equalFold(suf, "nsecs"):
	default:
		return 0, numErr("get_time64", s, ErrSuffix)
	}
	// A signed 64-bit conversion: out of range and NaN give MinInt64.
	return int64(cvttsd2si(t)), nil
}

// ParseSize64 parses a size as tc's get_size64 (lib/utils_math.c) does and
// returns bytes.
//
// A bare number is in bytes; the units, case-insensitive and only as the
// whole suffix, are b (bytes), k/kb (1024), m/mb (1024^2), g/gb (1024^3),
// and the bit forms kbit (128), mbit (131072) and gbit (134217728): sizes
// are binary even where rates are decimal. Input is read by strtod (so
// "1.5k" is 1536; fractions of a byte are truncated). Negative values,
// strtod overflow and values that do not fit in 64 bits are refused.
func ParseSize64(s string) (uint64, error) {
	sz, n, erange := Strtod(s)
	if n == 0 {
		return 0, numErr("get_size", s, ErrEmpty)
	}
	if sz < 0 {
		return 0, numErr("get_size", s, ErrNegative)
	}
	if math.IsInf(sz, 1) && erange {
		return 0, numErr("get_size", s, ErrRange)
	}
	if suf := s[n:]; suf != "" {
		switch {
		case equalFold(suf, "kb") || equalFold(suf, "k"):
			sz *= 1024
		case equalFold(suf, "gb") || equalFold(suf, "g"):
			sz *= 1024 * 1024 * 1024
		case equalFold(suf, "gbit"):
			sz *= 1024 * 1024 * 1024 / 8
		case equalFold(suf, "mb") || equalFold(suf, "m"):
			sz *= 1024 * 1024
		case equalFold(suf, "mbit"):
			sz *= 1024 * 1024 / 8
		case equalFold(suf, "kbit"):
			sz *= 1024 / 8
		case equalFold(suf, "b"):
		default:
			return 0, numErr("get_size", s, ErrSuffix)
		}
	}
	v := cvtU64(sz)
	if float64(v) != math.Floor(sz) {
		return 0, numErr("get_size", s, ErrRange)
	}
	return v, nil
}

// ParseSize parses a size as tc's get_size does: ParseSize64 limited to
// 32 bits (cake's memlimit, for instance).
func ParseSize(s string) (uint32, error) {
	v, err := ParseSize64(s)
	if err != nil {
		return 0, err
	}
	if v > math.MaxUint32 {
		return 0, numErr("get_size", s, ErrRange)
	}
	return uint32(v), nil
}

// ParseUint parses an unsigned integer of the given width (8, 16, 32 or 64)
// with the rules of tc's get_u8/get_u16/get_u32/get_u64 (lib/utils.c),
// which wrap strtoul/strtoull: base 0 accepts "0x" hex, a leading "0" for
// octal and (glibc 2.38+, C23) "0b" binary; base 16 accepts an optional
// "0x". Leading blanks and a sign are allowed, and as strtoul negates modulo
// 2^64, "-0" is 0 for every width and "-1" is 18446744073709551615 for 64
// bits (narrower widths refuse it as out of range). An empty string,
// trailing characters and overflow are refused.
//
// tc keywords and their bases: cake "fwmark" uses get_u32 base 0 (hex and
// octal allowed); dualpi2 "limit", "memlimit" and "min_qlen_step" use base
// 10. (cake's "overhead" and "mpu" use strtol directly; see Strtol.)
func ParseUint(s string, base, bits int) (uint64, error) {
	fn := "get_u" + strconv.Itoa(bits)
	if s == "" {
		return 0, numErr(fn, s, ErrEmpty)
	}
	v, n, erange := Strtoul(s, base)
	if n == 0 {
		return 0, numErr(fn, s, ErrEmpty)
	}
	if n != len(s) {
		return 0, numErr(fn, s, ErrSuffix)
	}
	if erange && v == math.MaxUint64 {
		return 0, numErr(fn, s, ErrRange)
	}
	if bits < 64 && v > 1<<uint(bits)-1 {
		return 0, numErr(fn, s, ErrRange)
	}
	return v, nil
}

// ParseInt parses a signed integer of the given width (32 or 64; other
// widths are range-checked the same way) with the rules of tc's get_s32
// and get_s64 (lib/utils.c), which wrap strtol/strtoll: the bases and
// prefixes of ParseUint, an optional sign, no trailing characters, and the
// value must fit the width. dualpi2's "coupling_factor" uses get_s32 base 0.
func ParseInt(s string, base, bits int) (int64, error) {
	fn := "get_s" + strconv.Itoa(bits)
	if s == "" {
		return 0, numErr(fn, s, ErrEmpty)
	}
	v, n, erange := Strtol(s, base)
	if n == 0 {
		return 0, numErr(fn, s, ErrEmpty)
	}
	if n != len(s) {
		return 0, numErr(fn, s, ErrSuffix)
	}
	if erange {
		return 0, numErr(fn, s, ErrRange)
	}
	if bits < 64 {
		lim := int64(1) << uint(bits-1)
		if v >= lim || v < -lim {
			return 0, numErr(fn, s, ErrRange)
		}
	}
	return v, nil
}

// ParseFloat32 parses a float as tc's get_float_min_max (lib/utils.c) does
// (dualpi2's alpha and beta): strtof, the whole string must be used, and
// the value must not be below min or above max. As tc compares with < and
// >, "nan" passes the check (and overflow, being ±Inf, does not). strtof's
// rounding to float32 is kept: the result is a float32.
func ParseFloat32(s string, min, max float32) (float32, error) {
	if s == "" {
		return 0, numErr("get_float", s, ErrEmpty)
	}
	v, n, _ := strtodBits(s, 32)
	if n == 0 {
		return 0, numErr("get_float", s, ErrEmpty)
	}
	if n != len(s) {
		return 0, numErr("get_float", s, ErrSuffix)
	}
	f := float32(v)
	if f < min || f > max {
		return 0, numErr("get_float", s, ErrRange)
	}
	return f, nil
}

// Matches is tc's keyword test (matches() in lib/utils.c): word is a
// non-empty prefix of keyword, so "q" means "qdisc" and "ls" does not mean
// "list".
func Matches(word, keyword string) bool {
	return word != "" && strings.HasPrefix(keyword, word)
}
