// SPDX-License-Identifier: Apache-2.0

package action

// The simple action (net/sched/act_simple.c): logs its string for every
// packet, then gives its verdict (pipe unless told), as tc 7.3's m_simple.c
// reads and prints it.

import (
	"bytes"
	"fmt"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// simpleMaxData is SIMP_MAX_DATA: the string's buffer, its NUL included.
const simpleMaxData = 32

// simpleUsage is tc's text, which has no blank after "Usage:".
const simpleUsage = `Usage:... simple [sdata STRING] [index INDEX] [CONTROL]
	STRING being an arbitrary string
	INDEX := optional index value used
	CONTROL := reclassify|pipe|drop|continue|ok`

func init() {
	tckind.LazilyActions(func() {
		tckind.MustRegisterAction(&tckind.Action{
			Name:     "simple",
			Usage:    simpleUsage,
			Parse:    parseSimple,
			Print:    printSimple,
			Keywords: simpleKeywords,
			PrintStats: func(p *tcfmt.Printer, opts attrs.ActOptionsMsg) {
				if o, ok := opts.(*attrs.ActSimpleAttrs); ok && o.Parms != nil && o.Data != nil && o.Tm != nil {
					printTm(p, o.Tm)
				}
			},
		})
	}, "simple")
}

// parseSimple is m_simple.c's parse_simple: [simple] [sdata STRING]
// [CONTROL] [index N], at least one of sdata and index.
func parseSimple(args []string, env tckind.ActionEnv) (attrs.ActOptionsMsg, []string, error) {
	sel := &attrs.TCDefact{}
	var data string
	ok, hasData := 0, false
	for len(args) > 0 {
		w := args[0]
		switch {
		case tcfmt.Matches(w, "simple"):
			if len(args) < 2 {
				return nil, args, tcword.IncompleteCommand()
			}
			args = args[1:]
			continue
		case tcfmt.Matches(w, "sdata"):
			if len(args) < 2 {
				return nil, args, tcword.IncompleteCommand()
			}
			data, hasData = args[1], true
			ok++
			args = args[2:]
			continue
		case tcfmt.Matches(w, "help"):
			return nil, args, &tcword.ParseError{Msg: simpleUsage, Code: 255}
		}
		break
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
			return nil, args, tcword.Errorf(`simple: Illegal "index" (%s)`, args[1])
		}
		sel.Index = uint32(v)
		ok++
		args = args[2:]
	}
	if ok == 0 {
		return nil, args, tcword.Errorf("%s", simpleUsage)
	}
	o := &attrs.ActSimpleAttrs{Parms: sel}
	if hasData {
		if len(data) > simpleMaxData-1 {
			return nil, args, tcword.Errorf("simple: Illegal string len %d <%s>", len(data), data)
		}
		// tc sends the whole buffer; the kernel keeps the string.
		buf := make([]byte, simpleMaxData)
		copy(buf, data)
		o.Data = buf
	}
	return o, args, nil
}

// printSimple is m_simple.c's print_simple up to its last line's end. It
// prints no kind, in text or JSON, and nothing without both the
// parameters and the string.
func printSimple(p *tcfmt.Printer, opts attrs.ActOptionsMsg, _ tckind.Links) {
	o, ok := opts.(*attrs.ActSimpleAttrs)
	if !ok || o.Parms == nil || o.Data == nil {
		return
	}
	data := o.Data
	if i := bytes.IndexByte(data, 0); i >= 0 {
		data = data[:i]
	}
	p.String(tcfmt.Any, "simple", "Simple <%s>", string(data))
	p.NL()
	p.Uint(tcfmt.Any, "index", "\t index %u ", uint64(o.Parms.Index))
	p.Int(tcfmt.Any, "ref", "ref %d ", int64(o.Parms.Refcnt))
	p.Int(tcfmt.Any, "bind", "bind %d", int64(o.Parms.Bindcnt))
}

// simpleKeywords is Action.Keywords for simple: its string (the dump's
// up to its NUL) and verdict.
func simpleKeywords(opts attrs.ActOptionsMsg, _ tckind.Links) ([]string, error) {
	o, _ := opts.(*attrs.ActSimpleAttrs)
	if o == nil || o.Parms == nil || o.Data == nil {
		return nil, tckind.NoKeywords("simple without parameters or string")
	}
	data := o.Data
	if i := bytes.IndexByte(data, 0); i >= 0 {
		data = data[:i]
	}
	if len(data) > simpleMaxData-1 {
		return nil, tckind.NoKeywords(fmt.Sprintf("simple string of %d bytes", len(data)))
	}
	return controlWords([]string{"sdata", string(data)}, o.Parms.Action, actPipe)
}
