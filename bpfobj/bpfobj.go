// SPDX-License-Identifier: Apache-2.0

// Package bpfobj loads the program of an eBPF ELF object file for the bpf
// filter and action ("bpf obj FILE [sec SECTION] [prog NAME]"), through
// github.com/cilium/ebpf, with the messages tc prints when it cannot.
//
// The qdisc package parses "obj" but loads nothing itself: a program that
// wants it to load objects in-process installs this package's loader,
//
//	tckind.SetObjectLoader(bpfobj.Load)
//
// gotc's own command does not: an ELF loader costs every start of a short
// command its initialisation, so gotc hands objects to the gotc-bpf
// executable (cmd/gotc-bpf), which loads them with this package and passes
// the program back.
package bpfobj

// tcMessage is an error whose text is the message tc prints for the same
// failure, capitals and final punctuation included: gotc prints it as it is.
type tcMessage string

func (m tcMessage) Error() string { return string(m) }
