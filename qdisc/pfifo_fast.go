// SPDX-License-Identifier: Apache-2.0

package qdisc

// pfifo_fast (net/sched/sch_generic.c), the default qdisc of a device's
// queues: three bands chosen by the packet's priority. Its options cannot
// be set: tc's module for pfifo_fast (in q_fifo.c) has a printer but no
// parser, so tc refuses any word after the kind (exit 255), and the kernel
// ignores what it is given. The kernel dumps its fixed struct
// tc_prio_qopt, which tc prints with prio's printer.

import (
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:       "pfifo_fast",
			ParseQdisc: parsePfifoFast,
			// The bands and priomap the kernel dumps are fixed: no words ask
			// for them, and none are needed to have them again.
			Keywords: func(attrs.TCOptionsMsg) ([]string, error) { return nil, nil },
			Dumped: func(attrs.TCOptionsMsg) attrs.TCOptionsMsg {
				d := pfifoFastDump
				return &d
			},
			Restoring: func(attrs.TCOptionsMsg) attrs.TCOptionsMsg { return nil },
			PrintOptions: func(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
				// Options too short for the struct stay raw; tc then prints
				// nothing of them.
				if o, ok := opts.(*attrs.TCPrioQopt); ok {
					printPrioOptions(p, o, nil)
				}
			},
		})
	}, "pfifo_fast")
}

// pfifoFastDump is what the kernel dumps of every pfifo_fast, whatever it
// was asked (pfifo_fast_dump): its three bands and sch_default_prio2band.
var pfifoFastDump = attrs.TCPrioQopt{
	Bands:   3,
	Priomap: [16]byte{1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1},
}

// parsePfifoFast is tc's answer for a module without a parser: no option,
// not even "help", and tc_qdisc_modify's -1 (exit 255).
func parsePfifoFast(args []string, _ tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
	if len(args) > 0 {
		return nil, &tcword.ParseError{Msg: "qdisc 'pfifo_fast' does not support option parsing", Code: 255}
	}
	return nil, nil
}
