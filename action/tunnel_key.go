// SPDX-License-Identifier: Apache-2.0

package action

// The tunnel_key action (net/sched/act_tunnel_key.c): set the metadata a
// tunnel device encapsulates a packet with (outer addresses, key id, UDP
// port, options, TOS, TTL, flags), or release it, as tc 7.3's
// m_tunnel_key.c reads and prints it.

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// TCA_TUNNEL_KEY_ACT_* (linux/tc_act/tc_tunnel_key.h).
const (
	tunnelKeyActSet     = 1
	tunnelKeyActRelease = 2
)

const tunnelKeyUsage = `Usage: tunnel_key unset
       tunnel_key set <TUNNEL_KEY>
Where TUNNEL_KEY is a combination of:
id <TUNNELID>
src_ip <IP> (mandatory)
dst_ip <IP> (mandatory)
dst_port <UDP_PORT>
geneve_opts | vxlan_opts | erspan_opts <OPTIONS>
csum | nocsum (default is "csum")
nofrag`

func init() {
	tckind.LazilyActions(func() {
		tckind.MustRegisterAction(&tckind.Action{
			Name:       "tunnel_key",
			Usage:      tunnelKeyUsage,
			Parse:      parseTunnelKey,
			Print:      printTunnelKey,
			Keywords:   tunnelKeyKeywords,
			Dumped:     tunnelKeyDumped,
			PrintStats: printTunnelKeyStats,
		})
		tckind.RegisterBytesCovers("ActTunnelKeyAttrs.EncOpts", tunnelOptsCovers)
	}, "tunnel_key")
}

// parseTunnelAddr is get_addr for any family: an address with a colon is
// IPv6, any other IPv4 (up to four parts, each in any base); "default",
// "any" and "all" are an address of no family and no bytes, which tc sends
// as an empty IPv6 one. A bad address ends tc at once with status 1.
func parseTunnelAddr(s string) (v4, v6 []byte, err error) {
	if s == "default" || s == "any" || s == "all" {
		return nil, []byte{}, nil
	}
	v6Form := strings.Contains(s, ":")
	a, perr := tcword.ParseAddr(s, v6Form)
	if perr != nil || a.Zone() != "" {
		return nil, nil, &tcword.ParseError{Msg: fmt.Sprintf("Error: any valid address is expected rather than %q.", s), Code: 1}
	}
	if v6Form {
		b := a.As16()
		return nil, b[:], nil
	}
	b := a.As4()
	return b[:], nil, nil
}

// parseTunnelKey is m_tunnel_key.c's parse_tunnel_key: "tunnel_key", set
// or unset and the tunnel's keywords in any order, [CONTROL] [index N].
func parseTunnelKey(args []string, env tckind.ActionEnv) (attrs.ActOptionsMsg, []string, error) {
	if len(args) < 2 {
		return nil, args, tcword.IncompleteCommand()
	}
	p := &attrs.TCTunnelKey{}
	o := &attrs.ActTunnelKeyAttrs{Parms: p}
	args = args[1:]
	var action int32
	var hasSrc, hasDst bool
	csum, nofrag := true, false
	illegal := func(what string) *tcword.ParseError { return tcword.Errorf(`Illegal "%s"`, what) }
loop:
	for len(args) > 0 {
		w := args[0]
		switch {
		case tcfmt.Matches(w, "unset"), tcfmt.Matches(w, "set"):
			if action != 0 {
				return nil, args, withUsage(`unexpected "`+w+`" - action already specified`, tunnelKeyUsage)
			}
			action = tunnelKeyActSet
			if tcfmt.Matches(w, "unset") {
				action = tunnelKeyActRelease
			}
			args = args[1:]
			continue
		case tcfmt.Matches(w, "csum"):
			csum = true
			args = args[1:]
			continue
		case tcfmt.Matches(w, "nocsum"):
			csum = false
			args = args[1:]
			continue
		case w == "nofrag":
			nofrag = true
			args = args[1:]
			continue
		case tcfmt.Matches(w, "help"):
			return nil, args, &tcword.ParseError{Msg: tunnelKeyUsage, Code: 255}
		}
		keys := []string{"src_ip", "dst_ip", "id", "dst_port", "geneve_opts", "vxlan_opts", "erspan_opts", "tos", "ttl"}
		key := ""
		for _, k := range keys {
			if tcfmt.Matches(w, k) {
				key = k
				break
			}
		}
		if key == "" {
			break
		}
		if len(args) < 2 {
			return nil, args, tcword.IncompleteCommand()
		}
		s := args[1]
		switch key {
		case "src_ip", "dst_ip":
			v4, v6, err := parseTunnelAddr(s)
			if err != nil {
				return nil, args, err
			}
			if key == "src_ip" {
				o.EncIpv4Src, o.EncIpv6Src, hasSrc = v4, v6, true
			} else {
				o.EncIpv4Dst, o.EncIpv6Dst, hasDst = v4, v6, true
			}
		case "id":
			v, err := tcfmt.ParseUint(s, 10, 32)
			if err != nil {
				return nil, args, illegal("id")
			}
			o.EncKeyID = tcword.PtrTo(uint32(v))
		case "dst_port":
			v, err := tcfmt.ParseUint(s, 10, 16)
			if err != nil {
				return nil, args, illegal("dst port")
			}
			o.EncDstPort = tcword.PtrTo(uint16(v))
		case "geneve_opts":
			g, ok := parseGeneveOpts(s, tunnelKeyFields)
			if !ok {
				return nil, args, illegal(key)
			}
			o.EncOpts = (&tunnelOpts{geneve: g}).encode()
		case "vxlan_opts":
			v, ok := parseVXLANOpt(s)
			if !ok {
				return nil, args, illegal(key)
			}
			o.EncOpts = (&tunnelOpts{vxlan: &v}).encode()
		case "erspan_opts":
			r, ok := parseERSPANOpt(s, tunnelKeyFields)
			if !ok {
				return nil, args, illegal(key)
			}
			o.EncOpts = (&tunnelOpts{erspan: r}).encode()
		case "tos", "ttl":
			// Decimal, else hex ("0x10" or "ff").
			v, err := tcfmt.ParseUint(s, 10, 8)
			if err != nil {
				v, err = tcfmt.ParseUint(s, 16, 8)
			}
			if err != nil {
				return nil, args, illegal(key)
			}
			if key == "tos" {
				o.EncTos = tcword.PtrTo(uint8(v))
			} else {
				o.EncTtl = tcword.PtrTo(uint8(v))
			}
		}
		args = args[2:]
		continue loop
	}
	var noCsum uint8
	if !csum {
		noCsum = 1
	}
	o.NoCsum = &noCsum
	o.NoFrag = nofrag
	code, rest, err := parseActionControlDefault(args, actPipe, env.Stderr)
	if err != nil {
		return nil, args, err
	}
	p.Action, args = code, rest
	index, found, rest, err := parseActionIndex(args, 10, `tunnel_key: Illegal "index"`)
	if err != nil {
		return nil, args, err
	}
	if found {
		p.Index, args = index, rest
	}
	if action == tunnelKeyActSet && (!hasSrc || !hasDst) {
		return nil, args, withUsage("set needs tunnel_key parameters", tunnelKeyUsage)
	}
	p.TAction = action
	return o, args, nil
}

// printTunnelAddr prints an outer address on a line of its own, if it has
// the length of one.
func printTunnelAddr(p *tcfmt.Printer, key string, b []byte) {
	a, ok := netip.AddrFromSlice(b)
	if !ok {
		return
	}
	p.NL()
	p.String(tcfmt.Any, tcfmt.Name(key), "\t"+key+" %s", a.String())
}

// printTunnelKey is m_tunnel_key.c's print_tunnel_key up to its last
// line's end.
func printTunnelKey(p *tcfmt.Printer, opts attrs.ActOptionsMsg, _ tckind.Links) {
	p.String(tcfmt.Any, "kind", "%s ", "tunnel_key")
	o, ok := opts.(*attrs.ActTunnelKeyAttrs)
	if !ok || o.Parms == nil {
		return
	}
	parms := o.Parms
	switch parms.TAction {
	case tunnelKeyActRelease:
		p.String(tcfmt.Any, "mode", " %s", "unset")
	case tunnelKeyActSet:
		p.String(tcfmt.Any, "mode", " %s", "set")
		printTunnelAddr(p, "src_ip", o.EncIpv4Src)
		printTunnelAddr(p, "dst_ip", o.EncIpv4Dst)
		printTunnelAddr(p, "src_ip", o.EncIpv6Src)
		printTunnelAddr(p, "dst_ip", o.EncIpv6Dst)
		if o.EncKeyID != nil {
			p.NL()
			p.Uint(tcfmt.Any, "key_id", "\tkey_id %u", uint64(*o.EncKeyID))
		}
		if o.EncDstPort != nil {
			p.NL()
			p.Uint(tcfmt.Any, "dst_port", "\tdst_port %u", uint64(*o.EncDstPort))
		}
		if o.EncOpts != nil {
			printTunnelKeyOpts(p, decodeTunnelOpts(o.EncOpts))
		}
		p.NL()
		if o.NoCsum != nil {
			flag := "csum"
			if *o.NoCsum != 0 {
				flag = "nocsum"
			}
			p.String(tcfmt.Any, "flag", "\t%s", flag)
		}
		if o.NoFrag {
			p.String(tcfmt.FP, "", "\t%s", "nofrag")
		}
		p.Bool(tcfmt.JSON, "nofrag", "", o.NoFrag)
		if o.EncTos != nil && *o.EncTos != 0 {
			p.NL()
			p.Uint(tcfmt.Any, "tos", "\ttos 0x%x", uint64(*o.EncTos))
		}
		if o.EncTtl != nil && *o.EncTtl != 0 {
			p.NL()
			p.Uint(tcfmt.Any, "ttl", "\tttl %u", uint64(*o.EncTtl))
		}
	}
	printActionControl(p, " ", parms.Action, "")
	printActionIndex(p, parms.Index, parms.Refcnt, parms.Bindcnt)
}

func printTunnelKeyStats(p *tcfmt.Printer, opts attrs.ActOptionsMsg) {
	if o, ok := opts.(*attrs.ActTunnelKeyAttrs); ok && o.Parms != nil && o.Tm != nil {
		printTm(p, o.Tm)
	}
}

// tunnelKeyKeywords is Action.Keywords for tunnel_key: unset, or set
// with the tunnel's addresses, key, port, options and flags.
func tunnelKeyKeywords(opts attrs.ActOptionsMsg, _ tckind.Links) ([]string, error) {
	o, _ := opts.(*attrs.ActTunnelKeyAttrs)
	if o == nil || o.Parms == nil {
		return nil, tckind.NoKeywords("tunnel_key without parameters")
	}
	switch o.Parms.TAction {
	case tunnelKeyActRelease:
		return controlWords([]string{"unset"}, o.Parms.Action, actPipe)
	case tunnelKeyActSet:
	default:
		return nil, tckind.NoKeywords(fmt.Sprintf("tunnel_key action %d", o.Parms.TAction))
	}
	w := []string{"set"}
	for _, a := range []struct {
		key    string
		v4, v6 []byte
	}{{"src_ip", o.EncIpv4Src, o.EncIpv6Src}, {"dst_ip", o.EncIpv4Dst, o.EncIpv6Dst}} {
		b := a.v4
		if b == nil {
			b = a.v6
		}
		addr, ok := netip.AddrFromSlice(b)
		if !ok || a.v4 != nil && a.v6 != nil {
			return nil, tckind.NoKeywords("tunnel_key without one " + a.key)
		}
		w = append(w, a.key, addr.String())
	}
	if o.EncKeyID != nil {
		w = append(w, "id", tcword.UintWord(*o.EncKeyID))
	}
	if o.EncDstPort != nil {
		w = append(w, "dst_port", tcword.UintWord(*o.EncDstPort))
	}
	if o.EncOpts != nil {
		ow, err := tunnelOptsWords(o.EncOpts)
		if err != nil {
			return nil, err
		}
		w = append(w, ow...)
	}
	if o.EncTos != nil {
		w = append(w, "tos", tcword.UintWord(*o.EncTos))
	}
	if o.EncTtl != nil {
		w = append(w, "ttl", tcword.UintWord(*o.EncTtl))
	}
	if o.NoCsum != nil && *o.NoCsum != 0 {
		w = append(w, "nocsum")
	}
	if o.NoFrag {
		w = append(w, "nofrag")
	}
	return controlWords(w, o.Parms.Action, actPipe)
}

// tunnelOptsWords writes an ENC_OPTS nest as tunnel_key's words: one
// kind of option, its fields in the forms tc reads.
func tunnelOptsWords(b []byte) ([]string, error) {
	t := decodeTunnelOpts(mergedGeneve(b))
	switch {
	case t.geneve != nil:
		var s []string
		for _, g := range t.geneve {
			if g.class == nil || g.typ == nil || len(g.data) == 0 {
				return nil, tckind.NoKeywords("tunnel_key geneve option without class, type or data")
			}
			s = append(s, fmt.Sprintf("%04x:%02x:%x", *g.class, *g.typ, g.data))
		}
		return []string{"geneve_opts", strings.Join(s, ",")}, nil
	case t.vxlan != nil:
		return []string{"vxlan_opts", tcword.UintWord(*t.vxlan)}, nil
	case t.erspan != nil:
		// Version 1 uses the index, the others the direction and
		// hardware id: tc's fields have no gaps, so these send an
		// index of 0 too, which the kernel drops.
		r := t.erspan
		if optValue(r.ver) == 1 {
			return []string{"erspan_opts", fmt.Sprintf("1:%d", optValue(r.index))}, nil
		}
		return []string{"erspan_opts", fmt.Sprintf("%d:0:%d:%d", optValue(r.ver), optValue(r.dir), optValue(r.hwid))}, nil
	}
	return nil, tckind.NoKeywords("tunnel_key options of no kind tc knows")
}

// tunnelKeyDumped is Action.Dumped for tunnel_key: tc sends the checksum
// flag with every tunnel_key, and the kernel keeps it only for "set"; a
// release (unset) dumps without it.
func tunnelKeyDumped(opts attrs.ActOptionsMsg) attrs.ActOptionsMsg {
	o, ok := opts.(*attrs.ActTunnelKeyAttrs)
	if !ok || o.Parms == nil || o.Parms.TAction != tunnelKeyActRelease {
		return opts
	}
	c := *o
	c.NoCsum = nil
	return &c
}
