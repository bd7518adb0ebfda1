// SPDX-License-Identifier: Apache-2.0

package qdisc

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

func TestParseHHF(t *testing.T) {
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, tc := range []struct {
		args string
		want []byte
	}{
		{"", nil},
		{"limit 0 quantum 0 non_hh_weight 0", nil},
		{"non_hh_weight 3 limit 0x10 reset_timeout 40ms evict_timeout 1s admit_bytes 128 hh_limit 9 quantum 1514",
			cat(tcU32(attrs.TCAHHFBacklogLimit, 16), tcU32(attrs.TCAHHFQuantum, 1514), tcU32(attrs.TCAHHFHHFlowsLimit, 9),
				tcU32(attrs.TCAHHFResetTimeout, 40000), tcU32(attrs.TCAHHFAdmitBytes, 128),
				tcU32(attrs.TCAHHFEvictTimeout, 1000000), tcU32(attrs.TCAHHFNonHHWeight, 3))},
	} {
		o, err := parseHHF(strings.Fields(tc.args))
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if got := optionBytes(o); !bytes.Equal(got, tc.want) {
			t.Errorf("%q: got %x, want %x", tc.args, got, tc.want)
		}
	}
	for _, tc := range []struct {
		args, msg string
		usage     bool
		code      int
	}{
		{"limit", `Command line is not complete. Try option "help"`, false, 255},
		{"admit_bytes 1k", `Illegal "admit_bytes"`, false, 1},
		{"evict_timeout x", `Illegal "evict_timeout"`, false, 1},
		{"lim 1", `What is "lim"?`, true, 1},
		{"help", "", true, 1},
	} {
		_, err := parseHHF(strings.Fields(tc.args))
		wantParseError(t, tc.args, err, tc.msg, tc.usage, tc.code)
	}
}

func TestPrintHHF(t *testing.T) {
	u := func(v uint32) *uint32 { return &v }
	def := &attrs.HHFAttrs{BacklogLimit: u(1000), Quantum: u(1514), HHFlowsLimit: u(2048), ResetTimeout: u(40000),
		AdmitBytes: u(131072), EvictTimeout: u(1000000), NonHHWeight: u(2)}
	if got, want := printWith(tcfmt.Options{}, func(p *tcfmt.Printer) { printHHFOptions(p, def) }),
		"limit 1000p quantum 1514b hh_limit 2048 reset_timeout 40ms admit_bytes 128Kb evict_timeout 1s non_hh_weight 2 "; got != want {
		t.Errorf("defaults: got %q, want %q", got, want)
	}
	k := tckind.LookupQdisc("hhf")
	x := tckind.Xstats{App: attrs.DecodeStatsAppMsg("hhf", u32s(1, 2, 3, 4))}
	if got, want := printWith(tcfmt.Options{}, func(p *tcfmt.Printer) { k.PrintXstats(p, x) }),
		"  drop_overlimit 1 hh_overlimit 2 tot_hh 3 cur_hh 4"; got != want {
		t.Errorf("xstats: got %q, want %q", got, want)
	}
	// tc prints nothing of a payload shorter than the struct.
	x = tckind.Xstats{App: attrs.DecodeStatsAppMsg("hhf", u32s(1, 2, 3))}
	if got := printWith(tcfmt.Options{}, func(p *tcfmt.Printer) { k.PrintXstats(p, x) }); got != "" {
		t.Errorf("short xstats: got %q", got)
	}
}

func TestHHFChangeAccepted(t *testing.T) {
	for args, want := range map[string]bool{
		"limit 10":                           true,
		"quantum 1000":                       false, // the product needs the current weight
		"quantum 1000 non_hh_weight 2":       true,
		"quantum 1048576 non_hh_weight 4096": false,
		"hh_limit 2049":                      false,
	} {
		o, err := parseHHF(strings.Fields(args))
		if err != nil {
			t.Fatal(err)
		}
		if got := hhfChangeAccepted(o, ""); got != want {
			t.Errorf("%q: %v, want %v", args, got, want)
		}
	}
}
