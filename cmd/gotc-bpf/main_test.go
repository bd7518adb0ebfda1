// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/gotc/gotc/internal/manual"
)

// TestHelpAndUsage: help, -h, -help and --help print the help on stdout and
// exit 0 without loading anything; a bad invocation prints the usage and
// exits 2; a good one is passed on.
func TestHelpAndUsage(t *testing.T) {
	loaded := ""
	load := func(file, section, prog string, act bool, _ io.Writer) int {
		loaded = strings.Join([]string{file, section, prog}, " ")
		if act {
			loaded += " act"
		}
		return 0
	}
	for _, tc := range []struct {
		args           string
		status         int
		stdout, stderr string
		loaded         string
	}{
		{"help", 0, manual.BPF.Help(), "", ""},
		{"-h", 0, manual.BPF.Help(), "", ""},
		{"-help", 0, manual.BPF.Help(), "", ""},
		{"--help", 0, manual.BPF.Help(), "", ""},
		{"", 2, "", manual.BPF.Usage + "(run by gotc, with its socket as descriptor 3)\n", ""},
		{"a.o sec prog bogus", 2, "", manual.BPF.Usage + "(run by gotc, with its socket as descriptor 3)\n", ""},
		{"a.o sec prog act", 0, "", "", "a.o sec prog act"},
	} {
		loaded = ""
		var stdout, stderr bytes.Buffer
		status := run(strings.Fields(tc.args), &stdout, &stderr, load)
		if status != tc.status || stdout.String() != tc.stdout || stderr.String() != tc.stderr || loaded != tc.loaded {
			t.Errorf("%q: status %d, stdout %.40q, stderr %q, loaded %q; want %d, %.40q, %q, %q", tc.args, status, stdout.String(), stderr.String(), loaded, tc.status, tc.stdout, tc.stderr, tc.loaded)
		}
	}
}
