// SPDX-License-Identifier: Apache-2.0

// Package bpfprog reads the BPF program that the bpf filter and the bpf
// action share, as tc's bpf_do_parse does: classic bytecode (given, or in
// a file), a pinned program, or an ELF object through the loader a program
// installs with tckind.SetObjectLoader.
package bpfprog
