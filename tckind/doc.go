// SPDX-License-Identifier: Apache-2.0

// Package tckind is what every kind gotc speaks is: the contract of a
// qdisc kind (Qdisc, with its classes), a filter kind (Filter), an action
// kind (Action), the environments their parsers read, the devices they
// name (Links), their statistics tables, size tables, estimators and
// protocol names, and the registries that find them by name.
//
// The kinds themselves live in one package per family (qdisc, filter,
// action, ematch), one file per kind, each registering itself from init
// through Lazily, so that the tables are built at the first lookup.
// Import github.com/gotc/gotc/allkinds for all of them, then look one up:
//
//	cake := tckind.LookupQdisc("cake")
//	opts, err := cake.ParseQdisc(strings.Fields("bandwidth 100mbit diffserv4"), tckind.ParseEnv{})
package tckind

import (
	"github.com/gotc/gotc/internal/bpfprog"
	"github.com/gotc/gotc/internal/tcword"
)

// ParseError is a bad keyword or value in a kind's options: the message
// exactly as tc prints it, whether tc prints the kind's usage after it,
// and the exit status tc gives. Nothing is sent to the kernel.
type ParseError = tcword.ParseError

// ObjectLoader loads the program of an ELF object for "bpf obj FILE" (the
// filter's and the action's) and returns its file descriptor; forAction
// says which program type the kernel is to check it as.
type ObjectLoader = bpfprog.ObjectLoader

// SetObjectLoader sets how ELF objects are loaded; nil, the default,
// refuses them as a tc built without ELF support does. Package bpfobj
// holds an in-process loader: tckind.SetObjectLoader(bpfobj.Load).
func SetObjectLoader(l ObjectLoader) { bpfprog.SetObjectLoader(l) }
