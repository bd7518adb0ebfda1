// SPDX-License-Identifier: Apache-2.0

package tcfmt

import (
	"math"
	"testing"
)

func TestFormatRate(t *testing.T) {
	// print_color_rate (lib/json_print.c): bits, /1000 while >= 1000 and
	// (divisible or >= 1000*1000), integer division, up to T.
	tests := []struct {
		in   uint64
		iec  bool
		want string
	}{
		{0, false, "0bit"},
		{1, false, "8bit"},
		{124, false, "992bit"},
		{125, false, "1Kbit"},
		{126, false, "1008bit"},
		{12187500, false, "97500Kbit"},
		{1250000, false, "10Mbit"},
		{125000000, false, "1Gbit"},
		{125000000000, false, "1Tbit"},
		{125000000000000, false, "1000Tbit"}, // no unit past T
		{123456789, false, "987654Kbit"},     // 987654312 bits, truncated once
		{1234567, false, "9876Kbit"},         // 9876536 bits: truncated, not rounded
		{1 << 60, false, "9223372Tbit"},      //
		{1 << 61, false, "0bit"},             // bytes<<3 wraps modulo 2^64
		{1<<61 + 1, false, "8bit"},           //
		{128, true, "1Kibit"},                // -iec: 1024 and an "i"
		{125, true, "1000bit"},               //
		{131072, true, "1Mibit"},             //
		{12187500, true, "95214Kibit"},       //
		{1, true, "8bit"},                    // no "i" without a prefix
		{math.MaxUint64 >> 3, false, "18446744Tbit"},
	}
	for _, tt := range tests {
		if got := FormatRate(tt.in, tt.iec); got != tt.want {
			t.Errorf("FormatRate(%d, %v) = %q; want %q", tt.in, tt.iec, got, tt.want)
		}
	}
}

func TestFormatTime(t *testing.T) {
	// sprint_time (lib/utils.c): %.3gs, %.3gms, %uus.
	tests := []struct {
		in   uint32
		want string
	}{
		{0, "0us"},
		{999, "999us"},
		{1000, "1ms"},
		{1005, "1ms"}, // 1.005 is just below 1.005 in binary: rounds down
		{1006, "1.01ms"},
		{1500, "1.5ms"},
		{5000, "5ms"},
		{15000, "15ms"},
		{100000, "100ms"},
		{123456, "123ms"},
		{999499, "999ms"},
		{999999, "1e+03ms"}, // %.3g turns 999.999 into 1e+03
		{1000000, "1s"},
		{1234567, "1.23s"},
		{1235000, "1.24s"}, // 1.235 is above 1.235 in binary
		{300000000, "300s"},
		{1000000000, "1e+03s"},
		{4294967295, "4.29e+03s"},
	}
	for _, tt := range tests {
		if got := FormatTime(tt.in); got != tt.want {
			t.Errorf("FormatTime(%d) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestFormatTime64(t *testing.T) {
	// sprint_time64 (lib/utils.c): %.3gs, %.3gms, %.3gus, %lldns.
	tests := []struct {
		in   int64
		want string
	}{
		{0, "0ns"},
		{999, "999ns"},
		{1000, "1us"},
		{1500, "1.5us"},
		{1000000, "1ms"},
		{2500000000, "2.5s"},
		{-5, "-5ns"},
		{-5000000, "-5000000ns"},
	}
	for _, tt := range tests {
		if got := FormatTime64(tt.in); got != tt.want {
			t.Errorf("FormatTime64(%d) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestFormatSize(t *testing.T) {
	// sprint_size (lib/json_print_math.c): Gb/Mb within 1024 bytes, Kb
	// within 16 bytes of a rint() multiple, "%g" of the count, else "%llub".
	tests := []struct {
		in   uint64
		want string
	}{
		{0, "0b"},
		{1, "1b"},
		{1023, "1023b"},
		{1024, "1Kb"},
		{1039, "1Kb"},   // 15 bytes off
		{1040, "1040b"}, // 16 bytes off
		{1009, "1009b"}, // below 1 KiB: "sz >= kilo" comes first
		{2040, "2Kb"},   // 8 bytes under 2 KiB
		{2032, "2032b"}, // 16 under
		{1536, "1536b"}, //
		{2048, "2Kb"},
		{15140, "15140b"},
		{1048576, "1Mb"},
		{1048576 + 1023, "1Mb"},
		{1048576 + 1024, "1025Kb"},
		{4194304, "4Mb"},
		{4195000, "4Mb"},
		{33554432, "32Mb"},
		{1 << 30, "1Gb"},
		{1<<30 + 1023, "1Gb"},
		{1 << 32, "4Gb"},
		{1 << 40, "1024Gb"},
		{999999 << 30, "999999Gb"},
		{1000000 << 30, "1e+06Gb"}, // %g
		{1234567 << 30, "1.23457e+06Gb"},
		{math.MaxUint64, "1.71799e+10Gb"},
	}
	for _, tt := range tests {
		if got := FormatSize(tt.in); got != tt.want {
			t.Errorf("FormatSize(%d) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestFormatClassID(t *testing.T) {
	// print_tc_classid (tc/tc_util.c) and print_qdisc's "%x:" handle.
	tests := []struct {
		in           uint32
		class, qdisc string
	}{
		{0xffffffff, "root", "ffff:"},
		{0, "none", "0:"},
		{1, ":1", "0:"},
		{0x10000, "1:", "1:"},
		{0x10001, "1:1", "1:"},
		{0xfffffff1, "ffff:fff1", "ffff:"},
		{0xffff0000, "ffff:", "ffff:"},
		{0x8001000a, "8001:a", "8001:"},
	}
	for _, tt := range tests {
		if got := FormatClassID(tt.in); got != tt.class {
			t.Errorf("FormatClassID(%#x) = %q; want %q", tt.in, got, tt.class)
		}
		if got := FormatQdiscHandle(tt.in); got != tt.qdisc {
			t.Errorf("FormatQdiscHandle(%#x) = %q; want %q", tt.in, got, tt.qdisc)
		}
	}
}

func TestSprintf(t *testing.T) {
	// glibc printf behaviour for the conversions tc's formats use.
	tests := []struct {
		format string
		v      any
		want   string
	}{
		{"Sent %llu bytes", uint64(1 << 40), "Sent 1099511627776 bytes"},
		{"%u", uint64(1<<32 + 5), "5"}, // no length modifier: 32 bits
		{"%lu", uint64(1<<32 + 5), "4294967301"},
		{"%hu", uint64(65537), "1"},
		{"%hhu", uint64(257), "1"},
		{"%u", int32(-1), "4294967295"},
		{"%d", int32(-5), "-5"},
		{"%d", uint32(4294967295), "-1"},
		{"%5d|", -5, "   -5|"},
		{"%-5d|", -5, "-5   |"},
		{"%05d", -5, "-0005"},
		{"%+d", 5, "+5"},
		{"% d", 5, " 5"},
		{"%.3d", 5, "005"},
		{"%x", 255, "ff"},
		{"%X", 255, "FF"},
		{"%#x", 255, "0xff"},
		{"%#x", 0, "0"}, // '#' adds no prefix to zero
		{"%#llx", uint64(0), "0"},
		{"%#llx", uint64(0xdeadbeef12), "0xdeadbeef12"},
		{"%08x", 0x1234, "00001234"},
		{"%o", 8, "10"},
		{"%#o", 8, "010"},
		{"%c", 65, "A"},
		{"%s", "abc", "abc"},
		{"%5s|", "ab", "   ab|"},
		{"%-5s|", "ab", "ab   |"},
		{"%.2s", "abcd", "ab"},
		{"100%%", 0, "100%"},
		{"%f", 0.5, "0.500000"},
		{"alpha %f ", 0.15625, "alpha 0.156250 "},
		{"%.2f", 2.675, "2.67"}, // 2.675 is below 2.675 in binary
		{"%.0f", 2.5, "2"},      // ties to even on the exact value
		{"%.0f", 3.5, "4"},
		{"%5.1f", 3.14159, "  3.1"},
		{"%e", 12345.678, "1.234568e+04"},
		{"%g", 0.0001, "0.0001"},
		{"%g", 0.00001, "1e-05"},
		{"%g", 100000.0, "100000"},
		{"%g", 1000000.0, "1e+06"},
		{"%g", 1234567.0, "1.23457e+06"},
		{"%g", 0.0, "0"},
		{"%.3g", 999.5, "1e+03"},
		{"%.3g", 0.5, "0.5"},
		{"%.0g", 25.0, "2e+01"}, // precision 0 means 1; tie to even
		{"%f", math.Inf(1), "inf"},
		{"%f", math.Inf(-1), "-inf"},
		{"%f", math.NaN(), "nan"},
		{"%G", math.Inf(1), "INF"},
		{"%g", math.Copysign(0, -1), "-0"},
		{"%s%s", "a", "aa"}, // each conversion takes the one value
		{"no conversion ", 7, "no conversion "},
	}
	for _, tt := range tests {
		if got := Sprintf(tt.format, tt.v); got != tt.want {
			t.Errorf("Sprintf(%q, %v) = %q; want %q", tt.format, tt.v, got, tt.want)
		}
	}
}

func TestAppendG(t *testing.T) {
	// jsonw_float: "%g" with C's inf/nan words.
	tests := []struct {
		in   float64
		want string
	}{
		{0.1, "0.1"},
		{0.5, "0.5"},
		{100, "100"},
		{1e-7, "1e-07"},
		{3.14159265, "3.14159"},
		{1234567, "1.23457e+06"},
		{math.Inf(1), "inf"},
		{math.Inf(-1), "-inf"},
		{math.NaN(), "nan"},
		{math.Copysign(math.NaN(), -1), "-nan"},
		{math.Copysign(0, -1), "-0"},
	}
	for _, tt := range tests {
		if got := string(appendG(nil, tt.in, 6)); got != tt.want {
			t.Errorf("appendG(%v) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
