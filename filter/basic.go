// SPDX-License-Identifier: Apache-2.0

package filter

// The basic filter (net/sched/cls_basic.c): packets that pass its extended
// matches (all packets, without any) go to a class or through its actions,
// as tc 7.3's f_basic.c reads and prints it.

import (
	"fmt"

	"github.com/gotc/gotc/action"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/ematch"
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
