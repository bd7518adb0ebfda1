// SPDX-License-Identifier: Apache-2.0

package qdisc

// ingress (net/sched/sch_ingress.c): the hook for filters on received
// packets, always at parent ffff:fff1 with handle ffff:. tc creates it
// with the word "ingress" where a parent goes ("tc qdisc add dev X
// ingress"): the word sets the parent, the handle and the kind, and the
// words after it are the kind's options. It has none, but tc skips a
// "handle X" pair there without reading X. The kernel dumps an empty
// options nest, for which tc prints a row of dashes.

import (
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:        "ingress",
			NoChange:    true,
			FilterHooks: 1,
			Usage:       "Usage: ... ingress",
			ParseQdisc:  parseIngress,
			// ingress has no options: the kernel dumps an empty nest.
			Keywords: func(attrs.TCOptionsMsg) ([]string, error) { return nil, nil },
			PrintOptions: func(p *tcfmt.Printer, _ attrs.TCOptionsMsg) {
				p.Text("---------------- ")
			},
		})
	}, "ingress")
}

// parseIngress accepts only "handle X" pairs, which it ignores (the handle
// is always ffff:), and sends no options.
func parseIngress(args []string, _ tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
	for len(args) > 0 {
		if args[0] != "handle" {
			return nil, tcword.UsageErrorf("What is \"%s\"?", args[0])
		}
		if len(args) < 2 {
			return nil, tcword.IncompleteCommand()
		}
		args = args[2:]
	}
	return nil, nil
}
