// SPDX-License-Identifier: Apache-2.0

package netlink

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"syscall"

	"github.com/gotc/gotc/internal/nlabi"
)

// Event is one change the kernel announced to its traffic-control
// listeners (rtnetlink group RTNLGRP_TC), as tc monitor shows them.
type Event struct {
	// Object is what changed: Qdisc, Class, Filter, Chain or Action.
	Object Object
	// Deleted is set for a removal, clear for a creation or a change.
	Deleted bool
	// Flags are the netlink header's flags: a filter's NLM_F_CREATE and
	// NLM_F_EXCL tell an addition from a replacement, as tc monitor prints.
	Flags uint16
	// Msg is the object's message, for every Object but Action.
	Msg *Msg
	// Action is the message of an Action event.
	Action *ActionMsg
}

// ErrEventsLost reports events the kernel dropped because the listener
// read too slowly (ENOBUFS on the socket): the stream goes on after it.
var ErrEventsLost = errors.New("netlink: events lost, the receive buffer overran")

// errNoneQueued ends QueuedEvents' reading: the socket's queue is empty.
var errNoneQueued = errors.New("netlink: no message queued")

// Events subscribes c to the kernel's traffic-control announcements and
// returns them as a sequence: the subscription starts when Events returns,
// so a change made after the call is in the sequence even if the loop
// starts later. The sequence yields the announcements as they come, until
// ctx ends (it then yields ctx's error and stops) or the loop breaks. A
// Conn that listens to events is given over to them: its requests' answers
// would mix with the announcements, so make requests on another Conn.
//
// Each Event has messages of its own, which the caller may keep. An error
// with a zero Event is ErrEventsLost (the sequence goes on) or the end of
// the sequence; an error with an Event is an announcement that did not
// decode fully, given with what could be decoded.
func (c *Conn) Events(ctx context.Context) iter.Seq2[Event, error] {
	return c.events(ctx, c.sock.recv)
}

// QueuedEvents is Events without waiting: it subscribes c as Events does
// and yields the announcements the kernel has queued for it, then stops
// when none is left. The kernel queues a request's announcements before
// it answers the request, so after an answer they are all there, whatever
// the machine's load.
func (c *Conn) QueuedEvents() iter.Seq2[Event, error] {
	return c.events(context.Background(), c.sock.recvQueued)
}

// events subscribes c and yields the announcements recv reads, until recv
// finds no more queued (errNoneQueued), fails, ctx ends or yield stops.
func (c *Conn) events(ctx context.Context, recv func() ([]byte, error)) iter.Seq2[Event, error] {
	joinErr := c.joinEvents()
	return func(yield func(Event, error) bool) {
		if joinErr != nil {
			yield(Event{}, joinErr)
			return
		}
		end, err := c.begin(ctx)
		if err != nil {
			yield(Event{}, err)
			return
		}
		defer end()
		for {
			b, err := recv()
			if errors.Is(err, errNoneQueued) {
				return
			}
			if errors.Is(err, syscall.ENOBUFS) {
				if !yield(Event{}, ErrEventsLost) {
					return
				}
				continue
			}
			if err != nil {
				yield(Event{}, contextError(ctx, err))
				return
			}
			for m, err := range messages(b) {
				if err != nil {
					if !yield(Event{}, err) {
						return
					}
					break
				}
				ev, ok, err := decodeEvent(m)
				if ok && !yield(ev, err) {
					return
				}
			}
		}
	}
}

// joinEvents subscribes c to the traffic-control announcements; joining
// again changes nothing.
func (c *Conn) joinEvents() error {
	switch {
	case c.sock == nil:
		return errors.New("netlink: events need a socket with a file descriptor")
	case c.nl != nil:
		if err := c.nl.JoinGroup(nlabi.RTNLGRP_TC); err != nil {
			return fmt.Errorf("netlink: cannot listen to traffic-control events: %w", err)
		}
	}
	return nil
}

// decodeEvent decodes one announcement; ok is false for a message that is
// none (a stray acknowledgement, say).
func decodeEvent(m message) (ev Event, ok bool, err error) {
	ev.Flags = m.flags
	switch m.typ {
	case nlabi.RTM_NEWQDISC, nlabi.RTM_DELQDISC:
		ev.Object = Qdisc
	case nlabi.RTM_NEWTCLASS, nlabi.RTM_DELTCLASS:
		ev.Object = Class
	case nlabi.RTM_NEWTFILTER, nlabi.RTM_DELTFILTER:
		ev.Object = Filter
	case nlabi.RTM_NEWCHAIN, nlabi.RTM_DELCHAIN:
		ev.Object = Chain
	case nlabi.RTM_NEWACTION, nlabi.RTM_DELACTION, nlabi.RTM_GETACTION:
		ev.Object = Action
	default:
		return ev, false, nil
	}
	_, delType, _ := ev.Object.msgTypes()
	ev.Deleted = m.typ == delType
	if ev.Object == Action {
		ev.Action = new(ActionMsg)
		return ev, true, ev.Action.UnmarshalBinary(m.data)
	}
	ev.Msg = new(Msg)
	return ev, true, ev.Msg.UnmarshalBinary(m.data)
}
