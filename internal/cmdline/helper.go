// SPDX-License-Identifier: Apache-2.0

package cmdline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/gotc/gotc/netlink"
)

// Helper is one run of a binary that serves one of gotc's commands in its
// place (gotc-model, gotc-apply): gotc's options that gotc passes on to it,
// and the kernel connection, of type C, in the -netns namespace, opened on
// first use.
type Helper[C io.Closer] struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Ctx bounds every call to the kernel.
	Ctx context.Context
	// Dial opens the connection in the namespace of netnsFD (0: the
	// process's own); tests replace it.
	Dial func(netnsFD int) (C, error)

	Stats, Details, JSON, Pretty, Raw, IEC, Oneline bool
	// NetNS is -netns's name, "" for none.
	NetNS string

	conn      C
	dialed    bool
	netnsFile *os.File // the -netns namespace, open while the command runs
	netnsErr  error    // why it could not be opened, already printed
}

// ParseArgs reads the command line gotc passes, "NAME [OPTIONS] [--]
// COMMAND WORDS...", where the options are gotc's that change the command
// (-s, -d, -j, -p, -r, -iec, -oneline, -netns NAME), each as gotc writes
// it, and returns the command's words. A line that is not that is a
// Status to exit with, its message printed, naming helper.
func (h *Helper[C]) ParseArgs(args []string, command, helper string) ([]string, error) {
	i := 1
options:
	for ; i < len(args); i++ {
		switch args[i] {
		case "-s", "-stats":
			h.Stats = true
		case "-d", "-details":
			h.Details = true
		case "-j", "-json":
			h.JSON = true
		case "-p", "-pretty":
			h.Pretty = true
		case "-r", "-raw":
			h.Raw = true
		case "-iec":
			h.IEC = true
		case "-oneline":
			h.Oneline = true
		case "-n", "-netns":
			if i+1 >= len(args) {
				fmt.Fprintln(h.Stderr, `Command line is not complete. Try option "help"`)
				return nil, Status(ExitUsage)
			}
			i++
			h.NetNS = args[i]
		case "--":
			i++
			break options
		default:
			break options
		}
	}
	if i >= len(args) || args[i] != command {
		fmt.Fprintf(h.Stderr, "Usage: %s [OPTIONS] [--] %s ARGS (run by \"gotc %s\")\n", helper, command, command)
		return nil, Status(ExitUsage)
	}
	return args[i+1:], nil
}

// NetNSFD opens the -netns namespace once and returns its descriptor, 0
// for the process's own namespace.
func (h *Helper[C]) NetNSFD() (int, error) {
	if h.NetNS == "" {
		return 0, nil
	}
	if h.netnsErr != nil {
		return 0, h.netnsErr
	}
	if h.netnsFile == nil {
		f, err := OpenNetNS(h.NetNS, h.Stderr)
		if err != nil {
			h.netnsErr = err
			return 0, err
		}
		h.netnsFile = f
	}
	return int(h.netnsFile.Fd()), nil
}

// Kernel opens the connection, in the -netns namespace if one was named,
// printing tc's message if it cannot.
func (h *Helper[C]) Kernel() (C, error) {
	if h.dialed {
		return h.conn, nil
	}
	var none C
	fd, err := h.NetNSFD()
	if err != nil {
		return none, err
	}
	c, err := h.Dial(fd)
	if err != nil {
		fmt.Fprintf(h.Stderr, "Cannot open rtnetlink: %v\n", err)
		return none, Status(ExitBadOption)
	}
	h.conn, h.dialed = c, true
	return c, nil
}

// Close closes the connection and the namespace, if opened.
func (h *Helper[C]) Close() {
	if h.dialed {
		h.conn.Close()
	}
	if h.netnsFile != nil {
		h.netnsFile.Close()
	}
}

// ExitCodeOf is the status an error carries (an ExitCode method, as
// Status's), or fallback.
func ExitCodeOf(err error, fallback int) int {
	var ec interface{ ExitCode() int }
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	return fallback
}

// FindHelper finds one of gotc's helper executables (gotc-exporter,
// gotc-bpf, gotc-model, gotc-apply, gotc-traffic) in the directory of the
// running executable, else in $PATH.
func FindHelper(name string) (string, error) {
	beside := "gotc's directory"
	if self, err := os.Executable(); err == nil {
		dir := filepath.Dir(self)
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
		beside = dir
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("cannot find the %s executable, neither in %s nor in $PATH", name, beside)
}

// Conn is what a helper's command needs of the kernel; its tests give a
// fake (internal/fakekernel).
type Conn interface {
	Do(ctx context.Context, o netlink.Object, op netlink.Op, m *netlink.Msg) error
	Dump(ctx context.Context, o netlink.Object, f netlink.DumpFilter, fn func(m *netlink.Msg, decodeErr error) error) error
	LinkIndex(ctx context.Context, name string) (int32, error)
	LinkNames(ctx context.Context) (map[int32]string, error)
	Close() error
}

// DialKernel opens the kernel's connection in the namespace of netnsFD (0:
// the process's own), a Helper's Dial outside tests.
func DialKernel(netnsFD int) (Conn, error) {
	return netlink.Dial(&netlink.Config{NetNS: netnsFD})
}
