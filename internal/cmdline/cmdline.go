// SPDX-License-Identifier: Apache-2.0

// Package cmdline holds the parts of gotc's command line that cmd/gotc and
// its helper binaries share: tc's exit statuses, the -netns namespace,
// stopping on a signal, the arguments of "gotc exporter", and the options
// and connection of the binaries that serve a command in gotc's place
// (Helper: gotc-model, gotc-apply). It imports nothing of
// the exporter, so gotc can check an exporter command line without linking
// the Prometheus client.
package cmdline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
)

// Exit statuses, as tc's.
const (
	ExitOK        = 0
	ExitBadOption = 1
	ExitKernel    = 2
	ExitUsage     = 255
)

// Status is an error for a failure whose message is already printed: the
// command exits with it.
type Status int

// Error says which status the command exits with.
func (s Status) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

// ExitCode is the status the command exits with.
func (s Status) ExitCode() int { return int(s) }

// NeedArg is tc's NEXT_ARG: when a keyword that needs a value ends the line
// (args holds fewer than two words) it prints tc's message to stderr and
// returns Status(ExitUsage); otherwise nil.
func NeedArg(args []string, stderr io.Writer) error {
	if len(args) < 2 {
		fmt.Fprintln(stderr, `Command line is not complete. Try option "help"`)
		return Status(ExitUsage)
	}
	return nil
}

// netNSPath is where the network namespace tc's -netns NAME names: NAME
// itself if it contains a slash, else /var/run/netns/NAME (ip netns's
// bind mounts).
func netNSPath(name string) string {
	if strings.Contains(name, "/") {
		return name
	}
	return filepath.Join("/var/run/netns", name)
}

// OpenNetNS opens the network namespace -netns names. If it cannot, it prints
// tc's message to stderr and returns Status(ExitUsage).
func OpenNetNS(name string, stderr io.Writer) (*os.File, error) {
	f, err := os.Open(netNSPath(name))
	if err != nil {
		fmt.Fprintf(stderr, "Cannot open network namespace %q: %s\n", name, Strerror(errors.Unwrap(err)))
		return nil, Status(ExitUsage)
	}
	return f, nil
}

// Strerror is err's text as strerror(3) words it, which tc prints: Go's
// errno texts are strerror's in lower case.
func Strerror(err error) string {
	s := err.Error()
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// SignalContext is cancelled by SIGINT or SIGTERM, so that long-running
// commands stop cleanly; the returned function stops listening for them.
func SignalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}
