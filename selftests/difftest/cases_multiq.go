// SPDX-License-Identifier: Apache-2.0

package main

// multiq takes no option; it runs on a multiqueue device, as the kernel
// refuses it on others. Its bands are classes, shown with "class show".
func init() {
	register(kindCases{
		kind:       "multiq",
		valid:      []string{""},
		invalid:    []string{"help", "bands 4", "foo"},
		classes:    []string{"class show dev DEV"},
		multiqueue: true,
	})
}
