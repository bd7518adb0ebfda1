// SPDX-License-Identifier: Apache-2.0

// Command gotc-bpf loads the program of an eBPF ELF object for gotc's bpf
// filter and action ("bpf obj FILE"), so that gotc itself links no ELF
// loader: gotc runs it as
//
//	gotc-bpf FILE SECTION PROG {cls|act}
//
// with descriptor 3 a Unix socket, on which it sends the loaded program's
// descriptor (SCM_RIGHTS) and exits 0. When the object cannot be loaded it
// prints tc's message for the failure and exits 1; a bad invocation exits 2.
// It is not meant to be run by hand; help, -h and --help say so (its page
// is manual.BPF, gotc-bpf(8)).
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/gotc/gotc/bpfobj"
	"github.com/gotc/gotc/internal/manual"
	"golang.org/x/sys/unix"
)

// replySocket is the descriptor gotc passes its end of the socket as.
const replySocket = 3

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, loadAndPass))
}

// run is main without the process: it returns the exit status. load does
// the work of a good invocation, printing its own failure.
func run(args []string, stdout, stderr io.Writer, load func(file, section, prog string, act bool, stderr io.Writer) int) int {
	if len(args) == 1 && manual.IsHelp(args[0]) {
		fmt.Fprint(stdout, manual.BPF.Help())
		return 0
	}
	if len(args) != 4 || (args[3] != "cls" && args[3] != "act") {
		fmt.Fprintf(stderr, "%s(run by gotc, with its socket as descriptor 3)\n", manual.BPF.Usage)
		return 2
	}
	return load(args[0], args[1], args[2], args[3] == "act", stderr)
}

// loadAndPass loads the program and passes its descriptor to gotc.
func loadAndPass(file, section, prog string, act bool, stderr io.Writer) int {
	fd, err := bpfobj.Load(file, section, prog, act)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if err := unix.Sendmsg(replySocket, []byte{0}, unix.UnixRights(fd), nil, 0); err != nil {
		fmt.Fprintf(stderr, "gotc-bpf: passing the program to gotc: %v\n", err)
		return 1
	}
	return 0
}
