// SPDX-License-Identifier: Apache-2.0

package tcword

// The arithmetic tc shares among its rate-based qdiscs (htb, tbf, hfsc): the
// psched clock of /proc/net/psched, transmission times in its ticks, the
// 256-entry rate table, sizes with a cell size ("10k/8") and link layers.
// After iproute2's tc/tc_core.c and tc/tc_util.c.

import (
	"encoding/binary"
	"math"
	"os"
	"strings"
	"sync"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/tcfmt"
)

// TimeUnitsPerSec is tc's TIME_UNITS_PER_SEC: its times are microseconds.
const TimeUnitsPerSec = 1000000

// Link layers of a rate (tc's enum link_layer, the kernel's TC_LINKLAYER_*).
const (
	LinklayerUnspec   = 0
	LinklayerEthernet = 1
	LinklayerATM      = 2
	// LinklayerMask keeps the link layer bits of tc_ratespec.linklayer.
	LinklayerMask = 0x0F
)

// ATM cells: 48 bytes of payload in 53 on the wire.
const (
	atmCellPayload = 48
	atmCellSize    = 53
)

// RtabEntries is the size of a rate table (TC_RTAB_SIZE is 4 times this).
const RtabEntries = 256

// PschedClock is what tc derives from /proc/net/psched at start.
type PschedClock struct {
	// TickInUsec is psched ticks per microsecond (tc_core_init); 1 when the
	// file cannot be read, as tc then keeps its initial values.
	TickInUsec float64
	// ClockFactor is the kernel clock's units per microsecond, by which
	// tc scales the times it sends in those units (hfsc's curves); 1 when
	// the file cannot be read.
	ClockFactor float64
	// Hz is get_hz's value: the clock resolution when the file's third
	// number is 1000000, else the HZ of tc's build (100).
	Hz int
}

// Psched reads the clock once, when a rate-based kind first needs it: tc
// reads the file at every start, but only these kinds use what it gives.
var Psched = sync.OnceValue(func() PschedClock {
	c := PschedClock{TickInUsec: 1, ClockFactor: 1, Hz: HzFallback}
	if v, ok := ReadPsched("/proc/net/psched"); ok {
		t2us, us2t, res := v[0], v[1], v[2]
		// The kernel advertises a tick multiplier of 1000 at nanosecond
		// resolution for the sake of tools that ignore the resolution;
		// tc undoes it.
		if res == 1000000000 {
			t2us = us2t
		}
		c.ClockFactor = float64(res) / TimeUnitsPerSec
		c.TickInUsec = float64(t2us) / float64(us2t) * c.ClockFactor
	}
	c.Hz = GetHZ()
	return c
})

// HzFallback is HZ from the kernel headers tc is built with.
const HzFallback = 100

// GetHZ is tc's get_hz: $HZ when set (atoi, 0 meaning the fallback), else
// the fourth number of $PROC_NET_PSCHED, $PROC_ROOT/net/psched or
// /proc/net/psched when the third is 1000000, else the fallback.
func GetHZ() int {
	if s, ok := os.LookupEnv("HZ"); ok {
		if v, _, _ := tcfmt.Strtol(strings.TrimLeft(s, " \t\n\v\f\r"), 10); int32(v) != 0 {
			return int(int32(v))
		}
		return HzFallback
	}
	name := "/proc/net/psched"
	if s, ok := os.LookupEnv("PROC_NET_PSCHED"); ok {
		name = s
	} else if s, ok := os.LookupEnv("PROC_ROOT"); ok {
		name = s + "/net/psched"
	}
	if v, ok := ReadPsched(name); ok && len(v) == 4 && v[2] == 1000000 && v[3] != 0 {
		return int(int32(v[3]))
	}
	return HzFallback
}

// ReadPsched reads the hexadecimal numbers of a psched file as tc's fscanf
// "%08x" does (up to 8 digits each, blanks between): at least three, and a
// fourth when present.
func ReadPsched(name string) ([]uint32, bool) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, false
	}
	var v []uint32
	for _, f := range strings.Fields(string(b)) {
		if len(v) == 4 {
			break
		}
		if len(f) > 8 {
			f = f[:8]
		}
		n, err := tcfmt.ParseUint(f, 16, 32)
		if err != nil {
			break
		}
		v = append(v, uint32(n))
	}
	return v, len(v) >= 3
}

// XmitTime is tc_calc_xmittime: the psched ticks to send size bytes at rate
// bytes/s, rounded up and saturated at 2^32-1 (which tc takes for "out of
// range").
func XmitTime(rate, size uint64) uint32 { return xmitTicks(rate, size, Psched().TickInUsec) }

// xmitTicks is xmitTime with the clock's ticks per microsecond given, for
// loops that would otherwise ask for them 256 times a table.
func xmitTicks(rate, size uint64, tickInUsec float64) uint32 {
	t := float64(TimeUnitsPerSec * (float64(size) / float64(rate)))
	val := math.Ceil(float64(t * tickInUsec))
	if val > math.MaxUint32 {
		return math.MaxUint32
	}
	return tcfmt.CUint32(val)
}

// XmitSize is tc_calc_xmitsize: the bytes sent at rate in ticks psched
// ticks, truncated.
func XmitSize(rate uint64, ticks uint32) uint64 {
	us := TickToTime(float64(ticks))
	return tcfmt.CUint64(float64(float64(rate)*us) / TimeUnitsPerSec)
}

// TickToTime is tc_core_tick2time: psched ticks to microseconds.
func TickToTime(ticks float64) float64 { return ticks / Psched().TickInUsec }

// AdjustSize is the packet size a rate table accounts for sz bytes: at
// least mpu, and whole ATM cells on ATM.
func AdjustSize(sz, mpu uint32, linklayer uint8) uint32 {
	if sz < mpu {
		sz = mpu
	}
	if linklayer == LinklayerATM {
		cells := sz / atmCellPayload
		if sz%atmCellPayload > 0 {
			cells++
		}
		return cells * atmCellSize
	}
	return sz
}

// CalcRtable is tc_calc_rtable: the rate table of r (the transmission time
// of each cell's largest packet at r's 32-bit rate, honouring r's mpu) in
// the kernel's layout, with r's cell size, alignment and link layer set as
// tc sends them. A negative cellLog picks the smallest cell size that
// covers mtu (2047 when 0) in 256 cells.
func CalcRtable(r *attrs.TCRatespec, cellLog int, mtu uint32, linklayer uint8) []byte {
	return CalcRtable64(r, cellLog, mtu, linklayer, uint64(r.Rate))
}

// CalcRtable64 is tc_calc_rtable_64: calcRtable with the times at rate,
// which police passes in full where r holds it saturated at 32 bits.
func CalcRtable64(r *attrs.TCRatespec, cellLog int, mtu uint32, linklayer uint8, rate uint64) []byte {
	if mtu == 0 {
		mtu = 2047
	}
	if cellLog < 0 {
		cellLog = 0
		for mtu>>cellLog > 255 {
			cellLog++
		}
	}
	tab := make([]byte, 0, 4*RtabEntries)
	tick := Psched().TickInUsec
	for i := 0; i < RtabEntries; i++ {
		// tc shifts an int; the size is its low 32 bits.
		sz := AdjustSize(uint32((i+1)<<cellLog), uint32(r.MPU), linklayer)
		tab = binary.NativeEndian.AppendUint32(tab, xmitTicks(rate, uint64(sz), tick))
	}
	r.CellAlign = -1
	r.CellLog = uint8(cellLog)
	r.Linklayer = linklayer & LinklayerMask
	return tab
}

// CellSize is a rate table's cell size, 1<<cellLog, as tc computes it
// for printing (an int shift, whose count x86 takes modulo 32).
func CellSize(cellLog uint8) uint64 { return uint64(uint32(1) << (cellLog & 31)) }

// Rate32 is a rate as tc_ratespec carries it: saturated at 2^32-1 when the
// 64-bit value needs an attribute of its own.
func Rate32(rate uint64) uint32 {
	if rate >= 1<<32 {
		return math.MaxUint32
	}
	return uint32(rate)
}

// SizeAndCell is tc's get_size64_and_cell: "SIZE" or "SIZE/CELL", CELL a
// power of two given as an int (strtol base 0), whose log it returns
// (cellLog is -1 without one). shown is what tc's argument reads afterwards,
// which some messages quote: tc cuts it at the slash and restores the slash
// only once the cell size parsed. max bounds the size (tc's 32-bit variant
// refuses more than 2^32-1).
func SizeAndCell(arg string, max uint64) (size uint64, cellLog int, shown string, ok bool) {
	str, cell, hasCell := strings.Cut(arg, "/")
	cellLog = -1
	size, err := tcfmt.ParseSize64(str)
	if err != nil {
		return 0, 0, str, false
	}
	if hasCell {
		c, err := tcfmt.ParseInt(cell, 0, 32)
		if err != nil {
			return 0, 0, str, false
		}
		cellLog = -1
		for i := 0; i < 32; i++ {
			if int32(uint32(1)<<i) == int32(c) {
				cellLog = i
				break
			}
		}
		if cellLog < 0 {
			return 0, 0, arg, false
		}
	}
	if size > max {
		return 0, 0, arg, false
	}
	return size, cellLog, arg, true
}

// ParseLinklayer is tc's get_linklayer: ethernet, atm or adsl (atm), each
// abbreviable.
func ParseLinklayer(arg string) (uint8, bool) {
	switch {
	case tcfmt.Matches(arg, "ethernet"):
		return LinklayerEthernet, true
	case tcfmt.Matches(arg, "atm"), tcfmt.Matches(arg, "adsl"):
		return LinklayerATM, true
	}
	return 0, false
}

// LinklayerName is tc's sprint_linklayer.
func LinklayerName(ll uint8) string {
	switch ll {
	case LinklayerUnspec:
		return "unspec"
	case LinklayerEthernet:
		return "ethernet"
	case LinklayerATM:
		return "atm"
	}
	return "unknown"
}
