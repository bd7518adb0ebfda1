// SPDX-License-Identifier: Apache-2.0

package tckind

import (
	"reflect"

	"github.com/gotc/gotc/attrs"
)

// Some kinds keep an option in other units than a request gives it and
// dump it converted back, rounded: fq_codel's and codel's times (kept in
// units of 1.024 µs), dualpi2's alpha and beta (kept in units of 64 ns
// scaled to the probability range). A dump then never equals the request,
// and sending a dumped value back does not restore the state it came
// from. Each such kind says how in its Dumped and Restoring; these two
// ask the kind.

// Dumped returns the options of a qdisc of the kind as the kernel will
// dump them after a request of opts (a copy; opts is not changed). Options
// of kinds that keep what they are given come back as they are. A request
// without options (nil) is the kind's to answer too: pfifo_fast's dumps
// its fixed priomap; so is a nil pointer of the kind's options type,
// which is none either.
func Dumped(kind string, opts attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	if v := reflect.ValueOf(opts); v.Kind() == reflect.Pointer && v.IsNil() {
		opts = nil
	}
	if k := LookupQdisc(kind); k != nil && k.Dumped != nil {
		return k.Dumped(opts)
	}
	return opts
}

// Restoring returns the request that brings a qdisc of the kind back to
// the state a dump of it shows: for each rounded value, the smallest
// request value the kernel dumps as it. Where the kernel's rounding maps
// two states to one dumped value, it gives the lower.
func Restoring(kind string, dumped attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	if k := LookupQdisc(kind); k != nil && k.Restoring != nil && dumped != nil {
		return k.Restoring(dumped)
	}
	return dumped
}

// FilterDumped returns a filter's options as the kernel will dump them
// after a request of opts: its actions as their kinds keep them
// (ActionDumped), then the filter kind's Dumped; options of kinds that
// keep what they are given come back as they are.
func FilterDumped(kind string, opts attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	if acts, ok := FilterActions(opts); ok {
		kept := make([]attrs.ActAttrs, len(acts))
		for i, a := range acts {
			kept[i] = a
			if a.Kind != nil {
				kept[i].Options = ActionDumped(*a.Kind, a.Options)
			}
		}
		opts = WithFilterActions(opts, kept)
	}
	if k := LookupFilter(kind); k != nil && k.Dumped != nil && opts != nil {
		return k.Dumped(opts)
	}
	return opts
}

// FilterActions returns the action list of a filter's options (the Act
// field every filter kind's options with actions has), and whether they
// have one.
func FilterActions(opts attrs.TCOptionsMsg) ([]attrs.ActAttrs, bool) {
	v := reflect.ValueOf(opts)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil, false
	}
	acts := v.Elem().FieldByName("Act")
	if !acts.IsValid() || acts.Type() != reflect.TypeFor[[]attrs.ActAttrs]() {
		return nil, false
	}
	return acts.Interface().([]attrs.ActAttrs), true
}

// WithFilterActions returns a copy of a filter's options (which
// FilterActions accepts) with acts as their action list.
func WithFilterActions(opts attrs.TCOptionsMsg, acts []attrs.ActAttrs) attrs.TCOptionsMsg {
	v := reflect.ValueOf(opts)
	out := reflect.New(v.Elem().Type())
	out.Elem().Set(v.Elem())
	out.Elem().FieldByName("Act").Set(reflect.ValueOf(acts))
	return out.Interface().(attrs.TCOptionsMsg)
}

// ActionDumped returns an action's options as the kernel will dump them
// after a request of opts, from the kind's Dumped; options of kinds that
// keep what they are given come back as they are.
func ActionDumped(kind string, opts attrs.ActOptionsMsg) attrs.ActOptionsMsg {
	if k := LookupAction(kind); k != nil && k.Dumped != nil && opts != nil {
		return k.Dumped(opts)
	}
	return opts
}
