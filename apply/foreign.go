// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"context"
	"fmt"

	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
)

// Announcements is where Run hears the kernel's traffic-control
// announcements while it sends a plan, to tell another writer's change
// from its own. Subscribe before Recheck: a change made after the
// subscription is then either in the state Recheck read or announced.
type Announcements interface {
	// Pending returns the announcements queued since the last call,
	// without waiting for more.
	Pending(ctx context.Context) ([]netlink.Event, error)
}

// EventConn is the Announcements of a netlink connection given over to
// events (netlink.Conn.Events): requests go on another connection.
type EventConn struct{ Conn *netlink.Conn }

// Pending implements Announcements. It reads what the kernel has queued
// and waits for nothing more: the kernel queues a request's announcements
// before its answer, so when Run asks, every change made before is there,
// however loaded the machine (a timed wait would stop, on a busy one,
// before reading announcements queued in time, and take the plan's own
// changes for another writer's one request later).
func (e EventConn) Pending(ctx context.Context) ([]netlink.Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []netlink.Event
	for ev, err := range e.Conn.QueuedEvents() {
		switch {
		case err == nil:
			out = append(out, ev)
		case ev.Msg != nil || ev.Action != nil:
			out = append(out, ev) // undecoded in part: still a change
		default:
			// A lost announcement (netlink.ErrEventsLost) may be another
			// writer's: Run cannot tell, so it stops as if it were.
			return out, err
		}
	}
	return out, nil
}

// Foreign is Run's error when the kernel announced a change to a device
// of the plan that none of the plan's requests made: another writer is at
// work on it. Run stops before its next request and undoes those sent.
type Foreign struct {
	// Change describes the other writer's change, in tc's words.
	Change string
	// Sent counts the plan's requests sent, Undone the requests sent to
	// undo them; UndoErr is the first refusal of an undo, nil when the
	// state before the plan was restored.
	Sent, Undone int
	UndoErr      error
}

// Error says what the other writer changed and whether the changes
// made before it were undone.
func (e *Foreign) Error() string {
	msg := fmt.Sprintf("another writer changed the devices during the apply (%s)", e.Change)
	if e.UndoErr != nil {
		return msg + fmt.Sprintf("; restoring the %d changes made before it failed: %v", e.Sent, e.UndoErr)
	}
	return msg + fmt.Sprintf("; the %d changes made before it were undone (%d requests)", e.Sent, e.Undone)
}

// foreignEvent returns the first of evs on a device of the plan that
// last did not cause (nil before the first request), described.
func (p *Plan) foreignEvent(evs []netlink.Event, last *Request) (string, bool) {
	devs := map[int32]bool{}
	for _, r := range p.Requests {
		if r.Object != netlink.Action {
			devs[r.Msg.Header.Ifindex] = true
		}
	}
	for _, ev := range evs {
		if ev.Msg == nil {
			continue // actions are not per device
		}
		h := ev.Msg.Header
		if !devs[h.Ifindex] || (last != nil && causedBy(ev, last)) {
			continue
		}
		what := "added or changed"
		if ev.Deleted {
			what = "deleted"
		}
		kind := ""
		if ev.Msg.Attrs.Kind != nil {
			kind = " " + *ev.Msg.Attrs.Kind
		}
		where := ""
		switch {
		case h.Ifindex == netlink.IfindexBlock:
			where = fmt.Sprintf(", block %d", h.Parent)
		case h.Parent != 0: // 0 where the writer named the handle alone
			where = ", parent " + tcfmt.FormatClassID(h.Parent)
		}
		id := tcfmt.FormatClassID(h.Handle)
		if ev.Object == netlink.Chain && ev.Msg.Attrs.Chain != nil {
			id = fmt.Sprint(*ev.Msg.Attrs.Chain)
		}
		return fmt.Sprintf("%s %s%s %s%s", ev.Object, id, kind, what, where), true
	}
	return "", false
}

// causedBy reports whether ev is one of r's echoes: the object r names
// (a replace also announces the qdisc it takes the place of, at the same
// parent; a delete the objects below that go with it).
func causedBy(ev netlink.Event, r *Request) bool {
	h, rh := ev.Msg.Header, r.Msg.Header
	if h.Ifindex != rh.Ifindex {
		return false
	}
	// A shared block's filters and chains come with the block's index
	// for parent; a device's chain with its qdisc's handle, whichever
	// hook or class it is at.
	samePlace := h.Parent == rh.Parent || h.Ifindex != netlink.IfindexBlock && h.Parent>>16 == rh.Parent>>16
	switch {
	case r.Object == netlink.Chain:
		// A chain's add or delete, and the deletes of its filters that
		// a chain delete announces.
		return (ev.Object == netlink.Chain || ev.Object == netlink.Filter && r.Op == netlink.Delete) && samePlace
	case r.Object == netlink.Filter && ev.Object == netlink.Chain:
		// The chain a filter's add makes or its delete empties, announced
		// at its qdisc (ffff: for both of clsact's hooks).
		return h.Parent>>16 == rh.Parent>>16
	case r.Object == netlink.Filter:
		return ev.Object == netlink.Filter && h.Parent == rh.Parent && (rh.Info>>16 == 0 || h.Info>>16 == rh.Info>>16)
	case ev.Object == netlink.Filter || ev.Object == netlink.Chain:
		return r.Op == netlink.Delete || r.Op == netlink.Replace
	case h.Handle == rh.Handle && (ev.Object == r.Object || rh.Handle == 0):
		return true
	case r.Object == netlink.Qdisc && ev.Object == netlink.Qdisc && h.Parent == rh.Parent:
		return true
	default:
		return (r.Op == netlink.Delete || r.Op == netlink.Replace) && h.Parent == rh.Handle
	}
}
