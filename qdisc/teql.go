// SPDX-License-Identifier: Apache-2.0

package qdisc

import "github.com/gotc/gotc/tckind"

// teql (net/sched/sch_teql.c): the "true link equalizer", which spreads
// traffic over the devices that carry it. Its module makes one master
// device per equalizer (teql0, and teql1... with max_equalizers), and the
// qdisc kind is that device's name: "qdisc add dev eth0 root teql0" makes
// eth0 a slave of teql0. It takes no options and dumps none. tc has no
// module for it and treats it as any kind it does not know (see
// noqueue.go); gotc names the first equalizer so that its usage lists it.

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:         "teql0",
			NoChange:     true,
			PrintOptions: printUnknownOptions,
		})
	}, "teql0")
}
