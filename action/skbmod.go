// SPDX-License-Identifier: Apache-2.0

package action

// The skbmod action (net/sched/act_skbmod.c): set a packet's destination
// or source MAC address or its ethertype, swap its addresses, or mark ECN
// congestion experienced, as tc 7.3's m_skbmod.c reads and prints it.

import (
	"fmt"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// SKBMOD_F_* (linux/tc_act/tc_skbmod.h).
const (
	skbmodDMAC    = 0x1
	skbmodSMAC    = 0x2
	skbmodEtype   = 0x4
	skbmodSwapMAC = 0x8
	skbmodECN     = 0x10
)

const skbmodUsage = `Usage:... skbmod { set <SETTABLE> | swap <SWAPPABLE> | ecn } [CONTROL] [index INDEX]
where SETTABLE is: [dmac DMAC] [smac SMAC] [etype ETYPE]
where SWAPPABLE is: "mac" to swap mac addresses
	DMAC := 6 byte Destination MAC address
	SMAC := optional 6 byte Source MAC address
	ETYPE := optional 16 bit ethertype
	CONTROL := reclassify | pipe | drop | continue | ok |
	           goto chain <CHAIN_INDEX>
	INDEX := skbmod index value to use`

func init() {
	tckind.LazilyActions(func() {
		tckind.MustRegisterAction(&tckind.Action{
			Name:       "skbmod",
			Usage:      skbmodUsage,
			Parse:      parseSkbmod,
			Print:      printSkbmod,
			Keywords:   skbmodKeywords,
			PrintStats: printSkbmodStats,
		})
	}, "skbmod")
}

// parseSkbmod is m_skbmod.c's parse_skbmod. "set" and "swap" are only
// words before what they set or swap; a verdict (pipe by default) and an
// index may follow. tc reports each address and ethertype it reads on
// stderr.
func parseSkbmod(args []string, env tckind.ActionEnv) (attrs.ActOptionsMsg, []string, error) {
	p := &attrs.TCSkbmod{}
	o := &attrs.ActSkbmodAttrs{Parms: p}
	var etype uint16
	ok := 0
	say := func(format string, a ...any) {
		if env.Stderr != nil {
			fmt.Fprintf(env.Stderr, format, a...)
		}
	}
	a := args
loop:
	for len(a) > 0 {
		w := a[0]
		switch {
		case tcfmt.Matches(w, "skbmod"), tcfmt.Matches(w, "swap"), tcfmt.Matches(w, "set"):
			if err := nextArg(&a); err != nil {
				return nil, args, err
			}
			continue
		case tcfmt.Matches(w, "mac"):
			p.Flags |= skbmodSwapMAC
		case tcfmt.Matches(w, "etype"):
			if err := nextArg(&a); err != nil {
				return nil, args, err
			}
			v, err := tcfmt.ParseUint(a[0], 0, 16)
			if err != nil {
				return nil, args, &tcword.ParseError{Msg: fmt.Sprintf("Error: argument %q is wrong: ethertype is invalid", a[0]), Code: 255}
			}
			etype = uint16(v)
			say("skbmod etype 0x%x\n", etype)
			p.Flags |= skbmodEtype
		case tcfmt.Matches(w, "dmac"), tcfmt.Matches(w, "smac"):
			dst := tcfmt.Matches(w, "dmac")
			if err := nextArg(&a); err != nil {
				return nil, args, err
			}
			mac, good := scanMAC(a[0])
			switch {
			case !good && dst:
				return nil, args, tcword.Errorf("Invalid dst mac address %s", a[0])
			case !good:
				return nil, args, tcword.Errorf("Invalid smac address %s", a[0])
			case dst:
				o.Dmac = mac
				p.Flags |= skbmodDMAC
				say("dst MAC address <%s>\n", a[0])
			default:
				o.Smac = mac
				p.Flags |= skbmodSMAC
				say("src MAC address <%s>\n", a[0])
			}
		case tcfmt.Matches(w, "ecn"):
			p.Flags |= skbmodECN
		case tcfmt.Matches(w, "help"):
			return nil, args, &tcword.ParseError{Msg: skbmodUsage, Code: 255}
		default:
			break loop
		}
		ok++
		a = a[1:]
	}
	code, rest, err := parseActionControlDefault(a, actPipe, env.Stderr)
	if err != nil {
		return nil, args, err
	}
	p.Action, a = code, rest
	index, found, rest, err := parseActionIndex(a, 0, `skbmod: Illegal "index"`)
	if err != nil {
		return nil, args, err
	}
	if found {
		p.Index, a = index, rest
		ok++
	}
	if ok == 0 {
		return nil, args, &tcword.ParseError{Msg: "skbmod requires at least one option\n" + skbmodUsage, Code: 255}
	}
	// tc sends no ethertype of 0, though it sets the flag for it.
	if etype != 0 {
		o.Etype = &etype
	}
	return o, a, nil
}

// printSkbmod is m_skbmod.c's print_skbmod up to the times of -s. It
// prints no "kind" in JSON.
func printSkbmod(p *tcfmt.Printer, opts attrs.ActOptionsMsg, _ tckind.Links) {
	o, ok := opts.(*attrs.ActSkbmodAttrs)
	if !ok || o.Parms == nil {
		return
	}
	parms := o.Parms
	p.Text("skbmod ")
	printActionControl(p, "", parms.Action, " ")
	if o.Etype != nil {
		p.Hex0x(tcfmt.Any, "etype", "set etype 0x%X ", uint64(*o.Etype))
		p.NL()
		p.Text("\t ")
	}
	if o.Dmac != nil {
		p.String(tcfmt.Any, "dmac", "set dmac %s ", tcword.FormatMAC(o.Dmac))
	}
	if o.Smac != nil {
		p.String(tcfmt.Any, "smac", "set smac %s ", tcword.FormatMAC(o.Smac))
	}
	if parms.Flags&skbmodSwapMAC != 0 {
		p.Null(tcfmt.Any, "swapmac", "swap mac ", "")
	}
	if parms.Flags&skbmodECN != 0 {
		p.Null(tcfmt.Any, "ecn", "ecn ", "")
	}
	p.NL()
	p.Uint(tcfmt.Any, "index", "\t index %u ", uint64(parms.Index))
	p.Int(tcfmt.Any, "ref", "ref %d ", int64(parms.Refcnt))
	p.Int(tcfmt.Any, "bind", "bind %d", int64(parms.Bindcnt))
}

func printSkbmodStats(p *tcfmt.Printer, opts attrs.ActOptionsMsg) {
	if o, ok := opts.(*attrs.ActSkbmodAttrs); ok && o.Parms != nil && o.Tm != nil {
		printTm(p, o.Tm)
	}
}

// skbmodKeywords is Action.Keywords for skbmod. The kernel keeps one of
// swapping the addresses, marking ECN, or setting what the attributes
// name.
func skbmodKeywords(opts attrs.ActOptionsMsg, _ tckind.Links) ([]string, error) {
	o, _ := opts.(*attrs.ActSkbmodAttrs)
	if o == nil || o.Parms == nil {
		return nil, tckind.NoKeywords("skbmod without parameters")
	}
	var w []string
	for _, mac := range []struct {
		name string
		b    []byte
	}{{"dmac", o.Dmac}, {"smac", o.Smac}} {
		switch {
		case mac.b == nil:
		case len(mac.b) != 6:
			return nil, tckind.NoKeywords(fmt.Sprintf("skbmod %s of %d bytes", mac.name, len(mac.b)))
		default:
			w = append(w, "set", mac.name, tcword.FormatMAC(mac.b))
		}
	}
	if o.Etype != nil {
		// tc sends no ethertype 0 (its flag alone, which the kernel
		// ignores).
		if *o.Etype == 0 {
			return nil, tckind.NoKeywords("skbmod etype 0")
		}
		w = append(w, "set", "etype", fmt.Sprintf("%#x", *o.Etype))
	}
	if o.Parms.Flags&skbmodSwapMAC != 0 {
		w = append(w, "swap", "mac")
	}
	if o.Parms.Flags&skbmodECN != 0 {
		w = append(w, "ecn")
	}
	if len(w) == 0 {
		return nil, tckind.NoKeywords("skbmod without anything to do")
	}
	return controlWords(w, o.Parms.Action, actPipe)
}
