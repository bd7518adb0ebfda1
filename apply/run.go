// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"context"
	"fmt"
	"io"
)

// Compute reads the kernel's state of every device the file names and
// returns the plan that brings it to the file's. It sends no change.
func Compute(ctx context.Context, k Kernel, f *File) (*Plan, error) {
	r := &resolver{links: kernelLinks(ctx, k)}
	plan := &Plan{}
	for _, name := range sortedKeys(f.Devices) {
		idx, err := k.LinkIndex(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("device %s: %w", name, err)
		}
		want, err := r.device(name, idx, f.Devices[name])
		if err != nil {
			return nil, err
		}
		have, err := readDevice(ctx, k, name, idx)
		if err != nil {
			return nil, err
		}
		describe(r.links, have)
		plan.Requests = append(plan.Requests, planDevice(want, have)...)
	}
	return plan, nil
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

// Run sends the plan's requests in order and returns how many it sent
// (the refused one and the undo requests included). When the kernel
// refuses one, Run undoes those it accepted, latest first, and returns an
// *Error; log, when not nil, gets a line per request sent
// ("apply:" or "undo:" and its command line).
func (p *Plan) Run(ctx context.Context, k Kernel, log io.Writer) (sent int, err error) {
	if log == nil {
		log = io.Discard
	}
	for i, r := range p.Requests {
		fmt.Fprintf(log, "apply: %s\n", r.Command)
		if err := k.Do(ctx, r.Object, r.Op, &r.Msg); err != nil {
			e := &Error{Failed: r, Err: err, Sent: i}
			for j := i - 1; j >= 0 && e.UndoErr == nil; j-- {
				for _, u := range p.Requests[j].undo {
					fmt.Fprintf(log, "undo: %s\n", u.Command)
					e.Undone++
					if uerr := k.Do(ctx, u.Object, u.Op, &u.Msg); uerr != nil {
						e.UndoErr = fmt.Errorf("%s: %w", u.Command, uerr)
						break
					}
				}
			}
			return i + 1 + e.Undone, e
		}
	}
	return len(p.Requests), nil
}

// Commands returns the plan as tc command lines, one per request.
func (p *Plan) Commands() []string {
	out := make([]string, len(p.Requests))
	for i, r := range p.Requests {
		out[i] = r.Command
	}
	return out
}
