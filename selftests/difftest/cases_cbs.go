// SPDX-License-Identifier: Apache-2.0

package main

// etf's and cbs's keywords, as the root of a dummy device (their offload
// needs a device that offloads, which a dummy refuses); under mqprio and
// taprio classes in cases_mqprio.go.
func init() {
	register(kindCases{
		kind: "etf",
		valid: []string{"clockid CLOCK_TAI", "delta 100 clockid CLOCK_TAI", "clockid CLOCK_TAI deadline_mode", "clockid CLOCK_TAI skip_sock_check",
			"delta 0x10 clockid tai", "delta 300 clockid TAI deadline_mode", "clockid CLOCK_TAI delta 010", "delta 2147483647 clockid CLOCK_TAI",
			"clockid clock_tai", "deadline_mode skip_sock_check clockid TAI delta 1000000", "delta 0 delta 5 clockid TAI",
			"clockid TAI delta -0", "c TAI dead", "clockid CLOCK_TAI skip_sock_check deadline_mode delta 1", "clockid Tai delta 999999999"},
		invalid: []string{"", "help", "foo", "delta x", "delta 5 delta 6", "clockid TAI clockid TAI", "clockid foo", "offload clockid TAI",
			"offload offload", "deadline_mode deadline_mode", "skip_sock_check skip_sock_check", "delta -5 clockid TAI",
			"clockid CLOCK_MONOTONIC", "delta", "clockid XCLOCK_TAI", "d 300 clockid TAI", "delta 2147483648 clockid TAI", "skip clockid TAI"},
		changes: []string{"delta 200 clockid CLOCK_TAI", "clockid CLOCK_TAI"},
	})
	register(kindCases{
		kind: "cbs",
		valid: []string{"", "hicredit 64", "locredit 10", "sendslope 888", "idleslope 666", "hicredit 10 locredit 75 sendslope 2 idleslope 666",
			"idleslope 20000 sendslope -980000 hicredit 30 locredit -1470", "h 1 l -1 s -2 i 3", "offload 0", "hicredit 0x10",
			"hicredit 010", "hicredit 0 hicredit 5", "idleslope 2147483647", "locredit -2147483648", "sendslope -1 idleslope 1 offload 0x0"},
		invalid: []string{"offload 1", "hicredit x", "hicredit 1 hicredit 2", "foo", "help", "hicredit", "offload 256",
			"idleslope 2147483648", "offload -1", "o", "idleslope 1.5"},
		changes: []string{"idleslope 1", "sendslope 10", "hicredit 5 locredit -5"},
		classes: []string{"class show dev DEV"},
	})
}
