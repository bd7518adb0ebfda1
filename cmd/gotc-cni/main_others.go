// SPDX-License-Identifier: Apache-2.0

//go:build !linux

package main

import (
	"fmt"
	"os"
)

// main says why not: CNI's network namespaces, veths and traffic control
// are Linux's. The rest of the package builds everywhere, so that gotc's
// checks (go vet for macOS) cover it.
func main() {
	fmt.Fprintln(os.Stderr, "gotc-cni: runs on Linux only")
	os.Exit(1)
}
