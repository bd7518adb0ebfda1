// SPDX-License-Identifier: Apache-2.0

package tcline

import (
	"strings"

	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tckind"
)

// QdiscUsage is tc's "tc qdisc help" (obj netlink.Qdisc), listing the
// qdisc kinds the registry holds so that a new kind's file is all it takes
// to appear there, or "tc class help" (netlink.Class). It is built on each
// call, as FilterUsage is.
func QdiscUsage(obj netlink.Object) string {
	if obj == netlink.Class {
		return classUsage
	}
	return `Usage: tc qdisc [ add | del | replace | change | link | show ] dev STRING
       [ handle QHANDLE ] [ root | ingress | clsact | parent CLASSID ]
       [ ingress_block BLOCK_INDEX ] [ egress_block BLOCK_INDEX ]
       [ [ QDISC_KIND ] [ help | OPTIONS ] ]

       tc qdisc { show | list } [ dev STRING ] [ root | ingress | clsact | parent CLASSID | handle QHANDLE ] [ invisible ]
Where:
QDISC_KIND := ` + kindList(tckind.QdiscNames()) + `
OPTIONS := ... try tc qdisc add <desired QDISC_KIND> help
`
}

const classUsage = `Usage: tc class [ add | del | change | replace | show ] dev STRING
       [ classid CLASSID ] [ root | parent CLASSID ]
       [ [ QDISC_KIND ] [ help | OPTIONS ] ]

       tc class show [ dev STRING ] [ root | parent CLASSID ]
`

// FilterUsage is tc's "tc filter help", listing the filter kinds the
// registry holds. It is built on each call: kinds register in their
// packages' init, after this package's variables are set.
func FilterUsage() string {
	return `Usage: tc filter [ add | del | change | replace | show ] [ dev STRING ]
       tc filter [ add | del | change | replace | show ] [ block BLOCK_INDEX ]
       tc filter get dev STRING parent CLASSID protocol PROTO handle FILTERID pref PRIO FILTER_TYPE
       tc filter get block BLOCK_INDEX protocol PROTO handle FILTERID pref PRIO FILTER_TYPE
       [ pref PRIO ] protocol PROTO [ chain CHAIN_INDEX ]
       [ estimator INTERVAL TIME_CONSTANT ]
       [ root | ingress | egress | parent CLASSID ]
       [ handle FILTERID ] [ [ FILTER_TYPE ] [ help | OPTIONS ] ]

       tc filter show [ dev STRING ] [ root | ingress | egress | parent CLASSID ]
       tc filter show [ block BLOCK_INDEX ]
Where:
FILTER_TYPE := ` + kindList(tckind.FilterNames()) + `
FILTERID := ... format depends on classifier, see there
OPTIONS := ... try tc filter add <desired FILTER_KIND> help
`
}

// kindList writes names as a usage text's "{ a | b | ... }", wrapped
// before 80 columns with the continuation lines indented past the brace
// (as "QDISC_KIND := { " and "FILTER_TYPE := " line them up).
func kindList(names []string) string {
	const indent = "               "
	var b strings.Builder
	b.WriteString("{ ")
	col := len("QDISC_KIND := { ")
	for i, n := range names {
		if i > 0 {
			if col+len(" | ")+len(n) > 78 {
				b.WriteString(" |\n" + indent)
				col = len(indent)
			} else {
				b.WriteString(" | ")
				col += len(" | ")
			}
		}
		b.WriteString(n)
		col += len(n)
	}
	b.WriteString(" }")
	return b.String()
}
