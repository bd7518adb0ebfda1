// SPDX-License-Identifier: Apache-2.0

package action

// The mirred action (net/sched/act_mirred.c): mirror or redirect a packet
// to a device's egress or ingress, or to a block of devices, as tc 7.3's
// m_mirred.c reads and prints it.

import (
	"fmt"
	"strings"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// TCA_{EGRESS,INGRESS}_{REDIR,MIRROR} (linux/tc_act/tc_mirred.h).
const (
	mirredEgressRedir   = 1
	mirredEgressMirror  = 2
	mirredIngressRedir  = 3
	mirredIngressMirror = 4
)

const mirredUsage = `Usage: mirred { egress | ingress } { mirror | redirect } { dev DEVICE | blockid N }
              [ VERDICT ] [ index N ]
       mirred index N             (an existing mirred action)
A mirror passes the packet on (pipe unless a VERDICT follows); a redirect
takes it. egress sends it out of DEVICE, ingress as if it arrived there;
a block sends it to every device of the block.`

func init() {
	tckind.LazilyActions(func() {
		tckind.MustRegisterAction(&tckind.Action{
			Name:       "mirred",
			Usage:      mirredUsage,
			Parse:      parseMirred,
			Print:      printMirred,
			PrintStats: printMirredStats,
			Keywords:   mirredKeywords,
		})
	}, "mirred")
}

// mirredKinds names each eaction as tc prints it: in text, and in JSON
// as what it does and where.
var mirredKinds = map[int32]struct{ text, action, direction string }{
	mirredEgressRedir:   {"Egress Redirect", "redirect", "egress"},
	mirredIngressRedir:  {"Ingress Redirect", "redirect", "ingress"},
	mirredEgressMirror:  {"Egress Mirror", "mirror", "egress"},
	mirredIngressMirror: {"Ingress Mirror", "mirror", "ingress"},
}

// parseMirred is m_mirred.c's parse_mirred: the word "mirred", then a
// direction (or an index alone, to bind an existing action).
func parseMirred(args []string, env tckind.ActionEnv) (attrs.ActOptionsMsg, []string, error) {
	if len(args) < 2 {
		return nil, args, tcword.IncompleteCommand()
	}
	w := args[1]
	switch {
	case tcfmt.Matches(w, "egress"), tcfmt.Matches(w, "ingress"), tcfmt.Matches(w, "index"):
		return parseMirredDirection(args[1:], env)
	case tcfmt.Matches(w, "help"):
		return nil, args, &tcword.ParseError{Msg: mirredUsage, Code: 255}
	}
	return nil, args, tcword.Errorf("mirred option not supported %s", w)
}

// parseMirredDirection is parse_direction: DIRECTION ACTION [blockid N |
// dev NAME] [CONTROL] [index N], or index N.
func parseMirredDirection(args []string, env tckind.ActionEnv) (attrs.ActOptionsMsg, []string, error) {
	p := &attrs.TCMirred{}
	o := &attrs.ActMirredAttrs{Parms: p}
	var (
		ok, indexed                      int
		mirror, redirect, ingress, egres bool
		dev                              string
		block                            uint32
		msgs                             []string
	)
	// failed is parse_direction's -1, after what it printed: parse_action
	// adds its lines to the kind's messages.
	failed := func(msg string) (attrs.ActOptionsMsg, []string, error) {
		if msg != "" {
			msgs = append(msgs, msg)
		}
		return nil, args, tcword.Errorf("%s", strings.Join(msgs, "\n"))
	}
	// next is NEXT_ARG.
	next := func() error {
		args = args[1:]
		if len(args) == 0 {
			return tcword.IncompleteCommand()
		}
		return nil
	}
loop:
	for len(args) > 0 {
		w := args[0]
		switch {
		case tcfmt.Matches(w, "action"):
			if err := next(); err != nil {
				return nil, args, err
			}
			break loop
		case !egres && tcfmt.Matches(w, "egress"):
			egres = true
			if ingress {
				return failed("Can't have both egress and ingress")
			}
			if err := next(); err != nil {
				return nil, args, err
			}
			ok++
			continue
		case !ingress && tcfmt.Matches(w, "ingress"):
			ingress = true
			if egres {
				return failed("Can't have both ingress and egress")
			}
			if err := next(); err != nil {
				return nil, args, err
			}
			ok++
			continue
		case tcfmt.Matches(w, "index"):
			if err := next(); err != nil {
				return nil, args, err
			}
			v, err := tcfmt.ParseUint(args[0], 10, 32)
			if err != nil {
				return failed(`Illegal "index"`)
			}
			p.Index = uint32(v)
			indexed++
			if ok == 0 {
				args = args[1:]
				break loop
			}
		case ok == 0:
			msgs = append(msgs, "was expecting egress or ingress ("+w+")")
			break loop
		case !mirror && tcfmt.Matches(w, "mirror"):
			mirror = true
			if redirect {
				return failed("Can't have both mirror and redir")
			}
			p.Eaction, p.Action = mirredIngressMirror, actPipe
			if egres {
				p.Eaction = mirredEgressMirror
			}
			ok++
		case !redirect && tcfmt.Matches(w, "redirect"):
			redirect = true
			if mirror {
				return failed("Can't have both mirror and redir")
			}
			p.Eaction, p.Action = mirredIngressRedir, actStolen
			if egres {
				p.Eaction = mirredEgressRedir
			}
			ok++
		case mirror || redirect:
			if w == "blockid" {
				if dev != "" {
					return failed("blockid and device are mutually exclusive.")
				}
				if err := next(); err != nil {
					return nil, args, err
				}
				v, err := tcfmt.ParseUint(args[0], 0, 32)
				if err != nil || v == 0 {
					// Without a line end: parse_action's next line follows
					// on the same line.
					return nil, args, &tcword.ParseError{Msg: "invalid block ID", NoNewline: true}
				}
				block = uint32(v)
				args = args[1:]
			}
			if len(args) > 0 && tcfmt.Matches(args[0], "dev") {
				if block != 0 {
					return failed("blockid and device are mutually exclusive.")
				}
				if err := next(); err != nil {
					return nil, args, err
				}
				if dev != "" {
					return nil, args, &tcword.ParseError{Msg: "Error: duplicate \"dev\": \"" + args[0] + "\" is the second value.", Code: 255}
				}
				dev = tcword.DevName(args[0])
				args = args[1:]
			}
			break loop
		}
		if err := next(); err != nil {
			return nil, args, err
		}
	}
	if ok == 0 && indexed == 0 {
		return failed("")
	}
	if dev != "" {
		idx, found := int32(0), false
		if env.Links != nil {
			idx, found = env.Links.Index(dev)
		}
		if !found {
			return failed("Cannot find device \"" + dev + "\"")
		}
		p.Ifindex = uint32(idx)
	}
	if p.Eaction == mirredEgressMirror || p.Eaction == mirredIngressMirror {
		code, rest, err := parseActionControlDefault(args, actPipe, env.Stderr)
		if err != nil {
			return nil, args, err
		}
		p.Action, args = code, rest
	}
	if len(args) > 0 && tcfmt.Matches(args[0], "index") {
		if indexed > 0 {
			return failed("mirred: Illegal double index")
		}
		if len(args) < 2 {
			return nil, args, tcword.IncompleteCommand()
		}
		v, err := tcfmt.ParseUint(args[1], 10, 32)
		if err != nil {
			return failed(`mirred: Illegal "index"`)
		}
		p.Index = uint32(v)
		args = args[2:]
	}
	if block != 0 {
		o.Blockid = &block
	}
	return o, args, nil
}

// printMirred is m_mirred.c's print_mirred up to its last line's end.
func printMirred(p *tcfmt.Printer, opts attrs.ActOptionsMsg, links tckind.Links) {
	p.String(tcfmt.Any, "kind", "%s ", "mirred")
	o, ok := opts.(*attrs.ActMirredAttrs)
	if !ok || o.Parms == nil {
		return
	}
	parms := o.Parms
	k, known := mirredKinds[parms.Eaction]
	if !known {
		k.text, k.action, k.direction = "unknown", "unknown", "unknown"
	}
	p.String(tcfmt.FP, "", "(%s", k.text)
	p.String(tcfmt.JSON, "mirred_action", "", k.action)
	p.String(tcfmt.JSON, "direction", "", k.direction)
	if o.Blockid != nil {
		p.Uint(tcfmt.Any, "to_blockid", " to blockid %u)", uint64(*o.Blockid))
	} else {
		dev := "*"
		if links != nil {
			dev = links.Name(int32(parms.Ifindex))
		}
		p.String(tcfmt.Any, "to_dev", " to device %s)", dev)
	}
	printActionControl(p, " ", parms.Action, "")
	p.NL()
	p.Uint(tcfmt.Any, "index", "\tindex %u", uint64(parms.Index))
	p.Int(tcfmt.Any, "ref", " ref %d", int64(parms.Refcnt))
	p.Int(tcfmt.Any, "bind", " bind %d", int64(parms.Bindcnt))
}

func printMirredStats(p *tcfmt.Printer, opts attrs.ActOptionsMsg) {
	if o, ok := opts.(*attrs.ActMirredAttrs); ok && o.Parms != nil && o.Tm != nil {
		printTm(p, o.Tm)
	}
}

// mirredKeywords is ActionKind.Keywords for mirred: its direction and
// action, then the device, or the shared block, it sends to.
func mirredKeywords(opts attrs.ActOptionsMsg, links tckind.Links) ([]string, error) {
	o, _ := opts.(*attrs.ActMirredAttrs)
	if o == nil || o.Parms == nil {
		return nil, tckind.NoKeywords("mirred without its parameters")
	}
	p := o.Parms
	names := map[int32][2]string{
		mirredEgressRedir: {"egress", "redirect"}, mirredEgressMirror: {"egress", "mirror"},
		mirredIngressRedir: {"ingress", "redirect"}, mirredIngressMirror: {"ingress", "mirror"},
	}
	n, ok := names[p.Eaction]
	if !ok {
		return nil, tckind.NoKeywords(fmt.Sprintf("mirred action %d", p.Eaction))
	}
	w := []string{n[0], n[1], "dev", links.Name(int32(p.Ifindex))}
	if o.Blockid != nil {
		w = []string{n[0], n[1], "blockid", tcword.UintWord(*o.Blockid)}
	}
	dflt := int32(actStolen)
	if n[1] == "mirror" {
		dflt = actPipe
	}
	return controlWords(w, p.Action, dflt)
}
