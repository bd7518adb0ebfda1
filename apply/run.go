// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gotc/gotc/netlink"
)

// Compute checks the file's words, then reads the kernel's state of
// every device the file names and returns the plan that brings it to the
// file's. It sends no change.
//
// Every kind, option, handle and class ID is read by the kind's own parser
// and checked against its place in the tree before the kernel's state is
// read; the faults found, and the devices this machine lacks, make the
// error a *BadFile.
func Compute(ctx context.Context, k Kernel, f *File) (*Plan, error) {
	r := &resolver{links: kernelLinks(ctx, k)}
	var wants []*deviceState
	for _, name := range sortedKeys(f.Devices) {
		d := f.Devices[name]
		if d == nil {
			d = &Device{}
		}
		want := r.device(name, d)
		idx, err := k.LinkIndex(ctx, name)
		if errors.Is(err, netlink.ErrNotFound) {
			r.fault(d.at, "no device %q on this machine", name)
		} else if err != nil {
			return nil, fmt.Errorf("device %s: %w", name, err)
		}
		want.ifindex = idx
		if err == nil {
			if err := deviceDefaults(ctx, k, want); err != nil {
				return nil, fmt.Errorf("device %s: %w", name, err)
			}
		}
		wants = append(wants, want)
	}
	if err := r.err(f.name); err != nil {
		return nil, err
	}
	plan := &Plan{file: f}
	for _, want := range wants {
		have, err := readDevice(ctx, k, want.name, want.ifindex)
		if err != nil {
			return nil, err
		}
		describe(r.links, have)
		plan.Requests = append(plan.Requests, planDevice(want, have)...)
	}
	return plan, nil
}

// Stale is Recheck's error: the kernel's state of some devices changed
// since the plan was computed, so another writer is at work on them.
type Stale struct {
	// Devices are the devices whose plan is no longer the same.
	Devices []string
}

func (e *Stale) Error() string {
	return fmt.Sprintf("%s changed since the plan was made: another writer (a tc command, another program) is changing them", strings.Join(e.Devices, ", "))
}

// Recheck reads the kernel's state again, right before the plan is run,
// and returns a *Stale when the plan it gives is not the same as p's for
// some device: the state was changed by another writer since Compute,
// and running p would undo or mix with its change. It sends nothing.
func (p *Plan) Recheck(ctx context.Context, k Kernel) error {
	if p.file == nil {
		return errors.New("apply: Recheck of a plan not made by Compute")
	}
	now, err := Compute(ctx, k, p.file)
	if err != nil {
		return err
	}
	var changed []string
	for _, dev := range sortedKeys(p.file.Devices) {
		if !slices.Equal(p.deviceChanges(dev), now.deviceChanges(dev)) {
			changed = append(changed, dev)
		}
	}
	if len(changed) > 0 {
		return &Stale{Devices: changed}
	}
	return nil
}

// deviceChanges are the changes of the plan's requests to one device.
func (p *Plan) deviceChanges(dev string) []string {
	var out []string
	for _, r := range p.Requests {
		if r.Device == dev {
			out = append(out, r.Command+"\x00"+r.Reason)
		}
	}
	return out
}

// Error is a plan that failed partway.
type Error struct {
	// Failed is the request the kernel refused, Err its answer.
	Failed Request
	Err    error
	// Sent counts the requests the kernel accepted before it, Undone the
	// requests sent to undo them.
	Sent, Undone int
	// UndoErr is the first refusal of an undo request; nil when the state
	// before the plan was restored.
	UndoErr error
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("%s: %v", e.Failed.Command, e.Err)
	if e.UndoErr != nil {
		return msg + fmt.Sprintf("; restoring the %d changes made before it failed too: %v", e.Sent, e.UndoErr)
	}
	return msg + fmt.Sprintf("; the %d changes made before it were undone (%d requests)", e.Sent, e.Undone)
}

// Unwrap gives the kernel's answer to the failed request.
func (e *Error) Unwrap() error { return e.Err }

// Answer is a request Run sent and the kernel's answer to it.
type Answer struct {
	Request Request
	// Undo is set for a request that undoes an earlier one after the
	// kernel refused a later one.
	Undo bool
	// Warning is the warning the kernel's acknowledgement carried (its
	// extended ack), "" for none.
	Warning string
	// Err is the kernel's refusal, nil when it accepted the request.
	Err error
}

// Run sends the plan's requests in order and returns how many it sent
// (the refused one and the undo requests included). When the kernel
// refuses one, Run undoes those it accepted, latest first, and returns an
// *Error. answered, when not nil, is called with each request sent and the
// kernel's answer, as it comes.
func (p *Plan) Run(ctx context.Context, k Kernel, answered func(Answer)) (sent int, err error) {
	if answered == nil {
		answered = func(Answer) {}
	}
	send := func(r Request, undo bool) error {
		warning, err := k.Do(ctx, r.Object, r.Op, &r.Msg)
		answered(Answer{Request: r, Undo: undo, Warning: warning, Err: err})
		return err
	}
	// undo sends the undo requests of the first n requests, latest
	// first, and returns how many it sent and the first refusal.
	undo := func(n int) (undone int, err error) {
		for j := n - 1; j >= 0; j-- {
			for _, u := range p.Requests[j].undo {
				undone++
				if uerr := send(u, true); uerr != nil {
					return undone, fmt.Errorf("%s: %w", u.Command, uerr)
				}
			}
		}
		return undone, nil
	}
	// foreign checks the announcements since the last request, i of
	// them sent.
	foreign := func(i int) *Foreign {
		if p.Listen == nil {
			return nil
		}
		evs, err := p.Listen.Pending(ctx)
		var last *Request
		if i > 0 {
			last = &p.Requests[i-1]
		}
		change, found := p.foreignEvent(evs, last)
		if !found && err == nil {
			return nil
		}
		if !found {
			change = err.Error()
		}
		e := &Foreign{Change: change, Sent: i}
		e.Undone, e.UndoErr = undo(i)
		return e
	}
	for i, r := range p.Requests {
		if f := foreign(i); f != nil {
			return i + f.Undone, f
		}
		if err := send(r, false); err != nil {
			e := &Error{Failed: r, Err: err, Sent: i}
			e.Undone, e.UndoErr = undo(i)
			return i + 1 + e.Undone, e
		}
		if p.afterRequest != nil {
			p.afterRequest(i)
		}
	}
	if f := foreign(len(p.Requests)); f != nil {
		return len(p.Requests) + f.Undone, f
	}
	return len(p.Requests), nil
}

// Changes describes the plan's requests, one Change each, in order: what
// "gotc apply --diff -j" prints. A plan with nothing to do has none (an
// empty slice, "[]" in JSON).
func (p *Plan) Changes() []Change {
	out := make([]Change, len(p.Requests))
	for i, r := range p.Requests {
		out[i] = r.Change
	}
	return out
}

// Commands returns the plan as tc command lines, one per request.
func (p *Plan) Commands() []string {
	out := make([]string, len(p.Requests))
	for i, r := range p.Requests {
		out[i] = r.Command
	}
	return out
}
