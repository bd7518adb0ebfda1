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
	tckind.MustRegisterQdisc(&tckind.Qdisc{
		Name:       "pfifo_fast",
		ParseQdisc: parsePfifoFast,
		PrintOptions: func(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
			// Options too short for the struct stay raw; tc then prints
			// nothing of them.
			if o, ok := opts.(*attrs.TCPrioQopt); ok {
				PrintPrioOptions(p, o, nil)
			}
		},
	})
}

// parsePfifoFast is tc's answer for a module without a parser: no option,
// not even "help", and tc_qdisc_modify's -1 (exit 255).
func parsePfifoFast(args []string, _ tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
	if len(args) > 0 {
		return nil, &tcword.ParseError{Msg: "qdisc 'pfifo_fast' does not support option parsing", Code: 255}
	}
	return nil, nil
}
