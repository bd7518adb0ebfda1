// SPDX-License-Identifier: Apache-2.0

package qdisc

// mq (net/sched/sch_mq.c): one class per transmit queue of a multiqueue
// device, each with a qdisc of its own, the default root of such devices
// and the root of an ISP tree. It takes no options, dumps none, makes its
// classes itself and has no change operation. tc has no module for it, so
// it treats mq as any kind it does not know, as noqueue: an option on the
// command line is "unparsable". Registered so that the kind is listed,
// completed and known to apply as one that is replaced, never changed.

import "github.com/gotc/gotc/tckind"

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:         "mq",
			PrintOptions: printUnknownOptions,
			NoChange:     true,
			MakesClasses: true,
		})
	}, "mq")
}
