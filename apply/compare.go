// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"reflect"

	"github.com/gotc/gotc/attrs"
)

// onlySet returns the attributes of have that want sets: what changes them
// back after a change to want, and nothing more (a dumped value sent back
// need not restore the state it came from, and options the change did not
// touch are best left alone). Options that are not a struct of attributes
// come back whole.
func onlySet(have, want any) attrs.TCOptionsMsg {
	h, w := reflect.ValueOf(have), reflect.ValueOf(want)
	if h.Kind() != reflect.Pointer || w.Type() != h.Type() || h.IsNil() || w.IsNil() || h.Elem().Kind() != reflect.Struct {
		opts, _ := have.(attrs.TCOptionsMsg)
		return opts
	}
	out := reflect.New(h.Elem().Type())
	for i := range h.Elem().NumField() {
		if f := out.Elem().Field(i); f.CanSet() && !w.Elem().Field(i).IsZero() {
			f.Set(h.Elem().Field(i))
		}
	}
	return out.Interface().(attrs.TCOptionsMsg)
}
