// SPDX-License-Identifier: Apache-2.0

package tckind

import (
	"bytes"
	"reflect"
)

// Covers reports whether the kernel's options have every setting the
// desired ones make, the rule by which apply decides that an object is in
// sync, and by which a kind's Keywords are checked against what they
// ask for again. A dump carries the defaults a request left out, and values the
// kernel computes, so equality would never hold; instead:
//
//   - an attribute the desired request leaves out is not compared (the
//     kernel's value stands: a setting sent as an attribute of its own,
//     htb's direct_qlen, is not reset when the file stops naming it; apply
//     writes out the defaults of a kind's KeptOnChange, fq_codel's target,
//     before it compares);
//   - an attribute it sends, even with the value 0 ("nonat"), must be in
//     the dump with the same value, nests and lists compared element by
//     element on the same rule;
//   - within a fixed struct (tc_htb_opt, tc_ratespec, an action's parms) a
//     field the request leaves 0 is the kernel's to fill (index, refcnt,
//     htb's quantum and level) and not compared, so a request cannot ask
//     for 0 there when the kernel keeps something else; except the fields
//     whose 0 the kernel keeps as asked (zeroKept: htb's default class
//     and a class's prio, tbf's peak rate, each band of prio's priomap,
//     netem's delay, loss, duplication, reordering, corruption and rate),
//     where a 0 is the kind's default and the dump must have it too, so
//     that a setting the file stops naming goes back to its default;
//   - fields the kernel keeps no copy of are not compared: rate tables
//     (htb's, tbf's and police's, which the kernel only reads), a
//     ratespec's cell_log and cell_align (from which it computed them),
//     tbf's burst in bytes (kept as the bucket's time, which is compared),
//     and the attributes the decoder did not know (Unknown);
//   - nor are fields the kernel fills in whatever the request holds
//     (htb's level and direct_packets_stat, multiq's bands), which no
//     words ask for, and what the kernel counts of an action (its
//     references, its times) and of u32's mark (its hits);
//   - a string in a buffer (simple's) is compared up to its NUL, and raw
//     bytes a kind registered (RegisterBytesCovers) by what they mean;
//   - of a classifier's flags only skip_hw and skip_sw are compared (the
//     kernel adds in_hw or not_in_hw);
//   - the kinds that keep a value rounded or clamped (codel's and
//     fq_codel's times, pie's, fq_pie's, hhf's and fq's times in jiffies
//     and their quanta, dualpi2's alpha and beta) are compared as the
//     kernel will dump the request (Dumped), by the caller.
//
// Limits: the rule cannot tell a setting the kernel refused to keep from
// one it rounded in a way Dumped does not know, which then shows as a
// change pending on every run;
// and a fixed struct's field the request means as 0 is not compared.
func Covers(want, have any) bool {
	registerPending(nil)
	if want == nil {
		return true
	}
	if have == nil {
		return false
	}
	return coversValue(reflect.ValueOf(want), reflect.ValueOf(have), true)
}

// noDumpedTwin lists the fields of options structs that a request carries
// and a dump does not give back as sent.
// A name alone is the field in every struct, Type.Field in one.
var noDumpedTwin = map[string]bool{
	"Unknown":   true,
	"Rtab":      true,
	"Ctab":      true,
	"Ptab":      true,
	"CellLog":   true,
	"CellAlign": true,
	// tbf's burst and peak burst in bytes, which the kernel turns into
	// its bucket's time (compared in the parameters) and forgets.
	"TBFAttrs.Burst":  true,
	"TBFAttrs.Pburst": true,
	// htb's version: tc sends its protocol's, the kernel dumps its own.
	"TCHTBGlob.Version": true,
	// What the kernel computes and dumps in place of the request's 0:
	// htb's count of packets sent unclassified, and a class's level (7
	// for an inner class at the top, counted down for those below it);
	// multiq's bands, which it sets to the device's transmit queues.
	"TCHTBGlob.DirectPkts":  true,
	"TCHTBOpt.Level":        true,
	"TCMultiqQopt.Bands":    true,
	"TCMultiqQopt.MaxBands": true,
	// police's rate tables, which the kernel only reads.
	"ActPoliceAttrs.Rate":     true,
	"ActPoliceAttrs.Peakrate": true,
	// What the kernel counts of an action: its references and times.
	"Refcnt":  true,
	"Bindcnt": true,
	"Tm":      true,
	// How many packets u32's mark matched.
	"TCU32Mark.Success": true,
	// What the kernel counts of a gred queue.
	"TCAGREDVqEntryAttrs.StatBytes":      true,
	"TCAGREDVqEntryAttrs.StatPackets":    true,
	"TCAGREDVqEntryAttrs.StatBacklog":    true,
	"TCAGREDVqEntryAttrs.StatProbDrop":   true,
	"TCAGREDVqEntryAttrs.StatProbMark":   true,
	"TCAGREDVqEntryAttrs.StatForcedDrop": true,
	"TCAGREDVqEntryAttrs.StatForcedMark": true,
	"TCAGREDVqEntryAttrs.StatPdrop":      true,
	"TCAGREDVqEntryAttrs.StatOther":      true,
}

// zeroKept lists the fields of fixed structs whose 0 the kernel keeps as
// a request sends it (rather than filling in a value of its own), so
// that a request's 0 is compared: htb's default class (none), a class's
// priority (0), tbf's peak rate (none, dumped all 0), gred's grio and
// flags.
var zeroKept = map[string]bool{
	"TCHTBGlob.Defcls":   true,
	"TCHTBOpt.Prio":      true,
	"TCTBFQopt.Peakrate": true,
	// prio's band of each priority, band 0 as much as the others (the
	// request sends the whole map, tc's default where none is given).
	"TCPrioQopt.Priomap": true,
	// gred's table: no grio, no flags.
	"TCGREDSopt.Grio":  true,
	"TCGREDSopt.Flags": true,
	// netem's: every request sets its struct's delay, jitter, loss, gap
	// and duplicate, and (with netem's KeptOnChange) its reordering,
	// corruption and rate.
	"TCNetemQopt.Latency":        true,
	"TCNetemQopt.Jitter":         true,
	"TCNetemQopt.Loss":           true,
	"TCNetemQopt.Gap":            true,
	"TCNetemQopt.Duplicate":      true,
	"TCNetemReorder.Probability": true,
	"TCNetemReorder.Correlation": true,
	"TCNetemCorrupt.Probability": true,
	"TCNetemCorrupt.Correlation": true,
	"TCNetemRate.Rate":           true,
	"TCNetemRate.PacketOverhead": true,
	"TCNetemRate.CellSize":       true,
	"TCNetemRate.CellOverhead":   true,
}

// requestBits are the bits of a field a request sets, where the kernel
// adds its own to a dump: the classifiers' flags, which come back with
// in_hw or not_in_hw (TCA_CLS_FLAGS_IN_HW, _NOT_IN_HW) beside skip_hw and
// skip_sw.
var requestBits = map[string]uint64{
	"MatchallAttrs.Flags": 3,
	"U32Attrs.Flags":      3,
	"FlowerAttrs.Flags":   3,
	"BPFAttrs.Flags":      3,
	"BPFAttrs.FlagsGen":   3,
}

// cStrings are the fields that hold a NUL-terminated string, compared up
// to the NUL: simple's string, which tc sends in its whole 32-byte buffer
// and the kernel dumps as long as it is.
var cStrings = map[string]bool{
	"ActSimpleAttrs.Data": true,
}

// bytesCovers holds, for fields of raw bytes that a request and a dump of
// the same setting encode differently, the comparison of what they mean
// (Covers' rule for the field), as the kinds register it.
var bytesCovers = map[string]func(want, have []byte) bool{}

// RegisterBytesCovers makes covers Covers' rule for field ("Type.Field"),
// raw bytes that the kernel dumps in another encoding than a request
// sends: tunnel_key's options, nested one way by tc and another by the
// kernel. Called from a kind's init.
func RegisterBytesCovers(field string, covers func(want, have []byte) bool) {
	bytesCovers[field] = covers
}

// cString is b up to its first NUL.
func cString(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

// coversValue compares w with h; present says w is an attribute the
// request sends (compared whatever its value) rather than a field of a
// fixed struct (compared when not zero).
func coversValue(w, h reflect.Value, present bool) bool {
	switch w.Kind() {
	case reflect.Interface:
		if w.IsNil() {
			return true
		}
		if h.IsNil() {
			return false
		}
		return coversValue(w.Elem(), h.Elem(), true)
	case reflect.Pointer:
		if w.IsNil() {
			return true
		}
		if h.IsNil() || w.Type() != h.Type() {
			return false
		}
		return coversValue(w.Elem(), h.Elem(), true)
	case reflect.Struct:
		if w.Type() != h.Type() {
			return false
		}
		t := w.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() || noDumpedTwin[f.Name] || noDumpedTwin[t.Name()+"."+f.Name] {
				continue
			}
			// A field of a struct is an attribute of its own when it can
			// be absent (pointer, interface, list); a plain value is a
			// member of a fixed struct.
			fk := f.Type.Kind()
			attr := fk == reflect.Pointer || fk == reflect.Interface || fk == reflect.Slice
			if bits, ok := requestBits[t.Name()+"."+f.Name]; ok {
				wf, hf := w.Field(i), h.Field(i)
				if !wf.IsNil() && (hf.IsNil() || wf.Elem().Uint()&bits != hf.Elem().Uint()&bits) {
					return false
				}
				continue
			}
			if covers := bytesCovers[t.Name()+"."+f.Name]; covers != nil {
				if wf, hf := w.Field(i).Bytes(), h.Field(i).Bytes(); wf != nil && (hf == nil || !covers(wf, hf)) {
					return false
				}
				continue
			}
			if zeroKept[t.Name()+"."+f.Name] && w.Field(i).IsZero() {
				if !h.Field(i).IsZero() {
					return false
				}
				continue
			}
			if zeroKept[t.Name()+"."+f.Name] && f.Type.Kind() == reflect.Array {
				// Each element's 0 is kept as asked, too.
				if !w.Field(i).Equal(h.Field(i)) {
					return false
				}
				continue
			}
			if cStrings[t.Name()+"."+f.Name] {
				wf, hf := w.Field(i).Bytes(), h.Field(i).Bytes()
				if wf != nil && (hf == nil || !bytes.Equal(cString(wf), cString(hf))) {
					return false
				}
				continue
			}
			if !coversValue(w.Field(i), h.Field(i), attr) {
				return false
			}
		}
		return true
	case reflect.Slice:
		if w.Len() == 0 {
			return true
		}
		if w.Len() != h.Len() {
			return false
		}
		for i := range w.Len() {
			if !coversValue(w.Index(i), h.Index(i), true) {
				return false
			}
		}
		return true
	case reflect.Array:
		for i := range w.Len() {
			if !coversValue(w.Index(i), h.Index(i), false) {
				return false
			}
		}
		return true
	}
	if !present && w.IsZero() {
		return true
	}
	return w.Equal(h)
}
