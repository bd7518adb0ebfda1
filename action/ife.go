// SPDX-License-Identifier: Apache-2.0

package action

// The ife action (net/sched/act_ife.c, the Inter-FE encapsulation of RFC
// 8013): encode wraps a packet with metadata (its mark, priority, tcindex)
// in an Ethernet frame of its own type; decode unwraps it. As tc 7.3's
// m_ife.c reads and prints it.

import (
	"encoding/binary"
	"fmt"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// IFE_ENCODE (linux/tc_act/tc_ife.h) and ETH_P_IFE, the type tc reports
// the kernel will use when none is given.
const (
	ifeEncode  = 1
	ethPIFE    = 0xed3e
	ifeMetaLen = 4 // mark and prio are u32, tcindex u16
)

const ifeUsage = `Usage:... ife {decode|encode} [{ALLOW|USE} ATTR] [dst DMAC] [src SMAC] [type TYPE] [CONTROL] [index INDEX]
	ALLOW := Encode direction. Allows encoding specified metadata
		 e.g "allow mark"
	USE := Encode direction. Enforce Static encoding of specified metadata
		 e.g "use mark 0x12"
	ATTR := mark (32-bit), prio (32-bit), tcindex (16-bit)
	DMAC := 6 byte Destination MAC address to encode
	SMAC := optional 6 byte Source MAC address to encode
	TYPE := optional 16 bit ethertype to encode
	CONTROL := reclassify|pipe|drop|continue|ok
	INDEX := optional IFE table index value used
encode is used for sending IFE packets
decode is used for receiving IFE packets`

func init() {
	tckind.LazilyActions(func() {
		tckind.MustRegisterAction(&tckind.Action{
			Name:       "ife",
			Usage:      ifeUsage,
			Parse:      parseIFE,
			Print:      printIFE,
			Keywords:   ifeKeywords,
			PrintStats: printIFEStats,
		})
	}, "ife")
}

// ifeMeta is one kind of metadata: "allow NAME" encodes the packet's own
// value, "use NAME V" a fixed one.
type ifeMeta struct {
	name string
	bits int
}

// ifeMetas are the metadata tc knows, in the order it reads them.
var ifeMetas = []ifeMeta{{"mark", 32}, {"prio", 32}, {"tcindex", 16}}

// parseIFE is m_ife.c's parse_ife.
func parseIFE(args []string, env tckind.ActionEnv) (attrs.ActOptionsMsg, []string, error) {
	p := &attrs.TCIFE{}
	o := &attrs.ActIFEAttrs{Parms: p}
	ok := 0
	var (
		allow    [3]bool
		use      [3]uint64
		ifeType  uint16
		userType bool
		dmac     []byte
		smac     []byte
	)
	warn := func(format string, a ...any) {
		if env.Stderr != nil {
			fmt.Fprintf(env.Stderr, format, a...)
		}
	}
	// value is NEXT_ARG: the word after a keyword.
	value := func() (string, error) {
		if len(args) < 2 {
			return "", tcword.IncompleteCommand()
		}
		args = args[1:]
		return args[0], nil
	}
	meta := func(w string) int {
		for i, m := range ifeMetas {
			if tcfmt.Matches(w, m.name) {
				return i
			}
		}
		return -1
	}
loop:
	for len(args) > 0 {
		w := args[0]
		switch {
		case tcfmt.Matches(w, "ife"):
			if _, err := value(); err != nil {
				return nil, args, err
			}
			continue
		case tcfmt.Matches(w, "decode"):
			p.Flags = 0
			ok++
		case tcfmt.Matches(w, "encode"):
			p.Flags = ifeEncode
			ok++
		case tcfmt.Matches(w, "allow"):
			v, err := value()
			if err != nil {
				return nil, args, err
			}
			i := meta(v)
			if i < 0 {
				return nil, args, tcword.InvalidArgument(v, "Illegal meta define")
			}
			allow[i] = true
		case tcfmt.Matches(w, "use"):
			v, err := value()
			if err != nil {
				return nil, args, err
			}
			i := meta(v)
			if i < 0 {
				return nil, args, tcword.InvalidArgument(v, "Illegal meta use type")
			}
			if v, err = value(); err != nil {
				return nil, args, err
			}
			n, perr := tcfmt.ParseUint(v, 0, ifeMetas[i].bits)
			if perr != nil {
				return nil, args, tcword.InvalidArgument(v, "ife "+ifeMetas[i].name+" val is invalid")
			}
			use[i] = n
		case tcfmt.Matches(w, "type"):
			v, err := value()
			if err != nil {
				return nil, args, err
			}
			n, perr := tcfmt.ParseUint(v, 0, 16)
			if perr != nil {
				return nil, args, tcword.InvalidArgument(v, "ife type is invalid")
			}
			ifeType, userType = uint16(n), true
			warn("IFE type 0x%04X\n", ifeType)
		case tcfmt.Matches(w, "dst"), tcfmt.Matches(w, "src"):
			isDst := tcfmt.Matches(w, "dst")
			v, err := value()
			if err != nil {
				return nil, args, err
			}
			mac, good := scanMAC(v)
			if !good {
				return nil, args, tcword.InvalidArgument(v, "Invalid mac address")
			}
			if isDst {
				dmac = mac
				warn("dst MAC address <%s>\n", v)
			} else {
				smac = mac
				warn("src MAC address <%s>\n", v)
			}
		case tcfmt.Matches(w, "help"):
			return nil, args, &tcword.ParseError{Msg: ifeUsage, Code: 255}
		default:
			break loop
		}
		args = args[1:]
	}
	code, args, err := parseActionControlDefault(args, actPipe, env.Stderr)
	if err != nil {
		return nil, args, err
	}
	p.Action = code
	index, found, rest, err := parseActionIndex(args, 0, `ife: Illegal "index"`)
	if err != nil {
		return nil, args, err
	}
	if found {
		p.Index, args = index, rest
		ok++
	}
	if ok == 0 {
		return nil, args, &tcword.ParseError{Msg: "IFE requires decode/encode specified\n" + ifeUsage, Code: 255}
	}
	if p.Flags&ifeEncode == 0 {
		return o, args, nil
	}
	o.Dmac = dmac
	if userType {
		o.Type = &ifeType
	} else {
		warn("IFE type 0x%04X\n", ethPIFE)
	}
	o.Smac = smac
	ml := &attrs.ActIFEMetaAttrs{}
	dst := []*[]byte{&ml.Skbmark, &ml.Prio, &ml.Tcindex}
	for i, m := range ifeMetas {
		switch {
		case use[i] != 0:
			b := binary.NativeEndian.AppendUint32(nil, uint32(use[i]))
			if m.bits == 16 {
				b = binary.NativeEndian.AppendUint16(nil, uint16(use[i]))
			}
			*dst[i] = b
		case allow[i]:
			*dst[i] = []byte{}
		}
	}
	o.Metalst = ml
	return o, args, nil
}

// printIFE is m_ife.c's print_ife up to its last line's end.
func printIFE(p *tcfmt.Printer, opts attrs.ActOptionsMsg, _ tckind.Links) {
	p.String(tcfmt.Any, "kind", "%s ", "ife")
	o, ok := opts.(*attrs.ActIFEAttrs)
	if !ok || o.Parms == nil {
		return
	}
	mode := "decode"
	if o.Parms.Flags&ifeEncode != 0 {
		mode = "encode"
	}
	p.String(tcfmt.Any, "mode", "%s ", mode)
	printActionControl(p, "action ", o.Parms.Action, " ")
	if o.Type != nil {
		p.Hex0x(tcfmt.Any, "type", "type %#llX ", uint64(*o.Type))
		p.Text(p.SL() + "\t")
	}
	if ml := o.Metalst; ml != nil {
		for _, m := range []struct {
			name string
			v    []byte
		}{{"mark", ml.Skbmark}, {"tcindex", ml.Tcindex}, {"prio", ml.Prio}} {
			key := tcfmt.Name(m.name)
			switch {
			case m.v == nil:
			case len(m.v) == 0:
				p.String(tcfmt.Any, key, "%s "+m.name+" ", "allow")
			case m.name == "tcindex" && len(m.v) >= 2:
				p.Uint(tcfmt.Any, key, "use "+m.name+" %u ", uint64(binary.NativeEndian.Uint16(m.v)))
			case len(m.v) >= ifeMetaLen:
				p.Uint(tcfmt.Any, key, "use "+m.name+" %u ", uint64(binary.NativeEndian.Uint32(m.v)))
			}
		}
	}
	if o.Dmac != nil {
		p.String(tcfmt.Any, "dst", "dst %s ", tcword.FormatMAC(o.Dmac))
	}
	if o.Smac != nil {
		p.String(tcfmt.Any, "src", "src %s ", tcword.FormatMAC(o.Smac))
	}
	p.NL()
	p.Uint(tcfmt.Any, "index", "\t index %u", uint64(o.Parms.Index))
	p.Int(tcfmt.Any, "ref", " ref %d", int64(o.Parms.Refcnt))
	p.Int(tcfmt.Any, "bind", " bind %d", int64(o.Parms.Bindcnt))
}

func printIFEStats(p *tcfmt.Printer, opts attrs.ActOptionsMsg) {
	if o, ok := opts.(*attrs.ActIFEAttrs); ok && o.Parms != nil && o.Tm != nil {
		printTm(p, o.Tm)
	}
}

// ifeKeywords is Action.Keywords for ife. A decoder's words are its mode
// alone: tc sends nothing else for one, and the kernel gives it every
// kind of metadata it knows.
func ifeKeywords(opts attrs.ActOptionsMsg, _ tckind.Links) ([]string, error) {
	o, _ := opts.(*attrs.ActIFEAttrs)
	if o == nil || o.Parms == nil {
		return nil, tckind.NoKeywords("ife without parameters")
	}
	if o.Parms.Flags&^ifeEncode != 0 {
		return nil, tckind.NoKeywords(fmt.Sprintf("ife flags %#x", o.Parms.Flags))
	}
	if o.Parms.Flags&ifeEncode == 0 {
		return controlWords([]string{"decode"}, o.Parms.Action, actPipe)
	}
	w := []string{"encode"}
	if ml := o.Metalst; ml != nil {
		if ml.Hashid != nil || ml.Qmap != nil {
			return nil, tckind.NoKeywords("ife metadata other than mark, prio and tcindex")
		}
		for i, v := range [][]byte{ml.Skbmark, ml.Prio, ml.Tcindex} {
			m := ifeMetas[i]
			var n uint64
			switch {
			case v == nil:
				continue
			case len(v) == 0:
				w = append(w, "allow", m.name)
				continue
			case m.bits == 16 && len(v) == 2:
				n = uint64(binary.NativeEndian.Uint16(v))
			case m.bits == 32 && len(v) == 4:
				n = uint64(binary.NativeEndian.Uint32(v))
			default:
				return nil, tckind.NoKeywords(fmt.Sprintf("ife %s of %d bytes", m.name, len(v)))
			}
			// tc reads "use NAME 0" as "allow NAME".
			if n == 0 {
				return nil, tckind.NoKeywords("ife use " + m.name + " 0")
			}
			w = append(w, "use", m.name, tcword.UintWord(n))
		}
	}
	if o.Type != nil {
		w = append(w, "type", fmt.Sprintf("%#x", *o.Type))
	}
	for _, mac := range []struct {
		name string
		b    []byte
	}{{"dst", o.Dmac}, {"src", o.Smac}} {
		switch {
		case mac.b == nil:
		case len(mac.b) != 6:
			return nil, tckind.NoKeywords(fmt.Sprintf("ife %s address of %d bytes", mac.name, len(mac.b)))
		default:
			w = append(w, mac.name, tcword.FormatMAC(mac.b))
		}
	}
	return controlWords(w, o.Parms.Action, actPipe)
}
