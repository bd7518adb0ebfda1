// SPDX-License-Identifier: Apache-2.0

package qdisc

// QFQ (net/sched/sch_qfq.c): the qdisc takes no options; its classes take a
// weight and a maximum packet size. gotc supports it because the kernel's
// DualPI2 tests hang a dualpi2 under a qfq class.

import (
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

const qfqUsage = `Usage: ... qfq
       ... class add ... qfq [ weight N ] [ maxpkt BYTES ]`

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:              "qfq",
			Usage:             qfqUsage,
			ParseQdisc:        parseNoOptions,
			ParseClass:        parseQFQClass,
			PrintClassOptions: printQFQClass,
			Keywords:          tckind.NoOptions("qfq"),
			ClassKeywords:     tckind.KeywordsOf("qfq class", qfqClassKeywords),
		})
	}, "qfq")
}

// parseNoOptions accepts only an empty option list.
func parseNoOptions(args []string, _ tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
	if len(args) == 0 {
		return nil, nil
	}
	if args[0] == "help" {
		return nil, &tcword.ParseError{Msg: "This qdisc takes no options in gotc.", ShowUsage: true}
	}
	return nil, tcword.Errorf("What is %q? gotc sets no options of this qdisc kind.", args[0])
}

func parseQFQClass(args []string, _ tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
	o := &attrs.QFQAttrs{}
	for len(args) > 0 {
		switch {
		case tcfmt.Matches(args[0], "weight"), tcfmt.Matches(args[0], "maxpkt"):
			keyword := "weight"
			field := &o.Weight
			if tcfmt.Matches(args[0], "maxpkt") {
				keyword, field = "maxpkt", &o.Lmax
			}
			if len(args) < 2 {
				return nil, tcword.IncompleteCommand()
			}
			v, err := tcfmt.ParseUint(args[1], 10, 32)
			if err != nil {
				return nil, tcword.Errorf("Illegal %q", keyword)
			}
			u := uint32(v)
			*field = &u
			args = args[2:]
		case args[0] == "help":
			return nil, &tcword.ParseError{Msg: qfqUsage}
		default:
			return nil, tcword.UsageErrorf("What is %q?", args[0])
		}
	}
	return o, nil
}

func printQFQClass(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
	o, ok := opts.(*attrs.QFQAttrs)
	if !ok {
		return
	}
	if o.Weight != nil {
		p.Uint(tcfmt.Any, "weight", "weight %u ", uint64(*o.Weight))
	}
	if o.Lmax != nil {
		p.Uint(tcfmt.Any, "maxpkt", "maxpkt %u ", uint64(*o.Lmax))
	}
}

// qfqClassKeywords writes a class's weight and maximum packet size, which
// the kernel dumps both (its defaults when none were given).
func qfqClassKeywords(o *attrs.QFQAttrs) ([]string, error) {
	var w []string
	if o.Weight != nil {
		w = append(w, "weight", tcword.UintWord(*o.Weight))
	}
	if o.Lmax != nil {
		w = append(w, "maxpkt", tcword.UintWord(*o.Lmax))
	}
	return w, nil
}
