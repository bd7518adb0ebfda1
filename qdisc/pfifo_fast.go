package qdisc

// pfifo_fast (net/sched/sch_generic.c), the default qdisc of a device's
// queues: three bands chosen by the packet's priority. Its options cannot
// be set: tc's module for pfifo_fast (in q_fifo.c) has a printer but no
// parser, so tc refuses any word after the kind (exit 255), and the kernel
// ignores what it is given. The kernel dumps its fixed struct
// tc_prio_qopt, which tc prints with prio's printer.

import (
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/tcfmt"
)

// prioMaxPriority is TC_PRIO_MAX: the priomap has an entry for each
// priority from 0 to it.
const prioMaxPriority = 15

func init() {
	mustRegister(&Kind{
		Name:       "pfifo_fast",
		ParseQdisc: parsePfifoFast,
		PrintOptions: func(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
			// Options too short for the struct stay raw; tc then prints
			// nothing of them.
			if o, ok := opts.(*attrs.TCPrioQopt); ok {
				PrintPrioOptions(p, o)
			}
		},
	})
}

// parsePfifoFast is tc's answer for a module without a parser: no option,
// not even "help", and tc_qdisc_modify's -1 (exit 255).
func parsePfifoFast(args []string, _ ParseEnv) (attrs.TCOptionsMsg, error) {
	if len(args) > 0 {
		return nil, &ParseError{Msg: "qdisc 'pfifo_fast' does not support option parsing", Code: 255}
	}
	return nil, nil
}

// PrintPrioOptions prints a struct tc_prio_qopt as tc's prio printer does:
//
//	bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1
//
// (no blank after the last band), in JSON "bands", the "priomap" array and
// "multiqueue": false (the struct alone never enables multiqueue).
func PrintPrioOptions(p *tcfmt.Printer, o *attrs.TCPrioQopt) {
	if o == nil {
		return
	}
	const both = tcfmt.Any
	p.Uint(both, "bands", "bands %u ", uint64(uint32(o.Bands)))
	p.OpenArray(both, "priomap")
	for _, band := range o.Priomap[:prioMaxPriority+1] {
		p.Uint(both, "", " %d", uint64(band))
	}
	p.CloseArray(both, "")
	p.Bool(tcfmt.JSON, "multiqueue", "", false)
}
