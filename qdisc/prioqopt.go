// SPDX-License-Identifier: Apache-2.0

package qdisc

// struct tc_prio_qopt, which prio and pfifo_fast share: the size of its
// priomap, and tc's printing of it (prio_print_opt, which tc's pfifo_fast
// prints with too).

import (
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/tcfmt"
)

// prioMaxPriority is TC_PRIO_MAX: the priomap has an entry for each
// priority from 0 to it.
const prioMaxPriority = 15

// printPrioOptions prints a struct tc_prio_qopt as tc's prio printer does
// (pfifo_fast's too, which has no attributes: extra nil):
//
//	bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1
//
// (no blank after the last band), in JSON "bands", the "priomap" array and
// "multiqueue". The kernel never dumps TCA_PRIO_MQ; were it there, tc
// would print " multiqueue: on" after the map.
func printPrioOptions(p *tcfmt.Printer, o *attrs.TCPrioQopt, extra *attrs.PrioAttrs) {
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
	mq := extra != nil && extra.MQ
	if mq {
		p.String(tcfmt.FP, "", " multiqueue: %s ", "on")
	}
	p.Bool(tcfmt.JSON, "multiqueue", "", mq)
}
