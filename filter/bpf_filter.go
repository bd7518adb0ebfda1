// SPDX-License-Identifier: Apache-2.0

package filter

import (
	"fmt"

	"github.com/gotc/gotc/action"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/bpfprog"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

func init() {
	tckind.LazilyFilters(func() {
		tckind.MustRegisterFilter(&tckind.Filter{
			Name:         "bpf",
			Usage:        bpfFilterUsage,
			Parse:        parseBPFFilter,
			PrintOptions: printBPFFilter,
			Keywords:     bpfFilterKeywords,
		})
	}, "bpf")
}

// TCA_BPF_FLAG_ACT_DIRECT (linux/pkt_cls.h): the filter's program returns a
// verdict (direct-action).
const bpfFlagActDirect = 1 << 0

const bpfFilterUsage = `Usage: ... bpf ...

BPF use case:
 bytecode BPF_BYTECODE
 bytecode-file FILE

eBPF use case:
 object-file FILE [ section CLS_NAME ] [ export UDS_FILE ] [ verbose ] [ direct-action ] [ skip_hw | skip_sw ]
 object-pinned FILE [ direct-action ] [ skip_hw | skip_sw ]

Common remaining options:
 [ action ACTION_SPEC ]
 [ classid CLASSID ]

Where BPF_BYTECODE := 's,c t f k,c t f k,c t f k,...'
c,t,f,k and s are decimals; s denotes number of 4-tuples

Where FILE points to a file containing the BPF_BYTECODE string,
an ELF file containing eBPF map definitions and bytecode, or a
pinned eBPF program.

Where CLS_NAME refers to the section name containing the
classifier (default 'classifier').

Where UDS_FILE points to a unix domain socket file in order
to hand off control of all created eBPF maps to an agent.

ACTION_SPEC := ... look at individual actions
NOTE: CLASSID is parsed as hexadecimal input.`

// parseBPFFilter is f_bpf.c's bpf_parse_opt.
func parseBPFFilter(args []string, env tckind.FilterEnv) (attrs.TCOptionsMsg, uint32, error) {
	handle, err := numericFilterHandle(env.Handle)
	if err != nil {
		return nil, 0, err
	}
	if len(args) == 0 {
		return nil, handle, nil
	}
	o := &attrs.BPFAttrs{}
	var prog bpfprog.Program
	var flags, genFlags uint32
	seenRun := false
	for len(args) > 0 {
		w := args[0]
		switch {
		case tcfmt.Matches(w, "run"):
			if len(args) < 2 {
				return nil, 0, tcword.IncompleteCommand()
			}
			args = args[1:]
			if seenRun {
				return nil, 0, &tcword.ParseError{Msg: fmt.Sprintf("Error: duplicate \"run\": \"%s\" is the second value.", args[0]), Code: 255}
			}
			seenRun = true
			if prog, args, err = parseBPFFilterProgram(args); err != nil {
				return nil, 0, err
			}
			continue
		case tcfmt.Matches(w, "classid"), tcfmt.Matches(w, "flowid"):
			id, rest, err := classIDAt(args)
			if err != nil {
				return nil, 0, err
			}
			o.Classid, args = &id, rest
			continue
		case tcfmt.Matches(w, "direct-action"), tcfmt.Matches(w, "da"):
			flags |= bpfFlagActDirect
		case tcfmt.Matches(w, "skip_hw"):
			genFlags |= clsFlagSkipHW
		case tcfmt.Matches(w, "skip_sw"):
			genFlags |= clsFlagSkipSW
		case tcfmt.Matches(w, "action"):
			if len(args) < 2 {
				return nil, 0, tcword.IncompleteCommand()
			}
			acts, rest, err := action.ParseActions(args[1:], env.ActionEnv)
			if err != nil {
				return nil, 0, err
			}
			o.Act = append(o.Act, acts...)
			args = rest
			continue
		case tcfmt.Matches(w, "police"):
			police, rest, err := action.ParseFilterPolice(args)
			if err != nil {
				return nil, 0, err
			}
			o.Police, args = police, rest
			continue
		case tcfmt.Matches(w, "help"):
			return nil, 0, &tcword.ParseError{Msg: bpfFilterUsage}
		case !seenRun:
			seenRun = true
			if prog, args, err = parseBPFFilterProgram(args); err != nil {
				return nil, 0, err
			}
			continue
		default:
			return nil, 0, tcword.Errorf("What is \"%s\"?\n%s", w, bpfFilterUsage)
		}
		args = args[1:]
	}
	if prog.EBPF {
		fd := uint32(prog.FD)
		o.Fd, o.Name = &fd, &prog.Name
	} else {
		// Without a program tc still sends an empty classic one, which
		// the kernel refuses.
		n := uint16(len(prog.Ops))
		o.OpsLen, o.Ops = &n, bpfprog.OpsBytes(prog.Ops)
	}
	if genFlags != 0 {
		o.FlagsGen = &genFlags
	}
	if flags != 0 {
		o.Flags = &flags
	}
	return o, handle, nil
}

// parseBPFFilterProgram is the filter's call of bpf_parse_common: a
// failure adds tc's line to what the parser printed. gotc loads an ELF
// object here, where tc loads it after the other options: only the order
// of two errors can differ.
func parseBPFFilterProgram(args []string) (bpfprog.Program, []string, error) {
	prog, rest, err := bpfprog.Parse(args, "classifier", bpfprog.ProgSchedCLS)
	if err == nil {
		return prog, rest, nil
	}
	pe, ok := err.(*tcword.ParseError)
	if !ok || pe.Code != 0 {
		return prog, rest, err
	}
	if prog.Object {
		// tc's load stage: its line follows the loader's.
		return prog, rest, tcword.Errorf("%s\nUnable to load program", pe.Msg)
	}
	if pe.Msg == "" {
		return prog, rest, tcword.Errorf("Unable to parse bpf command line")
	}
	return prog, rest, tcword.Errorf("%s\nUnable to parse bpf command line", pe.Msg)
}

// printBPFFilter is f_bpf.c's bpf_print_opt.
func printBPFFilter(p *tcfmt.Printer, opts attrs.TCOptionsMsg, f tckind.FilterPrint) {
	o, ok := opts.(*attrs.BPFAttrs)
	if !ok {
		return
	}
	if f.Handle != 0 {
		p.Hex0x(tcfmt.Any, "handle", "handle 0x%x ", uint64(f.Handle))
	}
	if o.Classid != nil {
		p.String(tcfmt.Any, "flowid", "flowid %s ", tcfmt.FormatClassID(*o.Classid))
	}
	if o.Name != nil {
		p.String(tcfmt.Any, "bpf_name", "%s ", *o.Name)
	}
	if o.Flags != nil && *o.Flags&bpfFlagActDirect != 0 {
		p.Bool(tcfmt.Any, "direct-action", "direct-action ", true)
	}
	if o.FlagsGen != nil {
		fl := *o.FlagsGen
		if fl&clsFlagSkipHW != 0 {
			p.Bool(tcfmt.Any, "skip_hw", "skip_hw ", true)
		}
		if fl&clsFlagSkipSW != 0 {
			p.Bool(tcfmt.Any, "skip_sw", "skip_sw ", true)
		}
		if fl&clsFlagInHW != 0 {
			p.Bool(tcfmt.Any, "in_hw", "in_hw ", true)
		} else if fl&clsFlagNotHW != 0 {
			p.Bool(tcfmt.Any, "not_in_hw", "not_in_hw ", true)
		}
	}
	if o.Ops != nil && o.OpsLen != nil {
		bpfprog.PrintOps(p, o.Ops, *o.OpsLen)
	}
	bpfprog.PrintProg(p, o.ID, o.Tag)
	if o.Police != nil {
		p.NL()
		action.PrintFilterPolice(p, o.Police, f.Stats)
	}
	if o.Act != nil {
		action.PrintActions(p, o.Act, action.ActionPrint{Stats: f.Stats, Bind: true, FirstOrder: 1, Links: f.Links})
	}
}

// bpfFilterKeywords is FilterKind.Keywords for bpf. A classic program is
// written as its bytecode. An eBPF program is refused: the kernel dumps
// its id, tag and the name tc gave it (the object's base name and
// section), while tc needs the object file or the pinned path to load or
// open it again.
func bpfFilterKeywords(opts attrs.TCOptionsMsg, links tckind.Links) ([]string, error) {
	o, ok := opts.(*attrs.BPFAttrs)
	if !ok {
		return nil, tckind.NoKeywords(fmt.Sprintf("bpf options of type %T", opts))
	}
	var w []string
	switch {
	case o.Ops != nil && o.OpsLen != nil:
		bc, ok := bpfprog.BytecodeWord(o.Ops, *o.OpsLen)
		if !ok {
			return nil, tckind.NoKeywords(fmt.Sprintf("bpf bytecode of %d instructions in %d bytes", *o.OpsLen, len(o.Ops)))
		}
		w = append(w, "bytecode", bc)
	case o.ID != nil || o.Name != nil || o.Fd != nil:
		name := ""
		if o.Name != nil {
			name = " " + *o.Name
		}
		return nil, tckind.NoKeywords("bpf eBPF program" + name + ", whose object file or pinned path the dump does not give")
	default:
		return nil, tckind.NoKeywords("bpf without a program")
	}
	if o.Flags != nil {
		switch *o.Flags {
		case 0:
		case bpfFlagActDirect:
			w = append(w, "direct-action")
		default:
			return nil, tckind.NoKeywords(fmt.Sprintf("bpf flags %#x", *o.Flags))
		}
	}
	fw, err := filterFlagWords(o.FlagsGen)
	if err != nil {
		return nil, err
	}
	return policeActionWords(classidWords(append(w, fw...), o.Classid), o.Police, o.Act, links)
}
