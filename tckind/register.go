// SPDX-License-Identifier: Apache-2.0

package tckind

import (
	"fmt"
	"maps"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// The registries of qdisc, filter and action kinds. Each kind's file adds
// itself from its init function, through Lazily, so that adding a kind edits
// nothing else; a name registered twice fails at the first lookup instead of
// silently replacing the first kind (the option-less names in qfq.go must go
// once a real kind takes one).
var (
	kinds       = registry[Qdisc]{what: "kind", name: func(k *Qdisc) string { return k.Name }}
	filterKinds = registry[Filter]{what: "filter kind", name: func(k *Filter) string { return k.Name }}
	actionKinds = registry[Action]{what: "action kind", name: func(k *Action) string { return k.Name }}
)

// registry holds the kinds of one sort by name, each with where it was
// registered from.
type registry[K any] struct {
	what   string // "kind", "filter kind", ...: for messages
	name   func(*K) string
	byName map[string]*K
	from   map[string]caller
}

// add registers k, refusing one without a name or with a name taken; by
// says where the registration comes from.
func (r *registry[K]) add(k *K, by caller) error {
	if k == nil || r.name(k) == "" {
		article := "a"
		if strings.IndexByte("aeiou", r.what[0]) >= 0 {
			article = "an"
		}
		return fmt.Errorf("qdisc: registering %s %s without a name (by %s)", article, r.what, by)
	}
	name := r.name(k)
	if first, dup := r.from[name]; dup {
		return fmt.Errorf("qdisc: %s %q registered twice: by %s and by %s", r.what, name, first, by)
	}
	if r.byName == nil {
		r.byName, r.from = make(map[string]*K, registryHint), make(map[string]caller, registryHint)
	}
	r.byName[name] = k
	r.from[name] = by
	return nil
}

// registryHint sizes a registry's maps for gotc's own kinds (38 qdiscs,
// fewer filters and actions): growing them one step at a time was a fifth of
// the registrations' cost, which every one-shot command that looks a kind up
// pays.
const registryHint = 64

// remove forgets a kind (tests undo their registrations with it).
func (r *registry[K]) remove(name string) {
	delete(r.byName, name)
	delete(r.from, name)
}

func (r *registry[K]) lookup(name string) *K {
	registerPending()
	return r.byName[name]
}

// sorted returns every kind, sorted by name.
func (r *registry[K]) sorted() []*K {
	registerPending()
	ks := make([]*K, 0, len(r.byName))
	for _, k := range r.byName {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b *K) int { return strings.Compare(r.name(a), r.name(b)) })
	return ks
}

// names returns every kind's name, sorted.
func (r *registry[K]) names() []string {
	registerPending()
	return slices.Sorted(maps.Keys(r.byName))
}

// Registrations deferred to the first use of the registries (Lazily).
var (
	pendingMu  sync.Mutex
	pending    []func()
	hasPending atomic.Bool
)

// Lazily defers register, a function that registers kinds (MustRegisterQdisc,
// MustRegisterFilter, MustRegisterAction, RegisterBytesCovers), to the first
// lookup or listing of any kind, or the first Covers. The kinds' init
// functions call it: a one-shot process that looks no kind up (gotc -V)
// never builds the tables, and one that does builds them once.
func Lazily(register func()) {
	pendingMu.Lock()
	pending = append(pending, register)
	hasPending.Store(true)
	pendingMu.Unlock()
}

// registerPending runs the registrations Lazily deferred, once each, in
// the order they were deferred. Lookups from several goroutines are safe:
// the first runs them while the others wait.
func registerPending() {
	if !hasPending.Load() {
		return
	}
	pendingMu.Lock()
	defer func() {
		registering = caller{}
		pendingMu.Unlock()
	}()
	for len(pending) > 0 {
		register := pending[0]
		pending = pending[1:]
		// Its registrations come from register's code: no stack to unwind.
		registering = caller{pc: reflect.ValueOf(register).Pointer(), entry: true}
		register()
	}
	hasPending.Store(false)
}

// registerQdisc adds a qdisc kind to the registry, for Lookup and Kinds. It fails
// when the name is empty, when a kind of that name is registered already
// (the error names both registrants), or when k.Stats is invalid.
//
// gotc's own kinds register from init through Lazily; a program adding its
// own may do either. Registering directly is not safe while another
// goroutine looks kinds up.
func registerQdisc(k *Qdisc) error {
	return register(k, registrant(1))
}

// MustRegisterQdisc is Register for the kinds' init functions (or the
// functions they give Lazily): a duplicate name is a programming error,
// reported at start-up or at the first lookup.
func MustRegisterQdisc(k *Qdisc) {
	if err := register(k, registrant(1)); err != nil {
		panic(err)
	}
}

func register(k *Qdisc, by caller) error {
	if k != nil && k.Name != "" {
		if err := k.Stats.check(); err != nil {
			return fmt.Errorf("qdisc: kind %q (registered by %s): %w", k.Name, by, err)
		}
	}
	return kinds.add(k, by)
}

// registerFilter adds a filter kind to the registry, for LookupFilter and
// FilterKinds, with Register's rules for names.
func registerFilter(k *Filter) error {
	return filterKinds.add(k, registrant(1))
}

// MustRegisterFilter is RegisterFilter for the filter kinds' init functions.
func MustRegisterFilter(k *Filter) {
	if err := filterKinds.add(k, registrant(1)); err != nil {
		panic(err)
	}
}

// registerAction adds an action kind to the registry, for LookupAction and
// ActionKinds, with Register's rules for names.
func registerAction(k *Action) error {
	return actionKinds.add(k, registrant(1))
}

// MustRegisterAction is RegisterAction for the action kinds' init functions.
func MustRegisterAction(k *Action) {
	if err := actionKinds.add(k, registrant(1)); err != nil {
		panic(err)
	}
}

// caller is where a registration came from: a program counter, turned into
// "dir/file.go:line" only for a message: a return address (entry false), or
// the entry of the function Lazily deferred (entry true). Every kind
// registers in each gotc process that looks one up, and resolving file and
// line there cost a tenth of the time a one-shot gotc spends before main;
// unwinding a frame per registration (runtime.Callers) cost 4% of a
// one-shot "qdisc show".
type caller struct {
	pc    uintptr
	entry bool
}

// registering is the function whose registrations registerPending is
// running, or the zero caller.
var registering caller

// registrant is the caller of the function that calls it (skip 1; each
// further frame adds one), or the function registerPending is running.
func registrant(skip int) caller {
	if registering.pc != 0 {
		return registering
	}
	var pc [1]uintptr
	runtime.Callers(skip+2, pc[:])
	return caller{pc: pc[0]}
}

// String names the caller as "dir/file.go:line", so that a duplicate's
// message says where to look.
func (c caller) String() string {
	var file string
	var line int
	if c.entry {
		if f := runtime.FuncForPC(c.pc); f != nil {
			file, line = f.FileLine(c.pc)
		}
	} else {
		frame, _ := runtime.CallersFrames([]uintptr{c.pc}).Next()
		file, line = frame.File, frame.Line
	}
	if file == "" {
		return "unknown caller"
	}
	// Keep "qdisc/qfq.go" of ".../gotc/qdisc/qfq.go".
	if i := strings.LastIndexByte(file, '/'); i > 0 {
		if j := strings.LastIndexByte(file[:i], '/'); j >= 0 {
			file = file[j+1:]
		}
	}
	return fmt.Sprintf("%s:%d", file, line)
}

// LookupQdisc returns what gotc knows of a qdisc kind, or nil.
func LookupQdisc(name string) *Qdisc { return kinds.lookup(name) }

// Qdiscs returns every registered qdisc kind, sorted by name: for usage texts
// and for consumers of the kinds' statistics tables.
func Qdiscs() []*Qdisc { return kinds.sorted() }

// QdiscNames returns the name of every registered qdisc kind, sorted: for
// usage texts, completion and messages that list them.
func QdiscNames() []string { return kinds.names() }

// LookupFilter returns what gotc knows of a filter kind, or nil.
func LookupFilter(name string) *Filter { return filterKinds.lookup(name) }

// Filters returns every registered filter kind, sorted by name.
func Filters() []*Filter { return filterKinds.sorted() }

// FilterNames returns the name of every registered filter kind, sorted.
func FilterNames() []string { return filterKinds.names() }

// LookupAction returns what gotc knows of an action kind, or nil.
func LookupAction(name string) *Action { return actionKinds.lookup(name) }

// Actions returns every registered action kind, sorted by name.
func Actions() []*Action { return actionKinds.sorted() }

// ActionNames returns the name of every registered action kind, sorted.
func ActionNames() []string { return actionKinds.names() }
