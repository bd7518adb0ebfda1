// SPDX-License-Identifier: Apache-2.0

package qdisc

// noqueue (net/sched/sch_generic.c and sch_api.c): no queue at all, the
// default of virtual devices. It takes no options and the kernel dumps
// none. tc has no module for it, so it treats noqueue as it treats any kind
// it does not know: an option on the command line is "unparsable" (the
// command line's generic message, exit 1), and options in a dump would be
// shown only by their length.

import "github.com/gotc/gotc/tckind"

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:         "noqueue",
			PrintOptions: printUnknownOptions,
		})
	}, "noqueue")
}
