// Command gotc-bpf loads the program of an eBPF ELF object for gotc's bpf
// filter and action ("bpf obj FILE"), so that gotc itself links no ELF
// loader: gotc runs it as
//
//	gotc-bpf FILE SECTION PROG {cls|act}
//
// with descriptor 3 a Unix socket, on which it sends the loaded program's
// descriptor (SCM_RIGHTS) and exits 0. When the object cannot be loaded it
// prints tc's message for the failure and exits 1; a bad invocation exits 2.
// It is not meant to be run by hand.
package main

import (
	"fmt"
	"os"

	"github.com/gotc/gotc/bpfobj"
	"golang.org/x/sys/unix"
)

// replySocket is the descriptor gotc passes its end of the socket as.
const replySocket = 3

func main() {
	if len(os.Args) != 5 || (os.Args[4] != "cls" && os.Args[4] != "act") {
		fmt.Fprintln(os.Stderr, "usage: gotc-bpf FILE SECTION PROG {cls|act} (run by gotc, with its socket as descriptor 3)")
		os.Exit(2)
	}
	fd, err := bpfobj.Load(os.Args[1], os.Args[2], os.Args[3], os.Args[4] == "act")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := unix.Sendmsg(replySocket, []byte{0}, unix.UnixRights(fd), nil, 0); err != nil {
		fmt.Fprintf(os.Stderr, "gotc-bpf: passing the program to gotc: %v\n", err)
		os.Exit(1)
	}
}
