// SPDX-License-Identifier: Apache-2.0

package qdisc

// skbprio (net/sched/sch_skbprio.c): a qdisc of 64 priority queues that
// drops from the lowest when full. Its only option is the packet limit,
// sent as struct tc_skbprio_qopt, the whole TCA_OPTIONS payload.
//
// Behaviour mirrored from iproute2 7.x (tc/q_skbprio.c): limit is read with
// get_size (so "10kb" means 10240 packets); without it tc sends no options
// at all and the kernel keeps (or, on creation, uses) its limit of 64.

import (
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// skbprioUsage is tc's explain() of skbprio.
const skbprioUsage = "Usage: ... <skbprio> [ limit NUMBER ]"

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:       "skbprio",
			Usage:      skbprioUsage,
			ParseQdisc: parseSKBPrio,
			PrintOptions: func(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
				// Options too short for the struct stay raw; tc then prints
				// nothing of them.
				if o, ok := opts.(*attrs.TCSKBPrioQopt); ok {
					p.Uint(tcfmt.Any, "limit", "limit %u ", uint64(o.Limit))
				}
			},
			// skbprio_change takes any limit, and without options it is not
			// called at all.
			Keywords: tckind.KeywordsOf("skbprio", func(o *attrs.TCSKBPrioQopt) ([]string, error) {
				return []string{"limit", tcword.UintWord(o.Limit)}, nil
			}),
			ChangeAccepted: func(opts attrs.TCOptionsMsg, _ string) bool {
				if opts == nil {
					return true
				}
				_, ok := opts.(*attrs.TCSKBPrioQopt)
				return ok
			},
		})
	}, "skbprio")
}

// parseSKBPrio turns the words after "skbprio" into its options as tc
// does: nil when no limit was given. Unlike most kinds, tc names the kind
// in its messages.
func parseSKBPrio(args []string, _ tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
	var (
		o   attrs.TCSKBPrioQopt
		set bool
	)
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "limit":
			if i+1 >= len(args) {
				return nil, tcword.IncompleteCommand()
			}
			i++
			n, err := tcfmt.ParseSize(args[i])
			if err != nil {
				return nil, tcword.Errorf("skbprio: Illegal \"limit\" value:\"%s\"", args[i])
			}
			o.Limit, set = n, true
		case "help":
			return nil, &tcword.ParseError{ShowUsage: true}
		default:
			return nil, tcword.UsageErrorf("skbprio: unknown parameter \"%s\"", args[i])
		}
	}
	if !set {
		return nil, nil
	}
	return &o, nil
}
