package qdisc

// pfifo_fast (net/sched/sch_generic.c), the default qdisc of a device's
// queues: three bands chosen by the packet's priority. Its options cannot
// be set: tc has no parser for pfifo_fast, so any option is "unparsable"
// (the command line's generic message, exit 1), and the kernel ignores
// what it is given. The kernel dumps its fixed struct tc_prio_qopt, which
// tc prints with prio's printer.

import (
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/tcfmt"
)

// prioMaxPriority is TC_PRIO_MAX: the priomap has an entry for each
// priority from 0 to it.
const prioMaxPriority = 15

func init() {
	register(&Kind{
		Name: "pfifo_fast",
		PrintOptions: func(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
			// Options too short for the struct stay raw; tc then prints
			// nothing of them.
			if o, ok := opts.(*attrs.TCPrioQopt); ok {
				PrintPrioOptions(p, o)
			}
		},
	})
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
