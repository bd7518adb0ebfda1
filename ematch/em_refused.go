// SPDX-License-Identifier: Apache-2.0

package ematch

// The kinds of extended match tc 7.3 has that gotc refuses: ipset
// (em_ipset.c) and ipt (em_ipt.c), which name netfilter's sets and
// matches. They are registered without a parser: a match of theirs is
// looked up in tc's ematch map as tc does (with its suggested number when
// the map lacks it), then refused as unsupported, not as unknown.

func init() {
	for _, k := range []*ematchKind{{name: "ipset", num: 8}, {name: "ipt", num: 9}} {
		registerEmatch(k)
	}
}
