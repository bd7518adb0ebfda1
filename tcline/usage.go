// SPDX-License-Identifier: Apache-2.0

package tcline

import (
	"strings"

	"github.com/gotc/gotc/tckind"
)

// FilterUsage is tc's "tc filter help", listing the filter kinds the
// registry holds. It is built on each call: kinds register in their
// packages' init, after this package's variables are set.
func FilterUsage() string {
	var names []string
	for _, k := range tckind.Filters() {
		names = append(names, k.Name)
	}
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
FILTER_TYPE := ` + KindList(names) + `
FILTERID := ... format depends on classifier, see there
OPTIONS := ... try tc filter add <desired FILTER_KIND> help
`
}

// KindList writes names as a usage text's "{ a | b | ... }", wrapped
// before 80 columns with the continuation lines indented past the brace
// (as "QDISC_KIND := { " and "FILTER_TYPE := " line them up).
func KindList(names []string) string {
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
