// SPDX-License-Identifier: Apache-2.0

package qdisc

// tc's print_noqopt: how tc prints the options of a qdisc kind it has no
// module for, which noqueue, mq and teql share.

import (
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/tcfmt"
)

// printUnknownOptions is what tc prints of the options of a kind it has no
// module for (print_noqopt): their length, when there are any, in text
// only.
func printUnknownOptions(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
	raw, ok := opts.(attrs.TCOptionsMsgRaw)
	if !ok || len(raw) == 0 {
		return
	}
	p.Uint(tcfmt.FP, "", "[Unknown qdisc, optlen=%u] ", uint64(len(raw)))
}
