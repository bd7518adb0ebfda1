// SPDX-License-Identifier: Apache-2.0

package qdisc

// clsact (net/sched/sch_ingress.c): the hooks for filters on received
// (ffff:fff2) and sent (ffff:fff3) packets, at parent ffff:fff1 with handle
// ffff:. Like ingress, tc creates it with the word "clsact" where a parent
// goes; unlike ingress it refuses every word after it. The kernel dumps an
// empty options nest, of which tc prints nothing.

import (
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tckind"
)

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:        "clsact",
			NoChange:    true,
			FilterHooks: 2,
			Usage:       "Usage: ... clsact",
			ParseQdisc:  parseClsact,
			// clsact has no options: the kernel dumps an empty nest.
			Keywords: func(attrs.TCOptionsMsg) ([]string, error) { return nil, nil },
		})
	}, "clsact")
}

// parseClsact refuses any option and sends none.
func parseClsact(args []string, _ tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
	if len(args) > 0 {
		return nil, tcword.UsageErrorf("What is \"%s\"?", args[0])
	}
	return nil, nil
}
