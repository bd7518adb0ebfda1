// SPDX-License-Identifier: Apache-2.0

package tckind

import (
	"fmt"
	"slices"
	"strings"
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

// A kind file that registers a name another file has (an option-less name
// left in qfq.go, say) fails at init, naming both places.
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
		if msg := err.Error(); !strings.Contains(msg, `kind "test-duplicate" registered twice: by tckind/registry_test.go:`) ||
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
	if err == nil || !strings.Contains(err.Error(), `filter kind "gotc_test_filter" registered twice: by tckind/registry_test.go:`) {
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
	if msg := err.Error(); !strings.Contains(msg, `action kind "gotc_test_action" registered twice: by tckind/registry_test.go:`) ||
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

// A name registered twice through Lazily fails at the first lookup, and the
// message names both deferred functions, without unwinding a stack.
func TestLazilyDuplicate(t *testing.T) {
	const name = "test-lazy-duplicate"
	defer unregister(name)
	Lazily(func() { MustRegisterQdisc(&Qdisc{Name: name}) })
	Lazily(func() { MustRegisterQdisc(&Qdisc{Name: name}) })
	defer func() {
		msg := fmt.Sprint(recover())
		if !strings.Contains(msg, `kind "test-lazy-duplicate" registered twice: by tckind/registry_test.go:`) ||
			!strings.Contains(msg, "and by tckind/registry_test.go:") {
			t.Errorf("panic %q does not name both registrants", msg)
		}
		if registering != (caller{}) {
			t.Error("registering left set after the panic")
		}
	}()
	LookupQdisc(name)
}
