// SPDX-License-Identifier: Apache-2.0

package tcfmt

import (
	"errors"
	"math"
	"testing"
)

// Facts in these tables come from iproute2 (the newest tree, 7.x):
// lib/utils_math.c (get_rate, get_rate64, get_size64, get_size),
// lib/utils.c (get_time, get_time64, get_u*/get_s*, get_float_min_max),
// tc/tc_util.c (get_qdisc_handle, get_tc_classid), and glibc's strtod and
// strtoul (C23 flavour, as iproute2 builds with -D_GNU_SOURCE).

// errIs reports whether err matches want (nil meaning success).
func errIs(err, want error) bool {
	if want == nil {
		return err == nil
	}
	return errors.Is(err, want)
}

func TestParseRate(t *testing.T) {
	// get_rate64: strtod, then a case-insensitive unit from the table,
	// divided by 8 into bytes/s and truncated.
	tests := []struct {
		in   string
		want uint64
		err  error
	}{
		{"8", 1, nil},                  // bare number: bits per second
		{"1", 0, nil},                  // 1 bit/s is 0.125 bytes/s, truncated
		{"100", 12, nil},               // 12.5 truncated
		{"0", 0, nil},                  //
		{"1kbit", 125, nil},            // decimal units
		{"1Kbit", 125, nil},            // strcasecmp
		{"1KBIT", 125, nil},            //
		{"97500kbit", 12187500, nil},   //
		{"1.5Mbit", 187500, nil},       // strtod reads fractions
		{"10Mbit", 1250000, nil},       //
		{"1mbit", 125000, nil},         //
		{"1gbit", 125000000, nil},      //
		{"10Gbit", 1250000000, nil},    //
		{"1tbit", 125000000000, nil},   //
		{"1Kibit", 128, nil},           // IEC units, powers of 1024
		{"1kibit", 128, nil},           //
		{"1mibit", 131072, nil},        //
		{"1gibit", 134217728, nil},     //
		{"1tibit", 137438953472, nil},  //
		{"1bit", 0, nil},               //
		{"16bit", 2, nil},              //
		{"1bps", 1, nil},               // "Bps" matched case-insensitively: bytes!
		{"1Bps", 1, nil},               //
		{"1kbps", 1000, nil},           // kilobytes per second, not kbit
		{"1KiBps", 1024, nil},          //
		{"1mbps", 1000000, nil},        //
		{"1MiBps", 1048576, nil},       //
		{"1gbps", 1000000000, nil},     //
		{"1GiBps", 1073741824, nil},    //
		{"1tbps", 1000000000000, nil},  //
		{"1TiBps", 1099511627776, nil}, //
		{"  8", 1, nil},                // strtod skips leading blanks
		{"+8", 1, nil},                 // and takes a sign
		{"-0", 0, nil},                 // -0.0 is not < 0
		{"1e3", 125, nil},              // exponents
		{"1e3kbit", 125000, nil},       //
		{"0x10", 2, nil},               // hex float: 16 bits
		{"0x10kbit", 2000, nil},        //
		{".8kbit", 100, nil},           //
		{"1e20", 12500000000000000000, nil},
		{"2e20", 0, nil},                    // >= 2^64 bytes/s: x86-64 conversion gives 0
		{"18446744073709551615bps", 0, nil}, // rounds to 2^64 as a double
		{"inf", 0, nil},                     // strtod accepts "inf" without ERANGE
		{"infinitybit", 0, nil},             //
		{"nan", 1 << 63, nil},               // NaN converts to 2^63 on x86-64
		{"8 ", 0, ErrSuffix},                // trailing blank is an unknown unit
		{"1k", 0, ErrSuffix},                // "k" alone is not a rate unit
		{"1kb", 0, ErrSuffix},               //
		{"1e", 0, ErrSuffix},                // strtod stops before the "e"
		{"1 kbit", 0, ErrSuffix},            //
		{"1kbits", 0, ErrSuffix},            //
		{"", 0, ErrEmpty},                   //
		{"kbit", 0, ErrEmpty},               //
		{".", 0, ErrEmpty},                  //
		{"-8", 0, ErrNegative},              //
		{"-1kbit", 0, ErrNegative},          //
		{"-inf", 0, ErrNegative},            //
		{"1e400", 0, ErrRange},              // HUGE_VAL with ERANGE
		{"1e400kbit", 0, ErrRange},          //
		{"1e-400", 0, nil},                  // underflow is not refused
	}
	for _, tt := range tests {
		got, err := ParseRate(tt.in)
		if !errIs(err, tt.err) || (err == nil && got != tt.want) {
			t.Errorf("ParseRate(%q) = %d, %v; want %d, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestParseRate32(t *testing.T) {
	// get_rate: like get_rate64 but refuses results that do not fit 32 bits.
	tests := []struct {
		in   string
		want uint32
		err  error
	}{
		{"8", 1, nil},
		{"1.5", 0, nil},
		{"97500kbit", 12187500, nil},
		{"34359738360", 4294967295, nil},
		{"34359738368", 0, ErrRange},
		{"1tbps", 0, ErrRange},
		{"inf", 0, ErrRange},
		{"-1", 0, ErrNegative},
		{"x", 0, ErrEmpty},
	}
	for _, tt := range tests {
		got, err := ParseRate32(tt.in)
		if !errIs(err, tt.err) || (err == nil && got != tt.want) {
			t.Errorf("ParseRate32(%q) = %d, %v; want %d, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestParseTime(t *testing.T) {
	// get_time: microseconds; s/sec/secs, ms/msec/msecs, us/usec/usecs.
	tests := []struct {
		in   string
		want uint32
		err  error
	}{
		{"100", 100, nil}, // bare number: microseconds
		{"100us", 100, nil},
		{"100usec", 100, nil},
		{"100usecs", 100, nil},
		{"100US", 100, nil},
		{"1ms", 1000, nil},
		{"1msec", 1000, nil},
		{"1msecs", 1000, nil},
		{"1MS", 1000, nil},
		{"1.5ms", 1500, nil},
		{"5ms", 5000, nil},
		{"100ms", 100000, nil},
		{"1s", 1000000, nil},
		{"1sec", 1000000, nil},
		{"1secs", 1000000, nil},
		{"1S", 1000000, nil},
		{"0.5", 0, nil}, // fractions of a microsecond truncated
		{"1.9", 1, nil}, //
		{"0x10ms", 16000, nil},
		{"4294s", 4294000000, nil},
		{"4295s", 32704, nil},     // no range check: wraps modulo 2^32
		{"5000s", 705032704, nil}, //
		{"1e13s", 0, nil},         // >= 2^63 µs: the 64-bit conversion gives 0
		{"inf", 0, nil},           //
		{"nan", 0, nil},           //
		{" 1ms", 1000, nil},       //
		{"1m", 0, ErrSuffix},      // no minutes
		{"1min", 0, ErrSuffix},    //
		{"10ns", 0, ErrSuffix},    // get_time has no ns (get_time64 does)
		{"100 ms", 0, ErrSuffix},  //
		{"1ms ", 0, ErrSuffix},    //
		{"", 0, ErrEmpty},         //
		{"ms", 0, ErrEmpty},       //
		{"-1ms", 0, ErrNegative},  //
		{"1e400", 0, ErrRange},    //
	}
	for _, tt := range tests {
		got, err := ParseTime(tt.in)
		if !errIs(err, tt.err) || (err == nil && got != tt.want) {
			t.Errorf("ParseTime(%q) = %d, %v; want %d, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestParseTime64(t *testing.T) {
	// get_time64: nanoseconds; adds ns/nsec/nsecs.
	tests := []struct {
		in   string
		want int64
		err  error
	}{
		{"1", 1, nil},
		{"10ns", 10, nil},
		{"10nsec", 10, nil},
		{"10NSECS", 10, nil},
		{"1us", 1000, nil},
		{"1ms", 1000000, nil},
		{"1.5s", 1500000000, nil},
		{"1e10s", math.MinInt64, nil}, // out of int64 range
		{"1m", 0, ErrSuffix},
		{"-1", 0, ErrNegative},
		{"", 0, ErrEmpty},
	}
	for _, tt := range tests {
		got, err := ParseTime64(tt.in)
		if !errIs(err, tt.err) || (err == nil && got != tt.want) {
			t.Errorf("ParseTime64(%q) = %d, %v; want %d, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestParseSize(t *testing.T) {
	// get_size64/get_size: binary units; kbit/mbit/gbit are bits of
	// binary units (1024/8, ...).
	tests := []struct {
		in     string
		want   uint64
		err64  error
		err32  error
		notU32 bool
	}{
		{"1", 1, nil, nil, false}, // bare number: bytes
		{"1b", 1, nil, nil, false},
		{"1B", 1, nil, nil, false},
		{"1k", 1024, nil, nil, false},
		{"1kb", 1024, nil, nil, false},
		{"1KB", 1024, nil, nil, false},
		{"1K", 1024, nil, nil, false},
		{"1m", 1048576, nil, nil, false},
		{"1mb", 1048576, nil, nil, false},
		{"32MB", 33554432, nil, nil, false},
		{"1g", 1073741824, nil, nil, false},
		{"1gb", 1073741824, nil, nil, false},
		{"1kbit", 128, nil, nil, false},
		{"1mbit", 131072, nil, nil, false},
		{"1gbit", 134217728, nil, nil, false},
		{"1.5k", 1536, nil, nil, false},
		{"1.5", 1, nil, nil, false}, // floor check passes: truncated
		{"0x10", 16, nil, nil, false},
		{" 10", 10, nil, nil, false},
		{"4294967295", 4294967295, nil, nil, false},
		{"4294967296", 4294967296, nil, ErrRange, true}, // get_size's UINT_MAX check
		{"4g", 4294967296, nil, ErrRange, true},
		{"32gbit", 4294967296, nil, ErrRange, true},
		{"1e20", 0, ErrRange, ErrRange, false}, // does not fit 64 bits
		{"inf", 0, ErrRange, ErrRange, false},  // the floor check catches it
		{"nan", 0, ErrRange, ErrRange, false},  //
		{"1kib", 0, ErrSuffix, ErrSuffix, false},
		{"1t", 0, ErrSuffix, ErrSuffix, false},
		{"1bit", 0, ErrSuffix, ErrSuffix, false},
		{"1 k", 0, ErrSuffix, ErrSuffix, false},
		{"-1", 0, ErrNegative, ErrNegative, false},
		{"", 0, ErrEmpty, ErrEmpty, false},
		{"k", 0, ErrEmpty, ErrEmpty, false},
		{"1e400", 0, ErrRange, ErrRange, false},
	}
	for _, tt := range tests {
		got, err := ParseSize64(tt.in)
		if !errIs(err, tt.err64) || (err == nil && got != tt.want) {
			t.Errorf("ParseSize64(%q) = %d, %v; want %d, %v", tt.in, got, err, tt.want, tt.err64)
		}
		got32, err := ParseSize(tt.in)
		if !errIs(err, tt.err32) || (err == nil && uint64(got32) != tt.want) {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, %v", tt.in, got32, err, tt.want, tt.err32)
		}
	}
}

func TestParseUint(t *testing.T) {
	// get_u8/u16/u32/u64: strtoul with the given base, whole string.
	tests := []struct {
		in         string
		base, bits int
		want       uint64
		err        error
	}{
		{"10", 0, 32, 10, nil},
		{"0x10", 0, 32, 16, nil},  // base 0: hex (cake fwmark)
		{"0X1f", 0, 32, 31, nil},  //
		{"010", 0, 32, 8, nil},    // base 0: leading 0 is octal
		{"0b101", 0, 32, 5, nil},  // C23 binary prefix (glibc >= 2.38, _GNU_SOURCE)
		{"0B11", 2, 32, 3, nil},   //
		{"0", 0, 32, 0, nil},      //
		{"0x10", 16, 32, 16, nil}, // base 16 takes an optional 0x
		{"10", 16, 32, 16, nil},   //
		{"010", 10, 32, 10, nil},  // base 10: no octal
		{" 5", 10, 32, 5, nil},    // leading blanks
		{"+5", 10, 32, 5, nil},    // sign
		{"-0", 10, 32, 0, nil},    //
		{"4294967295", 10, 32, 4294967295, nil},
		{"0xffffffff", 0, 32, 4294967295, nil},
		{"255", 10, 8, 255, nil},
		{"0xFF", 0, 8, 255, nil},
		{"65535", 10, 16, 65535, nil},
		{"-1", 10, 64, math.MaxUint64, nil},                   // strtoull negates modulo 2^64
		{"-5", 10, 64, math.MaxUint64 - 4, nil},               //
		{"18446744073709551615", 10, 64, math.MaxUint64, nil}, // no ERANGE at exactly ULLONG_MAX
		{"-18446744073709551615", 10, 32, 1, nil},             // -(2^64-1) mod 2^64
		{"0b101", 10, 32, 0, ErrSuffix},                       // prefix only in base 0 or 2
		{"0x10", 10, 32, 0, ErrSuffix},                        //
		{"08", 0, 32, 0, ErrSuffix},                           // octal stops at 8
		{"0x", 0, 32, 0, ErrSuffix},                           // only the "0" converts
		{"0b", 0, 32, 0, ErrSuffix},                           //
		{"0b2", 0, 32, 0, ErrSuffix},                          //
		{"5 ", 10, 32, 0, ErrSuffix},                          //
		{"1.5", 10, 32, 0, ErrSuffix},                         //
		{"", 10, 32, 0, ErrEmpty},                             //
		{" ", 10, 32, 0, ErrEmpty},                            //
		{"x", 10, 32, 0, ErrEmpty},                            //
		{"-", 10, 32, 0, ErrEmpty},                            //
		{"4294967296", 10, 32, 0, ErrRange},                   //
		{"-1", 10, 32, 0, ErrRange},                           // 2^64-1 > UINT32_MAX
		{"256", 10, 8, 0, ErrRange},                           //
		{"65536", 10, 16, 0, ErrRange},                        //
		{"18446744073709551616", 10, 64, 0, ErrRange},         //
		{"-18446744073709551616", 10, 64, 0, ErrRange},        //
	}
	for _, tt := range tests {
		got, err := ParseUint(tt.in, tt.base, tt.bits)
		if !errIs(err, tt.err) || (err == nil && got != tt.want) {
			t.Errorf("ParseUint(%q, %d, %d) = %d, %v; want %d, %v", tt.in, tt.base, tt.bits, got, err, tt.want, tt.err)
		}
	}
}

func TestParseInt(t *testing.T) {
	// get_s32/get_s64: strtol, whole string, range of the width.
	tests := []struct {
		in         string
		base, bits int
		want       int64
		err        error
	}{
		{"-64", 10, 32, -64, nil},
		{"256", 10, 32, 256, nil},
		{"2147483647", 10, 32, 2147483647, nil},
		{"-2147483648", 10, 32, -2147483648, nil},
		{"0x10", 0, 32, 16, nil},
		{"-0x10", 0, 32, -16, nil},
		{"0b11", 0, 32, 3, nil},
		{"-9223372036854775808", 10, 64, math.MinInt64, nil},
		{"9223372036854775807", 10, 64, math.MaxInt64, nil},
		{"2147483648", 10, 32, 0, ErrRange},
		{"-2147483649", 10, 32, 0, ErrRange},
		{"9223372036854775808", 10, 64, 0, ErrRange},
		{"-9223372036854775809", 10, 64, 0, ErrRange},
		{"1.5", 10, 32, 0, ErrSuffix},
		{"", 10, 32, 0, ErrEmpty},
		{"+", 10, 32, 0, ErrEmpty},
	}
	for _, tt := range tests {
		got, err := ParseInt(tt.in, tt.base, tt.bits)
		if !errIs(err, tt.err) || (err == nil && got != tt.want) {
			t.Errorf("ParseInt(%q, %d, %d) = %d, %v; want %d, %v", tt.in, tt.base, tt.bits, got, err, tt.want, tt.err)
		}
	}
}

func TestStrtolEmpty(t *testing.T) {
	// cake's "overhead" and "mpu" call strtol directly and only check that
	// *endptr is at the end: an empty argument converts nothing, leaves
	// endptr at the (empty) end and is therefore taken as 0 by tc.
	v, n, erange := Strtol("", 10)
	if v != 0 || n != 0 || erange {
		t.Errorf(`Strtol("") = %d, %d, %v`, v, n, erange)
	}
	v, n, _ = Strtol(" -12x", 10)
	if v != -12 || n != 4 {
		t.Errorf(`Strtol(" -12x") = %d, %d`, v, n)
	}
	if v, _, e := Strtol("99999999999999999999", 10); v != math.MaxInt64 || !e {
		t.Errorf("overflow: %d %v", v, e)
	}
	if v, _, e := Strtol("-99999999999999999999", 10); v != math.MinInt64 || !e {
		t.Errorf("underflow: %d %v", v, e)
	}
}

func TestStrtod(t *testing.T) {
	// glibc strtod in the C locale.
	tests := []struct {
		in     string
		want   float64
		n      int
		erange bool
	}{
		{"1.5", 1.5, 3, false},
		{"1.", 1, 2, false},
		{".5", 0.5, 2, false},
		{"1e3x", 1000, 3, false},
		{"1e+x", 1, 1, false},
		{"1E-2", 0.01, 4, false},
		{" \t\n\v\f\r7", 7, 7, false},
		{"0x1p3", 8, 5, false},
		{"0x1.8", 1.5, 5, false},
		{"0xg", 0, 1, false},
		{"0x.8p1", 1, 6, false},
		{"INF", math.Inf(1), 3, false},
		{"Infinity", math.Inf(1), 8, false},
		{"infinit", math.Inf(1), 3, false},
		{"-inf", math.Inf(-1), 4, false},
		{"1e999", math.Inf(1), 5, true},
		{"1e-999", 0, 6, true},
		{"0e-999", 0, 6, false},
		{"", 0, 0, false},
		{"+", 0, 0, false},
		{"e5", 0, 0, false},
	}
	for _, tt := range tests {
		got, n, erange := Strtod(tt.in)
		if got != tt.want || n != tt.n || erange != tt.erange {
			t.Errorf("Strtod(%q) = %v, %d, %v; want %v, %d, %v", tt.in, got, n, erange, tt.want, tt.n, tt.erange)
		}
	}
	for _, in := range []string{"nan", "NaN(0x1f)", "-nan"} {
		got, n, _ := Strtod(in)
		if !math.IsNaN(got) || n != len(in) {
			t.Errorf("Strtod(%q) = %v, %d", in, got, n)
		}
	}
	if _, n, _ := Strtod("nan(x"); n != 3 {
		t.Errorf(`Strtod("nan(x") consumed %d`, n)
	}
}

func TestParseFloat32(t *testing.T) {
	// get_float_min_max: strtof, whole string, rejects < min and > max
	// only, so NaN passes.
	if v, err := ParseFloat32("0.15", 0, 100); err != nil || v != float32(0.15) {
		t.Errorf("0.15: %v %v", v, err)
	}
	if v, err := ParseFloat32("nan", 0, 100); err != nil || v == v {
		t.Errorf("nan: %v %v", v, err)
	}
	for in, want := range map[string]error{
		"1e40": ErrRange, "-1": ErrRange, "101": ErrRange, "1x": ErrSuffix, "": ErrEmpty, "x": ErrEmpty,
	} {
		if _, err := ParseFloat32(in, 0, 100); !errors.Is(err, want) {
			t.Errorf("ParseFloat32(%q): %v, want %v", in, err, want)
		}
	}
}

func TestParseClassID(t *testing.T) {
	// get_tc_classid.
	tests := []struct {
		in   string
		want uint32
		err  error
	}{
		{"root", 0xffffffff, nil},
		{"none", 0, nil},
		{"1:", 0x10000, nil},
		{"1:1", 0x10001, nil},
		{":1", 1, nil},
		{":", 0, nil},
		{"ffff:fff1", 0xfffffff1, nil},
		{"8001:a", 0x8001000a, nil},
		{"0x10:0x1", 0x100001, nil},
		{"1", 1, nil},       // a bare number is the whole id
		{"abc", 0xabc, nil}, //
		{"10000:", 0, ErrRange},
		{"1:10000", 0, ErrRange},
		{"1:x", 0, ErrSuffix},
		{"1x", 0, ErrSuffix},
		{"", 0, ErrEmpty},
		{"g", 0, ErrEmpty},
	}
	for _, tt := range tests {
		got, err := ParseClassID(tt.in)
		if !errIs(err, tt.err) || (err == nil && got != tt.want) {
			t.Errorf("ParseClassID(%q) = %#x, %v; want %#x, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestParseQdiscHandle(t *testing.T) {
	// get_qdisc_handle: the minor after ':' is ignored.
	tests := []struct {
		in   string
		want uint32
		err  error
	}{
		{"1:", 0x10000, nil},
		{"1", 0x10000, nil},
		{"ffff:", 0xffff0000, nil},
		{"1:5", 0x10000, nil},
		{"none", 0, nil},
		{"10000:", 0, ErrRange},
		{"x", 0, ErrRange},
		{"1x", 0, ErrSuffix},
	}
	for _, tt := range tests {
		got, err := ParseQdiscHandle(tt.in)
		if !errIs(err, tt.err) || (err == nil && got != tt.want) {
			t.Errorf("ParseQdiscHandle(%q) = %#x, %v; want %#x, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestNumErrorMessage(t *testing.T) {
	_, err := ParseRate("1k")
	var ne *NumError
	if !errors.As(err, &ne) || ne.Func != "get_rate64" || ne.Input != "1k" {
		t.Fatalf("got %#v", err)
	}
	if got := err.Error(); got != `tcfmt: get_rate64 "1k": unknown unit or trailing characters` {
		t.Errorf("message %q", got)
	}
}
