// SPDX-License-Identifier: Apache-2.0

package filter

// The matchall filter (net/sched/cls_matchall.c): every packet matches; it
// goes to one class, or through a list of actions.

import (
	"fmt"

	"github.com/gotc/gotc/action"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

const matchallUsage = `Usage: ... matchall [skip_sw | skip_hw]
                 [ action ACTION_SPEC ] [ classid CLASSID ]

Where: SELECTOR := SAMPLE SAMPLE ...
       FILTERID := X:Y:Z
       ACTION_SPEC := ... look at individual actions

NOTE: CLASSID is parsed as hexadecimal input.`

func init() {
	tckind.LazilyFilters(func() {
		tckind.MustRegisterFilter(&tckind.Filter{
			Name:         "matchall",
			NoChange:     true,
			Usage:        matchallUsage,
			Parse:        parseMatchall,
			PrintOptions: printMatchall,
			Keywords:     matchallKeywords,
		})
	}, "matchall")
}

// parseMatchall is f_matchall.c's matchall_parse_opt. As there, skip_hw and
// skip_sw must be followed by another word, and "action" starts a list
// that runs to "classid", "flowid" or the end.
func parseMatchall(args []string, env tckind.FilterEnv) (attrs.TCOptionsMsg, uint32, error) {
	handle, err := numericFilterHandle(env.Handle)
	if err != nil {
		return nil, 0, err
	}
	o, err := parseMatchallOptions(args, env)
	return o, handle, err
}

func parseMatchallOptions(args []string, env tckind.FilterEnv) (attrs.TCOptionsMsg, error) {
	if len(args) == 0 {
		// No TCA_OPTIONS at all, as tc sends a delete naming the kind.
		return nil, nil
	}
	o := &attrs.MatchallAttrs{}
	var flags uint32
	for len(args) > 0 {
		switch {
		case tcfmt.Matches(args[0], "classid"), args[0] == "flowid":
			id, rest, err := classIDAt(args)
			if err != nil {
				return nil, err
			}
			o.Classid, args = &id, rest
		case tcfmt.Matches(args[0], "action"):
			if len(args) < 2 {
				return nil, tcword.IncompleteCommand()
			}
			acts, rest, err := action.ParseActions(args[1:], env.ActionEnv)
			if err != nil {
				return nil, err
			}
			o.Act = append(o.Act, acts...)
			args = rest
		case args[0] == "skip_hw", args[0] == "skip_sw":
			if len(args) < 2 {
				return nil, tcword.IncompleteCommand()
			}
			if args[0] == "skip_hw" {
				flags |= clsFlagSkipHW
			} else {
				flags |= clsFlagSkipSW
			}
			args = args[1:]
		case args[0] == "help":
			return nil, &tcword.ParseError{Msg: matchallUsage}
		default:
			return nil, tcword.UsageErrorf("What is %q?", args[0])
		}
	}
	if flags == clsFlagSkipHW|clsFlagSkipSW {
		return nil, tcword.Errorf("skip_hw and skip_sw are mutually exclusive")
	}
	if flags != 0 {
		o.Flags = &flags
	}
	return o, nil
}

// printMatchall is f_matchall.c's matchall_print_opt.
func printMatchall(p *tcfmt.Printer, opts attrs.TCOptionsMsg, f tckind.FilterPrint) {
	o, ok := opts.(*attrs.MatchallAttrs)
	if !ok {
		return
	}
	if f.Handle != 0 {
		p.Uint(tcfmt.Any, "handle", "handle 0x%x ", uint64(f.Handle))
	}
	if o.Classid != nil {
		p.String(tcfmt.Any, "flowid", "flowid %s ", tcfmt.FormatClassID(*o.Classid))
	}
	if o.Flags != nil {
		fl := *o.Flags
		if fl&clsFlagSkipHW != 0 {
			p.Bool(tcfmt.Any, "skip_hw", "\n  skip_hw", true)
		}
		if fl&clsFlagSkipSW != 0 {
			p.Bool(tcfmt.Any, "skip_sw", "\n  skip_sw", true)
		}
		if fl&clsFlagInHW != 0 {
			p.Bool(tcfmt.Any, "in_hw", "\n  in_hw", true)
		} else if fl&clsFlagNotHW != 0 {
			p.Bool(tcfmt.Any, "not_in_hw", "\n  not_in_hw", true)
		}
	}
	if f.Stats && o.Pcnt != nil {
		p.Uint(tcfmt.Any, "rule_hit", " (rule hit %llu)", o.Pcnt.Rhit)
	}
	if o.Act != nil {
		action.PrintActions(p, o.Act, action.ActionPrint{Stats: f.Stats, Bind: true, FirstOrder: 1, Links: f.Links})
	}
}

// matchallKeywords is FilterKind.Keywords for matchall.
func matchallKeywords(opts attrs.TCOptionsMsg, links tckind.Links) ([]string, error) {
	o, ok := opts.(*attrs.MatchallAttrs)
	if !ok {
		return nil, tckind.NoKeywords(fmt.Sprintf("matchall options of type %T", opts))
	}
	w, err := filterFlagWords(o.Flags)
	if err != nil {
		return nil, err
	}
	return tckind.ActionListKeywords(classidWords(w, o.Classid), o.Act, links)
}
