// SPDX-License-Identifier: Apache-2.0

package qdisc

// noqueue (net/sched/sch_generic.c and sch_api.c): no queue at all, the
// default of virtual devices. It takes no options and the kernel dumps
// none. tc has no module for it, so it treats noqueue as it treats any kind
// it does not know: an option on the command line is "unparsable" (the
// command line's generic message, exit 1), and options in a dump would be
// shown only by their length.

import (
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:         "noqueue",
			PrintOptions: printUnknownOptions,
		})
	}, "noqueue")
}

// printUnknownOptions is what tc prints of the options of a kind it has no
// module for (print_noqopt): their length, when there are any, in text
// only.
func printUnknownOptions(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
	raw, ok := opts.(attrs.TCOptionsMsgRaw)
	if !ok || len(raw) == 0 {
		return
	}
	p.Uint(tcfmt.FP, "", "[Unknown qdisc, optlen=%u] ", uint64(len(raw)))
}
