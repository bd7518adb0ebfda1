package qdisc

// cNumber is what C's strtoul and strtol read at the start of a string:
// blanks and a sign may lead; base 0 takes "0x" for hex and "0" for octal,
// base 16 skips a "0x". Some of tc's readers keep the number and ignore
// what follows, or look at the rest themselves.
type cNumber struct {
	// mag is the magnitude read, saturated at the largest uint64.
	mag uint64
	neg bool
	// rest is what follows the digits; the whole string when none was read.
	rest string
	// ok says a digit was read; overflow that mag saturated.
	ok, overflow bool
}

// readCNumber reads a number as strtoul(s, &end, base) does.
func readCNumber(s string, base int) cNumber {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r') {
		i++
	}
	n := cNumber{rest: s}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		n.neg = s[i] == '-'
		i++
	}
	hexPrefix := i+2 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') && digitValue(s[i+2]) < 16
	switch {
	case (base == 0 || base == 16) && hexPrefix:
		base, i = 16, i+2
	case base == 0 && i < len(s) && s[i] == '0':
		base = 8
	case base == 0:
		base = 10
	}
	start := i
	for ; i < len(s) && digitValue(s[i]) < base; i++ {
		d := uint64(digitValue(s[i]))
		if n.mag > (^uint64(0)-d)/uint64(base) {
			n.mag, n.overflow = ^uint64(0), true
		} else if !n.overflow {
			n.mag = n.mag*uint64(base) + d
		}
	}
	if i > start {
		n.ok, n.rest = true, s[i:]
	}
	return n
}

// digitValue is a byte's value as a digit of any base up to 36, 99 for a
// byte that is no digit.
func digitValue(c byte) int {
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

// strtoul is the value strtoul returns: a negative number wraps.
func (n cNumber) strtoul() uint64 {
	if n.neg && !n.overflow {
		return -n.mag
	}
	return n.mag
}

// strtol says strtol on a 64-bit long would return LONG_MIN or
// LONG_MAX, and strtol's value otherwise.
func (n cNumber) strtol() (v int64, saturated bool) {
	const maxLong = 1<<63 - 1
	switch {
	case !n.neg && n.mag >= maxLong:
		return maxLong, true
	case n.neg && n.mag >= 1<<63:
		return -maxLong - 1, true
	case n.neg:
		return -int64(n.mag), false
	}
	return int64(n.mag), false
}
