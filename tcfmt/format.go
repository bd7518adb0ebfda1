// SPDX-License-Identifier: Apache-2.0

package tcfmt

import (
	"math"
	"strconv"
)

var rateUnitNames = [...]string{"", "K", "M", "G", "T"}

// AppendRate appends a rate given in bytes per second as tc's text output
// shows it (print_color_rate in lib/json_print.c, reached through
// tc_print_rate): converted to bits per second (the shift by 3 wraps modulo
// 2^64 as in C), then divided by 1000 (1024 with iec) while it is at least
// 1000 and either divisible or at least 1000*1000 (integer division, so a
// large non-round value is truncated), up to "T". Examples: 125 -> "1Kbit",
// 12187500 -> "97500Kbit", 125000000 -> "1Gbit", 1 -> "8bit"; with iec 128
// -> "1Kibit" ("i" only once scaled).
func AppendRate(dst []byte, bytesPerSec uint64, iec bool) []byte {
	kilo := uint64(1000)
	if iec {
		kilo = 1024
	}
	rate := bytesPerSec << 3
	i := 0
	for ; i < len(rateUnitNames)-1; i++ {
		if rate < kilo {
			break
		}
		if rate%kilo != 0 && rate < 1000*kilo {
			break
		}
		rate /= kilo
	}
	// tc prints the integer through "%.0f" of a double; after at most
	// four divisions the value is below 2^53 unless it was never divided,
	// in which case it is below 1000*kilo: always exact.
	dst = strconv.AppendUint(dst, rate, 10)
	dst = append(dst, rateUnitNames[i]...)
	if iec && i > 0 {
		dst = append(dst, 'i')
	}
	return append(dst, "bit"...)
}

// FormatRate returns AppendRate's text as a string.
func FormatRate(bytesPerSec uint64, iec bool) string {
	var b [32]byte
	return string(AppendRate(b[:0], bytesPerSec, iec))
}

// AppendTime appends a time in microseconds as tc's sprint_time
// (lib/utils.c) does: "%.3gs" of seconds from 1 s up, "%.3gms" of
// milliseconds from 1 ms up, else "%uus". %.3g keeps three significant
// digits and switches to exponent form at 1000, so 999999 µs prints
// "1e+03ms" and 1000 s prints "1e+03s"; 1234567 µs prints "1.23s".
func AppendTime(dst []byte, us uint32) []byte {
	t := float64(us)
	switch {
	case t >= 1000000:
		dst = appendCFloat(dst, t/1000000, 'g', 3, false)
		return append(dst, 's')
	case t >= 1000:
		dst = appendCFloat(dst, t/1000, 'g', 3, false)
		return append(dst, "ms"...)
	}
	dst = strconv.AppendUint(dst, uint64(us), 10)
	return append(dst, "us"...)
}

// FormatTime returns AppendTime's text as a string.
func FormatTime(us uint32) string {
	var b [32]byte
	return string(AppendTime(b[:0], us))
}

// AppendTime64 appends a time in nanoseconds as tc's sprint_time64
// (lib/utils.c) does: "%.3gs", "%.3gms", "%.3gus" by magnitude, else
// "%lldns" (negative values therefore print in ns).
func AppendTime64(dst []byte, ns int64) []byte {
	t := float64(ns)
	switch {
	case ns >= 1000000000:
		dst = appendCFloat(dst, t/1e9, 'g', 3, false)
		return append(dst, 's')
	case ns >= 1000000:
		dst = appendCFloat(dst, t/1e6, 'g', 3, false)
		return append(dst, "ms"...)
	case ns >= 1000:
		dst = appendCFloat(dst, t/1e3, 'g', 3, false)
		return append(dst, "us"...)
	}
	dst = strconv.AppendInt(dst, ns, 10)
	return append(dst, "ns"...)
}

// FormatTime64 returns AppendTime64's text as a string.
func FormatTime64(ns int64) string {
	var b [32]byte
	return string(AppendTime64(b[:0], ns))
}

// AppendSize appends a byte count as tc's sprint_size
// (lib/json_print_math.c) does. Units are binary and a unit is used when
// the count is within a tolerance of a whole multiple of it, rounded to
// nearest-even: "Gb" within 1024 bytes of n GiB, "Mb" within 1024 bytes of
// n MiB, "Kb" within 16 bytes of n KiB, else the exact "%llub". The number
// is printed with "%g", so 1000000 GiB or more shows an exponent
// ("1e+06Gb"). Examples: 1024 -> "1Kb", 1030 -> "1Kb", 1536 -> "1536b",
// 15140 -> "15140b", 4194304 -> "4Mb", 4195000 -> "4Mb".
func AppendSize(dst []byte, sz uint64) []byte {
	const (
		kilo = 1024.0
		mega = kilo * kilo
		giga = mega * kilo
	)
	t := float64(sz)
	switch {
	case sz >= 1<<30 && math.Abs(giga*math.RoundToEven(t/giga)-t) < 1024:
		dst = appendG(dst, math.RoundToEven(t/giga), 6)
		return append(dst, "Gb"...)
	case sz >= 1<<20 && math.Abs(mega*math.RoundToEven(t/mega)-t) < 1024:
		dst = appendG(dst, math.RoundToEven(t/mega), 6)
		return append(dst, "Mb"...)
	case sz >= 1<<10 && math.Abs(kilo*math.RoundToEven(t/kilo)-t) < 16:
		dst = appendG(dst, math.RoundToEven(t/kilo), 6)
		return append(dst, "Kb"...)
	}
	dst = strconv.AppendUint(dst, sz, 10)
	return append(dst, 'b')
}

// FormatSize returns AppendSize's text as a string.
func FormatSize(sz uint64) string {
	var b [32]byte
	return string(AppendSize(b[:0], sz))
}

// Special tc handles (include/uapi/linux/pkt_sched.h).
const (
	HandleRoot    uint32 = 0xFFFFFFFF // TC_H_ROOT
	handleUnspec  uint32 = 0          // TC_H_UNSPEC
	handleIngress uint32 = 0xFFFFFFF1 // TC_H_INGRESS (also clsact's parent)
)

// AppendClassID appends a handle or class id as tc's print_tc_classid
// (tc/tc_util.c, without -nm names) does: "root" for TC_H_ROOT, "none" for
// 0, ":%x" when the major is 0, "%x:" when the minor is 0, else "%x:%x".
// An ingress or clsact qdisc's parent TC_H_INGRESS prints "ffff:fff1".
func AppendClassID(dst []byte, h uint32) []byte {
	switch {
	case h == HandleRoot:
		return append(dst, "root"...)
	case h == handleUnspec:
		return append(dst, "none"...)
	case h>>16 == 0:
		dst = append(dst, ':')
		return strconv.AppendUint(dst, uint64(h&0xffff), 16)
	case h&0xffff == 0:
		dst = strconv.AppendUint(dst, uint64(h>>16), 16)
		return append(dst, ':')
	}
	dst = strconv.AppendUint(dst, uint64(h>>16), 16)
	dst = append(dst, ':')
	return strconv.AppendUint(dst, uint64(h&0xffff), 16)
}

// FormatClassID returns AppendClassID's text as a string.
func FormatClassID(h uint32) string {
	var b [16]byte
	return string(AppendClassID(b[:0], h))
}

// AppendQdiscHandle appends a qdisc's own handle as print_qdisc
// (tc/tc_qdisc.c) shows it: "%x:" of the major only, so 0 prints "0:"
// (noqueue, mq children), 0x80010000 prints "8001:" and the ingress qdisc
// "ffff:".
func AppendQdiscHandle(dst []byte, h uint32) []byte {
	dst = strconv.AppendUint(dst, uint64(h>>16), 16)
	return append(dst, ':')
}

// FormatQdiscHandle returns AppendQdiscHandle's text as a string.
func FormatQdiscHandle(h uint32) string {
	var b [16]byte
	return string(AppendQdiscHandle(b[:0], h))
}

// ParseQdiscHandle parses a qdisc handle as tc's get_qdisc_handle
// (tc/tc_util.c) does: "none" is 0; otherwise a hex major read by strtoul
// base 16 (so "0x10", leading blanks and "+" pass), below 0x10000, followed
// by ":" (anything after the colon is ignored) or by nothing.
func ParseQdiscHandle(s string) (uint32, error) {
	if s == "none" {
		return 0, nil
	}
	maj, n, _ := Strtoul(s, 16)
	if n == 0 || maj >= 1<<16 {
		return 0, numErr("get_qdisc_handle", s, ErrRange)
	}
	if n < len(s) && s[n] != ':' {
		return 0, numErr("get_qdisc_handle", s, ErrSuffix)
	}
	return uint32(maj) << 16, nil
}

// ParseClassID parses a class id or parent as tc's get_tc_classid
// (tc/tc_util.c) does: "root" is TC_H_ROOT, "none" is 0, "M:N" and "M:"
// and ":N" are hex (strtoul base 16, each below 0x10000), and a bare hex
// number is taken as the whole 32-bit id.
func ParseClassID(s string) (uint32, error) {
	switch s {
	case "root":
		return HandleRoot, nil
	case "none":
		return handleUnspec, nil
	}
	maj, n, _ := Strtoul(s, 16)
	if n == 0 {
		maj = 0
		if s == "" || s[0] != ':' {
			return 0, numErr("get_tc_classid", s, ErrEmpty)
		}
	}
	rest := s[n:]
	if rest == "" {
		// A bare number: strtoul's unsigned long, stored in 32 bits.
		return uint32(maj), nil
	}
	if rest[0] != ':' {
		return 0, numErr("get_tc_classid", s, ErrSuffix)
	}
	if maj >= 1<<16 {
		return 0, numErr("get_tc_classid", s, ErrRange)
	}
	minStr := rest[1:]
	min, m, _ := Strtoul(minStr, 16)
	if m != len(minStr) {
		return 0, numErr("get_tc_classid", s, ErrSuffix)
	}
	if min >= 1<<16 {
		return 0, numErr("get_tc_classid", s, ErrRange)
	}
	return uint32(maj<<16 | min), nil
}
