// SPDX-License-Identifier: Apache-2.0

package qdisc

// The FIFO qdiscs (net/sched/sch_fifo.c): pfifo and pfifo_head_drop count
// packets, bfifo bytes; all three take a struct tc_fifo_qopt holding only
// the limit, and one parser and printer serve them as tc's q_fifo.c does.
//
// What tc does, and gotc with it:
//
//   - "limit" is read with tc's size parser for all three kinds, so
//     "limit 10k" is 10240 packets for pfifo; it may be given again (the
//     last one counts).
//   - Without a limit tc sends no TCA_OPTIONS and the kernel derives one
//     from the device: its txqueuelen in packets, times its MTU in bytes.
//   - Kernel-made pfifos (htb's and qfq's default leaves, a device's queues)
//     dump the same struct and print the same way.

import (
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// fifoUsage is tc's explain for the FIFO qdiscs.
const fifoUsage = `Usage: ... <[p|b]fifo | pfifo_head_drop> [ limit NUMBER ]`

// fifoNames are the FIFO kinds, which register and are looked up together.
var fifoNames = []string{"pfifo", "bfifo", "pfifo_head_drop"}

func init() {
	tckind.LazilyQdiscs(func() {
		for _, name := range fifoNames {
			tckind.MustRegisterQdisc(&tckind.Qdisc{
				Name:         name,
				Usage:        fifoUsage,
				ParseQdisc:   fifoParser(name),
				PrintOptions: fifoPrinter(name),
				Keywords: tckind.KeywordsOf(name, func(o *attrs.TCFifoQopt) ([]string, error) {
					return []string{"limit", tcword.UintWord(o.Limit)}, nil
				}),
				DeviceDefaults: fifoDefaults(name == "bfifo"),
			})
		}
	}, fifoNames...)
}

// fifoParser returns the parser of one FIFO kind; tc's messages name the kind.
func fifoParser(name string) func([]string, tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
	return func(args []string, _ tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
		var opt *attrs.TCFifoQopt
		for ; len(args) > 0; args = args[1:] {
			switch args[0] {
			case "limit":
				if len(args) < 2 {
					return nil, tcword.IncompleteCommand()
				}
				args = args[1:]
				n, err := tcfmt.ParseSize(args[0])
				if err != nil {
					return nil, tcword.Errorf(`%s: Illegal value for "limit": "%s"`, name, args[0])
				}
				opt = &attrs.TCFifoQopt{Limit: n}
			case "help":
				return nil, &tcword.ParseError{ShowUsage: true}
			default:
				return nil, tcword.UsageErrorf(`%s: unknown parameter "%s"`, name, args[0])
			}
		}
		if opt == nil {
			// A nil *TCFifoQopt in the interface would still encode.
			return nil, nil
		}
		return opt, nil
	}
}

// fifoPrinter returns the printer of one FIFO kind: "limit 1500000b" (tc's
// size text) for bfifo, "limit 1000p" for the packet-counting ones; JSON
// "limit" is the number either way. Options too short for the struct stay
// raw, and tc prints nothing of them.
func fifoPrinter(name string) func(*tcfmt.Printer, attrs.TCOptionsMsg) {
	return func(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
		o, ok := opts.(*attrs.TCFifoQopt)
		if !ok {
			return
		}
		if name == "bfifo" {
			p.Size(tcfmt.Any, "limit", "limit %s", uint64(o.Limit))
			return
		}
		p.Uint(tcfmt.Any, "limit", "limit %up", uint64(o.Limit))
	}
}

// fifoDefaults returns a fifo kind's DeviceDefaults: the limit
// __fifo_init gives one without options, the device's transmit queue
// length in packets, or for bfifo (bytes) that many frames of psched_mtu
// (the MTU and the link-layer header); a request with options keeps them.
// None on a device whose link-layer header gotc does not know (bfifo), nor
// on one without a transmit queue length, where kernels differ (0, or 1)
// and a limit of 0 sent would drop everything.
func fifoDefaults(bytes bool) func(tckind.Device, attrs.TCOptionsMsg) (attrs.TCOptionsMsg, []string, bool) {
	return func(dev tckind.Device, opts attrs.TCOptionsMsg) (attrs.TCOptionsMsg, []string, bool) {
		if opts != nil || dev.TxQueueLen == 0 {
			return nil, nil, false
		}
		limit := dev.TxQueueLen
		if bytes {
			mtu, known := dev.PschedMTU()
			if !known {
				return nil, nil, false
			}
			limit *= mtu
		}
		return &attrs.TCFifoQopt{Limit: limit}, []string{"limit", tcword.UintWord(limit)}, true
	}
}
