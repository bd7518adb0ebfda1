// SPDX-License-Identifier: Apache-2.0

package tcword

import "strings"

// ClockidInvalid is tc's CLOCKID_INVALID: no clock given.
const ClockidInvalid = -1

// ParseClockid is tc's get_clockid: a clock's name, case-insensitive,
// with or without "CLOCK_". tc drops the first six characters whenever
// "CLOCK_" appears anywhere in the word, and so does gotc.
func ParseClockid(s string) (int32, bool) {
	if strings.Contains(strings.ToUpper(s), "CLOCK_") {
		s = s[len("CLOCK_"):]
	}
	for _, c := range clocks {
		if strings.EqualFold(c.name, s) {
			return c.id, true
		}
	}
	return 0, false
}

// ClockName is tc's get_clock_name: "invalid" for a clock it does not name.
func ClockName(id int32) string {
	for _, c := range clocks {
		if c.id == id {
			return c.name
		}
	}
	return "invalid"
}

// clocks are the clocks tc names (tc_util.c's clockt_map), in its order.
var clocks = []struct {
	name string
	id   int32
}{{"BOOTTIME", 7}, {"MONOTONIC", 1}, {"REALTIME", 0}, {"TAI", 11}}
