// SPDX-License-Identifier: Apache-2.0

package tckind

import (
	"testing"

	"github.com/gotc/gotc/attrs"
)

// TestCovers checks the comparison rule on the cases it has words for.
func TestCovers(t *testing.T) {
	u32p := func(v uint32) *uint32 { return &v }
	tests := []struct {
		name       string
		want, have any
		ok         bool
	}{
		{"attribute left out", &attrs.CakeAttrs{}, &attrs.CakeAttrs{NAT: u32p(1)}, true},
		{"attribute sent as 0", &attrs.CakeAttrs{NAT: u32p(0)}, &attrs.CakeAttrs{NAT: u32p(1)}, false},
		{"attribute not dumped", &attrs.CakeAttrs{NAT: u32p(0)}, &attrs.CakeAttrs{}, false},
		{"struct field 0 is the kernel's", &attrs.HTBAttrs{Parms: &attrs.TCHTBOpt{Prio: 1}}, &attrs.HTBAttrs{Parms: &attrs.TCHTBOpt{Prio: 1, Quantum: 1514, Level: 2}}, true},
		{"struct field differs", &attrs.HTBAttrs{Parms: &attrs.TCHTBOpt{Prio: 1}}, &attrs.HTBAttrs{Parms: &attrs.TCHTBOpt{Prio: 2}}, false},
		{"rate table never dumped", &attrs.HTBAttrs{Rtab: []byte{1}}, &attrs.HTBAttrs{}, true},
		{"skip_hw with not_in_hw", &attrs.MatchallAttrs{Flags: u32p(1)}, &attrs.MatchallAttrs{Flags: u32p(1 | 8)}, true},
		{"skip_hw against skip_sw", &attrs.MatchallAttrs{Flags: u32p(1)}, &attrs.MatchallAttrs{Flags: u32p(2)}, false},
		{"another kind", &attrs.CakeAttrs{}, &attrs.FQCodelAttrs{}, false},
		{"a 0 the kernel keeps: prio", &attrs.HTBAttrs{Parms: &attrs.TCHTBOpt{}}, &attrs.HTBAttrs{Parms: &attrs.TCHTBOpt{Prio: 3}}, false},
		{"a 0 the kernel keeps: htb default", &attrs.HTBAttrs{Init: &attrs.TCHTBGlob{Version: 3}}, &attrs.HTBAttrs{Init: &attrs.TCHTBGlob{Version: 0x30011, Defcls: 0x10}}, false},
		{"a 0 the kernel keeps, kept", &attrs.HTBAttrs{Init: &attrs.TCHTBGlob{Version: 3}}, &attrs.HTBAttrs{Init: &attrs.TCHTBGlob{Version: 0x30011, DirectPkts: 7}}, true},
		{"no peak rate", &attrs.TBFAttrs{Parms: &attrs.TCTBFQopt{}}, &attrs.TBFAttrs{Parms: &attrs.TCTBFQopt{Peakrate: attrs.TCRatespec{Rate: 125000}}}, false},
		// prio keeps a band of 0 as asked: a map that sends a priority to
		// band 0 differs from one that sends it elsewhere.
		{"priomap band 0", &attrs.TCPrioQopt{Bands: 3, Priomap: [16]byte{1, 0, 2}}, &attrs.TCPrioQopt{Bands: 3, Priomap: [16]byte{1, 2, 2}}, false},
		{"priomap all 0", &attrs.TCPrioQopt{Bands: 3}, &attrs.TCPrioQopt{Bands: 3, Priomap: [16]byte{1, 2, 2}}, false},
		{"priomap same", &attrs.TCPrioQopt{Bands: 3, Priomap: [16]byte{1, 0, 2}}, &attrs.TCPrioQopt{Bands: 3, Priomap: [16]byte{1, 0, 2}}, true},
	}
	for _, tt := range tests {
		if got := Covers(tt.want, tt.have); got != tt.ok {
			t.Errorf("%s: covers = %v, want %v", tt.name, got, tt.ok)
		}
	}
}
