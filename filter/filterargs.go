// SPDX-License-Identifier: Apache-2.0

package filter

// Readers that the fw, route and flow filters share for their option
// loops, which walk the words themselves because an action list takes an
// unknown number of them; and the handle and words that basic and cgroup
// read alike (tc's f_basic.c and f_cgroup.c).

import (
	"math"
	"strings"

	"github.com/gotc/gotc/action"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/ematch"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// nextWord is tc's NEXT_ARG over a list being consumed: it takes the
// first word of *args, or fails as tc does when the keyword ended the
// line.
func nextWord(args *[]string) (string, error) {
	if len(*args) == 0 {
		return "", tcword.IncompleteCommand()
	}
	w := (*args)[0]
	*args = (*args)[1:]
	return w, nil
}

// classIDArg reads a classid or flowid value (get_tc_classid); otherwise
// `Illegal "classid"`.
func classIDArg(value tcword.ValueFunc) (uint32, error) {
	v, err := value()
	if err != nil {
		return 0, err
	}
	id, perr := tcfmt.ParseClassID(v)
	if perr != nil {
		return 0, tcword.Errorf(`Illegal "classid"`)
	}
	return id, nil
}

// classIDAt reads the value of the classid or flowid keyword at args[0]
// (classIDArg) and returns the words after it.
func classIDAt(args []string) (uint32, []string, error) {
	rest := args[1:]
	id, err := classIDArg(func() (string, error) { return nextWord(&rest) })
	return id, rest, err
}

// indevName is the name u32's and fw's "indev" sends: what tc copies of
// its argument, the bytes before a NUL (a C argv has none after it) and at
// most IFNAMSIZ of them.
func indevName(arg string) string {
	if i := strings.IndexByte(arg, 0); i >= 0 {
		arg = arg[:i]
	}
	const ifNameSize = 16
	if len(arg) > ifNameSize {
		arg = arg[:ifNameSize]
	}
	return arg
}

// filterActions reads the action list after a filter's "action" keyword
// from *args and leaves there the words after it. ParseActions' refusals
// end with the line the filter adds.
func filterActions(args *[]string, env tckind.FilterEnv) ([]attrs.ActAttrs, error) {
	if len(*args) == 0 {
		return nil, tcword.IncompleteCommand()
	}
	acts, rest, err := action.ParseActions(*args, env.ActionEnv)
	if err != nil {
		return nil, err
	}
	*args = rest
	return acts, nil
}

// filterPolice is filterActions for tc's "police" option: the loop has
// taken the keyword w, which ParseFilterPolice reads with the words after
// it; *args goes on after the police.
func filterPolice(w string, args *[]string) (*attrs.ActPoliceAttrs, error) {
	police, rest, err := action.ParseFilterPolice(append([]string{w}, *args...))
	if err != nil {
		return nil, err
	}
	*args = rest
	return police, nil
}

// policeOrActions reads what follows w, a filter's "police" or "action"
// keyword (abbreviated or not) just taken from *args: the police option
// into *police, or an action list onto *acts. *args goes on after it.
func policeOrActions(w string, args *[]string, env tckind.FilterEnv, police **attrs.ActPoliceAttrs, acts *[]attrs.ActAttrs) error {
	if tcfmt.Matches(w, "police") {
		p, err := filterPolice(w, args)
		if err != nil {
			return err
		}
		*police = p
		return nil
	}
	a, err := filterActions(args, env)
	if err != nil {
		return err
	}
	*acts = append(*acts, a...)
	return nil
}

// Filter flags (TCA_CLS_FLAGS_*, linux/pkt_cls.h).
const (
	clsFlagSkipHW = 1 << 0
	clsFlagSkipSW = 1 << 1
	clsFlagInHW   = 1 << 2
	clsFlagNotHW  = 1 << 3
)

// numericFilterHandle reads a handle as most filter kinds do (get_u32 of
// any base), 0 when none was given.
func numericFilterHandle(s string) (uint32, error) {
	if s == "" {
		return 0, nil
	}
	v, err := tcfmt.ParseUint(s, 0, 32)
	if err != nil {
		return 0, tcword.Errorf(`Illegal "handle"`)
	}
	return uint32(v), nil
}

// filterFlagWords writes the flags a request may carry (skip_hw,
// skip_sw); the kernel adds its own (in_hw, not_in_hw) to a dump.
func filterFlagWords(flags *uint32) ([]string, error) {
	if flags == nil {
		return nil, nil
	}
	switch *flags & (clsFlagSkipHW | clsFlagSkipSW) {
	case clsFlagSkipHW:
		return []string{"skip_hw"}, nil
	case clsFlagSkipSW:
		return []string{"skip_sw"}, nil
	case 0:
		return nil, nil
	}
	return nil, tckind.NoKeywords("skip_hw with skip_sw")
}

func classidWords(w []string, classid *uint32) []string {
	if classid == nil {
		return w
	}
	return append(w, "classid", tcword.ClassIDWord(*classid))
}

// policeActionWords appends a filter's police option and its actions, in
// the forms its parser reads them (filterPolice, filterActions).
func policeActionWords(w []string, police *attrs.ActPoliceAttrs, acts []attrs.ActAttrs, links tckind.Links) ([]string, error) {
	if police != nil {
		pw, err := action.FilterPoliceKeywords(police)
		if err != nil {
			return nil, err
		}
		w = append(w, pw...)
	}
	return tckind.ActionListKeywords(w, acts, links)
}

// matchWords puts a filter's extended matches ("match EXPR") before rest,
// its other words. tc gives the word after the expression back to the
// filter, and the expression's own last word when it ends the command,
// which the filter then refuses: without other words the tree has none.
func matchWords(tree *attrs.EmatchAttrs, rest []string) ([]string, error) {
	m, err := ematch.Keywords(tree)
	if err != nil || m == nil {
		return rest, err
	}
	if len(rest) == 0 {
		return nil, tckind.NoKeywords("ematches without another option after them, where tc would read the expression's last word again")
	}
	return append(m, rest...), nil
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
			id, rest, err := classIDAt(args)
			if err != nil {
				return f, err
			}
			f.classid, args = &id, rest
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
