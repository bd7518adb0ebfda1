// Package roundtrip checks the contract every kind keeps with the kernel,
// on a dumped object: its kind writes it back as keywords, its kind's
// parser reads them, and they must ask for what the kernel dumped, no
// more and no less. The kinds' contract test runs it on the golden dumps
// recorded from the test bed's kernel; the differential test runs it on
// what the kernel dumps after each of its command lines.
package roundtrip

import (
	"errors"
	"fmt"
	"math/bits"
	"reflect"

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
// keywords (with the filter's handle word), parses them with the kind's
// parser, and reports how what they ask for differs from the dump: the
// words must ask for nothing the kernel did not dump (as it keeps it:
// tckind.Dumped), and for everything it dumped but for what is dumped as
// a request of zero would be. It returns the words. An error wrapping
// tckind.ErrNoKeywords is the kind's refusal to write the dump back, one
// wrapping ErrNotMade an object no command makes.
func Check(o netlink.Object, m *netlink.Msg, links tckind.Links) ([]string, error) {
	kind, opts := m.Kind(), m.Attrs.Options
	var words []string
	var back attrs.TCOptionsMsg
	var err error
	switch o {
	case netlink.Qdisc, netlink.Class:
		k := tckind.LookupQdisc(kind)
		if k == nil {
			if EmptyOptions(opts) {
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
			back = tckind.Dumped(kind, back)
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
	default:
		return nil, fmt.Errorf("roundtrip: no keywords for a %s", o)
	}
	if err != nil {
		return words, fmt.Errorf("the kind's parser refuses its keywords: %w", err)
	}
	if back == nil && EmptyOptions(opts) {
		return words, nil // ingress, clsact: an empty nest, asked for by no words
	}
	if !tckind.Covers(back, opts) {
		return words, fmt.Errorf("the words ask for what the kernel did not dump\n asked  %+v\n dumped %+v", back, opts)
	}
	if !tckind.Covers(WithoutZeroLeftOut(opts, back), back) {
		return words, fmt.Errorf("the words leave out what the kernel dumped\n asked  %+v\n dumped %+v", back, opts)
	}
	return words, nil
}

// EmptyOptions reports options that hold nothing: none, or the empty nest
// ingress and clsact dump.
func EmptyOptions(opts attrs.TCOptionsMsg) bool {
	switch o := opts.(type) {
	case nil:
		return true
	case attrs.TCOptionsMsgRaw:
		return len(o) == 0
	case attrs.TCOptionsMsgNest:
		return len(o) == 0
	}
	return false
}

// WithoutZeroLeftOut returns a copy of dumped options without the
// attributes that asked leaves out and that are dumped as a request of
// zero would be (by Covers' rule: a classifier's flags with only the bits
// the kernel adds count as zero): the kernel's default for most, which a
// kind's writer leaves out as tc does ("memlimit 0").
func WithoutZeroLeftOut(dumped, asked attrs.TCOptionsMsg) attrs.TCOptionsMsg {
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
	return out.Interface().(attrs.TCOptionsMsg)
}
