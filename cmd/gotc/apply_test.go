package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gotc/gotc/apply"
)

func TestApplyExample(t *testing.T) {
	var out, errOut bytes.Buffer
	noKernel := func(int) (conn, error) { t.Fatal("--example dialed the kernel"); return nil, nil }
	if status := run([]string{"gotc", "apply", "--example"}, nil, &out, &errOut, noKernel); status != 0 || out.String() != apply.Example {
		t.Errorf("status %d, stderr %q, stdout %d bytes", status, errOut.String(), out.Len())
	}
	out.Reset()
	if status := run([]string{"gotc", "apply", "--frobnicate"}, nil, &out, &errOut, noKernel); status != exitUsage || !strings.Contains(errOut.String(), "Usage: gotc apply") {
		t.Errorf("unknown option: status %d, stderr %q", status, errOut.String())
	}
}
