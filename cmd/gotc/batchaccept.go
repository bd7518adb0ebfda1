// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bufio"
	"io"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
	"github.com/gotc/gotc/tcline"
)

// Which requests of a batch may be sent before the previous answer is in.
//
// Without -force, tc's rule is that nothing after a refused line is sent, so
// a request may share a burst with later ones only if the kernel is sure to
// accept it. acceptance shows that for the commonest line of a large batch:
// "qdisc replace" (or "change") of a qdisc that is already there with the
// same kind, which the kernel (__tc_modify_qdisc, Linux 6.17 to 7.2) turns
// into a change of that qdisc in place. Such a change is refused only when:
//
//   - the device, the parent qdisc or the class is missing, or the qdisc in
//     that place has another kind or no handle (then it is not a change);
//   - the request has a handle, a size table, an estimator or blocks;
//   - the kind's change refuses the options: qdisc.Kind.ChangeAccepted
//     knows when it does not, and kinds without it are never assumed.
//
// The places and kinds come from one dump of every qdisc, taken once a
// batch is known to be long: it has at least as many candidate lines as the
// larger of acceptanceAfter and the number of devices. The dump costs about
// a third of a request's round trip per qdisc (measured in the test bed), and
// a system has at least a qdisc per device, so such a batch gains more than
// the dump costs, and short batches never pay for it. A batch file is looked
// at before its first line (lookAhead); a batch on standard input, which may
// still be being written, shows it is long by sending that many candidate
// lines one at a time. A change that is shown
// accepted leaves every place and kind as they were; any other request may
// add, delete or move qdiscs of its device, so that device's places are not
// used again (a request without a device drops them all).
//
// What the proof assumes: nobody else changes the device's qdiscs during
// the batch, and the kernel does not run out of memory. If a change shown
// accepted is refused anyway, the requests that shared its burst were
// applied; the batch says so (see batchRun.result).

// acceptanceAfter is the fewest candidate requests a batch sends one at a
// time before it reads the qdiscs to show the next ones accepted.
const acceptanceAfter = netlink.MaxWindow

// placeKey names a qdisc's place: its device and its parent (or its handle).
type placeKey struct {
	ifindex int32
	handle  uint32
}

type acceptance struct {
	list       func(fn func(netlink.QdiscPlace)) error // the dump; nil: never
	devices    func() int                              // devices known so far
	long       bool                                    // the batch is known to be long: read the qdiscs at once
	candidates int
	read       bool                            // the dump was taken (or failed)
	byParent   map[placeKey]netlink.QdiscPlace // qdiscs by (device, parent)
	kindOf     map[placeKey]string             // kinds by (device, handle)
	stale      map[int32]bool                  // devices changed since the dump
	off        bool                            // a request without a device: no more proofs
}

// accepted reports whether the kernel is sure to accept r. idle says that
// no request is in flight, which reading the qdiscs needs.
func (a *acceptance) accepted(r netlink.PipelineRequest, idle bool) bool {
	ok := a.shown(r, idle)
	if !ok {
		a.changed(r.Msg.Header.Ifindex)
	}
	return ok
}

func (a *acceptance) shown(r netlink.PipelineRequest, idle bool) bool {
	m := r.Msg
	if a.list == nil || a.off || r.Object != netlink.Qdisc || (r.Op != netlink.Replace && r.Op != netlink.Change) ||
		m.Header.Handle != 0 || m.Attrs.Kind == nil || !onlyKindAndOptions(&m.Attrs) {
		return false
	}
	kind := tckind.LookupQdisc(*m.Attrs.Kind)
	if kind == nil || kind.ChangeAccepted == nil {
		return false
	}
	if !a.read {
		if a.candidates++; (!a.long && a.candidates <= a.threshold()) || !idle {
			return false
		}
		a.load()
	}
	dev, parent := m.Header.Ifindex, m.Header.Parent
	if a.byParent == nil || a.stale[dev] || parent == 0 || parent == netlink.HandleIngress {
		return false
	}
	q, ok := a.byParent[placeKey{dev, parent}]
	if !ok || q.Handle == 0 || q.Kind != *m.Attrs.Kind {
		return false
	}
	parentKind := ""
	if parent != netlink.HandleRoot {
		// The class's qdisc must be there too (the kernel looks it up first)
		// and not take children of its own (ingress, clsact).
		pk, ok := a.kindOf[placeKey{dev, parent &^ 0xFFFF}]
		if k := tckind.LookupQdisc(pk); !ok || k != nil && k.FilterHooks > 0 {
			return false
		}
		parentKind = pk
	}
	return kind.ChangeAccepted(m.Attrs.Options, parentKind)
}

// threshold is how many candidate lines make a batch long.
func (a *acceptance) threshold() int {
	if a.devices == nil {
		return acceptanceAfter
	}
	return max(acceptanceAfter, a.devices())
}

// lookAhead reads a batch file up to where it is known to be long (see
// threshold), and back to its start. Only the devices' number comes from the
// kernel (with their names, which the batch would read anyway), and only
// once the file has acceptanceAfter candidate lines; if that fails, the batch
// is not taken for long.
func (a *acceptance) lookAhead(f io.ReadSeeker, loadNames func() error) error {
	r := bufio.NewReaderSize(f, 64*1024)
	for n := 0; !a.long; {
		line, lines, err := readCommand(r)
		if err == errMissingContinuation || lines == 0 && err == nil {
			break // the end of the batch
		}
		if err != nil {
			return err
		}
		if !candidateLine(line) {
			continue
		}
		if n++; n == acceptanceAfter && loadNames() != nil {
			break
		}
		a.long = n >= acceptanceAfter && n >= a.threshold()
	}
	_, err := f.Seek(0, io.SeekStart)
	return err
}

// candidateLine reports whether a batch line reads as a qdisc replace or
// change, which acceptance may show accepted (as qdiscCmd matches words).
func candidateLine(line string) bool {
	args, err := tcline.SplitWords(line)
	if err != nil || len(args) < 2 || !tcfmt.Matches(args[0], "qdisc") || tcfmt.Matches(args[1], "add") {
		return false
	}
	return tcfmt.Matches(args[1], "change") || tcfmt.Matches(args[1], "replace")
}

// load reads every qdisc's place and kind.
func (a *acceptance) load() {
	a.read = true
	var places []netlink.QdiscPlace
	if a.list(func(q netlink.QdiscPlace) { places = append(places, q) }) != nil {
		return
	}
	// Sized at once: growing them qdisc by qdisc was 6% of the profile of
	// the benchmark's batch (11,000 qdiscs) in the test bed.
	a.byParent = make(map[placeKey]netlink.QdiscPlace, len(places))
	a.kindOf = make(map[placeKey]string, len(places))
	for _, q := range places {
		a.byParent[placeKey{q.Ifindex, q.Parent}] = q
		if q.Handle != 0 {
			a.kindOf[placeKey{q.Ifindex, q.Handle}] = q.Kind
		}
	}
}

// changed notes that a request not shown accepted may change ifindex's
// qdiscs (0: any device's).
func (a *acceptance) changed(ifindex int32) {
	if !a.read {
		return
	}
	if ifindex == 0 {
		a.off = true
		return
	}
	if a.stale == nil {
		a.stale = map[int32]bool{}
	}
	a.stale[ifindex] = true
}

// onlyKindAndOptions reports whether a request carries no attribute but
// TCA_KIND and TCA_OPTIONS.
func onlyKindAndOptions(a *attrs.TCAttrs) bool {
	rest := *a
	rest.Kind, rest.Options = nil, nil
	var e attrs.Encoder
	rest.Encode(&e)
	return len(e.Bytes()) == 0
}
