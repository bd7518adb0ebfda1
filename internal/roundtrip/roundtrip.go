// SPDX-License-Identifier: Apache-2.0

// Package roundtrip checks the contract every kind keeps with the kernel,
// on a dumped object: its kind writes it back as keywords, its kind's
// parser reads them, and they must ask for what the kernel dumped, no
// more and no less. The kinds' contract test (package allkinds) runs it
// on the golden dumps recorded from the test bed's kernel; the
// differential test runs it on what the kernel dumps after its cases.
package roundtrip

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/gotc/gotc/action"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// ErrNotMade reports a dumped object that no command makes, which has no
// keywords to check: a class the qdisc makes itself (mq's, prio's bands,
// hfsc's root class X:0), the entry a filter dump gives each pref before
// its filters, a table of a kind's filters (u32's), a qdisc of a kind tc
// has no module for (mq).
var ErrNotMade = errors.New("made by no command")

// Check writes the dumped qdisc, class or filter m back as its kind's
// keywords (a filter's with its handle word), parses them with the kind's
// parser, and reports how what they ask for differs from the dump: the
// words must ask for nothing the kernel did not dump (as it keeps it: the
// kinds' Dumped), and for everything it dumped but what it fills itself
// and what is dumped as a request of zero would be. It returns the words.
// An error wrapping tckind.ErrNoKeywords is the kind's refusal to write
// the dump back, one wrapping ErrNotMade an object no command makes.
func Check(o netlink.Object, m *netlink.Msg, links tckind.Links) ([]string, error) {
	kind, opts := m.Kind(), m.Attrs.Options
	var words []string
	var back attrs.TCOptionsMsg
	var err error
	switch o {
	case netlink.Qdisc, netlink.Class:
		k := tckind.LookupQdisc(kind)
		if k == nil {
			if tckind.EmptyOptions(opts) {
				return nil, fmt.Errorf("%s %s: %w", o, kind, ErrNotMade)
			}
			return nil, fmt.Errorf("%s of unregistered kind %q", o, kind)
		}
		if o == netlink.Qdisc {
			// What apply --from-kernel writes: the request that
			// restores the dumped state, as keywords.
			if words, err = tckind.QdiscKeywords(kind, tckind.Restoring(kind, opts)); err != nil {
				return nil, err
			}
			if k.ParseQdisc != nil {
				back, err = k.ParseQdisc(words, tckind.ParseEnv{})
			}
			if err == nil {
				back = tckind.Dumped(kind, back)
			}
		} else {
			if k.ParseClass == nil || m.Header.Handle&0xffff == 0 {
				return nil, fmt.Errorf("class %s of %s: %w", tcfmt.FormatClassID(m.Header.Handle), kind, ErrNotMade)
			}
			if words, err = tckind.ClassKeywords(kind, opts); err != nil {
				return nil, err
			}
			back, err = k.ParseClass(words, tckind.ParseEnv{})
		}
	case netlink.Filter:
		k := tckind.LookupFilter(kind)
		if k == nil || opts == nil || k.IsTable != nil && k.IsTable(m.Header.Handle) {
			return nil, fmt.Errorf("filter %s: %w", kind, ErrNotMade)
		}
		if words, err = tckind.FilterKeywords(kind, opts, links); err != nil {
			return nil, err
		}
		handle := m.Header.Handle
		env := tckind.FilterEnv{Protocol: bits.ReverseBytes16(uint16(m.Header.Info)), Parent: m.Header.Parent,
			Handle: tckind.FilterHandleWord(kind, handle, opts)}
		env.Links = links
		var h uint32
		if back, h, err = k.Parse(words, env); err == nil && h != handle {
			err = fmt.Errorf("handle %q reads back as %#x, dumped %#x", env.Handle, h, handle)
		}
		if err == nil {
			// An action bound by its index alone stands for the action
			// there, written where it is made (StandaloneActionKeywords).
			back = tckind.FilterDumped(kind, tckind.ResolveActionReferences(back, opts))
		}
	default:
		return nil, fmt.Errorf("roundtrip: no keywords for a %s", o)
	}
	if err != nil {
		return words, fmt.Errorf("the kind's parser refuses its keywords %q: %w", strings.Join(words, " "), err)
	}
	if back == nil && tckind.EmptyOptions(opts) {
		return words, nil // ingress, clsact: an empty nest, asked for by no words
	}
	return words, compare(words, back, opts, withoutZeroLeftOut(withoutActionFills(opts, back), back))
}

// CheckAction is Check for a standalone action ("tc actions"): written
// back as the words that make it again (tckind.StandaloneActionKeywords:
// the kind's Keywords, its index, then its cookie, hw_stats and flags)
// and parsed as "tc actions add action" does, it must give the same
// options, index, cookie, flags and kinds of hardware statistics.
func CheckAction(a attrs.ActAttrs, links tckind.Links) ([]string, error) {
	words, err := tckind.StandaloneActionKeywords(a, links)
	if err != nil {
		return nil, err
	}
	back, rest, err := action.ParseActions(words, tckind.ActionEnv{Links: links})
	if err != nil || len(rest) != 0 || len(back) != 1 {
		return words, fmt.Errorf("the action list's parser refuses its keywords %q (%d actions, %q left): %v", strings.Join(words, " "), len(back), rest, err)
	}
	b := back[0]
	b.Options = actionAsKept(b)
	if err := compare(words, b.Options, a.Options, actionWithoutFills(a, b).Options); err != nil {
		return words, err
	}
	if !slices.Equal(b.Cookie, a.Cookie) || !reflect.DeepEqual(b.Flags, a.Flags) || hwStats(b.HWStats) != hwStats(a.HWStats) {
		return words, fmt.Errorf("the words %q ask for another cookie, flags or hw_stats\n asked  %s\n dumped %s", strings.Join(words, " "), Show(b), Show(a))
	}
	return words, nil
}

// compare requires that kept (what the words ask for, as the kernel keeps
// it) be in the dump, and that what the dump holds that words may ask for
// (askable) be asked for.
func compare(words []string, kept, dumped, askable any) error {
	if !tckind.Covers(kept, dumped) {
		return fmt.Errorf("the words %q ask for what the kernel did not dump\n asked  %s\n dumped %s", strings.Join(words, " "), Show(kept), Show(dumped))
	}
	if !tckind.Covers(askable, kept) {
		return fmt.Errorf("the words %q leave out what the kernel dumped\n asked  %s\n dumped %s", strings.Join(words, " "), Show(kept), Show(dumped))
	}
	return nil
}

// Show writes options with what their pointers point to, for messages:
// JSON, without the rate tables' bytes, which say nothing to a reader.
func Show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return rateTables.ReplaceAllString(string(b), `"$1":"..."`)
}

// rateTables are the byte lists of rate tables in Show's JSON.
var rateTables = regexp.MustCompile(`"(Rtab|Ctab|Ptab|DelayDist|SlotDist)":"[^"]*"`)

// withoutZeroLeftOut returns a copy of dumped options without the
// attributes that asked leaves out and that are dumped as a request of
// zero would be (by Covers' rule: a classifier's flags with only the bits
// the kernel adds count as zero): the kernel's default for most, which a
// kind's writer leaves out as tc does ("memlimit 0").
func withoutZeroLeftOut[T any](dumped, asked T) T {
	d, a := reflect.ValueOf(dumped), reflect.ValueOf(asked)
	if d.Kind() != reflect.Pointer || d.IsNil() || d.Elem().Kind() != reflect.Struct || a.Type() != d.Type() || a.IsNil() {
		return dumped
	}
	out := reflect.New(d.Elem().Type())
	out.Elem().Set(d.Elem())
	for i := range d.Elem().NumField() {
		f := out.Elem().Field(i)
		if !f.CanSet() || f.Kind() != reflect.Pointer || f.IsNil() || !a.Elem().Field(i).IsZero() {
			continue
		}
		zero := reflect.New(d.Elem().Type())
		zero.Elem().Field(i).Set(reflect.New(f.Type().Elem()))
		if tckind.Covers(zero.Interface(), dumped) {
			f.Set(reflect.Zero(f.Type()))
		}
	}
	return out.Interface().(T)
}

// Actions: what the kernel keeps of the actions a request asks for, and
// what it fills in those it dumps.

// actionFilled names the fields of an action (of its TCA_ACT_* nest, its
// options, and the parms struct in them) that the kernel fills and no
// words ask for: its index and counts, its times and statistics.
var actionFilled = map[string]bool{
	"Index": true, "Refcnt": true, "Bindcnt": true, "Capab": true,
	"Tm": true, "Stats": true, "InHWCount": true, "UsedHWStats": true,
	"StatsDscpSet": true, "StatsDscpError": true, "StatsCpmarkSet": true,
}

// actionAsKept is an asked action's options as the kernel keeps them.
func actionAsKept(a attrs.ActAttrs) attrs.ActOptionsMsg {
	if a.Kind == nil {
		return a.Options
	}
	return tckind.ActionDumped(*a.Kind, a.Options)
}

// withoutActionFills returns a copy of a filter's dumped options whose
// actions hold only what words may ask for: without what the kernel
// fills, and without the options asked leaves out that are dumped as a
// request of zero would be.
func withoutActionFills(dumped, asked attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	acts, ok := tckind.FilterActions(dumped)
	askedActs, ok2 := tckind.FilterActions(asked)
	if !ok || !ok2 || len(acts) != len(askedActs) {
		return dumped
	}
	list := make([]attrs.ActAttrs, len(acts))
	for i := range list {
		if askedActs[i].Options == nil {
			// A reference (tckind.ResolveActionReferences) asks for
			// its action's kind and place alone.
			list[i] = attrs.ActAttrs{Kind: acts[i].Kind}
			continue
		}
		list[i] = actionWithoutFills(acts[i], askedActs[i])
	}
	return tckind.WithFilterActions(dumped, list)
}

// actionWithoutFills is one action of withoutActionFills.
func actionWithoutFills(dumped, asked attrs.ActAttrs) attrs.ActAttrs {
	a := withoutFilled(reflect.ValueOf(&dumped)).Interface().(*attrs.ActAttrs)
	if a.Options != nil {
		o := withoutFilled(reflect.ValueOf(a.Options))
		for i := range o.Elem().NumField() {
			if f := o.Elem().Field(i); f.Kind() == reflect.Pointer && !f.IsNil() && f.Elem().Kind() == reflect.Struct {
				f.Set(withoutFilled(f))
			}
		}
		a.Options = withoutZeroLeftOut(o.Interface().(attrs.ActOptionsMsg), asked.Options)
	}
	return *a
}

// withoutFilled returns a copy of the struct p points to without the
// fields actionFilled names.
func withoutFilled(p reflect.Value) reflect.Value {
	out := reflect.New(p.Elem().Type())
	out.Elem().Set(p.Elem())
	for name := range actionFilled {
		if f := out.Elem().FieldByName(name); f.IsValid() && f.CanSet() {
			f.Set(reflect.Zero(f.Type()))
		}
	}
	return out
}

// hwStats is the kinds of hardware statistics an action keeps, -1 for
// the kernel's default (any): a request names them in value and
// selector, a dump in value under a selector of all.
func hwStats(b *attrs.Bitfield32) int64 {
	if b == nil {
		return -1
	}
	return int64(b.Value)
}
