// SPDX-License-Identifier: Apache-2.0

// Command hello is a Go hello-world: the floor of a Go process's start, which
// the benchmark sets beside gotc's one-shot processes.
package main

import "os"

func main() { os.Stdout.WriteString("hello\n") }
