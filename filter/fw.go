// SPDX-License-Identifier: Apache-2.0

package filter

// The fw filter (net/sched/cls_fw.c): a packet whose mark (skb->mark),
// under the mask, equals the filter's handle goes to a class or through
// the filter's actions. The handle is written MARK[/MASK]; the mask is one
// for all the fw filters of a priority. Keywords and output follow tc
// 7.3's f_fw.c.

import (
	"fmt"
	"strings"

	"github.com/gotc/gotc/action"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

const fwUsage = `Usage: ... fw [ classid CLASSID ] [ indev DEV ] [ action ACTION_SPEC ]
	CLASSID := Push matching packets to the class identified by CLASSID with format X:Y
		CLASSID is parsed as hexadecimal input.
	DEV := specify device for incoming device classification.
	ACTION_SPEC := Apply an action on matching packets.
	NOTE: handle is represented as HANDLE[/FWMASK].
		FWMASK is 0xffffffff by default.`

// fwMaskAll is the mask the kernel assumes without TCA_FW_MASK.
const fwMaskAll = 0xffffffff

func init() {
	tckind.LazilyFilters(func() {
		tckind.MustRegisterFilter(&tckind.Filter{
			Name:         "fw",
			Usage:        fwUsage,
			Parse:        parseFw,
			PrintOptions: printFw,
			Keywords:     fwKeywords,
			HandleWord:   fwHandleWord,
		})
	}, "fw")
}

// parseFwHandle reads MARK[/MASK], each a get_u32 of any base; mask is
// nil without a slash.
func parseFwHandle(s string) (mark uint32, mask *uint32, err error) {
	m, rest, slash := strings.Cut(s, "/")
	v, err := tcfmt.ParseUint(m, 0, 32)
	if err != nil {
		return 0, nil, tcword.Errorf(`Illegal "handle"`)
	}
	if !slash {
		return uint32(v), nil, nil
	}
	mv, err := tcfmt.ParseUint(rest, 0, 32)
	if err != nil {
		return 0, nil, tcword.Errorf(`Illegal "handle" mask`)
	}
	m32 := uint32(mv)
	return uint32(v), &m32, nil
}

// parseFw is f_fw.c's fw_parse_opt. Without options there is no
// TCA_OPTIONS, and so no mask either: tc sends the mask inside the nest.
func parseFw(args []string, env tckind.FilterEnv) (attrs.TCOptionsMsg, uint32, error) {
	var handle uint32
	var mask *uint32
	if env.Handle != "" {
		h, m, err := parseFwHandle(env.Handle)
		if err != nil {
			return nil, 0, err
		}
		handle, mask = h, m
	}
	if len(args) == 0 {
		return nil, handle, nil
	}
	o := &attrs.FwAttrs{Mask: mask}
	for len(args) > 0 {
		w := args[0]
		args = args[1:]
		value := func() (string, error) { return nextWord(&args) }
		switch {
		case tcfmt.Matches(w, "classid"), tcfmt.Matches(w, "flowid"):
			id, err := classIDArg(value)
			if err != nil {
				return nil, 0, err
			}
			o.Classid = &id
		case tcfmt.Matches(w, "police"), tcfmt.Matches(w, "action"):
			if err := policeOrActions(w, &args, env, &o.Police, &o.Act); err != nil {
				return nil, 0, err
			}
		case w == "indev":
			name, err := value()
			if err != nil {
				// tc's own message here, with its usual status.
				return nil, 0, tcword.Errorf("Illegal indev")
			}
			name = indevName(name)
			o.Indev = &name
		case w == "help":
			return nil, 0, &tcword.ParseError{Msg: fwUsage}
		default:
			return nil, 0, tcword.Errorf("What is \"%s\"?\n%s", w, fwUsage)
		}
	}
	return o, handle, nil
}

// printFw is f_fw.c's fw_print_opt: the mark and its mask, in JSON an
// object "fw" whose mask is always there.
func printFw(p *tcfmt.Printer, opts attrs.TCOptionsMsg, f tckind.FilterPrint) {
	o, ok := opts.(*attrs.FwAttrs)
	if !ok {
		return
	}
	if f.Handle != 0 || o.Mask != nil {
		p.OpenObject("fw")
		if o.Mask != nil && *o.Mask != fwMaskAll {
			p.Hex0x(tcfmt.Any, "mark", "handle 0x%x", uint64(f.Handle))
			p.Hex0x(tcfmt.Any, "mask", "/0x%x ", uint64(*o.Mask))
		} else {
			p.Hex0x(tcfmt.Any, "mark", "handle 0x%x ", uint64(f.Handle))
			p.Hex0x(tcfmt.JSON, "mask", "", fwMaskAll)
		}
		p.CloseObject()
	}
	if o.Classid != nil {
		p.String(tcfmt.Any, "classid", "classid %s ", tcfmt.FormatClassID(*o.Classid))
	}
	if o.Police != nil {
		action.PrintFilterPolice(p, o.Police, f.Stats)
	}
	if o.Indev != nil {
		p.String(tcfmt.Any, "indev", "input dev %s ", *o.Indev)
	}
	if o.Act != nil {
		p.NL()
		action.PrintActions(p, o.Act, action.ActionPrint{Stats: f.Stats, Bind: true, FirstOrder: 1, Links: f.Links})
	}
}

// fwKeywords is FilterKind.Keywords for fw.
func fwKeywords(opts attrs.TCOptionsMsg, links tckind.Links) ([]string, error) {
	o, ok := opts.(*attrs.FwAttrs)
	if !ok {
		return nil, tckind.NoKeywords(fmt.Sprintf("fw options of type %T", opts))
	}
	// The mask is in the handle's word (fwHandleWord), not among these.
	w := classidWords(nil, o.Classid)
	if o.Indev != nil {
		w = append(w, "indev", *o.Indev)
	}
	return policeActionWords(w, o.Police, o.Act, links)
}

// fwHandleWord is Filter.HandleWord for fw: MARK/MASK, the mask being the
// one place tc reads it, or the mark alone under the mask of all bits.
func fwHandleWord(handle uint32, opts attrs.TCOptionsMsg) string {
	if o, ok := opts.(*attrs.FwAttrs); ok && o.Mask != nil && *o.Mask != fwMaskAll {
		return fmt.Sprintf("0x%x/0x%x", handle, *o.Mask)
	}
	return fmt.Sprintf("0x%x", handle)
}
