// SPDX-License-Identifier: Apache-2.0

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

// TestApplyDiffSummary: --diff prints the plan's lines, then the summary on
// a line of its own, as a terminal showing stdout and stderr together
// shows them; --check alone prints the summary and exits 2 when changes
// are pending.
func TestApplyDiffSummary(t *testing.T) {
	plan := &apply.Plan{Requests: []apply.Request{
		{Command: "qdisc replace dev ifb0 root handle 1: htb default 10"},
		{Command: "class replace dev ifb0 parent 1: classid 1:10 htb rate 10mbit"},
	}}
	for _, c := range []struct {
		check, diff bool
		plan        *apply.Plan
		want        string
		err         error
	}{
		{false, true, plan, plan.Requests[0].Command + "\n" + plan.Requests[1].Command + "\napply: 2 changes pending\n", nil},
		{true, true, plan, plan.Requests[0].Command + "\n" + plan.Requests[1].Command + "\napply: 2 changes pending\n", errStatus(exitKernel)},
		{true, false, plan, "apply: 2 changes pending\n", errStatus(exitKernel)},
		{false, true, &apply.Plan{}, "apply: in sync, nothing to change\n", nil},
		{true, false, &apply.Plan{}, "", nil},
	} {
		var terminal bytes.Buffer
		cmd := &tc{stdout: &terminal, stderr: &terminal}
		if err := cmd.reportPlan(c.plan, c.check, c.diff); err != c.err || terminal.String() != c.want {
			t.Errorf("check %v diff %v, %d requests: %v, output %q; want %v, %q", c.check, c.diff, len(c.plan.Requests), err, terminal.String(), c.err, c.want)
		}
	}
}
