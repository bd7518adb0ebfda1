// SPDX-License-Identifier: Apache-2.0

package main

// The kinds without options of their own: what tc accepts after them and
// what it refuses. ingress and clsact are created by the word where a
// parent goes; clsact is placed after a handle, the form tdc also uses.
func init() {
	register(kindCases{kind: "pfifo_fast", valid: []string{""}, invalid: []string{"bands 3", "help"}})
	register(kindCases{kind: "noqueue", valid: []string{""}, invalid: []string{"limit 1"}})
	register(kindCases{
		kind:    "ingress",
		place:   []string{},
		valid:   []string{"", "handle ffff:", "handle 1:", "handle x handle y"},
		invalid: []string{"foorbar", "handle", "help", "ingress"},
	})
	register(kindCases{
		kind:    "clsact",
		place:   []string{"handle", "ffff:"},
		valid:   []string{""},
		invalid: []string{"handle 1:", "foo", "ingress_block 1"},
	})
}
