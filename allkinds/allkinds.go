// SPDX-License-Identifier: Apache-2.0

// Package allkinds registers every kind gotc speaks: import it for its
// side effect, as the CLI, apply, watch and the exporter do, before looking
// kinds up by name in package tckind.
//
//	import _ "github.com/gotc/gotc/allkinds"
//
// A program that needs only some families imports those packages instead
// (qdisc, filter, action, ematch); each registers its own kinds.
package allkinds

import (
	_ "github.com/gotc/gotc/action"
	_ "github.com/gotc/gotc/ematch"
	_ "github.com/gotc/gotc/filter"
	_ "github.com/gotc/gotc/qdisc"
)
