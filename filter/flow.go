// SPDX-License-Identifier: Apache-2.0

package filter

// The flow filter (net/sched/cls_flow.c): the class of a packet is
// computed from its keys (addresses, ports, mark, conntrack fields...): in
// map mode one key goes through and/or/xor, a right shift and an addend,
// in hash mode several are hashed; the result, modulo the divisor, is
// added to the base class. Keywords and output follow tc 7.3's f_flow.c.

import (
	"fmt"
	"strings"

	"github.com/gotc/gotc/action"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/ematch"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

const flowUsage = `Usage: ... flow ...

 [mapping mode]: map key KEY [ OPS ] ...
 [hashing mode]: hash keys KEY-LIST ... [ perturb SECS ]

                 [ divisor NUM ] [ baseclass ID ] [ match EMATCH_TREE ]
                 [ action ACTION_SPEC ]

KEY-LIST := [ KEY-LIST , ] KEY
KEY      := [ src | dst | proto | proto-src | proto-dst | iif | priority |
              mark | nfct | nfct-src | nfct-dst | nfct-proto-src |
              nfct-proto-dst | rt-classid | sk-uid | sk-gid |
              vlan-tag | rxhash ]
OPS      := [ or NUM | and NUM | xor NUM | rshift NUM | addend NUM ]
ID       := X:Y`

// FLOW_MODE_* (linux/pkt_cls.h).
const (
	flowModeMap  = 0
	flowModeHash = 1
)

// flowKeys are the FLOW_KEY_* names, by bit number (linux/pkt_cls.h).
var flowKeys = [...]string{
	"src", "dst", "proto", "proto-src", "proto-dst", "iif", "priority",
	"mark", "nfct", "nfct-src", "nfct-dst", "nfct-proto-src",
	"nfct-proto-dst", "rt-classid", "sk-uid", "sk-gid", "vlan-tag", "rxhash",
}

// flowAddrKeys are the keys for which tc reads an addend that is not a
// number as an address. tc means src, dst, nfct-src and nfct-dst, but it
// ORs their numbers (0, 1, 9, 10) rather than their bits, so the keys
// that count are bits 0, 1 and 3: src, dst and proto-src.
const flowAddrKeys = 0 | 1 | 9 | 10

func init() {
	tckind.LazilyFilters(func() {
		tckind.MustRegisterFilter(&tckind.Filter{
			Name:         "flow",
			Usage:        flowUsage,
			Parse:        parseFlow,
			PrintOptions: printFlow,
			Keywords:     flowKeywords,
		})
	}, "flow")
}

// parseFlowKeys is flow_parse_keys: a comma-separated list of keys, each
// possibly abbreviated (the first key it abbreviates wins).
func parseFlowKeys(s string) (keys, n uint32, err error) {
	for name := range strings.SplitSeq(s, ",") {
		i := 0
		for i < len(flowKeys) && !tcfmt.Matches(name, flowKeys[i]) {
			i++
		}
		if i == len(flowKeys) {
			return 0, 0, tcword.Errorf("Unknown flow key \"%s\"", name)
		}
		keys |= 1 << i
		n++
	}
	return keys, n, nil
}

// flowAddend is get_addend: an optional '-', then a number, or for the
// address keys an address whose last word is taken; the '-' negates it.
func flowAddend(s string, keys uint32) (uint32, error) {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	v, err := tcfmt.ParseUint(s, 0, 32)
	if err != nil {
		if keys&flowAddrKeys == 0 {
			return 0, tcword.Errorf(`Illegal "addend"`)
		}
		// tc's get_addr takes these as an address of no family, which
		// get_addend then refuses.
		if s == "default" || s == "any" || s == "all" {
			return 0, tcword.Errorf(`Illegal "addend"`)
		}
		// tc's get_addr exits on anything that is not an address.
		a, aerr := tcword.ParseAddr(s, strings.Contains(s, ":"))
		if aerr != nil {
			return 0, tcword.Errorf("Error: any valid address is expected rather than \"%s\".", s)
		}
		b := a.As16()
		v = uint64(tcword.Be32([4]byte(b[12:])))
	}
	t := uint32(v)
	if neg {
		t = -t
	}
	return t, nil
}

// parseFlow is f_flow.c's flow_parse_opt. tc always sends TCA_OPTIONS,
// with the mode, and the mask and xor into which it folds the and, or
// and xor operations when they change anything.
func parseFlow(args []string, env tckind.FilterEnv) (attrs.TCOptionsMsg, uint32, error) {
	handle, err := numericFilterHandle(env.Handle)
	if err != nil {
		return nil, 0, err
	}
	o := &attrs.FlowAttrs{}
	mode := uint32(flowModeMap)
	mask, xor := ^uint32(0), uint32(0)
	var keys, nkeys uint32
	// op folds x AND m XOR v into the operations so far.
	op := func(m, v uint32) {
		xor = v ^ xor&m
		mask &= m
	}
	for len(args) > 0 {
		w := args[0]
		args = args[1:]
		value := func() (string, error) { return nextWord(&args) }
		u32 := func(kw string) (*uint32, error) {
			v, err := tcword.UintArg(kw, value)
			return &v, err
		}
		switch {
		case tcfmt.Matches(w, "map"):
			mode = flowModeMap
		case tcfmt.Matches(w, "hash"):
			mode = flowModeHash
		case tcfmt.Matches(w, "keys"):
			v, err := value()
			if err != nil {
				return nil, 0, err
			}
			if keys, nkeys, err = parseFlowKeys(v); err != nil {
				return nil, 0, err
			}
			k := keys
			o.Keys = &k
		case tcfmt.Matches(w, "and"):
			// tc names the value a mask here.
			v, err := tcword.UintArg("mask", value)
			if err != nil {
				return nil, 0, err
			}
			op(v, 0)
		case tcfmt.Matches(w, "or"):
			v, err := tcword.UintArg("or", value)
			if err != nil {
				return nil, 0, err
			}
			op(^v, v)
		case tcfmt.Matches(w, "xor"):
			v, err := tcword.UintArg("xor", value)
			if err != nil {
				return nil, 0, err
			}
			op(^uint32(0), v)
		case tcfmt.Matches(w, "rshift"):
			if o.Rshift, err = u32("rshift"); err != nil {
				return nil, 0, err
			}
		case tcfmt.Matches(w, "addend"):
			v, err := value()
			if err != nil {
				return nil, 0, err
			}
			a, err := flowAddend(v, keys)
			if err != nil {
				return nil, 0, err
			}
			o.Addend = &a
		case tcfmt.Matches(w, "divisor"):
			if o.Divisor, err = u32("divisor"); err != nil {
				return nil, 0, err
			}
		case tcfmt.Matches(w, "baseclass"):
			v, err := value()
			if err != nil {
				return nil, 0, err
			}
			id, perr := tcfmt.ParseClassID(v)
			if perr != nil || id&0xffff == 0 {
				return nil, 0, tcword.Errorf(`Illegal "baseclass"`)
			}
			o.Baseclass = &id
		case tcfmt.Matches(w, "perturb"):
			if o.Perturb, err = u32("perturb"); err != nil {
				return nil, 0, err
			}
		case tcfmt.Matches(w, "police"), tcfmt.Matches(w, "action"):
			if err := policeOrActions(w, &args, env, &o.Police, &o.Act); err != nil {
				return nil, 0, err
			}
		case tcfmt.Matches(w, "match"):
			if len(args) < 1 {
				return nil, 0, tcword.IncompleteCommand()
			}
			tree, rest, err := ematch.ParseEmatch(args, env.Stderr)
			if err != nil {
				return nil, 0, err
			}
			if tree != nil {
				o.Ematches = tree
			}
			args = rest
		case tcfmt.Matches(w, "help"):
			return nil, 0, &tcword.ParseError{Msg: flowUsage}
		default:
			return nil, 0, tcword.Errorf("What is \"%s\"?\n%s", w, flowUsage)
		}
	}
	if nkeys > 1 && mode != flowModeHash {
		return nil, 0, tcword.Errorf(`Invalid mode "map" for multiple keys`)
	}
	o.Mode = &mode
	if mask != ^uint32(0) || xor != 0 {
		o.Mask, o.Xor = &mask, &xor
	}
	return o, handle, nil
}

// printFlow is f_flow.c's flow_print_opt. The mask and xor are printed
// back as the and, xor and or that give them.
func printFlow(p *tcfmt.Printer, opts attrs.TCOptionsMsg, f tckind.FilterPrint) {
	o, ok := opts.(*attrs.FlowAttrs)
	if !ok {
		return
	}
	p.Hex0x(tcfmt.Any, "handle", "handle %#llx ", uint64(f.Handle))
	if o.Mode != nil {
		var mode string
		switch *o.Mode {
		case flowModeMap:
			mode = "map"
		case flowModeHash:
			mode = "hash"
		default:
			mode = fmt.Sprintf("%#x", *o.Mode)
		}
		p.String(tcfmt.Any, "mode", "%s ", mode)
	}
	if o.Keys != nil {
		p.OpenArray(tcfmt.Any, "keys")
		sep := " "
		for i, name := range flowKeys {
			if *o.Keys&(1<<i) != 0 {
				p.Text(sep)
				p.String(tcfmt.Any, "", "%s", name)
				sep = ","
			}
		}
		p.CloseArray(tcfmt.Any, " ")
	}
	mask, val := ^uint32(0), uint32(0)
	if o.Mask != nil {
		mask = *o.Mask
	}
	if o.Xor != nil {
		val = *o.Xor
	}
	if mask != ^uint32(0) {
		p.Hex0x(tcfmt.Any, "and", "and 0x%.8x ", uint64(mask))
	}
	if x := mask & val; x != 0 {
		p.Hex0x(tcfmt.Any, "xor", "xor 0x%.8x ", uint64(x))
	}
	if or := mask&val ^ val; or != 0 {
		p.Hex0x(tcfmt.Any, "or", "or 0x%.8x ", uint64(or))
	}
	if o.Rshift != nil {
		p.Uint(tcfmt.Any, "rshift", "rshift %u ", uint64(*o.Rshift))
	}
	if o.Addend != nil {
		p.Hex0x(tcfmt.Any, "addend", "addend 0x%x ", uint64(*o.Addend))
	}
	if o.Divisor != nil {
		p.Uint(tcfmt.Any, "divisor", "divisor %u ", uint64(*o.Divisor))
	}
	if o.Baseclass != nil {
		p.String(tcfmt.Any, "baseclass", "baseclass %s ", tcfmt.FormatClassID(*o.Baseclass))
	}
	if o.Perturb != nil {
		p.Uint(tcfmt.Any, "perturb", "perturb %usec ", uint64(*o.Perturb))
	}
	ematch.PrintEmatch(p, o.Ematches)
	if o.Police != nil {
		action.PrintFilterPolice(p, o.Police, f.Stats)
	}
	if o.Act != nil {
		p.NL()
		action.PrintActions(p, o.Act, action.ActionPrint{Stats: f.Stats, Bind: true, FirstOrder: 1, Links: f.Links})
	}
}

// flowKeywords is FilterKind.Keywords for flow. The mode (always dumped)
// follows the extended matches, which need a word after them; the mask
// and xor are written as the "and" and "xor" that fold to them.
func flowKeywords(opts attrs.TCOptionsMsg, links tckind.Links) ([]string, error) {
	o, ok := opts.(*attrs.FlowAttrs)
	if !ok {
		return nil, tckind.NoKeywords(fmt.Sprintf("flow options of type %T", opts))
	}
	var w []string
	switch {
	case o.Mode == nil:
		// tc always sends one.
		return nil, tckind.NoKeywords("flow without a mode")
	case *o.Mode == flowModeMap:
		w = append(w, "map")
	case *o.Mode == flowModeHash:
		w = append(w, "hash")
	default:
		return nil, tckind.NoKeywords(fmt.Sprintf("flow mode %d", *o.Mode))
	}
	if o.Keys != nil {
		var names []string
		for i, name := range flowKeys {
			if *o.Keys&(1<<i) != 0 {
				names = append(names, name)
			}
		}
		if len(names) == 0 || *o.Keys>>len(flowKeys) != 0 {
			return nil, tckind.NoKeywords(fmt.Sprintf("flow keys %#x", *o.Keys))
		}
		w = append(w, "keys", strings.Join(names, ","))
	}
	if (o.Mask == nil) != (o.Xor == nil) {
		return nil, tckind.NoKeywords("flow mask without xor")
	}
	if o.Mask != nil {
		// "and M" sets the mask (and clears xor), "xor X" then the xor.
		if *o.Mask != ^uint32(0) {
			w = append(w, "and", fmt.Sprintf("%#x", *o.Mask))
		}
		if *o.Xor != 0 {
			w = append(w, "xor", fmt.Sprintf("%#x", *o.Xor))
		}
	}
	for _, u := range []struct {
		kw string
		v  *uint32
	}{{"rshift", o.Rshift}, {"addend", o.Addend}, {"divisor", o.Divisor}, {"perturb", o.Perturb}} {
		if u.v != nil {
			w = append(w, u.kw, tcword.UintWord(*u.v))
		}
	}
	if o.Baseclass != nil {
		if *o.Baseclass&0xffff == 0 {
			return nil, tckind.NoKeywords("flow baseclass of minor 0")
		}
		w = append(w, "baseclass", tcword.ClassIDWord(*o.Baseclass))
	}
	w, err := policeActionWords(w, o.Police, o.Act, links)
	if err != nil {
		return nil, err
	}
	return matchWords(o.Ematches, w)
}
