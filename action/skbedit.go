// SPDX-License-Identifier: Apache-2.0

package action

// The skbedit action (net/sched/act_skbedit.c): sets a packet's transmit
// queue, priority, firewall mark (under a mask), packet type, or its
// priority from the DS field, then gives its verdict (pipe unless told), as
// tc 7.3's m_skbedit.c reads and prints it. tc 7.3 has no keywords for the
// kernel's queue ranges (TCA_SKBEDIT_QUEUE_MAPPING_MAX, SKBEDIT_F_TXQ_SKBHASH),
// and neither has gotc; it prints what it knows of a dump.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// SKBEDIT_F_INHERITDSFIELD (linux/tc_act/tc_skbedit.h), a bit of
// TCA_SKBEDIT_FLAGS.
const skbeditInheritDSField = 0x20

// skbeditPtypes are the packet types (PACKET_* of linux/if_packet.h) in
// tc's order of matching.
var skbeditPtypes = []skbeditPtype{{"host", 0}, {"broadcast", 1}, {"multicast", 2}, {"otherhost", 3}}

// skbeditPtype is a word of "ptype" and its packet type.
type skbeditPtype struct {
	name  string
	ptype uint16
}

const skbeditUsage = `Usage: ... skbedit <[QM] [PM] [MM] [PT] [IF]> [ CONTROL ] [ index INDEX ]
QM = queue_mapping QUEUE_MAPPING
PM = priority PRIORITY
MM = mark MARK[/MASK]
PT = ptype PACKETYPE
IF = inheritdsfield
PACKETYPE = is one of:
  host, otherhost, broadcast, multicast
QUEUE_MAPPING = device transmit queue to use
PRIORITY = classID to assign to priority field
MARK = firewall mark to set
MASK = mask applied to firewall mark (0xffffffff by default)
note: inheritdsfield maps DS field to skb->priority`

func init() {
	tckind.LazilyActions(func() {
		tckind.MustRegisterAction(&tckind.Action{
			Name:     "skbedit",
			Usage:    skbeditUsage,
			Parse:    parseSkbedit,
			Print:    printSkbedit,
			Keywords: skbeditKeywords,
			PrintStats: func(p *tcfmt.Printer, opts attrs.ActOptionsMsg) {
				if o, ok := opts.(*attrs.ActSkbeditAttrs); ok && o.Parms != nil && o.Tm != nil {
					printTm(p, o.Tm)
				}
			},
		})
	}, "skbedit")
}

// parseSkbedit is m_skbedit.c's parse_skbedit: skbedit, what to set, then
// [CONTROL] [index N]; at least one of them.
func parseSkbedit(args []string, env tckind.ActionEnv) (attrs.ActOptionsMsg, []string, error) {
	if len(args) < 2 {
		return nil, args, tcword.IncompleteCommand()
	}
	args = args[1:]
	sel := &attrs.TCSkbedit{}
	o := &attrs.ActSkbeditAttrs{Parms: sel}
	var flags uint64
	ok := 0
	illegal := func(msg string) (attrs.ActOptionsMsg, []string, error) {
		return nil, args, tcword.Errorf("%s", msg)
	}
loop:
	for len(args) > 0 {
		w := args[0]
		if tcfmt.Matches(w, "inheritdsfield") {
			flags |= skbeditInheritDSField
			ok++
			args = args[1:]
			continue
		}
		if tcfmt.Matches(w, "help") {
			return nil, args, &tcword.ParseError{Msg: skbeditUsage, Code: 255}
		}
		if !matchesAny(w, []string{"queue_mapping", "priority", "mark", "ptype"}) {
			break loop
		}
		if len(args) < 2 {
			return nil, args, tcword.IncompleteCommand()
		}
		v := args[1]
		switch {
		case tcfmt.Matches(w, "queue_mapping"):
			n, err := tcfmt.ParseUint(v, 10, 32)
			if err != nil || n > 65535 {
				return illegal("Illegal queue_mapping")
			}
			q := uint16(n)
			o.QueueMapping = &q
		case tcfmt.Matches(w, "priority"):
			id, err := tcfmt.ParseClassID(v)
			if err != nil {
				return illegal("Illegal priority")
			}
			o.Priority = &id
		case tcfmt.Matches(w, "mark"):
			markStr, maskStr, hasMask := strings.Cut(v, "/")
			mark, err := tcfmt.ParseUint(markStr, 0, 32)
			if err != nil {
				return illegal("Illegal mark")
			}
			m := uint32(mark)
			o.Mark = &m
			if hasMask {
				mask, err := tcfmt.ParseUint(maskStr, 0, 32)
				if err != nil {
					return illegal("Illegal mask")
				}
				mk := uint32(mask)
				o.Mask = &mk
			}
		default: // ptype
			found := false
			for _, pt := range skbeditPtypes {
				if tcfmt.Matches(v, pt.name) {
					t := pt.ptype
					o.Ptype, found = &t, true
					break
				}
			}
			if !found {
				return illegal("Illegal ptype (" + v + ")")
			}
		}
		ok++
		args = args[2:]
	}
	code, args, err := parseActionControlDefault(args, actPipe, env.Stderr)
	if err != nil {
		return nil, args, err
	}
	sel.Action = code
	if len(args) > 0 && tcfmt.Matches(args[0], "index") {
		if len(args) < 2 {
			return nil, args, tcword.IncompleteCommand()
		}
		v, err := tcfmt.ParseUint(args[1], 10, 32)
		if err != nil {
			return illegal(`skbedit: Illegal "index"`)
		}
		sel.Index = uint32(v)
		ok++
		args = args[2:]
	}
	if ok == 0 {
		return illegal(skbeditUsage)
	}
	if flags != 0 {
		o.Flags = &flags
	}
	return o, args, nil
}

// printSkbedit is m_skbedit.c's print_skbedit up to its last line's end.
func printSkbedit(p *tcfmt.Printer, opts attrs.ActOptionsMsg, _ tckind.Links) {
	p.String(tcfmt.Any, "kind", "%s ", "skbedit")
	o, ok := opts.(*attrs.ActSkbeditAttrs)
	if !ok || o.Parms == nil {
		return
	}
	if o.QueueMapping != nil {
		p.Uint(tcfmt.Any, "queue_mapping", "queue_mapping %u", uint64(*o.QueueMapping))
	}
	if o.Priority != nil {
		p.String(tcfmt.Any, "priority", " priority %s", tcfmt.FormatClassID(*o.Priority))
	}
	if o.Mark != nil {
		p.Uint(tcfmt.Any, "mark", " mark %u", uint64(*o.Mark))
	}
	if o.Mask != nil {
		p.Hex(tcfmt.Any, "mask", "/%#x", *o.Mask)
	}
	if o.Ptype != nil {
		t := *o.Ptype
		name := ""
		for _, pt := range skbeditPtypes {
			if pt.ptype == t {
				name = pt.name
			}
		}
		if name != "" {
			p.String(tcfmt.Any, "ptype", " ptype %s", name)
		} else {
			p.Uint(tcfmt.Any, "ptype", " ptype %u", uint64(t))
		}
	}
	if o.Flags != nil && *o.Flags&skbeditInheritDSField != 0 {
		p.Null(tcfmt.Any, "inheritdsfield", " %s", "inheritdsfield")
	}
	printActionControl(p, " ", o.Parms.Action, "")
	p.NL()
	p.Uint(tcfmt.Any, "index", "\t index %u", uint64(o.Parms.Index))
	p.Int(tcfmt.Any, "ref", " ref %d", int64(o.Parms.Refcnt))
	p.Int(tcfmt.Any, "bind", " bind %d", int64(o.Parms.Bindcnt))
}

// skbeditKeywords is Action.Keywords for skbedit.
func skbeditKeywords(opts attrs.ActOptionsMsg, _ tckind.Links) ([]string, error) {
	o, _ := opts.(*attrs.ActSkbeditAttrs)
	if o == nil || o.Parms == nil {
		return nil, tckind.NoKeywords("skbedit without parameters")
	}
	// A queue range to spread packets over by their hash (the kernel's
	// queue_mapping_max, with SKBEDIT_F_TXQ_SKBHASH) has no words in tc
	// 7.3, which never sends it.
	if o.QueueMappingMax != nil || o.Flags != nil && *o.Flags&^skbeditInheritDSField != 0 {
		return nil, tckind.NoKeywords("skbedit queue_mapping range (skbhash)")
	}
	var w []string
	if o.QueueMapping != nil {
		w = append(w, "queue_mapping", tcword.UintWord(*o.QueueMapping))
	}
	if o.Priority != nil {
		w = append(w, "priority", tcword.ClassIDWord(*o.Priority))
	}
	if o.Mark != nil {
		m := fmt.Sprintf("%#x", *o.Mark)
		if o.Mask != nil {
			m += fmt.Sprintf("/%#x", *o.Mask)
		}
		w = append(w, "mark", m)
	}
	if o.Ptype != nil {
		i := slices.IndexFunc(skbeditPtypes, func(pt skbeditPtype) bool { return pt.ptype == *o.Ptype })
		if i < 0 {
			// tc names only four packet types (the kernel takes any
			// up to PACKET_KERNEL).
			return nil, tckind.NoKeywords(fmt.Sprintf("skbedit ptype %d", *o.Ptype))
		}
		w = append(w, "ptype", skbeditPtypes[i].name)
	}
	if o.Flags != nil && *o.Flags&skbeditInheritDSField != 0 {
		w = append(w, "inheritdsfield")
	}
	return controlWords(w, o.Parms.Action, actPipe)
}
