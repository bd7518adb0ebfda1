// SPDX-License-Identifier: Apache-2.0

package qdisc

// multiq (net/sched/sch_multiq.c): one band for each transmit queue of a
// multiqueue device, as iproute2 7.x's tc/q_multiq.c sets and prints it.
// tc takes no option ("help" and any other word fail, exit 1) and sends a
// zeroed struct tc_multiq_qopt; the kernel refuses a device with one queue
// (EOPNOTSUPP), sets bands to the device's queues and dumps bands and
// max_bands.

import (
	"strconv"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// multiqUsage is tc's explain() for multiq.
const multiqUsage = "Usage: ... multiq [help]"

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:         "multiq",
			MakesClasses: true,
			Usage:        multiqUsage,
			ParseQdisc:   parseMultiq,
			PrintOptions: printMultiq,
			// tc asks for nothing: the kernel sets bands and max_bands to the
			// device's transmit queues, whatever the request held.
			Keywords: tckind.KeywordsOf("multiq", func(*attrs.TCMultiqQopt) ([]string, error) { return nil, nil }),
		})
	}, "multiq")
}

func parseMultiq(args []string, _ tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
	if len(args) == 0 {
		return &attrs.TCMultiqQopt{}, nil
	}
	if args[0] == "help" {
		return nil, &tcword.ParseError{ShowUsage: true}
	}
	return nil, tcword.UsageErrorf("What is \"%s\"?", args[0])
}

// printMultiq prints "bands N/MAX"; JSON has the two numbers apart. Options
// too short for the struct stay raw and print nothing, as in tc.
func printMultiq(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
	o, ok := opts.(*attrs.TCMultiqQopt)
	if !ok {
		return
	}
	both := strconv.Itoa(int(o.Bands)) + "/" + strconv.Itoa(int(o.MaxBands))
	p.String(tcfmt.FP, "", "bands %s ", both)
	p.Uint(tcfmt.JSON, "bands", "", uint64(o.Bands))
	p.Uint(tcfmt.JSON, "max_bands", "", uint64(o.MaxBands))
}
