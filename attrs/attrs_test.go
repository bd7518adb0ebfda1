// SPDX-License-Identifier: Apache-2.0

package attrs

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func encode(fn func(e *Encoder)) []byte {
	e := NewEncoder(nil)
	fn(e)
	return e.Bytes()
}

func TestCakeRoundTrip(t *testing.T) {
	want := CakeAttrs{
		BaseRate64:   ptr(uint64(12_500_000)),
		DiffservMode: ptr(CakeDiffservModeDiffserv8),
		ATM:          ptr(CakeATMModePTM),
		FlowMode:     ptr(CakeFlowModeDualDst),
		Overhead:     ptr(int32(-64)),
		RTT:          ptr(uint32(100000)),
		Target:       ptr(uint32(5000)),
		Autorate:     ptr(uint32(1)),
		Memory:       ptr(uint32(4 << 20)),
		NAT:          ptr(uint32(0)),
		Raw:          ptr(uint32(0)),
		Wash:         ptr(uint32(1)),
		MPU:          ptr(uint32(84)),
		Ingress:      ptr(uint32(1)),
		AckFilter:    ptr(CakeAckFilterAggressive),
		SplitGSO:     ptr(uint32(0)),
		Fwmark:       ptr(uint32(0xff)),
	}
	var got CakeAttrs
	if err := got.Decode(encode(want.Encode)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestOnlySetAttributesAreEncoded(t *testing.T) {
	b := encode((&CakeAttrs{MPU: ptr(uint32(128))}).Encode)
	// One attribute: 4-byte header, 4-byte u32.
	want := []byte{8, 0, byte(TCACakeMPU), 0, 128, 0, 0, 0}
	if !bytes.Equal(b, want) {
		t.Errorf("got % x, want % x", b, want)
	}
}

func TestNegativeOverheadIsSigned(t *testing.T) {
	b := encode((&CakeAttrs{Overhead: ptr(int32(-10))}).Encode)
	var got CakeAttrs
	if err := got.Decode(b); err != nil {
		t.Fatal(err)
	}
	if got.Overhead == nil || *got.Overhead != -10 {
		t.Fatalf("overhead = %v, want -10", got.Overhead)
	}
}

func TestUnknownAndMisSizedAttributesAreKept(t *testing.T) {
	b := encode(func(e *Encoder) {
		e.Uint32(TCADualPI2Limit, 100)
		e.Uint32(99, 7)                      // a type the spec does not know
		e.Uint32(TCADualPI2Coupling, 2)      // u8 attribute with a u32 payload
		e.Uint8(TCADualPI2ECNMask|0x8000, 3) // flags must be ignored for known types
	})
	var got DualPI2Attrs
	if err := got.Decode(b); err != nil {
		t.Fatal(err)
	}
	if got.Limit == nil || *got.Limit != 100 {
		t.Errorf("limit = %v", got.Limit)
	}
	if got.Coupling != nil {
		t.Errorf("mis-sized coupling decoded as %d", *got.Coupling)
	}
	if got.ECNMask == nil || *got.ECNMask != DualPI2ECNMaskAnyECT {
		t.Errorf("ecn mask = %v", got.ECNMask)
	}
	if len(got.Unknown) != 2 || got.Unknown[0].Type != 99 || got.Unknown[1].Type != TCADualPI2Coupling {
		t.Fatalf("unknown = %+v", got.Unknown)
	}
	// What is kept is encoded again unchanged.
	again := encode(got.Encode)
	var back DualPI2Attrs
	if err := back.Decode(again); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, back); diff != "" {
		t.Errorf("re-encode (-first +second):\n%s", diff)
	}
}

func TestOptionsFollowKind(t *testing.T) {
	build := func(kind string, opts TCOptionsMsg) []byte {
		return encode((&TCAttrs{Kind: ptr(kind), Options: opts}).Encode)
	}
	var msg TCAttrs
	if err := msg.Decode(build("dualpi2", &DualPI2Attrs{Limit: ptr(uint32(5))})); err != nil {
		t.Fatal(err)
	}
	d, ok := msg.Options.(*DualPI2Attrs)
	if !ok || *d.Limit != 5 {
		t.Fatalf("dualpi2 options decoded as %#v", msg.Options)
	}
	// An unknown kind's options stay raw and are not an error.
	if err := msg.Decode(build("sfq", TCOptionsMsgRaw{1, 2, 3, 4})); err != nil {
		t.Fatal(err)
	}
	if raw, ok := msg.Options.(TCOptionsMsgRaw); !ok || !bytes.Equal(raw, []byte{1, 2, 3, 4}) {
		t.Fatalf("sfq options decoded as %#v", msg.Options)
	}
}

func TestOptionsNestCarriesNestedFlag(t *testing.T) {
	// DualPI2's strict parser refuses TCA_OPTIONS without NLA_F_NESTED.
	b := encode((&TCAttrs{Options: &DualPI2Attrs{}}).Encode)
	if typ := uint16(b[2]) | uint16(b[3])<<8; typ != TCAOptions|FlagNested {
		t.Fatalf("options type = %#x, want %#x", typ, TCAOptions|FlagNested)
	}
}

func TestCakeStatsIndexedTins(t *testing.T) {
	want := CakeStatsAttrs{
		MemoryUsed: ptr(uint32(1000)),
		TinStats: []CakeTinStatsAttrs{
			{SentPackets: ptr(uint32(1)), ThresholdRate64: ptr(uint64(10))},
			{SentPackets: ptr(uint32(2)), FlowQuantum: ptr(uint32(1514))},
			{SentPackets: ptr(uint32(3)), WayMisses: ptr(uint32(4))},
		},
	}
	b := encode((&StatsAttrs{App: &want}).Encode)
	var got StatsAttrs
	if err := got.decode(b, &selectors{decodeState: &decodeState{}, declared: selKind, Kind: "cake"}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&want, got.App); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestStructsDecodeLongerAndRefuseShorter(t *testing.T) {
	x := TCDualPI2Xstats{Prob: 1, Credit: -121120, MemoryLimit: 30280000}
	b := append(x.Append(nil), 0xaa, 0xbb) // a newer kernel may append fields
	var got TCDualPI2Xstats
	if err := got.Decode(b); err != nil || got != x {
		t.Fatalf("got %+v, %v", got, err)
	}
	if err := got.Decode(b[:TCDualPI2XstatsLen-1]); err == nil {
		t.Fatal("short struct accepted")
	}
	if TCDualPI2XstatsLen != 48 || TCMsgLen != 20 {
		t.Fatalf("sizes: xstats %d, tcmsg %d", TCDualPI2XstatsLen, TCMsgLen)
	}
}

func TestTruncatedStreamIsAnError(t *testing.T) {
	var got CakeAttrs
	if err := got.Decode([]byte{8, 0, 2, 0, 1}); err == nil {
		t.Fatal("truncated attribute accepted")
	}
}

func ptr[T any](v T) *T { return &v }

// TestDecodedScalarsAreIndependent: integer fields share allocation chunks
// (scalarArena); a later decode into the same struct must not change what an
// earlier decode's pointers point to.
func TestDecodedScalarsAreIndependent(t *testing.T) {
	encode := func(rate uint64, target uint32) []byte {
		e := NewEncoder(nil)
		(&CakeAttrs{BaseRate64: ptr(rate), Target: ptr(target)}).Encode(e)
		return e.Bytes()
	}
	var a CakeAttrs
	if err := a.Decode(encode(1000, 5)); err != nil {
		t.Fatal(err)
	}
	rate, target := a.BaseRate64, a.Target
	if err := a.Decode(encode(2000, 7)); err != nil {
		t.Fatal(err)
	}
	if *rate != 1000 || *target != 5 || *a.BaseRate64 != 2000 || *a.Target != 7 {
		t.Errorf("first decode now %d/%d, second %d/%d", *rate, *target, *a.BaseRate64, *a.Target)
	}
}

// TestDecoderReusesMemory: a Decoder decodes what Decode decodes, and once
// warmed up allocates nothing.
func TestDecoderReusesMemory(t *testing.T) {
	kind := func(k string) *string { return &k }
	tin := func(n uint32) CakeTinStatsAttrs {
		return CakeTinStatsAttrs{SentPackets: ptr(n), SentBytes64: ptr(uint64(n) * 1000), BacklogBytes: ptr(n / 2)}
	}
	msgs := []TCAttrs{
		{
			Kind:    kind("cake"),
			Options: &CakeAttrs{BaseRate64: ptr(uint64(12500)), RTT: ptr(uint32(100000))},
			Stats2: &StatsAttrs{
				Basic: &GnetStatsBasic{Bytes: 5, Packets: 1},
				App:   &CakeStatsAttrs{CapacityEstimate64: ptr(uint64(9)), TinStats: []CakeTinStatsAttrs{tin(1), tin(2), tin(3)}},
			},
		},
		{
			Kind:    kind("dualpi2"),
			Options: &DualPI2Attrs{Limit: ptr(uint32(1000)), Coupling: ptr(uint8(2))},
			Stats:   &TCStats{Bytes: 7},
			Xstats:  &TCDualPI2Xstats{Prob: 3, PacketsInL: 4},
		},
	}
	var raw [][]byte
	for i := range msgs {
		e := NewEncoder(nil)
		msgs[i].Encode(e)
		raw = append(raw, e.Bytes())
	}
	var d Decoder
	for round := range 3 {
		for i, b := range raw {
			var fresh, reused TCAttrs
			if err := fresh.Decode(b); err != nil {
				t.Fatal(err)
			}
			if err := d.DecodeTCAttrs(&reused, b); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(fresh, reused) {
				t.Fatalf("round %d, message %d: Decoder gave\n%#v\nDecode gave\n%#v", round, i, reused, fresh)
			}
		}
	}
	var s TCAttrs
	allocs := testing.AllocsPerRun(100, func() {
		for _, b := range raw {
			if err := d.DecodeTCAttrs(&s, b); err != nil {
				t.Fatal(err)
			}
		}
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per round of %d messages", allocs, len(raw))
	}
}

// TestKeepingDecoder: NewKeepingDecoder's messages decode as Decode's do
// and stay valid after later ones, and many messages share allocations.
func TestKeepingDecoder(t *testing.T) {
	kind := func(k string) *string { return &k }
	msg := func(n uint32) []byte {
		m := TCAttrs{
			Kind:    kind("htb"),
			Options: &HTBAttrs{Parms: &TCHTBOpt{Buffer: n, Cbuffer: n + 1}},
			Stats2:  &StatsAttrs{Basic: &GnetStatsBasic{Bytes: uint64(n), Packets: n}, Queue: &GnetStatsQueue{Qlen: n}},
			Xstats:  &TCHTBXstats{Lends: n, Tokens: int32(n)},
		}
		e := NewEncoder(nil)
		m.Encode(e)
		return e.Bytes()
	}
	const n = 200
	var raw [][]byte
	for i := range n {
		raw = append(raw, msg(uint32(i)))
	}
	kept := make([]TCAttrs, n)
	d := NewKeepingDecoder()
	allocs := testing.AllocsPerRun(1, func() {
		for i, b := range raw {
			if err := d.DecodeTCAttrs(&kept[i], b); err != nil {
				t.Fatal(err)
			}
		}
	})
	for i, b := range raw {
		var fresh TCAttrs
		if err := fresh.Decode(b); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fresh, kept[i]) {
			t.Fatalf("message %d: kept\n%#v\nDecode gave\n%#v", i, kept[i], fresh)
		}
	}
	// Decode allocates several values a message; the keeping Decoder a
	// chunk of each type per poolChunk messages.
	if allocs > n/2 {
		t.Errorf("%.0f allocations for %d messages", allocs, n)
	}
}
