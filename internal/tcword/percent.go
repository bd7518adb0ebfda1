// SPDX-License-Identifier: Apache-2.0

package tcword

// Rates given as a share of the device's speed ("rate 10%"), as iproute2's
// get_percent_rate64 (tc/tc_util.c) computes them: the speed in Mbit/s from
// /sys/class/net/DEV/speed (lib/utils.c's read_prop), the percentage
// (parse_percent), and the product printed with "%lf" and read back by
// get_rate64, so that the rounding is tc's.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/gotc/gotc/tcfmt"
)

// SysClassNet is where the kernel shows each device's properties; unit
// tests point it at a directory of their own.
var SysClassNet = "/sys/class/net"

// rateBufSize is the size of tc's buffer for the computed rate: a "%lf"
// text that does not fit (with its NUL) is refused.
const rateBufSize = 20

// propBufSize is the size of read_prop's fgets buffer: it reads at most
// one byte less.
const propBufSize = 80

// PercentRate reads arg, which holds a '%', as tc's get_percent_rate64
// does: a share of dev's speed, in bytes/s. tc's messages go to
// w; the caller prints its own refusal after them.
func PercentRate(arg, dev string, w io.Writer) (uint64, bool) {
	s, ok := percentRateText(arg, dev, w)
	if !ok {
		return 0, false
	}
	r, err := tcfmt.ParseRate(s)
	return r, err == nil
}

// PercentRate32 is percentRate as tc's get_percent_rate (of fq's maxrate)
// and the older red, choke and gred read it: the computed rate must fit in
// 32 bits.
func PercentRate32(arg, dev string, w io.Writer) (uint32, bool) {
	s, ok := percentRateText(arg, dev, w)
	if !ok {
		return 0, false
	}
	r, err := tcfmt.ParseRate32(s)
	return r, err == nil
}

// percentRateText is tc's parse_percent_rate: the share of dev's speed
// that arg names, as the rate text ("%lf" bits) that tc then reads back.
func percentRateText(arg, dev string, w io.Writer) (string, bool) {
	if dev == "" {
		io.WriteString(w, "No device specified; specify device to rate limit by percentage\n")
		return "", false
	}
	mbit, ok := readSpeed(dev, w)
	if !ok {
		return "", false
	}
	perc, ok := parsePercentOfRate(arg, w)
	if !ok {
		return "", false
	}
	// tc multiplies in this order, in doubles.
	bits := perc * float64(mbit) * 1000 * 1000
	s := strconv.FormatFloat(bits, 'f', 6, 64)
	if len(s) >= rateBufSize {
		io.WriteString(w, "Unable to parse calculated rate\n")
		return "", false
	}
	return s, true
}

// parsePercentOfRate is the percentage part of get_percent_rate64: the
// leading run of digits, dots and '%' of arg (sscanf's "%[0-9.%]", so
// anything after it is ignored and "%" alone is 0%), read by parse_percent
// (strtod, then nothing or a single '%'), as a fraction within [0,1].
func parsePercentOfRate(arg string, w io.Writer) (float64, bool) {
	n := 0
	for n < len(arg) && (arg[n] >= '0' && arg[n] <= '9' || arg[n] == '.' || arg[n] == '%') {
		n++
	}
	if n == 0 {
		io.WriteString(w, "Specified rate value could not be read or is malformed\n")
		return 0, false
	}
	v, k, _ := tcfmt.Strtod(arg[:n])
	perc := v / 100
	// parse_percent checks the range before what follows the number.
	if perc > 1 || perc < 0 {
		fmt.Fprintf(w, "Invalid rate specified; should be between [0,100]%% but is %s\n", arg)
		return 0, false
	}
	if rest := arg[k:n]; rest != "" && rest != "%" {
		io.WriteString(w, "Specified rate value could not be read or is malformed\n")
		return 0, false
	}
	return perc, true
}

// readSpeed is read_prop(dev, "speed"): the first line of the device's
// speed file as a C long (strtol, base 0), with tc's messages when the file
// cannot be opened, reads nothing (a device whose speed is unknown fails
// the read) or holds something else. For a line that is not a number tc
// 7.3 closes the file twice and glibc aborts it after its first message;
// gotc prints what tc means to (the kernel's speed files always hold a
// number, so only a file mounted over one shows the difference).
func readSpeed(dev string, w io.Writer) (int64, bool) {
	name := SysClassNet + "/" + dev + "/speed"
	f, err := os.Open(name)
	if err != nil {
		fmt.Fprintf(w, "fopen %s: %s\n", name, Strerror(err))
		return 0, false
	}
	defer f.Close()
	line, ok := firstLine(bufio.NewReader(f))
	if !ok {
		fmt.Fprintf(w, "property \"speed\" in file %s is currently unknown\n", name)
		fmt.Fprintf(w, "Failed to parse %s\n", name)
		return 0, false
	}
	v, n, erange := tcfmt.Strtol(line, 0)
	if n == 0 || n != len(line) {
		fmt.Fprintf(w, "value \"%s\" in file %s is not a number\n", line, name)
		fmt.Fprintf(w, "Failed to parse %s\n", name)
		return 0, false
	}
	if erange {
		// tc's message has no newline.
		fmt.Fprintf(w, "strtol %s: %s", name, Strerror(syscall.ERANGE))
		fmt.Fprintf(w, "Failed to parse %s\n", name)
		return 0, false
	}
	return v, true
}

// firstLine is what fgets leaves in read_prop's buffer, as C reads it: at
// most propBufSize-1 bytes up to and without the first newline, cut at a
// NUL. A read error, or nothing to read, is false, as fgets's NULL is.
func firstLine(r io.Reader) (string, bool) {
	var buf []byte
	b := make([]byte, 1)
	for len(buf) < propBufSize-1 {
		n, err := r.Read(b)
		if n == 1 {
			buf = append(buf, b[0])
			if b[0] == '\n' {
				break
			}
			continue
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", false
		}
	}
	if len(buf) == 0 {
		return "", false
	}
	s := string(buf)
	s, _, _ = strings.Cut(s, "\x00")
	s, _, _ = strings.Cut(s, "\n")
	return s, true
}

// Strerror is glibc's text for err's errno: Go's is the same but for the
// capital, for the errors opening a file can give.
func Strerror(err error) string {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err.Error()
	}
	s := errno.Error()
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		s = string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

// ParsePercent is tc's parse_percent: a number read by strtod, divided by
// 100, that must lie in [0,1], followed by nothing or a single "%". Like
// tc it takes an empty string or a lone "%" as 0, and NaN passes the range
// check.
func ParsePercent(s string) (float64, bool) {
	v, n, _ := tcfmt.Strtod(s)
	per := v / 100
	if per > 1 || per < 0 {
		return 0, false
	}
	if rest := s[n:]; rest != "" && rest != "%" {
		return 0, false
	}
	return per, true
}

// ParseRate64 is how htb and tbf read a rate: tc's get_rate64, or, when
// arg holds a '%', get_percent_rate64's share of dev's speed.
func ParseRate64(arg, dev string, w io.Writer) (uint64, bool) {
	if strings.Contains(arg, "%") {
		return PercentRate(arg, dev, w)
	}
	v, err := tcfmt.ParseRate(arg)
	return v, err == nil
}
