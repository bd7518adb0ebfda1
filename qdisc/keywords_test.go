// SPDX-License-Identifier: Apache-2.0

package qdisc

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/tckind"
)

// keywordCases are option sets of each kind, beyond the golden dumps,
// that together name every keyword the kind's Keywords writes.
var keywordCases = map[string][]string{
	"codel": {
		"",
		"limit 500 target 3ms interval 50ms ecn ce_threshold 1ms",
		"limit 1 target 1234us interval 2s noecn ce_threshold 0",
	},
	"cbs": {
		"",
		"hicredit 30 locredit -1470 sendslope -980000 idleslope 20000",
		"idleslope 1 offload 1",
	},
	"etf": {
		"clockid CLOCK_TAI",
		"delta 300000 clockid CLOCK_MONOTONIC deadline_mode",
		"delta -5 clockid REALTIME offload skip_sock_check",
		"clockid CLOCK_BOOTTIME offload deadline_mode skip_sock_check",
	},
	"fq": {
		"",
		"limit 1000 flow_limit 50 quantum 3000 initial_quantum 15000 maxrate 100mbit buckets 256 nopacing refill_delay 20ms low_rate_threshold 1mbit orphan_mask 511 ce_threshold 2ms timer_slack 20us horizon 5s horizon_cap",
		"bands 3 priomap 0 1 2 0 1 2 0 1 2 0 1 2 0 1 2 0 weights 16384 65536 1048576 defrate 1mbit pacing horizon_drop offload_horizon 1ms",
		"maxrate 34359738360bit buckets 1000 timer_slack 7",
	},
	"pie": {
		"",
		"limit 500 target 10ms tupdate 20ms alpha 4 beta 30 ecn bytemode dq_rate_estimator",
		"target 1234us alpha 32 beta 1 noecn nobytemode no_dq_rate_estimator",
	},
	"fq_pie": {
		"",
		"limit 500 flows 128 target 10ms tupdate 20ms alpha 4 beta 30 quantum 3000 memory_limit 1Mb ecn_prob 20 ecn bytemode dq_rate_estimator",
		"flows 1 noecn nobytemode no_dq_rate_estimator",
	},
	"hhf": {
		"",
		"limit 500 quantum 1000 hh_limit 1000 reset_timeout 50ms admit_bytes 100000 evict_timeout 2s non_hh_weight 8",
	},
	"sfb": {
		"",
		"rehash 10000 db 2000 limit 1000 max 40 target 30 increment 0.002 decrement 0.0001 penalty_rate 20 penalty_burst 40",
		"target 7 increment 1 decrement 0",
	},
	"red": {
		"limit 1M avpkt 1500 min 100K max 300K",
		"limit 400000 avpkt 1000 bandwidth 100mbit probability 0.1 ecn harddrop adaptive",
		"limit 1M avpkt 1500 min 100K max 300K burst 80 ecn nodrop qevent early_drop block 10 qevent mark block 20",
		"limit 1M avpkt 1500 probability 1",
		"limit 100000 min 1000 max 3000 avpkt 100 burst 11 probability 4 bandwidth 1gbit",
		"limit 50000 min 20000 max 40000 avpkt 64 burst 2000 probability 0.001 bandwidth 10kbit",
	},
	"choke": {
		"limit 1000 bandwidth 10000",
		"limit 1000 bandwidth 100mbit min 10 max 500 burst 30 avpkt 500 probability 0.1 ecn",
		"limit 100 min 5 max 90 bandwidth 1gbit avpkt 9000 probability 1",
	},
	"gred": {
		"setup vqs 10 default 1 grio limit 1000 ecn",
		"setup vqs 4 default 3 harddrop",
		"vq 0 prio 2 limit 60KB min 15K max 25K avpkt 1500 ecn",
		"vq 2 limit 1mb min 100k max 300k avpkt 1000 burst 200 bandwidth 1gbit probability 0.05 harddrop",
		"vq 15 limit 100000 min 3000 max 9000 avpkt 300 probability 2",
	},
	"sfq": {
		"",
		"quantum 1500 perturb 60 limit 100 divisor 256 flows 100 depth 50 headdrop",
		"redflowlimit 100000 min 8000 max 60000 probability 0.20 ecn harddrop",
		"limit 50 redflowlimit 40000 avpkt 500 burst 20 probability 1",
	},
	"netem": {
		"",
		"delay 10ms seed 3",
		"limit 10k delay 1ms loss random 1% 10% duplicate 2% 3% corrupt 0.5% 25% seed 9",
		"loss gemodel 1% 10% 70% 0.1% ecn",
		"limit 200 loss state 1% 2% 3% 4% 5% ecn seed 14",
		"rate 100kbit -10 64 -4 slot 1ms 2ms packets 3 bytes 2k",
		"rate 50gbit 0 0 -4 slot 123456ns",
		"delay 10ms 1ms reorder 25% 50% gap 5",
		"delay 1s reorder 0.3",
		"delay 0 0 5% loss 0.0001",
		"duplicate 1% 30% corrupt 1% 0",
		"duplicate 7 corrupt 0 33.3333 rate 1mbit 20",
	},
	"skbprio":    {"", "limit 10kb", "limit 0"},
	"plug":       {"", "limit 10k", "block", "release", "release_indefinite", "limit 100 release"},
	"ingress":    {"", "handle ffff:"},
	"clsact":     {""},
	"pfifo_fast": {""},
	"tbf": {
		"rate 1mbit burst 10k latency 50ms",
		"rate 2mbit burst 5k/8 latency 100ms overhead 10 mpu 64 linklayer atm",
		"rate 10mbit burst 20k limit 100k peakrate 20mbit mtu 1600",
		"rate 40gbit burst 1mb limit 10mb peakrate 50gbit mtu 9000",
		"rate 1234567bit burst 3333 limit 40000 mpu 90 overhead 4",
	},
}

// TestKeywordsRoundTrip parses each case, writes what the kernel would
// dump of it back with the kind's Keywords (through Restoring, as
// "apply --from-kernel" does), parses the words again, and requires the
// kernel to keep the same options of both requests.
func TestKeywordsRoundTrip(t *testing.T) {
	useClock(t, testbedClock)
	for kind, cases := range keywordCases {
		k := tckind.LookupQdisc(kind)
		if k == nil || k.Keywords == nil {
			t.Errorf("%s: no Keywords", kind)
			continue
		}
		for _, c := range cases {
			first, err := k.ParseQdisc(strings.Fields(c), tckind.ParseEnv{})
			if err != nil {
				t.Errorf("%s %s: %v", kind, c, err)
				continue
			}
			kept := tckind.Dumped(kind, first)
			words, err := tckind.QdiscKeywords(kind, tckind.Restoring(kind, kept))
			if err != nil {
				t.Errorf("%s %s: keywords: %v", kind, c, err)
				continue
			}
			second, err := k.ParseQdisc(words, tckind.ParseEnv{})
			if err != nil {
				t.Errorf("%s %s: %q do not parse: %v", kind, c, words, err)
				continue
			}
			again := tckind.Dumped(kind, second)
			if !tckind.Covers(again, kept) || !tckind.Covers(kept, again) {
				t.Errorf("%s %s: written as %q, kept as\n %s\n not\n %s", kind, c, words, optionsString(again), optionsString(kept))
			}
		}
	}
}

// optionsString shows options with the values behind their pointers.
func optionsString(o attrs.TCOptionsMsg) string {
	b, err := json.Marshal(o)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
