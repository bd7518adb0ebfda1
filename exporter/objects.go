// SPDX-License-Identifier: Apache-2.0

package exporter

import (
	"slices"

	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// Match selects qdiscs and classes for Options.Include, Exclude and
// Aggregate. Its zero fields match any; a Match matches an object when all
// of its other fields do.
type Match struct {
	// Dev is the device's name.
	Dev string
	// Kind is the qdisc's kind, or for a class its qdisc's.
	Kind string
	// Handle is a qdisc's handle (major:0) or a class's ID.
	Handle uint32
	// Under matches the qdisc or class of this handle or class ID and
	// everything below it: its subtree.
	Under uint32
}

// NameKey is what Options.Names names: a qdisc (its handle, major:0) or a
// class (its ID) of a device.
type NameKey struct {
	Dev    string
	Handle uint32
}

// object is what a scrape keeps of one dumped qdisc or class: its identity
// and its values, in the set's reused arenas.
type object struct {
	ifindex        int32
	handle, parent uint32
	class          bool
	kind           string // interned
	table          *tckind.StatsTable
	gen            tckind.GenericStats
	unknown        int
	// vals[valOff:] holds the table's fields' values, present as okBits
	// says; vals[recOff:] the recs records' (CAKE's tins), each the length
	// of the records' fields, their present bits in recOK[recOKOff:].
	valOff, recOff, recOKOff int32
	recs                     int32
	okBits                   uint32
	// up is the index of the qdisc or class above, -1 for none known.
	up   int32
	keep bool
	// lab is the object's labels in the set's lab arena.
	labStart, labEnd int32
}

// nodeKey names a qdisc or class within a dump, for the tree.
type nodeKey struct {
	ifindex int32
	handle  uint32
}

// objectSet is one scrape's qdiscs and classes, in memory reused from
// scrape to scrape.
type objectSet struct {
	opts  *Options
	names map[int32]string
	objs  []object
	vals  []uint64
	recOK []uint32
	lab   []byte
	// nodes indexes objs by device and handle, for the tree; seen by their
	// identity, to drop repeats.
	nodes map[nodeKey]int32
	seen  map[objKey]struct{}
	kinds map[string]string
	devs  []int32 // devices with a classful qdisc
	// byTable lists the objects of each statistics table that are kept.
	byTable map[*tckind.StatsTable][]int32
	tables  []*tckind.StatsTable // byTable's keys in the order first seen
}

type objKey struct {
	ifindex        int32
	handle, parent uint32
	class          bool
}

func (s *objectSet) init(opts *Options) {
	s.opts = opts
	s.nodes = map[nodeKey]int32{}
	s.seen = map[objKey]struct{}{}
	s.kinds = map[string]string{}
	s.byTable = map[*tckind.StatsTable][]int32{}
}

// reset empties the set for a new dump, keeping its memory.
func (s *objectSet) reset() {
	s.objs, s.vals, s.recOK, s.lab, s.devs = s.objs[:0], s.vals[:0], s.recOK[:0], s.lab[:0], s.devs[:0]
	clear(s.nodes)
	clear(s.seen)
	for t, l := range s.byTable {
		s.byTable[t] = l[:0]
	}
}

// classful reports whether a kind is known and has classes of a tree.
func classful(k *tckind.Qdisc) bool { return k != nil && k.HasClasses() }

// add keeps one dumped qdisc or class; it returns false for a message that
// is a repeat, or whose kind's statistics did not decode (which is still
// kept as far as it decoded).
func (s *objectSet) add(m *netlink.Msg, class bool) bool {
	h := &m.Header
	key := objKey{h.Ifindex, h.Handle, h.Parent, class}
	// A duplicate (a dump restarted by the kernel, a malformed message
	// claiming another's identity) is dropped: the first one stands.
	if _, dup := s.seen[key]; dup {
		return false
	}
	k := tckind.LookupQdisc(m.Kind())
	if class && !classful(k) {
		return true
	}
	s.seen[key] = struct{}{}
	kind, ok := s.kinds[m.Kind()]
	if !ok {
		kind = m.Kind()
		s.kinds[kind] = kind
	}
	if !class && classful(k) && !slices.Contains(s.devs, h.Ifindex) {
		s.devs = append(s.devs, h.Ifindex)
	}
	a := &m.Attrs
	o := object{ifindex: h.Ifindex, handle: h.Handle, parent: h.Parent, class: class, kind: kind,
		gen: tckind.GenericStatsOf(a), unknown: a.UnknownCount(), up: -1}
	good := true
	if k != nil && k.Stats != nil {
		x := tckind.XstatsOf(a)
		if st := k.Stats.Of(x); st != nil {
			o.table = k.Stats
			o.valOff = int32(len(s.vals))
			s.vals, o.okBits = appendValues(s.vals, k.Stats.Fields, st)
			if r := k.Stats.Records; r != nil {
				o.recOff, o.recOKOff, o.recs = int32(len(s.vals)), int32(len(s.recOK)), int32(r.Len(st))
				for i := range int(o.recs) {
					var ok uint32
					s.vals, ok = appendValues(s.vals, r.Fields, r.Record(st, i))
					s.recOK = append(s.recOK, ok)
				}
			}
		} else if x.Present() {
			good = false // a kind gotc knows sent statistics that did not decode
		}
	}
	s.objs = append(s.objs, o)
	if _, ok := s.nodes[nodeKey{h.Ifindex, h.Handle}]; !ok {
		s.nodes[nodeKey{h.Ifindex, h.Handle}] = int32(len(s.objs) - 1)
	}
	return good
}

// appendValues appends the values of fields read from st, and returns
// which were present.
func appendValues(vals []uint64, fields []tckind.Stat, st any) ([]uint64, uint32) {
	var ok uint32
	for i := range fields {
		v, present := fields[i].Get(st)
		if present {
			ok |= 1 << i
		}
		vals = append(vals, v)
	}
	return vals, ok
}

// classfulDevices returns the devices whose classes to dump: those with a
// classful qdisc.
func (s *objectSet) classfulDevices() []int32 { return s.devs }

// selectObjects links the tree, applies the options' matches, formats the
// labels of what is kept, and returns how many qdiscs and classes are.
func (s *objectSet) selectObjects() (qdiscs, classes int) {
	for i := range s.objs {
		o := &s.objs[i]
		up := o.parent
		if o.class && up == tcfmt.HandleRoot {
			// A top class (htb's, hfsc's) has the root as its parent:
			// it stands below its qdisc.
			up = o.handle &^ 0xffff
		} else if up == tcfmt.HandleRoot || up == netlink.HandleIngress {
			continue
		}
		if j, ok := s.nodes[nodeKey{o.ifindex, up}]; ok && int(j) != i {
			o.up = j
		}
	}
	opts := s.opts
	s.tables = s.tables[:0]
	for i := range s.objs {
		o := &s.objs[i]
		o.keep = (len(opts.Include) == 0 || s.matchAny(i, opts.Include)) && !s.matchAny(i, opts.Exclude) &&
			!s.aggregated(i)
		if !o.keep {
			continue
		}
		if o.class {
			classes++
		} else {
			qdiscs++
		}
		if o.table != nil {
			l, ok := s.byTable[o.table]
			if !ok || len(l) == 0 {
				s.tables = append(s.tables, o.table)
			}
			s.byTable[o.table] = append(l, int32(i))
		}
		o.labStart = int32(len(s.lab))
		s.lab = s.appendLabels(s.lab, o)
		o.labEnd = int32(len(s.lab))
	}
	return qdiscs, classes
}

// maxDepth bounds a walk up the tree, which a malformed dump could make a
// loop.
const maxDepth = 64

// matchAny reports whether object i matches one of ms.
func (s *objectSet) matchAny(i int, ms []Match) bool {
	for j := range ms {
		if s.match(i, &ms[j]) {
			return true
		}
	}
	return false
}

func (s *objectSet) match(i int, m *Match) bool {
	o := &s.objs[i]
	if (m.Dev != "" && s.names[o.ifindex] != m.Dev) || (m.Kind != "" && o.kind != m.Kind) ||
		(m.Handle != 0 && o.handle != m.Handle) {
		return false
	}
	if m.Under == 0 {
		return true
	}
	for d := 0; i >= 0 && d < maxDepth; d++ {
		if s.objs[i].handle == m.Under {
			return true
		}
		i = int(s.objs[i].up)
	}
	return false
}

// aggregated reports whether an object above object i matches one of the
// options' Aggregate.
func (s *objectSet) aggregated(i int) bool {
	if len(s.opts.Aggregate) == 0 {
		return false
	}
	i = int(s.objs[i].up)
	for d := 0; i >= 0 && d < maxDepth; d++ {
		if s.matchAny(i, s.opts.Aggregate) {
			return true
		}
		i = int(s.objs[i].up)
	}
	return false
}

// appendLabels appends an object's labels as the text format writes them
// between braces: dev, handle (a qdisc's) or class (a class's ID), kind,
// name (when named), parent.
func (s *objectSet) appendLabels(b []byte, o *object) []byte {
	dev, ok := s.names[o.ifindex]
	b = append(b, `dev="`...)
	if ok {
		b = appendLabelValue(b, dev)
	} else {
		// As iproute2's ll_index_to_name names a device it cannot find.
		b = append(b, "if"...)
		b = appendInt(b, int64(o.ifindex))
	}
	if o.class {
		b = append(b, `",class="`...)
		b = tcfmt.AppendClassID(b, o.handle)
	} else {
		b = append(b, `",handle="`...)
		b = tcfmt.AppendQdiscHandle(b, o.handle)
	}
	b = append(b, `",kind="`...)
	b = appendLabelValue(b, o.kind)
	if name := s.opts.Names[NameKey{dev, o.handle}]; ok && name != "" {
		b = append(b, `",name="`...)
		b = appendLabelValue(b, name)
	}
	b = append(b, `",parent="`...)
	if o.parent == tcfmt.HandleRoot {
		b = append(b, "root"...)
	} else {
		b = tcfmt.AppendClassID(b, o.parent)
	}
	return append(b, '"')
}
