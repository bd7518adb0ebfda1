// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"context"
	"errors"
	"fmt"
	"maps"
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
	r.standalone = r.actions(f.Actions, f.actionsAt)
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
	blocks := r.blocks(f, wants)
	if err := r.err(f.name); err != nil {
		return nil, err
	}
	plan := &Plan{file: f}
	for _, want := range blocks {
		plan.blocks = append(plan.blocks, want.index)
	}
	// How often the file's filters bind each action, and the kernel's
	// filters of its devices and blocks now.
	wantBinds, haveBinds := newBinds(), newBinds()
	for _, want := range wants {
		wantBinds.add(deviceFilters(want))
	}
	for _, want := range blocks {
		wantBinds.add(want.filters)
	}
	for _, want := range wants {
		have, err := readDevice(ctx, k, want.name, want.ifindex)
		if err != nil {
			return nil, err
		}
		haveBinds.add(deviceFilters(have))
		if q := have.ingress; q != nil {
			// A block the device shares now and the file no longer does:
			// the plan changes who shares it.
			plan.blocks = append(plan.blocks, q.ingressBlock, q.egressBlock)
		}
		describe(r.links, have)
		plan.Requests = append(plan.Requests, planDevice(want, have)...)
	}
	if err := planBlocks(ctx, k, r, plan, blocks, haveBinds); err != nil {
		return nil, err
	}
	first, last, err := planFileActions(ctx, k, r, haveBinds, wantBinds)
	if err != nil {
		return nil, err
	}
	plan.Requests = append(append(first, plan.Requests...), last...)
	return plan, nil
}

// planFileActions plans the standalone actions (planActions): it reads
// the kernel's actions of the kinds the file makes, and of those its
// devices' and blocks' filters bind that something else holds, which the
// plan may delete.
func planFileActions(ctx context.Context, k Kernel, r *resolver, haveBinds, wantBinds binds) (first, last []Request, err error) {
	kinds := map[string]bool{}
	for key := range r.standalone {
		kinds[key.kind] = true
	}
	for key := range haveBinds.held {
		if _, listed := r.standalone[key]; !listed && wantBinds.count[key] == 0 {
			kinds[key.kind] = true
		}
	}
	if len(kinds) == 0 {
		return nil, nil, nil
	}
	have, err := readActions(ctx, k, r.links, slices.Sorted(maps.Keys(kinds)))
	if err != nil {
		return nil, nil, err
	}
	first, last = planActions(r.standalone, have, haveBinds, wantBinds)
	return first, last, nil
}

// planBlocks plans the file's shared blocks into plan: their deletes go
// before every device's requests, their adds and changes after them.
func planBlocks(ctx context.Context, k Kernel, r *resolver, plan *Plan, blocks []*blockState, haveBinds binds) error {
	if len(blocks) == 0 {
		return nil
	}
	sharing, err := blockSharers(ctx, k)
	if err != nil {
		return err
	}
	var before, after []Request
	for _, want := range blocks {
		have, err := readBlock(ctx, k, want.index)
		if err != nil {
			return err
		}
		haveBinds.add(have.filters)
		describePlace(r.links, have.filters, have.chains)
		if i := blockGoneAt(want.index, sharing, plan.Requests); i >= 0 {
			// The plan deletes the last qdisc that shares the block, and
			// its filters and chains with it: they are added anew, and
			// undoing that delete brings them back.
			p := &planner{block: want.index, ifindex: netlink.IfindexBlock}
			plan.Requests[i].undo = append(plan.Requests[i].undo, p.placeAdds(have.filters, namedChains(have.chains, have.filters))...)
			have = &blockState{index: want.index}
		}
		b, a := planBlock(want, have)
		before, after = append(before, b...), append(after, a...)
	}
	plan.Requests = append(append(before, plan.Requests...), after...)
	return nil
}

// blocks resolves the file's shared blocks: every block that a qdisc of
// the file shares, with the filters and chains "blocks" gives it (none
// when it names the block not). A block "blocks" names that no qdisc of
// the file shares is a fault.
func (r *resolver) blocks(f *File, wants []*deviceState) []*blockState {
	shared := map[uint32]bool{}
	for _, d := range wants {
		if q := d.ingress; q != nil {
			shared[q.ingressBlock], shared[q.egressBlock] = true, true
		}
	}
	delete(shared, 0)
	for _, index := range slices.Sorted(maps.Keys(f.Blocks)) {
		if !shared[index] {
			at := place{}
			if b := f.Blocks[index]; b != nil {
				at = b.at
			}
			r.fault(at, "block %d is shared by no qdisc of the file: a block is there while an ingress or clsact qdisc shares it (\"ingress_block %d clsact\")", index, index)
		}
	}
	var out []*blockState
	for _, index := range slices.Sorted(maps.Keys(shared)) {
		r.deviceName = fmt.Sprintf("block %d", index)
		out = append(out, r.block(index, f.Blocks[index]))
	}
	return out
}

// blockSharers are the blocks that each device's ingress or clsact qdisc
// shares, by ifindex, from a dump of every device's qdiscs: a block is
// there while one of them shares it.
func blockSharers(ctx context.Context, k Kernel) (map[int32][]uint32, error) {
	msgs, err := k.Dump(ctx, netlink.Qdisc, 0, 0)
	if err != nil {
		return nil, fmt.Errorf("qdisc dump: %w", err)
	}
	out := map[int32][]uint32{}
	for i := range msgs {
		if m := &msgs[i]; m.Header.Parent == netlink.HandleIngress {
			in, eg := blocksOf(m)
			out[m.Header.Ifindex] = []uint32{in, eg}
		}
	}
	return out, nil
}

// blockGoneAt returns the index of the request of reqs after which no
// qdisc shares block index (the kernel then deletes it), -1 when it is
// shared throughout. sharing is the kernel's qdiscs' blocks before reqs.
func blockGoneAt(index uint32, sharing map[int32][]uint32, reqs []Request) int {
	now := maps.Clone(sharing)
	count := func() int {
		n := 0
		for _, bs := range now {
			for _, b := range bs {
				if b == index {
					n++
				}
			}
		}
		return n
	}
	if count() == 0 {
		return -1 // none to delete: the block is new
	}
	for i, r := range reqs {
		if r.Object != netlink.Qdisc || r.Msg.Header.Parent != netlink.HandleIngress {
			continue
		}
		ifindex := r.Msg.Header.Ifindex
		if r.Op == netlink.Delete {
			delete(now, ifindex)
			if count() == 0 {
				return i
			}
			continue
		}
		if _, there := now[ifindex]; !there {
			in, eg := blocksOf(&r.Msg)
			now[ifindex] = []uint32{in, eg}
		}
	}
	return -1
}

// planBlock compares a shared block's desired filters and chains with
// the kernel's: the deletes go before every device's requests, the adds
// and changes after them.
func planBlock(want, have *blockState) (before, after []Request) {
	p := &planner{block: want.index, ifindex: netlink.IfindexBlock}
	p.place(want.filters, have.filters, want.chains, have.chains)
	return p.filterDeletes, p.filterAdds
}

// Stale is Recheck's error: the kernel's state of some devices changed
// since the plan was computed, so another writer is at work on them.
type Stale struct {
	// Devices are the devices (and "block N", the shared blocks) whose
	// plan is no longer the same.
	Devices []string
}

// Error names the devices that changed since the plan was made.
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
	targets := sortedKeys(p.file.Devices)
	for _, r := range append(p.Requests, now.Requests...) {
		if t := r.target(); !slices.Contains(targets, t) {
			targets = append(targets, t)
		}
	}
	for _, t := range targets {
		if !slices.Equal(p.deviceChanges(t), now.deviceChanges(t)) {
			changed = append(changed, t)
		}
	}
	if len(changed) > 0 {
		return &Stale{Devices: changed}
	}
	return nil
}

// target names what a request changes: its device, "block N", or
// "actions" for the standalone actions.
func (r *Request) target() string {
	if r.Object == netlink.Action {
		return "actions"
	}
	if r.Block != 0 {
		return fmt.Sprintf("block %d", r.Block)
	}
	return r.Device
}

// deviceChanges are the changes of the plan's requests to one device or
// block (target).
func (p *Plan) deviceChanges(target string) []string {
	var out []string
	for _, r := range p.Requests {
		if r.target() == target {
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

// Error is the failed command and the kernel's answer, and whether
// the changes made before it were undone.
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
		var warning string
		var err error
		if r.Object == netlink.Action {
			warning, err = doAction(ctx, k, r)
		} else {
			warning, err = k.Do(ctx, r.Object, r.Op, &r.Msg)
		}
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
