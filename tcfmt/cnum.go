// SPDX-License-Identifier: Apache-2.0

package tcfmt

import (
	"math"
	"strconv"
)

// This file reimplements, in Go, the parts of the C library that tc's
// argument parsers lean on: glibc's strtod, strtoul and strtol, and the way
// gcc on x86-64 turns a double into an unsigned integer. tc's accept/reject
// decisions are made by these functions, so copying their rules (leading
// blanks, signs, base prefixes, hex floats, "inf"/"nan", overflow) is what
// makes gotc accept and refuse exactly the same strings.

// isCSpace reports whether c is a blank for isspace(3) in the C locale.
func isCSpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r')
}

// lower folds an ASCII letter to lower case.
func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hasPrefixFold reports whether s starts with the lower-case ASCII word p,
// ignoring case.
func hasPrefixFold(s, p string) bool {
	if len(s) < len(p) {
		return false
	}
	for i := 0; i < len(p); i++ {
		if lower(s[i]) != p[i] {
			return false
		}
	}
	return true
}

// equalFold compares two ASCII strings ignoring case, like strcasecmp(3)
// returning 0.
func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if lower(a[i]) != lower(b[i]) {
			return false
		}
	}
	return true
}

func digitVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return 99
}

// Strtod parses the longest prefix of s that glibc's strtod(3) accepts in
// the C locale and returns its value, the number of bytes consumed (0 when
// nothing was converted, as when strtod sets *endptr to the string) and
// whether strtod would set errno to ERANGE (overflow to ±HUGE_VAL, or
// underflow to a tiny or zero value).
//
// Accepted, as in glibc: leading isspace blanks, an optional sign, decimal
// digits with an optional '.' and exponent, hexadecimal floats ("0x1.8p3",
// the binary exponent optional), "inf", "infinity" and "nan" or
// "nan(chars)", all case-insensitive.
func Strtod(s string) (v float64, n int, erange bool) {
	return strtodBits(s, 64)
}

// strtodBits is Strtod for bits 64, and strtof(3) for bits 32 (the value is
// then a float32 widened to float64).
func strtodBits(s string, bits int) (v float64, n int, erange bool) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	numStart := i
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	rest := s[i:]
	// Special values.
	if hasPrefixFold(rest, "inf") {
		end := i + 3
		if hasPrefixFold(rest, "infinity") {
			end = i + 8
		}
		v = math.Inf(1)
		if neg {
			v = math.Inf(-1)
		}
		return v, end, false
	}
	if hasPrefixFold(rest, "nan") {
		end := i + 3
		if end < len(s) && s[end] == '(' {
			j := end + 1
			for j < len(s) && (digitVal(s[j]) < 36 || s[j] == '_') {
				j++
			}
			if j < len(s) && s[j] == ')' {
				end = j + 1
			}
		}
		v = math.NaN()
		if neg {
			v = math.Copysign(v, -1)
		}
		return v, end, false
	}
	// Hexadecimal float.
	if len(rest) >= 2 && rest[0] == '0' && lower(rest[1]) == 'x' {
		j := i + 2
		digits := 0
		for j < len(s) && digitVal(s[j]) < 16 {
			j++
			digits++
		}
		if j < len(s) && s[j] == '.' {
			j++
			for j < len(s) && digitVal(s[j]) < 16 {
				j++
				digits++
			}
		}
		if digits == 0 {
			// Only the "0" converts; *endptr points at the 'x'.
			v = 0
			if neg {
				v = math.Copysign(0, -1)
			}
			return v, i + 1, false
		}
		mant := s[i:j]
		exp := "p0"
		if j < len(s) && lower(s[j]) == 'p' {
			k := j + 1
			if k < len(s) && (s[k] == '+' || s[k] == '-') {
				k++
			}
			if k < len(s) && s[k] >= '0' && s[k] <= '9' {
				for k < len(s) && s[k] >= '0' && s[k] <= '9' {
					k++
				}
				exp = s[j:k]
				j = k
			}
		}
		return finishFloat(mant+exp, neg, j, bits)
	}
	// Decimal float.
	j := i
	digits := 0
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
		digits++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
			digits++
		}
	}
	if digits == 0 {
		return 0, 0, false
	}
	if j < len(s) && lower(s[j]) == 'e' {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && s[k] >= '0' && s[k] <= '9' {
			for k < len(s) && s[k] >= '0' && s[k] <= '9' {
				k++
			}
			j = k
		}
	}
	_ = numStart
	return finishFloat(s[i:j], neg, j, bits)
}

// finishFloat converts an unsigned, syntactically valid number that Go's
// strconv understands and applies the sign.
func finishFloat(num string, neg bool, end int, bits int) (float64, int, bool) {
	f, err := strconv.ParseFloat(num, bits)
	erange := false
	if err != nil {
		// Only ErrRange is possible here: overflow gives ±Inf.
		erange = true
	}
	if !erange && f != 0 && math.Abs(f) < smallestNormal(bits) {
		// glibc reports underflow into the subnormal range too.
		erange = true
	}
	if !erange && f == 0 && !allZeroDigits(num) {
		erange = true
	}
	if neg {
		f = -f
	}
	return f, end, erange
}

func smallestNormal(bits int) float64 {
	if bits == 32 {
		return 0x1p-126
	}
	return 0x1p-1022
}

// allZeroDigits reports whether the mantissa of num has no non-zero digit.
func allZeroDigits(num string) bool {
	i := 0
	if len(num) >= 2 && num[0] == '0' && lower(num[1]) == 'x' {
		i = 2
		for ; i < len(num) && lower(num[i]) != 'p'; i++ {
			if num[i] != '0' && num[i] != '.' {
				return false
			}
		}
		return true
	}
	for ; i < len(num) && lower(num[i]) != 'e'; i++ {
		if num[i] != '0' && num[i] != '.' {
			return false
		}
	}
	return true
}

// scanInt is the common engine of Strtoul and Strtol: it skips blanks,
// reads a sign and the base prefix and accumulates the magnitude, saturating
// at 2^64-1. It returns the magnitude, whether it overflowed 64 bits, the
// sign and the bytes consumed (0 when no digit was read).
func scanInt(s string, base int) (mag uint64, over bool, neg bool, n int) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if base != 0 && (base < 2 || base > 36) {
		return 0, false, false, 0
	}
	// Base prefixes. A prefix with no valid digit after it converts only
	// the leading "0".
	if i+1 < len(s) && s[i] == '0' {
		p := lower(s[i+1])
		switch {
		case p == 'x' && (base == 0 || base == 16):
			if i+2 < len(s) && digitVal(s[i+2]) < 16 {
				i += 2
				base = 16
			} else {
				return 0, false, neg, i + 1
			}
		case p == 'b' && (base == 0 || base == 2):
			// C23 binary prefix: glibc 2.38+ selects the C23 strtol
			// family whenever _GNU_SOURCE is defined, and iproute2 is
			// built with -D_GNU_SOURCE.
			if i+2 < len(s) && digitVal(s[i+2]) < 2 {
				i += 2
				base = 2
			} else {
				return 0, false, neg, i + 1
			}
		}
	}
	if base == 0 {
		base = 10
		if i < len(s) && s[i] == '0' {
			base = 8
		}
	}
	start := i
	b := uint64(base)
	for i < len(s) {
		d := digitVal(s[i])
		if d >= base {
			break
		}
		if !over {
			hi, lo := mul64(mag, b)
			sum := lo + uint64(d)
			if hi != 0 || sum < lo {
				over = true
				mag = math.MaxUint64
			} else {
				mag = sum
			}
		}
		i++
	}
	if i == start {
		return 0, false, false, 0
	}
	return mag, over, neg, i
}

func mul64(a, b uint64) (hi, lo uint64) {
	const mask32 = 1<<32 - 1
	a0, a1 := a&mask32, a>>32
	b0, b1 := b&mask32, b>>32
	w0 := a0 * b0
	t := a1*b0 + w0>>32
	w1 := t&mask32 + a0*b1
	hi = a1*b1 + t>>32 + w1>>32
	lo = a * b
	return
}

// Strtoul parses like glibc's strtoul(3) on a 64-bit system (with the C23
// "0b" prefix, as iproute2 is built with _GNU_SOURCE): it returns the value,
// the bytes consumed (0 when nothing converted) and whether errno would be
// ERANGE. As in C, a leading '-' negates the result modulo 2^64, so "-1"
// yields 18446744073709551615 without an error.
func Strtoul(s string, base int) (v uint64, n int, erange bool) {
	mag, over, neg, n := scanInt(s, base)
	if over {
		return math.MaxUint64, n, true
	}
	if neg {
		mag = -mag
	}
	return mag, n, false
}

// Strtol parses like glibc's strtol(3) on a 64-bit system: the value
// saturates at math.MaxInt64 or math.MinInt64 with erange set.
func Strtol(s string, base int) (v int64, n int, erange bool) {
	mag, over, neg, n := scanInt(s, base)
	if neg {
		if over || mag > 1<<63 {
			return math.MinInt64, n, true
		}
		return int64(-mag), n, false
	}
	if over || mag > math.MaxInt64 {
		return math.MaxInt64, n, true
	}
	return int64(mag), n, false
}

// cvtU64 converts a double to uint64 the way gcc -O2 code does on x86-64
// (a comparison with 2^63 and cvttsd2si): exact for 0 <= f < 2^64; 0 for
// f >= 2^64 and +Inf; 2^63 for NaN. C leaves these cases undefined; tc
// relies on them only for absurd input.
func cvtU64(f float64) uint64 {
	if f >= 0x1p63 { // false for NaN
		return cvttsd2si(f-0x1p63) ^ (1 << 63)
	}
	return cvttsd2si(f)
}

// cvttsd2si is the x86-64 truncating double to int64 conversion, which
// yields 0x8000000000000000 for NaN and out-of-range values.
func cvttsd2si(f float64) uint64 {
	if f != f || f >= 0x1p63 || f < -0x1p63 {
		return 1 << 63
	}
	return uint64(int64(f))
}

// cvtU32 converts a double to uint32 like gcc on x86-64: a 64-bit signed
// truncating conversion whose low 32 bits are kept.
func cvtU32(f float64) uint32 {
	return uint32(cvttsd2si(f))
}

// CUint64 converts a double to an unsigned 64-bit integer as tc's C code
// does on x86-64 (an implicit conversion or a cast): truncation toward zero,
// with the results of cvtU64 outside the range.
func CUint64(f float64) uint64 { return cvtU64(f) }

// CUint32 converts a double to an unsigned 32-bit integer as tc's C code
// does on x86-64: the low 32 bits of a 64-bit signed truncation.
func CUint32(f float64) uint32 { return cvtU32(f) }
