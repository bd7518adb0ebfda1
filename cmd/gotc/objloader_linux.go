// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/gotc/gotc/internal/cmdline"
	"github.com/gotc/gotc/tckind"
	"golang.org/x/sys/unix"
)

// gotc loads ELF objects with gotc-bpf (elsewhere than on Linux the qdisc
// package's default, tc's refusal for want of ELF support, stands).
func init() { tckind.SetObjectLoader(loadObjectWithHelper) }

// bpfBinary is the executable that loads eBPF ELF objects for gotc
// (package cmd/gotc-bpf): apart from gotc, so that a one-shot gotc does not
// link, and initialise at every start, an ELF loader and what it imports
// (cilium/ebpf: DWARF, compression, crypto, XML). Its protocol: arguments
// FILE SECTION PROG {cls|act}, descriptor 3 a Unix socket (SOCK_SEQPACKET) on which
// it sends the loaded program's descriptor; on failure it exits non-zero
// with tc's message on its standard error.
const bpfBinary = "gotc-bpf"

// lookBPFHelper finds gotc-bpf; a hook for tests.
var lookBPFHelper = func() (string, error) { return cmdline.FindHelper(bpfBinary) }

// loadObjectWithHelper is gotc's qdisc.ObjectLoader: it runs gotc-bpf and
// receives the program's descriptor from it.
func loadObjectWithHelper(file, section, prog string, forAction bool) (int, error) {
	path, err := lookBPFHelper()
	if err != nil {
		return -1, fmt.Errorf("%v\n%s loads ELF objects for gotc; install it beside gotc or in $PATH with\n"+
			"\tCGO_ENABLED=0 go install github.com/gotc/gotc/cmd/%s@latest", err, bpfBinary, bpfBinary)
	}
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("%s: %v", bpfBinary, err)
	}
	defer unix.Close(pair[0])
	theirs := os.NewFile(uintptr(pair[1]), bpfBinary+" socket")
	typ := "cls"
	if forAction {
		typ = "act"
	}
	cmd := exec.Command(path, file, section, prog, typ)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.ExtraFiles = []*os.File{theirs} // its descriptor 3
	err = cmd.Run()
	theirs.Close()
	if err != nil {
		if msg := strings.TrimSuffix(stderr.String(), "\n"); msg != "" {
			return -1, errors.New(msg)
		}
		return -1, fmt.Errorf("%s: %v", path, err)
	}
	return receiveDescriptor(pair[0])
}

// receiveDescriptor reads the one descriptor gotc-bpf sent.
func receiveDescriptor(sock int) (int, error) {
	var b [1]byte
	oob := make([]byte, unix.CmsgSpace(4))
	_, oobn, _, _, err := unix.Recvmsg(sock, b[:], oob, unix.MSG_DONTWAIT|unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("%s sent no program: %v", bpfBinary, err)
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return -1, fmt.Errorf("%s sent no program", bpfBinary)
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		return -1, fmt.Errorf("%s sent no program", bpfBinary)
	}
	return fds[0], nil
}
