// SPDX-License-Identifier: Apache-2.0

package action

// The stateless nat action (net/sched/act_nat.c): rewrite the addresses
// of a prefix to one new address, the source on egress and the
// destination on ingress, as tc 7.3's m_nat.c reads and prints it.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"net/netip"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// natEgress is TCA_NAT_FLAG_EGRESS.
const natEgress = 1

const natUsage = `Usage: ... nat NAT
NAT := DIRECTION OLD NEW
DIRECTION := { ingress | egress }
OLD := PREFIX
NEW := ADDRESS`

func init() {
	tckind.LazilyActions(func() {
		tckind.MustRegisterAction(&tckind.Action{
			Name:       "nat",
			Usage:      natUsage,
			Parse:      parseNat,
			Print:      printNat,
			Keywords:   natKeywords,
			PrintStats: printNatStats,
		})
	}, "nat")
}

// parseNat is m_nat.c's parse_nat: "nat" DIRECTION OLD NEW (again for each
// "nat" that follows), then a verdict (pass by default) and an index; or
// "nat index N" to name an existing action.
func parseNat(args []string, env tckind.ActionEnv) (attrs.ActOptionsMsg, []string, error) {
	p := &attrs.TCNAT{}
	a := args
	ok, indexOnly := 0, false
loop:
	for len(a) > 0 {
		switch {
		case tcfmt.Matches(a[0], "nat"):
			if err := nextArg(&a); err != nil {
				return nil, args, err
			}
			if a[0] == "index" {
				indexOnly = true
				break loop
			}
			rest, err := parseNatArgs(a, p)
			if err == errNatArgs {
				return nil, args, tcword.Errorf("Illegal nat construct (%s)\n%s", a[0], natUsage)
			}
			if err != nil {
				return nil, args, err
			}
			a = rest
			ok++
		case tcfmt.Matches(a[0], "help"):
			return nil, args, &tcword.ParseError{Msg: natUsage, Code: 255}
		default:
			break loop
		}
	}
	if !indexOnly {
		if ok == 0 {
			return nil, args, tcword.Errorf("%s", natUsage)
		}
		code, rest, err := parseActionControlDefault(a, actOK, env.Stderr)
		if err != nil {
			return nil, args, err
		}
		p.Action, a = code, rest
	}
	index, found, rest, err := parseActionIndex(a, 10, `Nat: Illegal "index"`)
	if err != nil {
		return nil, args, err
	}
	if found {
		p.Index, a = index, rest
	}
	return &attrs.ActNATAttrs{Parms: p}, a, nil
}

// parseNatArgs is parse_nat_args: DIRECTION OLD[/LEN] NEW. It returns the
// words after NEW; for a bad word, errNatArgs (tc then names the
// direction).
func parseNatArgs(a []string, p *attrs.TCNAT) ([]string, error) {
	switch {
	case tcfmt.Matches(a[0], "egress"):
		p.Flags |= natEgress
	case !tcfmt.Matches(a[0], "ingress"):
		return a, errNatArgs
	}
	if len(a) < 2 {
		return a, tcword.IncompleteCommand()
	}
	old, n, err := tcword.ParsePrefix(a[1], false)
	if err != nil {
		return a, errNatArgs
	}
	p.OldAddr = tcword.Be32(old.As4())
	p.Mask = tcword.PrefixMask(n)
	if len(a) < 3 {
		return a, tcword.IncompleteCommand()
	}
	addr, _, err := tcword.ParsePrefix(a[2], false)
	if err != nil {
		return a, errNatArgs
	}
	p.NewAddr = tcword.Be32(addr.As4())
	return a[3:], nil
}

var errNatArgs = errors.New("bad nat arguments")

// printNat is m_nat.c's print_nat up to the times of -s: the old prefix's
// length is where its mask's lowest one is.
func printNat(p *tcfmt.Printer, opts attrs.ActOptionsMsg, _ tckind.Links) {
	p.String(tcfmt.Any, "type", " %s ", "nat")
	o, ok := opts.(*attrs.ActNATAttrs)
	if !ok || o.Parms == nil {
		return
	}
	parms := o.Parms
	length := 0
	if parms.Mask != 0 {
		length = 32 - bits.TrailingZeros32(parms.Mask)
	}
	dir := "ingress"
	if parms.Flags&natEgress != 0 {
		dir = "egress"
	}
	p.String(tcfmt.Any, "direction", "%s", dir)
	p.String(tcfmt.Any, "old_addr", " %s", fmt.Sprintf("%s/%d", natAddr(parms.OldAddr), length))
	p.String(tcfmt.Any, "new_addr", " %s", natAddr(parms.NewAddr).String())
	printActionControl(p, " ", parms.Action, "")
	p.NL()
	p.Uint(tcfmt.Any, "index", "\t index %u", uint64(parms.Index))
	p.Int(tcfmt.Any, "ref", " ref %d", int64(parms.Refcnt))
	p.Int(tcfmt.Any, "bind", " bind %d", int64(parms.Bindcnt))
}

// natAddr is an address of struct tc_nat.
func natAddr(v uint32) netip.Addr {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], v)
	return netip.AddrFrom4(b)
}

func printNatStats(p *tcfmt.Printer, opts attrs.ActOptionsMsg) {
	if o, ok := opts.(*attrs.ActNATAttrs); ok && o.Parms != nil && o.Tm != nil {
		printTm(p, o.Tm)
	}
}

// natKeywords is Action.Keywords for nat: DIRECTION OLD/LEN NEW and the
// verdict.
func natKeywords(opts attrs.ActOptionsMsg, _ tckind.Links) ([]string, error) {
	o, _ := opts.(*attrs.ActNATAttrs)
	if o == nil || o.Parms == nil {
		return nil, tckind.NoKeywords("nat without parameters")
	}
	p := o.Parms
	length := bits.LeadingZeros32(^p.Mask)
	// tc asks only for a prefix's mask, and for no flag but egress.
	if p.Mask != tcword.PrefixMask(length) || p.Flags&^natEgress != 0 {
		return nil, tckind.NoKeywords(fmt.Sprintf("nat mask %#x, flags %#x", p.Mask, p.Flags))
	}
	dir := "ingress"
	if p.Flags&natEgress != 0 {
		dir = "egress"
	}
	w := []string{dir, fmt.Sprintf("%s/%d", natAddr(p.OldAddr), length), natAddr(p.NewAddr).String()}
	return controlWords(w, p.Action, actOK)
}
