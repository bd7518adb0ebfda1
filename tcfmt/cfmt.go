// SPDX-License-Identifier: Apache-2.0

package tcfmt

import (
	"math"
	"strconv"
)

// A small printf(3) engine, so that the format strings of tc's text output
// ("Sent %llu bytes", "rtt %s ", "alpha %f ", "%#x") can be used as they are
// and behave as glibc's printf does for one argument: flags "-+ #0", a
// width, a precision, the length modifiers hh, h, l, ll, j, z, t, q and L
// (h and hh and the absence of l truncate as C's promotions would), and
// the conversions d i u o x X c s f F e E g G and %%.

// argKind tells which member of an arg is set.
type argKind uint8

const (
	argUint argKind = iota
	argInt
	argFloat
	argString
)

// arg is the one value a format is applied to.
type arg struct {
	kind argKind
	u    uint64
	i    int64
	f    float64
	s    string
}

func (a arg) asUint() uint64 {
	switch a.kind {
	case argInt:
		return uint64(a.i)
	case argFloat:
		return uint64(int64(a.f))
	}
	return a.u
}

func (a arg) asInt() int64 {
	switch a.kind {
	case argUint:
		return int64(a.u)
	case argFloat:
		return int64(a.f)
	}
	return a.i
}

func (a arg) asFloat() float64 {
	switch a.kind {
	case argUint:
		return float64(a.u)
	case argInt:
		return float64(a.i)
	}
	return a.f
}

// Sprintf formats one value with a C printf format and returns the result.
// v may be any integer type, a float, a bool (printed as 1/0) or a string.
// It is meant for tests and rare paths; the Printer uses the allocation-free
// appenders directly.
func Sprintf(format string, v any) string {
	var a arg
	switch x := v.(type) {
	case string:
		a = arg{kind: argString, s: x}
	case float64:
		a = arg{kind: argFloat, f: x}
	case float32:
		a = arg{kind: argFloat, f: float64(x)}
	case int:
		a = arg{kind: argInt, i: int64(x)}
	case int8:
		a = arg{kind: argInt, i: int64(x)}
	case int16:
		a = arg{kind: argInt, i: int64(x)}
	case int32:
		a = arg{kind: argInt, i: int64(x)}
	case int64:
		a = arg{kind: argInt, i: x}
	case uint:
		a = arg{kind: argUint, u: uint64(x)}
	case uint8:
		a = arg{kind: argUint, u: uint64(x)}
	case uint16:
		a = arg{kind: argUint, u: uint64(x)}
	case uint32:
		a = arg{kind: argUint, u: uint64(x)}
	case uint64:
		a = arg{kind: argUint, u: x}
	case bool:
		if x {
			a = arg{kind: argUint, u: 1}
		} else {
			a = arg{kind: argUint}
		}
	}
	return string(appendCFormat(nil, format, a))
}

// appendCFormat appends format with every conversion applied to a.
func appendCFormat(dst []byte, format string, a arg) []byte {
	for i := 0; i < len(format); {
		c := format[i]
		if c != '%' {
			j := i + 1
			for j < len(format) && format[j] != '%' {
				j++
			}
			dst = append(dst, format[i:j]...)
			i = j
			continue
		}
		i++
		if i >= len(format) {
			break
		}
		var sp spec
		sp.prec = -1
	flags:
		for ; i < len(format); i++ {
			switch format[i] {
			case '-':
				sp.minus = true
			case '+':
				sp.plus = true
			case ' ':
				sp.space = true
			case '#':
				sp.sharp = true
			case '0':
				sp.zero = true
			case '\'':
			default:
				break flags
			}
		}
		for ; i < len(format) && format[i] >= '0' && format[i] <= '9'; i++ {
			sp.width = sp.width*10 + int(format[i]-'0')
		}
		if i < len(format) && format[i] == '.' {
			i++
			sp.prec = 0
			for ; i < len(format) && format[i] >= '0' && format[i] <= '9'; i++ {
				sp.prec = sp.prec*10 + int(format[i]-'0')
			}
		}
		sp.bits = 32
	length:
		for ; i < len(format); i++ {
			switch format[i] {
			case 'h':
				if sp.bits == 16 {
					sp.bits = 8
				} else {
					sp.bits = 16
				}
			case 'l', 'j', 'z', 't', 'q', 'L':
				sp.bits = 64
			default:
				break length
			}
		}
		if i >= len(format) {
			break
		}
		verb := format[i]
		i++
		if sp == (spec{prec: -1, bits: sp.bits}) {
			// No flag, width or precision: the conversions tc's
			// output is made of, without apply's padding.
			switch verb {
			case 'u':
				dst = strconv.AppendUint(dst, sp.trunc(a.asUint()), 10)
				continue
			case 'd', 'i':
				dst = strconv.AppendInt(dst, sp.truncSigned(a.asInt()), 10)
				continue
			case 'x':
				dst = strconv.AppendUint(dst, sp.trunc(a.asUint()), 16)
				continue
			case 's':
				if a.kind == argString {
					dst = append(dst, a.s...)
				}
				continue
			}
		}
		dst = sp.apply(dst, verb, a)
	}
	return dst
}

// spec is one parsed conversion specification.
type spec struct {
	minus, plus, space, sharp, zero bool
	width, prec                     int
	bits                            int
}

func (sp *spec) trunc(u uint64) uint64 {
	switch sp.bits {
	case 8:
		return u & 0xff
	case 16:
		return u & 0xffff
	case 32:
		return u & 0xffffffff
	}
	return u
}

func (sp *spec) truncSigned(v int64) int64 {
	switch sp.bits {
	case 8:
		return int64(int8(v))
	case 16:
		return int64(int16(v))
	case 32:
		return int64(int32(v))
	}
	return v
}

func (sp *spec) apply(dst []byte, verb byte, a arg) []byte {
	var tmp [72]byte
	var body []byte
	var prefix string
	numeric := true
	intConv := false
	switch verb {
	case '%':
		return append(dst, '%')
	case 'd', 'i':
		intConv = true
		v := sp.truncSigned(a.asInt())
		if v < 0 {
			prefix = "-"
			body = strconv.AppendUint(tmp[:0], uint64(-v), 10)
		} else {
			if sp.plus {
				prefix = "+"
			} else if sp.space {
				prefix = " "
			}
			body = strconv.AppendUint(tmp[:0], uint64(v), 10)
		}
	case 'u', 'x', 'X', 'o':
		intConv = true
		v := sp.trunc(a.asUint())
		base := 10
		switch verb {
		case 'x', 'X':
			base = 16
		case 'o':
			base = 8
		}
		body = strconv.AppendUint(tmp[:0], v, base)
		if verb == 'X' {
			for k := range body {
				if body[k] >= 'a' && body[k] <= 'f' {
					body[k] -= 'a' - 'A'
				}
			}
		}
		if sp.sharp && v != 0 {
			switch verb {
			case 'x':
				prefix = "0x"
			case 'X':
				prefix = "0X"
			case 'o':
				if body[0] != '0' {
					prefix = "0"
				}
			}
		}
	case 'c':
		numeric = false
		tmp[0] = byte(a.asUint())
		body = tmp[:1]
	case 's':
		numeric = false
		s := a.s
		if a.kind != argString {
			s = ""
		}
		if sp.prec >= 0 && sp.prec < len(s) {
			s = s[:sp.prec]
		}
		return pad(sp, dst, "", s, false)
	case 'f', 'F', 'e', 'E', 'g', 'G':
		f := a.asFloat()
		if math.Signbit(f) {
			prefix = "-"
			f = -f
		} else if sp.plus {
			prefix = "+"
		} else if sp.space {
			prefix = " "
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			s := "inf"
			switch {
			case math.IsNaN(f) && verb >= 'a':
				s = "nan"
			case math.IsNaN(f):
				s = "NAN"
			case verb < 'a':
				s = "INF"
			}
			return pad(sp, dst, prefix, s, false)
		}
		body = appendCFloat(tmp[:0], f, verb, sp.prec, sp.sharp)
	default:
		// Unknown conversion: glibc prints the spec as is; keep it short.
		return append(dst, '%', verb)
	}
	if intConv && sp.prec >= 0 {
		// An explicit precision sets the minimum digit count and turns
		// off the '0' flag; "%.0d" of zero prints no digits.
		sp.zero = false
		if sp.prec == 0 && len(body) == 1 && body[0] == '0' {
			body = body[:0]
		}
		if n := sp.prec - len(body); n > 0 {
			var z [72]byte
			zz := z[:0]
			for ; n > 0; n-- {
				zz = append(zz, '0')
			}
			zz = append(zz, body...)
			body = zz
		}
	}
	return pad(sp, dst, prefix, body, numeric)
}

// pad writes prefix and body honouring the width and the '-' and '0' flags.
func pad[T string | []byte](sp *spec, dst []byte, prefix string, body T, numeric bool) []byte {
	n := sp.width - len(prefix) - len(body)
	switch {
	case n <= 0:
		dst = append(dst, prefix...)
		dst = append(dst, body...)
	case sp.minus:
		dst = append(dst, prefix...)
		dst = append(dst, body...)
		for ; n > 0; n-- {
			dst = append(dst, ' ')
		}
	case sp.zero && numeric:
		dst = append(dst, prefix...)
		for ; n > 0; n-- {
			dst = append(dst, '0')
		}
		dst = append(dst, body...)
	default:
		for ; n > 0; n-- {
			dst = append(dst, ' ')
		}
		dst = append(dst, prefix...)
		dst = append(dst, body...)
	}
	return dst
}

// appendCFloat formats a finite, non-negative f as C's %f, %e, %g or %a
// with precision prec (-1: the default of 6). (%a is not supported.)
func appendCFloat(dst []byte, f float64, verb byte, prec int, sharp bool) []byte {
	upper := verb >= 'A' && verb <= 'Z'
	start := len(dst)
	switch lower(verb) {
	case 'f':
		if prec < 0 {
			prec = 6
		}
		dst = strconv.AppendFloat(dst, f, 'f', prec, 64)
		if sharp && prec == 0 {
			dst = append(dst, '.')
		}
	case 'e':
		if prec < 0 {
			prec = 6
		}
		dst = strconv.AppendFloat(dst, f, 'e', prec, 64)
	case 'g':
		if prec < 0 {
			prec = 6
		}
		if prec == 0 {
			prec = 1
		}
		// Go's 'g' with an explicit precision follows C's rule (the
		// exponent form when exp < -4 or exp >= prec) and, like C without
		// '#', drops trailing zeros; both print at least two exponent
		// digits.
		dst = strconv.AppendFloat(dst, f, 'g', prec, 64)
	}
	if upper {
		for k := start; k < len(dst); k++ {
			if dst[k] >= 'a' && dst[k] <= 'z' {
				dst[k] -= 'a' - 'A'
			}
		}
	}
	return dst
}

// appendG appends f as C's "%g" (what iproute2's JSON writer uses for
// floats, and its size and time formats use with precisions 6 and 3),
// including C's "inf", "-inf", "nan" and "-nan" spellings.
func appendG(dst []byte, f float64, prec int) []byte {
	if math.Signbit(f) {
		dst = append(dst, '-')
		f = -f
	}
	switch {
	case math.IsNaN(f):
		return append(dst, "nan"...)
	case math.IsInf(f, 0):
		return append(dst, "inf"...)
	}
	return appendCFloat(dst, f, 'g', prec, false)
}
