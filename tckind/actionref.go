// SPDX-License-Identifier: Apache-2.0

package tckind

import (
	"fmt"
	"reflect"
	"strconv"

	"github.com/gotc/gotc/attrs"
)

// ActionCounts are what every action kind's parameters hold besides its
// own settings (the tc_gen fields of its parms struct): its index, and the
// references the kernel counts on it.
type ActionCounts struct {
	Index uint32
	// Refs counts every holder of the action: the filters that bind it
	// and "tc actions add", which holds it until "tc actions del".
	Refs int64
	// Binds counts the filters that bind it.
	Binds int64
}

// Held reports an action that something other than its filters holds (a
// "tc actions add" made it): deleting every filter that binds it leaves
// it in the kernel, under its index.
func (c ActionCounts) Held() bool { return c.Refs > c.Binds }

// ActionCountsOf reads an action's index and counts from its options: the
// struct among their fields that has Index, Refcnt and Bindcnt (each
// kind's parms, whatever its name). ok is false for options without one.
func ActionCountsOf(opts attrs.ActOptionsMsg) (c ActionCounts, ok bool) {
	v := reflect.ValueOf(opts)
	if !v.IsValid() || v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return c, false
	}
	v = v.Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Kind() == reflect.Pointer {
			if f.IsNil() {
				continue
			}
			f = f.Elem()
		}
		if f.Kind() != reflect.Struct {
			continue
		}
		index, refs, binds := f.FieldByName("Index"), f.FieldByName("Refcnt"), f.FieldByName("Bindcnt")
		if !index.IsValid() || !refs.IsValid() || !binds.IsValid() {
			continue
		}
		return ActionCounts{Index: uint32(intOf(index)), Refs: intOf(refs), Binds: intOf(binds)}, true
	}
	return c, false
}

// intOf reads an integer field, signed or not.
func intOf(v reflect.Value) int64 {
	if v.CanInt() {
		return v.Int()
	}
	return int64(v.Uint())
}

// ActionReferenceWords are the words that bind an action of the kind that
// exists at index, whatever its settings ("gact index 7"): tc sends the
// kind's parameters with only the index, and the kernel binds the action
// there, ignoring the rest.
func ActionReferenceWords(kind string, index uint32) []string {
	return []string{kind, "index", strconv.FormatUint(uint64(index), 10)}
}

// IsActionReference reports whether a is what ActionReferenceWords of its
// kind and index parse to: an action a filter binds by its index alone,
// which stands for the action there, whatever its settings.
func IsActionReference(a attrs.ActAttrs) bool {
	if a.Kind == nil || a.Cookie != nil || a.HWStats != nil || a.Flags != nil {
		return false
	}
	c, ok := ActionCountsOf(a.Options)
	k := LookupAction(*a.Kind)
	if !ok || c.Index == 0 || k == nil {
		return false
	}
	ref, _, err := k.Parse(ActionReferenceWords(*a.Kind, c.Index), ActionEnv{})
	return err == nil && reflect.DeepEqual(ref, a.Options)
}

// ResolveActionReferences returns a filter's desired options (want) with
// each action that is a reference (IsActionReference) to the action at
// the same place of the kernel's filter (have), of its kind and index,
// left without options: the reference asks for that action, whatever its
// settings, so Covers compares its kind and place alone. A reference to
// another index or kind is kept, and differs.
func ResolveActionReferences(want, have attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	wacts, ok := FilterActions(want)
	if !ok {
		return want
	}
	hacts, _ := FilterActions(have)
	var out []attrs.ActAttrs
	for i, a := range wacts {
		if i >= len(hacts) || !IsActionReference(a) || !sameAction(a, hacts[i]) {
			continue
		}
		if out == nil {
			out = append([]attrs.ActAttrs(nil), wacts...)
		}
		out[i] = attrs.ActAttrs{Kind: a.Kind}
	}
	if out == nil {
		return want
	}
	return WithFilterActions(want, out)
}

// sameAction reports whether two actions are of one kind and index.
func sameAction(a, b attrs.ActAttrs) bool {
	if a.Kind == nil || b.Kind == nil || *a.Kind != *b.Kind {
		return false
	}
	ac, ok1 := ActionCountsOf(a.Options)
	bc, ok2 := ActionCountsOf(b.Options)
	return ok1 && ok2 && ac.Index == bc.Index
}

// StandaloneActionKeywords writes an action as the words after "tc
// actions add action" that make it again: its kind's keywords, with its
// cookie and flags, and its index.
func StandaloneActionKeywords(a attrs.ActAttrs, links Links) ([]string, error) {
	c, ok := ActionCountsOf(a.Options)
	if !ok || c.Index == 0 {
		return nil, NoKeywords(fmt.Sprintf("action %s without an index", kindOf(a)))
	}
	return actionKeywords(a, c.Index, links)
}

// kindOf is an action's kind, "" for none.
func kindOf(a attrs.ActAttrs) string {
	if a.Kind == nil {
		return ""
	}
	return *a.Kind
}
