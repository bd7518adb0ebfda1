// SPDX-License-Identifier: Apache-2.0

package filter

// The cgroup filter (net/sched/cls_cgroup.c): a packet whose socket is in
// a net_cls cgroup goes to the class the cgroup names, if it passes the
// filter's extended matches; its actions run on it. As tc 7.3's f_cgroup.c
// reads and prints it. A parent has one cgroup filter, which needs a
// handle.

import (
	"fmt"

	"github.com/gotc/gotc/action"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/ematch"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

const cgroupUsage = `Usage: ... cgroup [ match EMATCH_TREE ]
                  [ action ACTION_SPEC ]`

func init() {
	tckind.LazilyFilters(func() {
		tckind.MustRegisterFilter(&tckind.Filter{
			Name:         "cgroup",
			Usage:        cgroupUsage,
			Parse:        parseCgroup,
			PrintOptions: printCgroup,
			Keywords:     cgroupKeywords,
		})
	}, "cgroup")
}

// parseCgroup is f_cgroup.c's cgroup_parse_opt. Unlike basic's, its
// options are sent even when the command has none.
func parseCgroup(args []string, env tckind.FilterEnv) (attrs.TCOptionsMsg, uint32, error) {
	f, err := parseMatchFilter(args, env, cgroupUsage, false)
	if err != nil {
		return nil, 0, err
	}
	return &attrs.CgroupAttrs{Ematches: f.ematches, Act: f.act, Police: f.police}, f.handle, nil
}

// printCgroup is f_cgroup.c's cgroup_print_opt; it prints no counters of
// its own, even with -s.
func printCgroup(p *tcfmt.Printer, opts attrs.TCOptionsMsg, f tckind.FilterPrint) {
	o, ok := opts.(*attrs.CgroupAttrs)
	if !ok {
		return
	}
	if f.Handle != 0 {
		p.Hex0x(tcfmt.Any, "handle", "handle %#llx ", uint64(f.Handle))
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

// cgroupKeywords is FilterKind.Keywords for cgroup.
func cgroupKeywords(opts attrs.TCOptionsMsg, links tckind.Links) ([]string, error) {
	o, ok := opts.(*attrs.CgroupAttrs)
	if !ok {
		return nil, tckind.NoKeywords(fmt.Sprintf("cgroup options of type %T", opts))
	}
	w, err := policeActionWords(nil, o.Police, o.Act, links)
	if err != nil {
		return nil, err
	}
	return matchWords(o.Ematches, w)
}
