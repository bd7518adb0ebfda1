// SPDX-License-Identifier: Apache-2.0

package filter

// The basic filter (net/sched/cls_basic.c): packets that pass its extended
// matches (all packets, without any) go to a class or through its actions,
// as tc 7.3's f_basic.c reads and prints it.

import (
	"fmt"
	"math"

	"github.com/gotc/gotc/action"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/ematch"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

const basicUsage = `Usage: ... basic [ match EMATCH_TREE ]
                 [ action ACTION_SPEC ] [ classid CLASSID ]

Where:	SELECTOR := SAMPLE SAMPLE ...
	FILTERID := X:Y:Z
	ACTION_SPEC := ... look at individual actions

NOTE: CLASSID is parsed as hexadecimal input.`

func init() {
	tckind.LazilyFilters(func() {
		tckind.MustRegisterFilter(&tckind.Filter{
			Name:         "basic",
			Usage:        basicUsage,
			Parse:        parseBasic,
			PrintOptions: printBasic,
			Keywords:     basicKeywords,
		})
	}, "basic")
}

// basicHandle reads a handle as f_basic.c does, with strtol and no check
// of what follows the number: "12abc" is 12 and "x" is 0; only a value
// strtol saturates on is refused. The handle is the low 32 bits.
func basicHandle(s string) (uint32, error) {
	v, _, _ := tcfmt.Strtol(s, 0)
	if v == math.MaxInt64 || v == math.MinInt64 {
		return 0, tcword.Errorf("Illegal handle %q, must be numeric.", s)
	}
	return uint32(v), nil
}

// parseBasic is f_basic.c's basic_parse_opt.
func parseBasic(args []string, env tckind.FilterEnv) (attrs.TCOptionsMsg, uint32, error) {
	f, err := parseMatchFilter(args, env, basicUsage, true)
	if err != nil {
		return nil, 0, err
	}
	if len(args) == 0 {
		return nil, f.handle, nil
	}
	return &attrs.BasicAttrs{Classid: f.classid, Ematches: f.ematches, Act: f.act, Police: f.police}, f.handle, nil
}

// matchFilter is what basic's and cgroup's words set: both filters read
// the same keywords, but cgroup has no class.
type matchFilter struct {
	handle   uint32
	classid  *uint32
	ematches *attrs.EmatchAttrs
	act      []attrs.ActAttrs
	police   *attrs.ActPoliceAttrs
}

// parseMatchFilter reads the handle and words of basic (withClass) or
// cgroup; usage is the kind's, for "help" and unknown words.
func parseMatchFilter(args []string, env tckind.FilterEnv, usage string, withClass bool) (matchFilter, error) {
	var f matchFilter
	if env.Handle != "" {
		h, err := basicHandle(env.Handle)
		if err != nil {
			return f, err
		}
		f.handle = h
	}
	for len(args) > 0 {
		switch w := args[0]; {
		case tcfmt.Matches(w, "match"):
			if len(args) < 2 {
				return f, tcword.IncompleteCommand()
			}
			// A second tree replaces the first, as the kernel takes the
			// last of the two tc sends.
			tree, rest, err := ematch.ParseEmatch(args[1:], env.Stderr)
			if err != nil {
				return f, err
			}
			if tree != nil {
				f.ematches = tree
			}
			args = rest
		case withClass && (tcfmt.Matches(w, "classid") || w == "flowid"):
			if len(args) < 2 {
				return f, tcword.IncompleteCommand()
			}
			id, err := tcfmt.ParseClassID(args[1])
			if err != nil {
				return f, tcword.Errorf(`Illegal "classid"`)
			}
			f.classid = &id
			args = args[2:]
		case tcfmt.Matches(w, "action"), tcfmt.Matches(w, "police"):
			args = args[1:]
			if err := policeOrActions(w, &args, env, &f.police, &f.act); err != nil {
				return f, err
			}
		case w == "help":
			return f, &tcword.ParseError{Msg: usage}
		default:
			return f, tcword.Errorf("What is \"%s\"?\n%s", w, usage)
		}
	}
	return f, nil
}

// printBasic is f_basic.c's basic_print_opt; it prints no counters, even
// with -s.
func printBasic(p *tcfmt.Printer, opts attrs.TCOptionsMsg, f tckind.FilterPrint) {
	o, ok := opts.(*attrs.BasicAttrs)
	if !ok {
		return
	}
	if f.Handle != 0 {
		p.Hex(tcfmt.Any, "handle", "handle 0x%x ", f.Handle)
	}
	if o.Classid != nil {
		p.String(tcfmt.Any, "flowid", "flowid %s ", tcfmt.FormatClassID(*o.Classid))
	}
	ematch.PrintEmatch(p, o.Ematches)
	if o.Police != nil {
		p.NL()
		action.PrintFilterPolice(p, o.Police, f.Stats)
	}
	if o.Act != nil {
		action.PrintActions(p, o.Act, action.ActionPrint{Stats: f.Stats, Bind: true, FirstOrder: 1, Links: f.Links})
	}
}

// basicKeywords is FilterKind.Keywords for basic.
func basicKeywords(opts attrs.TCOptionsMsg, links tckind.Links) ([]string, error) {
	o, ok := opts.(*attrs.BasicAttrs)
	if !ok {
		return nil, tckind.NoKeywords(fmt.Sprintf("basic options of type %T", opts))
	}
	w, err := policeActionWords(classidWords(nil, o.Classid), o.Police, o.Act, links)
	if err != nil {
		return nil, err
	}
	return matchWords(o.Ematches, w)
}
