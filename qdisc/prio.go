// SPDX-License-Identifier: Apache-2.0

package qdisc

// prio (net/sched/sch_prio.c): bands chosen by a packet's priority through
// a priority map, as iproute2 7.x's tc/q_prio.c sets and prints them.
//
// What tc does, and gotc with it:
//
//   - The defaults are 3 bands and pfifo_fast's map; "bands" and the map's
//     elements replace them. Keywords are matched exactly.
//   - "priomap" switches to reading map elements: every following word that
//     is not a keyword is the next element, checked against the bands given
//     so far (in C's unsigned comparison), then against TC_PRIO_MAX.
//     A second "priomap" is refused; "bands" after it prints the usage as a
//     note and goes on.
//   - TCA_OPTIONS is tc's compat nest: the struct, then a second TCA_OPTIONS
//     (always, without NLA_F_NESTED) that holds TCA_PRIO_MQ for
//     "multiqueue". The kernel reads the struct alone and checks bands and
//     map (EINVAL), and dumps the struct alone.

import (
	"fmt"
	"strconv"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// prioUsage is tc's explain() for prio, word for word.
const prioUsage = "Usage: ... prio bands NUMBER priomap P1 P2...[multiqueue]"

// prioDefault is tc's starting point: 3 bands and the map pfifo_fast uses.
var prioDefault = attrs.TCPrioQopt{
	Bands:   3,
	Priomap: [16]byte{1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1},
}

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:         "prio",
			MakesClasses: true,
			Usage:        prioUsage,
			ParseQdisc: func(args []string, env tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
				return parsePrio(args, env)
			},
			PrintOptions: func(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
				if o, ok := opts.(*attrs.TCOptionsMsgPrio); ok {
					printPrioOptions(p, &o.Header, o.Attrs.Options)
				}
			},
			Keywords: tckind.KeywordsOf("prio", prioKeywords),
			Dumped:   prioDumped,
			// The dump is the request that restores it: the kernel keeps
			// every field of the struct as given.
			Restoring: func(o attrs.TCOptionsMsg) attrs.TCOptionsMsg { return o },
		})
	}, "prio")
}

// parsePrio reads prio's keywords into the options tc sends.
func parsePrio(args []string, env tckind.ParseEnv) (*attrs.TCOptionsMsgPrio, error) {
	opt := prioDefault
	inner := &attrs.PrioAttrs{}
	mapping, idx := false, 0
	for i := 0; i < len(args); i++ {
		switch w := args[i]; w {
		case "bands":
			if mapping {
				// tc prints the usage and carries on.
				fmt.Fprintln(env.Notes(), prioUsage)
			}
			if i+1 >= len(args) {
				return nil, tcword.IncompleteCommand()
			}
			i++
			n, err := tcfmt.ParseInt(args[i], 10, 32)
			if err != nil {
				return nil, tcword.Errorf(`Illegal "bands"`)
			}
			opt.Bands = int32(n)
		case "priomap":
			if mapping {
				return nil, tcword.Errorf("Error: duplicate priomap")
			}
			mapping = true
		case "multiqueue":
			inner.MQ = true
		case "help":
			return nil, &tcword.ParseError{ShowUsage: true}
		default:
			if !mapping {
				return nil, tcword.UsageErrorf("What is \"%s\"?", w)
			}
			band, err := tcfmt.ParseUint(w, 10, 32)
			if err != nil {
				return nil, tcword.Errorf(`Illegal "priomap" element`)
			}
			// tc compares the unsigned element with the int bands as C
			// does: unsigned, so negative bands refuse every element.
			if uint32(band) >= uint32(opt.Bands) {
				return nil, tcword.Errorf(`"priomap" element is out of bands`)
			}
			if idx > prioMaxPriority {
				return nil, tcword.Errorf(`"priomap" index > TC_PRIO_MAX=%d`, prioMaxPriority)
			}
			// The map's entries are bytes: tc truncates.
			opt.Priomap[idx] = byte(band)
			idx++
		}
	}
	return &attrs.TCOptionsMsgPrio{Header: opt, Attrs: attrs.PrioCompatAttrs{Options: inner}}, nil
}

// prioKeywords writes the bands and the whole priomap, and "multiqueue"
// were it ever dumped.
func prioKeywords(o *attrs.TCOptionsMsgPrio) ([]string, error) {
	if o.Header.Bands < 0 {
		return nil, tckind.NoKeywords("prio with negative bands") // refused by tc and the kernel alike
	}
	w := []string{"bands", strconv.Itoa(int(o.Header.Bands)), "priomap"}
	for _, band := range o.Header.Priomap[:prioMaxPriority+1] {
		w = append(w, tcword.UintWord(band))
	}
	if o.Attrs.Options != nil && o.Attrs.Options.MQ {
		w = append(w, "multiqueue")
	}
	return w, nil
}

// prioDumped is Kind.Dumped for prio: the kernel reads the struct alone
// and dumps it alone, without the nest (and its TCA_PRIO_MQ) tc always
// sends after it.
func prioDumped(opts attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	o, ok := opts.(*attrs.TCOptionsMsgPrio)
	if !ok {
		return opts
	}
	d := *o
	d.Attrs.Options = nil
	return &d
}
