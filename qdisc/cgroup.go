package qdisc

// The cgroup filter (net/sched/cls_cgroup.c): a packet whose socket is in
// a net_cls cgroup goes to the class the cgroup names, if it passes the
// filter's extended matches; its actions run on it. As tc 7.3's f_cgroup.c
// reads and prints it. A parent has one cgroup filter, which needs a
// handle.

import (
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/tcfmt"
)

const cgroupUsage = `Usage: ... cgroup [ match EMATCH_TREE ]
                  [ action ACTION_SPEC ]`

func init() {
	mustRegisterFilter(&FilterKind{
		Name:         "cgroup",
		Usage:        cgroupUsage,
		Parse:        parseCgroup,
		PrintOptions: printCgroup,
	})
}

// parseCgroup is f_cgroup.c's cgroup_parse_opt. Unlike basic's, its
// options are sent even when the command has none.
func parseCgroup(args []string, env FilterEnv) (attrs.TCOptionsMsg, uint32, error) {
	var handle uint32
	if env.Handle != "" {
		h, err := basicHandle(env.Handle)
		if err != nil {
			return nil, 0, err
		}
		handle = h
	}
	o := &attrs.CgroupAttrs{}
	for len(args) > 0 {
		switch w := args[0]; {
		case tcfmt.Matches(w, "match"):
			if len(args) < 2 {
				return nil, 0, incompleteCommand()
			}
			tree, rest, err := parseEmatch(args[1:], env.Stderr)
			if err != nil {
				return nil, 0, err
			}
			if tree != nil {
				o.Ematches = tree
			}
			args = rest
		case tcfmt.Matches(w, "action"):
			args = args[1:]
			acts, err := filterActions(&args, env)
			if err != nil {
				return nil, 0, err
			}
			o.Act = append(o.Act, acts...)
		case tcfmt.Matches(w, "police"):
			args = args[1:]
			police, err := filterPolice(w, &args)
			if err != nil {
				return nil, 0, err
			}
			o.Police = police
		case w == "help":
			return nil, 0, &ParseError{Msg: cgroupUsage}
		default:
			return nil, 0, errorf("What is \"%s\"?\n%s", w, cgroupUsage)
		}
	}
	return o, handle, nil
}

// printCgroup is f_cgroup.c's cgroup_print_opt; it prints no counters of
// its own, even with -s.
func printCgroup(p *tcfmt.Printer, opts attrs.TCOptionsMsg, f FilterPrint) {
	o, ok := opts.(*attrs.CgroupAttrs)
	if !ok {
		return
	}
	if f.Handle != 0 {
		p.Hex0x(tcfmt.Any, "handle", "handle %#llx ", uint64(f.Handle))
	}
	printEmatch(p, o.Ematches)
	if o.Police != nil {
		p.NL()
		PrintFilterPolice(p, o.Police, f.Stats)
	}
	if o.Act != nil {
		PrintActions(p, o.Act, ActionPrint{Stats: f.Stats, Bind: true, FirstOrder: 1, Links: f.Links})
	}
}
