// SPDX-License-Identifier: Apache-2.0

package tcfmt

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// allDigits reports whether s is a non-empty run of ASCII digits.
func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"8", "1.5Mbit", "97500kbit", "1KiBps", "0x10", "inf", "nan", "-1", "1e400", " 1e3kbit", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseRate(s)
		v32, err32 := ParseRate32(s)
		if err32 == nil && (err != nil || v != uint64(v32)) {
			t.Fatalf("%q: get_rate %d ok but get_rate64 %d, %v", s, v32, v, err)
		}
		// Plain integers in bits: the exact answer is n/8.
		if len(s) <= 15 && allDigits(s) {
			n, _ := strconv.ParseUint(s, 10, 64)
			if err != nil || v != n/8 {
				t.Fatalf("%q: %d, %v; want %d", s, v, err, n/8)
			}
		}
		if err == nil && strings.HasSuffix(strings.ToLower(s), "kbit") && len(s) <= 15 && allDigits(s[:len(s)-4]) {
			n, _ := strconv.ParseUint(s[:len(s)-4], 10, 64)
			if v != n*1000/8 {
				t.Fatalf("%q: %d; want %d", s, v, n*1000/8)
			}
		}
	})
}

func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"100", "1.5ms", "1s", "5000s", "10usecs", "1m", "-1", "inf", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseTime(s)
		if len(s) <= 9 && allDigits(s) {
			n, _ := strconv.ParseUint(s, 10, 32)
			if err != nil || uint64(v) != n {
				t.Fatalf("%q: %d, %v", s, v, err)
			}
		}
		if err == nil && len(s) <= 5 && strings.HasSuffix(s, "ms") && allDigits(s[:len(s)-2]) {
			n, _ := strconv.ParseUint(s[:len(s)-2], 10, 32)
			if uint64(v) != n*1000 {
				t.Fatalf("%q: %d", s, v)
			}
		}
		ParseTime64(s)
	})
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"1", "1.5k", "32mb", "4g", "1kbit", "1e20", "nan", "-1", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v64, err64 := ParseSize64(s)
		v, err := ParseSize(s)
		if err == nil && (err64 != nil || uint64(v) != v64) {
			t.Fatalf("%q: get_size %d but get_size64 %d, %v", s, v, v64, err64)
		}
		if err64 == nil && err != nil && v64 <= 0xffffffff {
			t.Fatalf("%q: get_size refused %d", s, v64)
		}
		if len(s) <= 15 && allDigits(s) {
			n, _ := strconv.ParseUint(s, 10, 64)
			if err64 != nil || v64 != n {
				t.Fatalf("%q: %d, %v", s, v64, err64)
			}
		}
	})
}

func FuzzParseUint(f *testing.F) {
	for _, s := range []string{"10", "0x10", "010", "0b101", "-1", "18446744073709551616", " +5", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, bits := range []int{8, 16, 32, 64} {
			v, err := ParseUint(s, 10, bits)
			// For plain digit strings tc agrees with strconv.
			if allDigits(s) {
				w, werr := strconv.ParseUint(s, 10, bits)
				if (err == nil) != (werr == nil) || (err == nil && v != w) {
					t.Fatalf("%q/%d: %d, %v; strconv %d, %v", s, bits, v, err, w, werr)
				}
			}
			v0, err0 := ParseUint(s, 0, bits)
			if err0 == nil && bits < 64 && v0>>bits != 0 {
				t.Fatalf("%q/%d: %d too wide", s, bits, v0)
			}
			i, ierr := ParseInt(s, 0, bits)
			if ierr == nil && bits < 64 && (i >= 1<<(bits-1) || i < -(1<<(bits-1))) {
				t.Fatalf("%q/%d: %d out of range", s, bits, i)
			}
		}
		ParseClassID(s)
		ParseQdiscHandle(s)
	})
}

func FuzzStrtod(f *testing.F) {
	for _, s := range []string{"1.5", "1e3", "0x1p3", ".5", "inf", "nan(1)", "1e-400", " -2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, n, _ := Strtod(s)
		if n < 0 || n > len(s) {
			t.Fatalf("%q: consumed %d", s, n)
		}
		// Plain decimal numbers wholly consumed agree with strconv.
		if n == len(s) && s != "" && strings.Trim(s, "0123456789.eE+-") == "" && !strings.Contains(s, "_") {
			w, err := strconv.ParseFloat(s, 64)
			if err == nil && v != w {
				t.Fatalf("%q: %v, strconv %v", s, v, w)
			}
		}
	})
}

func FuzzJSONString(f *testing.F) {
	for _, s := range []string{"a", "a\"b\\c", "\x00\x1f\x7f", "é", "\t\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := appendJSONString(nil, s)
		if !utf8.ValidString(s) {
			return
		}
		var back string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("%q -> %s: %v", s, out, err)
		}
		if back != s {
			t.Fatalf("%q -> %s -> %q", s, out, back)
		}
	})
}

func FuzzFormat(f *testing.F) {
	f.Add(uint64(12187500), uint32(100000))
	f.Fuzz(func(t *testing.T, rate uint64, us uint32) {
		r := FormatRate(rate, false)
		if !strings.HasSuffix(r, "bit") {
			t.Fatalf("rate %q", r)
		}
		// Round numbers come back: the printed value times its unit is the
		// bit rate (when no truncation can have happened).
		if rate < 1<<40 && (rate*8)%1000 == 0 {
			back, err := ParseRate(r)
			if err != nil || back != rate {
				t.Fatalf("rate %d -> %q -> %d, %v", rate, r, back, err)
			}
		}
		if s := FormatTime(us); s == "" {
			t.Fatal("empty time")
		}
		if s := FormatSize(rate); s == "" {
			t.Fatal("empty size")
		}
	})
}
