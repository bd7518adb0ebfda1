// SPDX-License-Identifier: Apache-2.0

package action

import (
	"fmt"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/bpfprog"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

func init() {
	tckind.LazilyActions(func() {
		tckind.MustRegisterAction(&tckind.Action{
			Name:       "bpf",
			Usage:      bpfActionUsage,
			Parse:      parseBPFAction,
			Print:      printBPFAction,
			Keywords:   bpfActionKeywords,
			PrintStats: printBPFActionStats,
			LineEnd:    "\n ",
		})
	}, "bpf")
}

const bpfActionUsage = `Usage: ... bpf ... [ index INDEX ]

BPF use case:
 bytecode BPF_BYTECODE
 bytecode-file FILE

eBPF use case:
 object-file FILE [ section ACT_NAME ] [ export UDS_FILE ] [ verbose ]
 object-pinned FILE

Where BPF_BYTECODE := 's,c t f k,c t f k,c t f k,...'
c,t,f,k and s are decimals; s denotes number of 4-tuples

Where FILE points to a file containing the BPF_BYTECODE string,
an ELF file containing eBPF map definitions and bytecode, or a
pinned eBPF program.

Where ACT_NAME refers to the section name containing the
action (default 'action').

Where UDS_FILE points to a unix domain socket file in order
to hand off control of all created eBPF maps to an agent.

Where optionally INDEX points to an existing action, or
explicitly specifies an action index upon creation.`

// parseBPFAction is m_bpf.c's bpf_parse_opt: "bpf", a program ("run" may
// come before it), a verdict (pipe by default) and an index; or "bpf
// index N" alone, to bind an existing action.
func parseBPFAction(args []string, env tckind.ActionEnv) (attrs.ActOptionsMsg, []string, error) {
	if len(args) < 2 {
		return nil, args, tcword.IncompleteCommand()
	}
	args = args[1:]
	p := &attrs.TCActBPF{}
	o := &attrs.ActBPFAttrs{Parms: p}
	seenRun := false
	for len(args) > 0 {
		w := args[0]
		switch {
		case tcfmt.Matches(w, "run"):
			if len(args) < 2 {
				return nil, args, tcword.IncompleteCommand()
			}
			args = args[1:]
			if seenRun {
				return nil, args, &tcword.ParseError{Msg: fmt.Sprintf("Error: duplicate \"run\": \"%s\" is the second value.", args[0]), Code: 255}
			}
		case tcfmt.Matches(w, "help"):
			return nil, args, tcword.Errorf("%s", bpfActionUsage)
		case tcfmt.Matches(w, "index"), seenRun:
			goto done
		}
		seenRun = true
		prog, rest, err := bpfprog.Parse(args, "action", bpfprog.ProgSchedACT)
		if err != nil {
			return nil, args, err
		}
		args = rest
		if prog.EBPF {
			fd := uint32(prog.FD)
			o.Fd, o.Name = &fd, &prog.Name
		} else {
			n := uint16(len(prog.Ops))
			o.OpsLen, o.Ops = &n, bpfprog.OpsBytes(prog.Ops)
		}
	}
done:
	code, args, err := parseActionControlDefault(args, actPipe, env.Stderr)
	if err != nil {
		return nil, args, err
	}
	p.Action = code
	index, found, rest, err := parseActionIndex(args, 10, `bpf: Illegal "index"`)
	if err != nil {
		return nil, args, err
	}
	if found {
		p.Index, args = index, rest
	}
	return o, args, nil
}

// printBPFAction is m_bpf.c's bpf_print_opt, without the line end its
// kind's LineEnd gives.
func printBPFAction(p *tcfmt.Printer, opts attrs.ActOptionsMsg, _ tckind.Links) {
	p.String(tcfmt.Any, "kind", "%s ", "bpf")
	o, ok := opts.(*attrs.ActBPFAttrs)
	if !ok || o.Parms == nil {
		return
	}
	if o.Name != nil {
		p.String(tcfmt.Any, "bpf_name", "%s ", *o.Name)
	}
	if o.Ops != nil && o.OpsLen != nil {
		bpfprog.PrintOps(p, o.Ops, *o.OpsLen)
		p.Text(" ")
	}
	bpfprog.PrintProg(p, o.ID, o.Tag)
	printActionControl(p, "default-action ", o.Parms.Action, "")
	p.NL()
	p.Uint(tcfmt.Any, "index", "\t index %u", uint64(o.Parms.Index))
	p.Int(tcfmt.Any, "ref", " ref %d", int64(o.Parms.Refcnt))
	p.Int(tcfmt.Any, "bind", " bind %d", int64(o.Parms.Bindcnt))
}

func printBPFActionStats(p *tcfmt.Printer, opts attrs.ActOptionsMsg) {
	if o, ok := opts.(*attrs.ActBPFAttrs); ok && o.Parms != nil && o.Tm != nil {
		printTm(p, o.Tm)
	}
}

// bpfActionKeywords is Action.Keywords for bpf: a classic program as its
// bytecode. An eBPF program has none: the kernel dumps its name, id and
// tag, while tc loads one from an object file or pin (its fd is tc's
// own), which the dump does not name.
func bpfActionKeywords(opts attrs.ActOptionsMsg, _ tckind.Links) ([]string, error) {
	o, _ := opts.(*attrs.ActBPFAttrs)
	if o == nil || o.Parms == nil {
		return nil, tckind.NoKeywords("bpf without parameters")
	}
	if o.Ops == nil || o.OpsLen == nil {
		return nil, tckind.NoKeywords("bpf eBPF program (loaded from an object file or pin the dump does not name)")
	}
	code, ok := bpfprog.BytecodeWord(o.Ops, *o.OpsLen)
	if !ok {
		return nil, tckind.NoKeywords(fmt.Sprintf("bpf program of %d bytes for %d instructions", len(o.Ops), *o.OpsLen))
	}
	return controlWords([]string{"bytecode", code}, o.Parms.Action, actPipe)
}
