// SPDX-License-Identifier: Apache-2.0

package tckind

import (
	"fmt"
	"maps"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// The registries of qdisc, filter and action kinds. Each kind's file adds
// itself from its init function, through LazilyQdiscs, LazilyFilters or
// LazilyActions, so that adding a kind edits nothing else; a name
// registered twice fails at the first lookup of that name or the first
// listing, instead of silently replacing the first kind.
var (
	kinds       = registry[Qdisc]{sort: qdiscSort, name: func(k *Qdisc) string { return k.Name }}
	filterKinds = registry[Filter]{sort: filterSort, name: func(k *Filter) string { return k.Name }}
	actionKinds = registry[Action]{sort: actionSort, name: func(k *Action) string { return k.Name }}
)

// kindSort tells the three registries apart, in the registrations deferred
// for one of them and in the names that a registration registers.
type kindSort uint8

const (
	qdiscSort kindSort = iota
	filterSort
	actionSort
)

// String is the registry's word for its kinds, for messages.
func (s kindSort) String() string {
	return [...]string{"kind", "filter kind", "action kind"}[s]
}

// registry holds the kinds of one sort by name, each with where it was
// registered from. byName and from are written under pendingMu (or by a
// program's init, registering directly); lookups read published, a copy
// of byName replaced after each batch of registrations, so that looking
// up a registered kind takes no lock while other kinds are still pending.
type registry[K any] struct {
	sort      kindSort
	name      func(*K) string
	byName    map[string]*K
	from      map[string]caller
	changed   bool // byName has kinds that published lacks
	published atomic.Pointer[map[string]*K]
}

// add registers k, refusing one without a name or with a name taken; by
// says where the registration comes from.
func (r *registry[K]) add(k *K, by caller) error {
	what := r.sort.String()
	if k == nil || r.name(k) == "" {
		article := "a"
		if strings.IndexByte("aeiou", what[0]) >= 0 {
			article = "an"
		}
		return fmt.Errorf("tckind: registering %s %s without a name (by %s)", article, what, by)
	}
	name := r.name(k)
	if first, dup := r.from[name]; dup {
		return fmt.Errorf("tckind: %s %q registered twice: by %s and by %s", what, name, first, by)
	}
	if r.byName == nil {
		r.byName, r.from = make(map[string]*K, registryHint), make(map[string]caller, registryHint)
	}
	r.byName[name] = k
	r.from[name] = by
	r.changed = true
	if running != nil {
		running.registered = append(running.registered, kindName{r.sort, name})
	} else {
		r.publish()
	}
	return nil
}

// registryHint sizes a registry's maps and the pending registrations for
// gotc's own kinds (38 qdiscs, fewer filters and actions, 63 registrations):
// growing them one step at a time was a fifth of the registrations' cost,
// when a lookup built every kind.
const registryHint = 64

// publish makes the kinds registered so far visible to lookups.
func (r *registry[K]) publish() {
	if !r.changed {
		return
	}
	m := maps.Clone(r.byName)
	r.published.Store(&m)
	r.changed = false
}

// remove forgets a kind (tests undo their registrations with it).
func (r *registry[K]) remove(name string) {
	delete(r.byName, name)
	delete(r.from, name)
	r.changed = true
	r.publish()
}

// lookup returns the kind of that name, running first the deferred
// registrations that declare it.
func (r *registry[K]) lookup(name string) *K {
	if m := r.published.Load(); m != nil {
		if k := (*m)[name]; k != nil {
			return k
		}
	}
	if !hasPending.Load() {
		return nil
	}
	registerPending(func(d *deferred) bool { return d.declares(r.sort, name) })
	if m := r.published.Load(); m != nil {
		return (*m)[name]
	}
	return nil
}

// all returns the registry's kinds after running every deferred
// registration.
func (r *registry[K]) all() map[string]*K {
	registerPending(nil)
	if m := r.published.Load(); m != nil {
		return *m
	}
	return nil
}

// sorted returns every kind, sorted by name.
func (r *registry[K]) sorted() []*K {
	all := r.all()
	ks := make([]*K, 0, len(all))
	for _, k := range all {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b *K) int { return strings.Compare(r.name(a), r.name(b)) })
	return ks
}

// names returns every kind's name, sorted.
func (r *registry[K]) names() []string {
	return slices.Sorted(maps.Keys(r.all()))
}

// Registrations deferred to the first use of the registries (LazilyQdiscs
// and its siblings).
var (
	pendingMu  sync.Mutex
	pending    []deferred
	hasPending atomic.Bool
	// running is the deferred registration registerPending is running.
	running *deferred
)

// deferred is one registration LazilyQdiscs (or a sibling) deferred: the
// function, the kinds it declares, and, while it runs, the kinds it has
// registered, which must be those it declares.
type deferred struct {
	register   func()
	sort       kindSort
	names      []string
	registered []kindName
}

// kindName is a kind's name in one of the registries.
type kindName struct {
	sort kindSort
	name string
}

// declares reports whether d registers the kind of that sort and name.
func (d *deferred) declares(sort kindSort, name string) bool {
	return d.sort == sort && slices.Contains(d.names, name)
}

// LazilyQdiscs defers register, a function that registers the qdisc kinds
// names (MustRegisterQdisc) and may call RegisterBytesCovers, to the first
// lookup of one of those names, the first listing of the qdisc kinds, or
// the first Covers. The kinds' init functions call it: a one-shot process
// that looks no kind up (gotc -V) builds no kind, and one that looks up
// htb builds htb alone. The names must be those register registers: the
// first run of register panics otherwise, so that a kind cannot be missed
// by the lookup of its name.
func LazilyQdiscs(register func(), names ...string) { lazily(register, qdiscSort, names) }

// LazilyFilters is LazilyQdiscs for a registration of filter kinds
// (MustRegisterFilter).
func LazilyFilters(register func(), names ...string) { lazily(register, filterSort, names) }

// LazilyActions is LazilyQdiscs for a registration of action kinds
// (MustRegisterAction).
func LazilyActions(register func(), names ...string) { lazily(register, actionSort, names) }

func lazily(register func(), sort kindSort, names []string) {
	pendingMu.Lock()
	if pending == nil {
		// One allocation for gotc's own registrations, at start.
		pending = make([]deferred, 0, registryHint)
	}
	pending = append(pending, deferred{register: register, sort: sort, names: names})
	hasPending.Store(true)
	pendingMu.Unlock()
}

// registerPending runs, once each and in the order they were deferred, the
// deferred registrations that match (every one if match is nil), then
// publishes what they registered. Lookups from several goroutines are
// safe: the first runs them while the others wait.
func registerPending(match func(*deferred) bool) {
	if !hasPending.Load() {
		return
	}
	pendingMu.Lock()
	defer func() {
		registering, running = caller{}, nil
		kinds.publish()
		filterKinds.publish()
		actionKinds.publish()
		// Only now: a lookup that finds its kind neither published nor
		// pending returns nil.
		hasPending.Store(len(pending) > 0)
		pendingMu.Unlock()
	}()
	var run []deferred
	if match == nil {
		run, pending = pending, nil
	} else {
		kept := pending[:0]
		for _, d := range pending {
			if match(&d) {
				run = append(run, d)
			} else {
				kept = append(kept, d)
			}
		}
		pending = kept
	}
	for i := range run {
		d := &run[i]
		// Its registrations come from register's code: no stack to unwind.
		registering = caller{pc: reflect.ValueOf(d.register).Pointer(), entry: true}
		running = d
		d.register()
		d.checkDeclared()
	}
}

// checkDeclared panics unless d registered exactly the kinds it declares.
func (d *deferred) checkDeclared() {
	ok := len(d.registered) == len(d.names)
	for _, got := range d.registered {
		ok = ok && d.declares(got.sort, got.name)
	}
	if !ok {
		got := make([]string, len(d.registered))
		for i, k := range d.registered {
			got[i] = k.sort.String() + " " + strconv.Quote(k.name)
		}
		panic(fmt.Sprintf("tckind: the registration at %s declares the %ss %q but registers %s",
			registering, d.sort, d.names, strings.Join(got, ", ")))
	}
	d.registered = nil
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
			return fmt.Errorf("tckind: kind %q (registered by %s): %w", k.Name, by, err)
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
