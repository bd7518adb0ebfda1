// SPDX-License-Identifier: Apache-2.0

// Package agent keeps a node's traffic control in the state of a file:
// gotc-agent(8), "gotc apply" as a reconciler.
//
// An Agent watches the directory of its file (a mounted ConfigMap, whose
// updates swap its "..data" symlink; a CRM sync's output, written by
// atomic rename) and, once the directory has been quiet for the settle
// time, reads the file again: a burst of changes is one pass. It selects
// this node's part of the file (apply.LoadFleet) and applies it. Every
// resync period it reads the kernel's state again and repairs any drift
// from the file in force.
//
// A file that cannot be read, is refused (apply.BadFile), or is refused by
// the kernel (whose state the plan's undo restores) leaves the last good
// file in force: the agent goes on repairing drift towards it, counts the
// failure, sets gotc_agent_file_refused and logs why. The file is tried
// again when it changes and at each resync.
package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/gotc/gotc/apply"
)

// The triggers of a pass and the reasons of a failure, as the metrics
// label them.
const (
	triggerStart  = "start"
	triggerFile   = "file"
	triggerResync = "resync"

	failRead    = "read"
	failBadFile = "bad_file"
	failKernel  = "kernel"
	failLabels  = "labels"
)

// Agent keeps the devices of a node's part of a file in the file's state.
// Its fields are set before Run and not changed after.
type Agent struct {
	// File is the file (apply's schema, or a fleet file).
	File string
	// Node is this node, as the fleet file's parts select it.
	Node apply.Node
	// Labels, when not nil, reads the node's labels at each pass, added
	// to Node's (a Kubernetes node's, see KubeLabels).
	Labels func(context.Context) (map[string]string, error)
	// Kernel is where the state is read and the requests sent.
	Kernel apply.Kernel
	// Settle is how long the file's directory must be quiet after a
	// change before the file is read; Resync how often the kernel's
	// state is compared with the file in force.
	Settle, Resync time.Duration
	// DeleteOnExit deletes, when Run returns, the trees of the devices
	// the file in force owns; by default they stay as they are.
	DeleteOnExit bool
	// Metrics counts what the agent does; Log says it.
	Metrics *Metrics
	Log     *slog.Logger

	// The file in force (nil for none yet), and what it was made of:
	// the file's contents and the node it was selected for.
	good    *apply.File
	goodKey [sha256.Size]byte

	mu     sync.Mutex // guards status
	status Status
}

// Status is what the agent last did, as gotc-agent serves it at /status.
type Status struct {
	// InForce is the SHA-256 of the contents in force, "" for none.
	InForce string `json:"in_force"`
	// Devices are the devices this node owns in it.
	Devices []string `json:"devices"`
	// Refused says why the file as it is now is not in force, "" when
	// it is.
	Refused string `json:"refused,omitempty"`
	// LastSuccess is when the kernel was last found or brought in the
	// state of the file as it is now.
	LastSuccess time.Time `json:"last_success,omitzero"`
	// LastError is the last pass's failure, "" when it succeeded.
	LastError string `json:"last_error,omitempty"`
}

// Status returns what the agent last did; safe to call while it runs.
func (a *Agent) Status() Status {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.status
	s.Devices = slices.Clone(s.Devices)
	return s
}

// Run applies the file, then watches its directory and resyncs until ctx
// is done; then, with DeleteOnExit, it deletes the trees it owns. It
// returns an error only when the directory cannot be watched (or the
// trees cannot be deleted); a file that fails is reported and waited out.
func (a *Agent) Run(ctx context.Context) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	dir := filepath.Dir(a.File)
	if err := w.Add(dir); err != nil {
		return fmt.Errorf("watching %s: %w", dir, err)
	}
	a.pass(ctx, triggerStart)
	resync := time.NewTicker(a.Resync)
	defer resync.Stop()
	settle := time.NewTimer(a.Settle)
	settle.Stop()
	pending := false // a change whose settle time runs
	for {
		select {
		case <-ctx.Done():
			return a.exit()
		case ev := <-w.Events:
			// Any entry of the directory: a ConfigMap's update touches
			// "..data" and its timestamped directory, never the file's
			// own name.
			a.Log.Debug("change", "event", ev.String())
			settle.Reset(a.Settle)
			pending = true
		case err := <-w.Errors:
			// An overflow loses events: read the file as for one.
			a.Log.Warn("watching", "dir", dir, "err", err)
			settle.Reset(a.Settle)
			pending = true
		case <-settle.C:
			pending = false
			a.pass(ctx, triggerFile)
		case <-resync.C:
			if pending { // the file may be half-way: only the drift
				a.Metrics.passes.WithLabelValues(triggerResync).Inc()
				a.repair(ctx)
				continue
			}
			a.pass(ctx, triggerResync)
		}
	}
}

// exit deletes the trees the file in force owns, with DeleteOnExit.
func (a *Agent) exit() error {
	if !a.DeleteOnExit || a.good == nil {
		a.Log.Info("stopped; the trees stay as they are")
		return nil
	}
	empty := &apply.File{Devices: map[string]*apply.Device{}}
	for name := range a.good.Devices {
		empty.Devices[name] = &apply.Device{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	plan, err := apply.Compute(ctx, a.Kernel, empty)
	if err == nil {
		var sent int
		sent, err = plan.Run(ctx, a.Kernel, nil)
		a.Metrics.requests.Add(float64(sent))
	}
	if err != nil {
		return fmt.Errorf("deleting the trees of %v: %w", slices.Sorted(maps.Keys(empty.Devices)), err)
	}
	a.Log.Info("stopped; the trees are deleted", "devices", slices.Sorted(maps.Keys(empty.Devices)))
	return nil
}

// pass reads the file and brings it in force when it changed (or this
// node's labels did); otherwise, on a resync, it repairs drift.
func (a *Agent) pass(ctx context.Context, trigger string) {
	a.Metrics.passes.WithLabelValues(trigger).Inc()
	node := a.Node
	if a.Labels != nil {
		labels, err := a.Labels(ctx)
		if err != nil {
			a.fail(failLabels, "reading the node's labels", err)
			a.repair(ctx)
			return
		}
		node.Labels = maps.Clone(node.Labels)
		if node.Labels == nil {
			node.Labels = map[string]string{}
		}
		maps.Copy(node.Labels, labels)
	}
	data, err := os.ReadFile(a.File)
	if err != nil {
		a.refuse(failRead, err)
		a.repair(ctx)
		return
	}
	key := contentKey(data, node)
	if a.good != nil && key == a.goodKey {
		switch {
		case a.Status().Refused != "": // back to the file in force
			a.Metrics.refused.Set(0)
			a.mu.Lock()
			a.status.Refused = ""
			a.mu.Unlock()
			a.repair(ctx)
		case trigger == triggerResync:
			a.repair(ctx)
		}
		return // otherwise a change elsewhere in the directory
	}
	f, err := apply.LoadFleet(a.File, bytes.NewReader(data), node)
	if err != nil {
		a.refuse(failBadFile, err)
		a.repair(ctx)
		return
	}
	plan, err := apply.Compute(ctx, a.Kernel, f)
	if err != nil {
		var bad *apply.BadFile
		if errors.As(err, &bad) {
			a.refuse(failBadFile, err)
		} else {
			a.refuse(failKernel, err)
		}
		a.repair(ctx)
		return
	}
	sent, err := plan.Run(ctx, a.Kernel, nil)
	a.Metrics.requests.Add(float64(sent))
	if err != nil {
		a.refuse(failKernel, err)
		a.repair(ctx) // the plan's undo failed when something is left to do
		return
	}
	a.good, a.goodKey = f, key
	a.Metrics.applies.Inc()
	a.Metrics.refused.Set(0)
	a.Metrics.devices.Set(float64(len(f.Devices)))
	a.Log.Info("applied", "trigger", trigger, "devices", slices.Sorted(maps.Keys(f.Devices)), "requests", sent)
	a.succeeded(func(s *Status) {
		s.InForce = fmt.Sprintf("%x", key)
		s.Devices = slices.Sorted(maps.Keys(f.Devices))
		s.Refused = ""
	})
}

// repair brings the kernel back to the file in force, counting a drift
// when it differs.
func (a *Agent) repair(ctx context.Context) {
	if a.good == nil {
		return
	}
	plan, err := apply.Compute(ctx, a.Kernel, a.good)
	if err != nil { // a device gone, say
		a.fail(failKernel, "reading the state of the file in force", err)
		return
	}
	if len(plan.Requests) == 0 {
		if a.Status().Refused == "" {
			a.succeeded(func(*Status) {})
		}
		return
	}
	a.Metrics.driftsFound.Inc()
	a.Log.Warn("drift", "changes", plan.Commands())
	sent, err := plan.Run(ctx, a.Kernel, nil)
	a.Metrics.requests.Add(float64(sent))
	if err != nil {
		a.fail(failKernel, "repairing drift", err)
		return
	}
	a.Metrics.driftsRepaired.Inc()
	a.Log.Info("drift repaired", "requests", sent)
	if a.Status().Refused == "" {
		a.succeeded(func(*Status) {})
	}
}

// refuse reports the file as it is now not brought in force.
func (a *Agent) refuse(reason string, err error) {
	a.Metrics.refused.Set(1)
	msg := "the file is not applied"
	if a.good != nil {
		msg += "; the last good one stays in force"
	}
	a.mu.Lock()
	a.status.Refused = err.Error()
	a.mu.Unlock()
	a.fail(reason, msg, err)
}

// fail counts and logs a failure.
func (a *Agent) fail(reason, msg string, err error) {
	a.Metrics.failures.WithLabelValues(reason).Inc()
	a.Log.Error(msg, "reason", reason, "err", err)
	a.mu.Lock()
	a.status.LastError = fmt.Sprintf("%s: %v", msg, err)
	a.mu.Unlock()
}

// succeeded records a pass that left the kernel in the file's state.
func (a *Agent) succeeded(update func(*Status)) {
	now := time.Now()
	a.Metrics.lastSuccess.Set(float64(now.UnixNano()) / 1e9)
	a.mu.Lock()
	update(&a.status)
	a.status.LastSuccess = now
	a.status.LastError = ""
	a.mu.Unlock()
}

// contentKey identifies what a file in force was made of: its contents
// and the node it was selected for.
func contentKey(data []byte, node apply.Node) [sha256.Size]byte {
	h := sha256.New()
	h.Write(data)
	fmt.Fprintf(h, "\x00%s", node.Name)
	for _, k := range slices.Sorted(maps.Keys(node.Labels)) {
		fmt.Fprintf(h, "\x00%s=%s", k, node.Labels[k])
	}
	return [sha256.Size]byte(h.Sum(nil))
}
