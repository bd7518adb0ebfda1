// SPDX-License-Identifier: Apache-2.0

package tckind

import (
	"testing"

	"github.com/gotc/gotc/attrs"
)

// The two readers of one-struct statistics differ only on a payload
// shorter than the struct: WholeXstats gives nil (tc's pie and hhf print
// nothing), FixedXstats the struct zero-filled (tc's red, codel, ...).
// Both prefer TCA_STATS_APP to TCA_XSTATS, as tc does.
func TestWholeAndFixedXstats(t *testing.T) {
	app := &attrs.TCHHFXstats{DropOverlimit: 1}
	legacy := &attrs.TCHHFXstats{DropOverlimit: 2}
	both := Xstats{App: app, Legacy: legacy}
	if got := WholeXstats[attrs.TCHHFXstats](both); got != app {
		t.Errorf("WholeXstats with both: %+v, want TCA_STATS_APP's", got)
	}
	if got := FixedXstats[attrs.TCHHFXstats](both, attrs.TCHHFXstatsLen); got != app {
		t.Errorf("FixedXstats with both: %+v, want TCA_STATS_APP's", got)
	}
	if got := WholeXstats[attrs.TCHHFXstats](Xstats{Legacy: legacy}); got != legacy {
		t.Errorf("WholeXstats with TCA_XSTATS only: %+v", got)
	}
	// A payload of 5 bytes: the first counter and one byte of the second.
	short := Xstats{App: attrs.StatsAppMsgRaw{7, 0, 0, 0, 1}}
	if got := WholeXstats[attrs.TCHHFXstats](short); got != nil {
		t.Errorf("WholeXstats of a short payload: %+v, want nil", got)
	}
	got := FixedXstats[attrs.TCHHFXstats](short, attrs.TCHHFXstatsLen)
	if got == nil || *got != (attrs.TCHHFXstats{DropOverlimit: 7, HHOverlimit: 1}) {
		t.Errorf("FixedXstats of a short payload: %+v, want it zero-filled", got)
	}
	if WholeXstats[attrs.TCHHFXstats](Xstats{}) != nil || FixedXstats[attrs.TCHHFXstats](Xstats{}, attrs.TCHHFXstatsLen) != nil {
		t.Error("statistics read from a dump without any")
	}
}
