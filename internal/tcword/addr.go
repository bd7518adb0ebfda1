// SPDX-License-Identifier: Apache-2.0

package tcword

import (
	"errors"
	"fmt"
	"math/bits"
	"net/netip"
	"strings"

	"github.com/gotc/gotc/tcfmt"
)

// HexBytes is hex2mem of len(s)/2 bytes.
func HexBytes(s string) ([]byte, bool) {
	b := make([]byte, len(s)/2)
	for i := range b {
		hi, ok1 := hexDigit(s[2*i])
		lo, ok2 := hexDigit(s[2*i+1])
		if !ok1 || !ok2 {
			return nil, false
		}
		b[i] = hi<<4 | lo
	}
	return b, true
}

// ParseMAC is ll_addr_a2n for six bytes: hex parts between colons, each as
// sscanf's %x reads it (what follows its digits is ignored). A shorter
// address leaves the remaining bytes zero. tc 7.3's message names the
// whole address.
func ParseMAC(s string) ([]byte, string, bool) {
	addr := make([]byte, 6)
	parts := strings.SplitN(s, ":", 6)
	for i, part := range parts {
		v, n, _ := tcfmt.Strtoul(part, 16)
		neg := strings.HasPrefix(strings.TrimLeft(part, " \t\n\v\f\r"), "-")
		if n == 0 || neg || v > 255 {
			return nil, fmt.Sprintf("%q is invalid lladdr.", s), false
		}
		addr[i] = byte(v)
	}
	return addr, "", true
}

// FormatMAC writes a hardware address as tc prints one (ll_addr_n2a):
// two lowercase hex digits a byte, separated by colons.
func FormatMAC(b []byte) string {
	s := make([]string, len(b))
	for i, c := range b {
		s[i] = fmt.Sprintf("%02x", c)
	}
	return strings.Join(s, ":")
}

// ParsePrefix reads an address with an optional /LEN as tc's get_prefix_1
// does for one family: a v4 address has up to four parts in any base, its
// length may be a dotted mask; "default", "any" and "all" are /0.
func ParsePrefix(s string, v6 bool) (netip.Addr, int, error) {
	if s == "default" || s == "any" || s == "all" {
		if v6 {
			return netip.IPv6Unspecified(), 0, nil
		}
		return netip.IPv4Unspecified(), 0, nil
	}
	addr, length, slash := strings.Cut(s, "/")
	a, err := ParseAddr(addr, v6)
	if err != nil {
		return a, 0, err
	}
	if !slash {
		return a, a.BitLen(), nil
	}
	if n, err := tcfmt.ParseUint(length, 0, 32); err == nil && int(n) <= a.BitLen() {
		return a, int(n), nil
	}
	if !v6 {
		// A dotted netmask, contiguous ones from the top.
		if m, err := ParseAddr(length, false); err == nil {
			word := Be32(m.As4())
			if n := bits.LeadingZeros32(^word); word == PrefixMask(n) {
				return a, n, nil
			}
		}
	}
	return a, 0, ErrIllegal
}

// ParseAddr reads one address of a family as tc's get_addr_1 does.
func ParseAddr(s string, v6 bool) (netip.Addr, error) {
	if v6 {
		a, err := netip.ParseAddr(s)
		if err != nil || !a.Is6() || !strings.Contains(s, ":") {
			return netip.Addr{}, ErrIllegal
		}
		return a, nil
	}
	var b [4]byte
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, ErrIllegal
	}
	for i, part := range parts {
		v, err := tcfmt.ParseUint(part, 0, 8)
		if err != nil {
			return netip.Addr{}, ErrIllegal
		}
		b[i] = byte(v)
	}
	return netip.AddrFrom4(b), nil
}

// Be32 is the big-endian word of four bytes.
func Be32(b [4]byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// PrefixMask is the mask of the top n of 32 bits.
func PrefixMask(n int) uint32 {
	if n <= 0 {
		return 0
	}
	return ^uint32(0) << (32 - n)
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// ErrIllegal is a parse failure whose message the caller chooses (tc's
// "return -1" from a selector's reader).
var ErrIllegal = errors.New("illegal")
