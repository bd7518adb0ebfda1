// SPDX-License-Identifier: Apache-2.0

package tckind

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
)

// unregister undoes a test's registration.
func unregister(name string) { kinds.remove(name) }

func TestRegisterRefusesADuplicate(t *testing.T) {
	const name = "gotc_test_kind"
	defer unregister(name)
	if err := registerQdisc(&Qdisc{Name: name}); err != nil {
		t.Fatal(err)
	}
	first := LookupQdisc(name)
	err := registerQdisc(&Qdisc{Name: name, Usage: "second"})
	if err == nil {
		t.Fatal("a second kind of the same name was registered")
	}
	// Both registrants are this file, at two lines.
	if msg := err.Error(); !strings.Contains(msg, `"gotc_test_kind"`) || strings.Count(msg, "tckind/registry_test.go:") != 2 {
		t.Errorf("error %q does not name the kind and both registrants", msg)
	}
	if LookupQdisc(name) != first {
		t.Error("the duplicate replaced the first kind")
	}
	if err := registerQdisc(&Qdisc{}); err == nil {
		t.Error("a kind without a name was registered")
	}
}

// A kind file that registers a name another file has fails, naming both
// places and the package that refuses it.
func TestMustRegisterPanicsOnADuplicate(t *testing.T) {
	const name = "test-duplicate"
	MustRegisterQdisc(&Qdisc{Name: name})
	defer unregister(name)
	defer func() {
		r := recover()
		err, ok := r.(error)
		if !ok {
			t.Fatalf("recovered %v, want an error", r)
		}
		if msg := err.Error(); !strings.Contains(msg, `tckind: kind "test-duplicate" registered twice: by tckind/registry_test.go:`) ||
			!strings.Contains(msg, "and by tckind/registry_test.go:") {
			t.Errorf("panic %q", msg)
		}
	}()
	MustRegisterQdisc(&Qdisc{Name: name})
}

func TestRegisterFilterRefusesADuplicate(t *testing.T) {
	const name = "gotc_test_filter"
	defer filterKinds.remove(name)
	MustRegisterFilter(&Filter{Name: name})
	first := LookupFilter(name)
	err := registerFilter(&Filter{Name: name})
	if err == nil || !strings.Contains(err.Error(), `tckind: filter kind "gotc_test_filter" registered twice: by tckind/registry_test.go:`) {
		t.Errorf("err %v", err)
	}
	if LookupFilter(name) != first {
		t.Error("the duplicate replaced the first filter kind")
	}
	defer func() {
		if recover() == nil {
			t.Error("mustRegisterFilter took a duplicate")
		}
	}()
	MustRegisterFilter(&Filter{Name: name})
}

func TestRegisterChecksTheStatsTable(t *testing.T) {
	const name = "gotc_test_stats"
	defer unregister(name)
	get := func(any) (uint64, bool) { return 0, true }
	bad := &StatsTable{Of: func(Xstats) any { return nil }, Fields: []Stat{
		{Key: "a", Get: get}, {Key: "a", Get: get},
	}}
	if err := registerQdisc(&Qdisc{Name: name, Stats: bad}); err == nil || !strings.Contains(err.Error(), `"a" listed twice`) {
		t.Errorf("duplicate key: %v", err)
	}
	bad.Fields = []Stat{{Key: "a", Get: get, Metric: "gotc_test_a", Help: "A.", Counter: true}}
	if err := registerQdisc(&Qdisc{Name: name, Stats: bad}); err == nil {
		t.Error("a counter whose metric does not end in _total was registered")
	}
}

func TestRegisterActionRefusesADuplicate(t *testing.T) {
	const name = "gotc_test_action"
	defer actionKinds.remove(name)
	if err := registerAction(&Action{Name: name}); err != nil {
		t.Fatal(err)
	}
	first := LookupAction(name)
	err := registerAction(&Action{Name: name})
	if err == nil {
		t.Fatal("a second action kind of the same name was registered")
	}
	if msg := err.Error(); !strings.Contains(msg, `tckind: action kind "gotc_test_action" registered twice: by tckind/registry_test.go:`) ||
		strings.Count(msg, "tckind/registry_test.go:") != 2 {
		t.Errorf("error %q does not name both registrants", msg)
	}
	if LookupAction(name) != first {
		t.Error("the duplicate replaced the first action kind")
	}
	if err := registerAction(&Action{}); err == nil {
		t.Error("an action kind without a name was registered")
	}
	if !slices.ContainsFunc(Actions(), func(k *Action) bool { return k.Name == name }) {
		t.Errorf("Actions() lacks %s", name)
	}
}

// A name registered twice through LazilyQdiscs fails at the first lookup,
// and the message names both deferred functions, without unwinding a stack.
func TestLazilyDuplicate(t *testing.T) {
	const name = "test-lazy-duplicate"
	defer unregister(name)
	LazilyQdiscs(func() { MustRegisterQdisc(&Qdisc{Name: name}) }, name)
	LazilyQdiscs(func() { MustRegisterQdisc(&Qdisc{Name: name}) }, name)
	defer func() {
		msg := fmt.Sprint(recover())
		if !strings.Contains(msg, `tckind: kind "test-lazy-duplicate" registered twice: by tckind/registry_test.go:`) ||
			!strings.Contains(msg, "and by tckind/registry_test.go:") {
			t.Errorf("panic %q does not name both registrants", msg)
		}
		if registering != (caller{}) {
			t.Error("registering left set after the panic")
		}
	}()
	LookupQdisc(name)
}

// A lookup runs only the deferred registrations that declare the name
// looked up, of the sort looked up; a listing runs the rest.
func TestLazilyRegistersOnlyTheLookedUp(t *testing.T) {
	ran := map[string]int{}
	lazyQdisc := func(name string) {
		LazilyQdiscs(func() { ran[name]++; MustRegisterQdisc(&Qdisc{Name: name}) }, name)
	}
	lazyQdisc("test-lazy-a")
	lazyQdisc("test-lazy-b")
	LazilyActions(func() { ran["action"]++; MustRegisterAction(&Action{Name: "test-lazy-a"}) }, "test-lazy-a")
	defer func() {
		unregister("test-lazy-a")
		unregister("test-lazy-b")
		actionKinds.remove("test-lazy-a")
	}()

	if k := LookupQdisc("test-lazy-a"); k == nil || k.Name != "test-lazy-a" {
		t.Fatalf("LookupQdisc(test-lazy-a) = %v", k)
	}
	if want := map[string]int{"test-lazy-a": 1}; !maps.Equal(ran, want) {
		t.Fatalf("a lookup of qdisc test-lazy-a ran %v, want %v", ran, want)
	}
	if LookupQdisc("test-lazy-a") == nil || LookupQdisc("test-lazy-missing") != nil {
		t.Fatal("a second lookup, or one of an unknown name, went wrong")
	}
	if ran["test-lazy-a"] != 1 || ran["test-lazy-b"] != 0 || ran["action"] != 0 {
		t.Fatalf("lookups ran %v", ran)
	}
	if !slices.Contains(QdiscNames(), "test-lazy-b") || ran["test-lazy-b"] != 1 {
		t.Fatalf("QdiscNames ran %v and did not list test-lazy-b", ran)
	}
	if LookupAction("test-lazy-a") == nil || ran["action"] != 1 {
		t.Fatalf("the action registration ran %d times", ran["action"])
	}
}

// A registration that registers other kinds than it declares panics at its
// first run, naming its declaration and what it registered, so that a wrong
// declaration cannot hide a kind from the lookup of its name.
func TestLazilyWrongDeclaration(t *testing.T) {
	LazilyFilters(func() { MustRegisterFilter(&Filter{Name: "test-lazy-other"}) }, "test-lazy-declared")
	defer filterKinds.remove("test-lazy-other")
	defer func() {
		msg := fmt.Sprint(recover())
		want := `the registration at tckind/registry_test.go:`
		if !strings.Contains(msg, want) ||
			!strings.Contains(msg, `declares the filter kinds ["test-lazy-declared"] but registers filter kind "test-lazy-other"`) {
			t.Errorf("panic %q does not name the declaration and the kind registered", msg)
		}
	}()
	FilterNames()
	t.Error("a registration that registers another kind than it declares ran without a panic")
}

// Lookups of different kinds from several goroutines, each running its own
// kind's registration while the others read what is published, find every
// kind (go test -race checks that they share nothing unguarded).
func TestLazilyConcurrentLookups(t *testing.T) {
	names := []string{"test-lazy-c0", "test-lazy-c1", "test-lazy-c2", "test-lazy-c3"}
	for _, name := range names {
		LazilyQdiscs(func() { MustRegisterQdisc(&Qdisc{Name: name}) }, name)
		defer unregister(name)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 100 {
				name := names[(i+j)%len(names)]
				if k := LookupQdisc(name); k == nil || k.Name != name {
					t.Errorf("LookupQdisc(%s) = %v", name, k)
					return
				}
			}
		})
	}
	wg.Wait()
}
