// SPDX-License-Identifier: Apache-2.0

package attrs

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDualPI2ValidateIsThePolicy: Validate refuses what dualpi2_policy
// refuses, naming the attribute and the bound, and takes the bounds.
func TestDualPI2ValidateIsThePolicy(t *testing.T) {
	for _, c := range []struct {
		name        string
		o           DualPI2Attrs
		attr, check string
		bound       int64
	}{
		{"limit 0", DualPI2Attrs{Limit: ptr(uint32(0))}, "limit", "min", 1},
		{"memory limit 0", DualPI2Attrs{MemoryLimit: ptr(uint32(0))}, "memory-limit", "min", 1},
		{"tupdate 0", DualPI2Attrs{Tupdate: ptr(uint32(0))}, "tupdate", "min", 1},
		{"alpha 0", DualPI2Attrs{Alpha: ptr(uint32(0))}, "alpha", "min", 1},
		{"beta above ALPHA_BETA_MAX", DualPI2Attrs{Beta: ptr(uint32(1 << 31))}, "beta", "max", DualPI2AlphaBetaMax},
		{"coupling 0", DualPI2Attrs{Coupling: ptr(uint8(0))}, "coupling", "min", 1},
		{"drop overload 2", DualPI2Attrs{DropOverload: ptr(DualPI2DropOverload(2))}, "drop-overload", "max", 1},
		{"drop early 2", DualPI2Attrs{DropEarly: ptr(DualPI2DropEarly(2))}, "drop-early", "max", 1},
		{"c protection 101", DualPI2Attrs{CProtection: ptr(uint8(101))}, "c-protection", "max", 100},
		{"ecn mask 0", DualPI2Attrs{ECNMask: ptr(DualPI2ECNMask(0))}, "ecn-mask", "min", 1},
		{"ecn mask 4", DualPI2Attrs{ECNMask: ptr(DualPI2ECNMask(4))}, "ecn-mask", "max", 3},
		{"split gso 2", DualPI2Attrs{SplitGSO: ptr(DualPI2SplitGSO(2))}, "split-gso", "max", 1},
	} {
		err := c.o.Validate()
		var ce *CheckError
		if !errors.As(err, &ce) {
			t.Errorf("%s: Validate() = %v, want a *CheckError", c.name, err)
			continue
		}
		if ce.Set != "dualpi2-attrs" || ce.Attribute != c.attr || ce.Check != c.check || ce.Bound != c.bound {
			t.Errorf("%s: %+v, want %s %s %d", c.name, ce, c.attr, c.check, c.bound)
		}
	}
	ok := DualPI2Attrs{
		Limit: ptr(uint32(1)), MemoryLimit: ptr(uint32(1)), Tupdate: ptr(uint32(1)),
		Alpha: ptr(uint32(DualPI2AlphaBetaMax)), Beta: ptr(uint32(1)), Coupling: ptr(uint8(1)),
		DropOverload: ptr(DualPI2DropOverloadDrop), DropEarly: ptr(DualPI2DropEarlyDropEnqueue),
		CProtection: ptr(uint8(100)), ECNMask: ptr(DualPI2ECNMaskAnyECT), SplitGSO: ptr(DualPI2SplitGSOSplitGSO),
		// Not a policy rule: Validate leaves it to dualpi2_change.
		StepThreshPkts: ptr(uint32(1)), StepThreshUS: ptr(uint32(1)),
	}
	if err := ok.Validate(); err != nil {
		t.Errorf("the policy's bounds refused: %v", err)
	}
	// A qdisc message validates its options.
	msg := TCAttrs{Kind: ptr("dualpi2"), Options: &DualPI2Attrs{Limit: ptr(uint32(0))}}
	if err := msg.Validate(); err == nil || err.Error() != "attrs: dualpi2-attrs limit: 0 is outside min 1" {
		t.Errorf("TCAttrs.Validate() = %v", err)
	}
}

// gactFilter is a matchall filter with a gact action, the action's own kind
// nested inside the filter's.
func gactFilter() TCAttrs {
	return TCAttrs{
		Kind: ptr("matchall"),
		Options: &MatchallAttrs{
			Classid: ptr(uint32(0x10001)),
			Act: []ActAttrs{
				{
					Kind:    ptr("gact"),
					Options: &ActGactAttrs{Parms: &TCGact{Index: 7, Action: 2}},
					Stats:   &StatsAttrs{Basic: &GnetStatsBasic{Bytes: 100, Packets: 1}},
				},
				{Kind: ptr("no-such-kind"), Options: ActOptionsMsgRaw{8, 0, 1, 0, 1, 2, 3, 4}},
			},
		},
		Stats2: &StatsAttrs{Basic: &GnetStatsBasic{Bytes: 5, Packets: 1}},
	}
}

// TestActionKindIsScopedToTheAction: an action's kind chooses the action's
// options; the filter's kind still chooses the filter's, and an unknown
// action kind stays raw.
func TestActionKindIsScopedToTheAction(t *testing.T) {
	want := gactFilter()
	b := encode(want.Encode)
	var got TCAttrs
	if err := got.Decode(b); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if _, ok := got.Options.(*MatchallAttrs); !ok {
		t.Fatalf("filter options decoded as %T", got.Options)
	}
	// The same through a Decoder, whose scopes come from its pools.
	var d Decoder
	var reused TCAttrs
	for range 2 {
		if err := d.DecodeTCAttrs(&reused, b); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, reused); diff != "" {
			t.Errorf("Decoder (-want +got):\n%s", diff)
		}
	}
}

// TestActionOptionsWireLayout pins the encoding of a gact action: the
// indexed array numbers the actions from 1, and the action's options are a
// nest of TCA_GACT_PARMS, the only nest of the three that carries NLA_F_NESTED.
func TestActionOptionsWireLayout(t *testing.T) {
	b := encode((&MatchallAttrs{Act: []ActAttrs{{Kind: ptr("gact"), Options: &ActGactAttrs{Parms: &TCGact{Action: 2}}}}}).Encode)
	le16 := func(v uint16) []byte { return []byte{byte(v), byte(v >> 8)} }
	var want []byte
	add := func(parts ...[]byte) {
		for _, p := range parts {
			want = append(want, p...)
		}
	}
	add(le16(4+4+12+4+4+20), le16(TCAMatchallAct))                 // TCA_MATCHALL_ACT
	add(le16(4+12+4+4+20), le16(1))                                // action 1
	add(le16(9), le16(TCAActKind), []byte("gact\x00\x00\x00\x00")) // "gact", NUL, padding
	add(le16(4+4+20), le16(TCAActOptions|FlagNested))              // TCA_ACT_OPTIONS, NLA_F_NESTED as tc sets it
	add(le16(4+20), le16(TCAGactParms))                            // TCA_GACT_PARMS
	add(make([]byte, 8), []byte{2, 0, 0, 0}, make([]byte, 8))
	if diff := cmp.Diff(want, b); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
