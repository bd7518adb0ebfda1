// SPDX-License-Identifier: Apache-2.0

package tckind

import (
	"fmt"
	"reflect"

	"github.com/gotc/gotc/attrs"
)

// KeptDefaults makes a Qdisc.KeptOnChange for a kind whose change keeps
// each option a request omits (an attribute of its own, as in cake, fq or
// fq_codel). defaults holds the values the kind's init gives the options
// a request can ask for again, the others nil (a quantum whose default is
// the device's MTU, a threshold no value turns off): each option a request
// leaves nil takes its default. Each of together is a group of options
// whose words set more than one of them ("rtt" sets cake's target too,
// "raw" its overhead and framing): the group takes its defaults only when
// the request gives none of its options. keywords (the kind's writer of
// words from options) writes the words that ask for the defaults set.
// allkinds' contract test checks the defaults against the kernel's dump
// of a qdisc added without options, and the words against the kind's
// parser.
func KeptDefaults[T any, P interface {
	*T
	attrs.TCOptionsMsg
}](kind string, keywords func(P) ([]string, error), defaults T, together ...T) func(attrs.TCOptionsMsg) (attrs.TCOptionsMsg, []string) {
	return func(opts attrs.TCOptionsMsg) (attrs.TCOptionsMsg, []string) {
		o, ok := opts.(P)
		if !ok && opts != nil {
			return opts, nil
		}
		var c, set T
		if o != nil {
			c = *o
		}
		cv, sv := reflect.ValueOf(&c).Elem(), reflect.ValueOf(&set).Elem()
		fill := func(group reflect.Value, i int) {
			// A copy of its own: no request shares the defaults' values.
			def, v := group.Field(i), reflect.New(group.Field(i).Type()).Elem()
			if def.Kind() == reflect.Pointer {
				v.Set(reflect.New(def.Type().Elem()))
				v.Elem().Set(def.Elem())
			} else {
				v.Set(reflect.AppendSlice(reflect.MakeSlice(def.Type(), 0, def.Len()), def))
			}
			cv.Field(i).Set(v)
			sv.Field(i).Set(v)
		}
		d := reflect.ValueOf(defaults)
		for i := range cv.NumField() {
			if given(d, i) && !given(cv, i) {
				fill(d, i)
			}
		}
		for _, t := range together {
			g := reflect.ValueOf(t)
			none := true
			for i := range cv.NumField() {
				none = none && !(given(g, i) && given(cv, i))
			}
			for i := range cv.NumField() {
				if none && given(g, i) {
					fill(g, i)
				}
			}
		}
		if sv.IsZero() {
			return P(&c), nil
		}
		words, err := keywords(&set)
		if err != nil {
			// The contract test writes every kind's defaults: a writer
			// that refuses them is a defect of the kind's file.
			panic(fmt.Sprintf("qdisc %s: no words for its defaults: %v", kind, err))
		}
		return P(&c), words
	}
}

// given reports whether field i of an options struct is set: an
// attribute's pointer or a list that is not nil.
func given(s reflect.Value, i int) bool {
	f := s.Field(i)
	return (f.Kind() == reflect.Pointer || f.Kind() == reflect.Slice) && !f.IsNil()
}
