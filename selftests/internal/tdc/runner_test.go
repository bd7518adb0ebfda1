// SPDX-License-Identifier: Apache-2.0

package tdc

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// fakeSandboxer stands in for network namespaces: commands run with
// /bin/sh on the host, and Open/Close calls are recorded.
type fakeSandboxer struct {
	opened, closed []string // NS names
	failOpen       bool
}

func (f *fakeSandboxer) Open(_ context.Context, names map[string]string) (Sandbox, error) {
	if f.failOpen {
		return nil, fmt.Errorf("no namespaces here")
	}
	f.opened = append(f.opened, names["NS"])
	return &fakeSandbox{f: f, ns: names["NS"]}, nil
}

type fakeSandbox struct {
	f  *fakeSandboxer
	ns string
}

func (s *fakeSandbox) Wrap(cmd string) []string { return []string{"/bin/sh", "-c", cmd} }
func (s *fakeSandbox) Close(context.Context) error {
	s.f.closed = append(s.f.closed, s.ns)
	return nil
}

// e2eCases uses only echo, true and false.
const e2eCases = `[
{"id": "0001", "name": "pass", "plugins": {"requires": "nsPlugin"},
 "setup": ["true"], "cmdUnderTest": "true", "expExitCode": "0",
 "verifyCmd": "echo qdisc cake 1: root refcnt 2", "matchPattern": "cake 1: root refcnt [0-9]+", "matchCount": "1",
 "teardown": ["true"]},
{"id": "0002", "name": "wrong exit code", "plugins": {"requires": "nsPlugin"},
 "setup": [], "cmdUnderTest": "echo Error: nope >&2; false", "expExitCode": "0",
 "verifyCmd": "echo never", "matchPattern": "never", "matchCount": "1", "teardown": []},
{"id": "0003", "name": "expected failure", "plugins": {"requires": "nsPlugin"},
 "cmdUnderTest": "false", "expExitCode": "1",
 "verifyCmd": "echo hello; echo hello", "matchPattern": "hello", "matchCount": "2"},
{"id": "0004", "name": "count mismatch", "plugins": {"requires": "nsPlugin"},
 "cmdUnderTest": "true", "expExitCode": 0,
 "verifyCmd": "echo a b a", "matchPattern": "a", "matchCount": "1"},
{"id": "0005", "name": "json ok", "plugins": {"requires": "nsPlugin"},
 "cmdUnderTest": "true", "expExitCode": "0",
 "verifyCmd": "echo '[{\"kind\":\"cake\",\"packets\":2,\"qlen\":0},{\"kind\":\"x\"}]'",
 "matchJSON": [{"kind": "cake", "packets": 2}], "matchPattern": "ignored when matchJSON is there", "matchCount": "7"},
{"id": "0006", "name": "json mismatch", "plugins": {"requires": "nsPlugin"},
 "cmdUnderTest": "true", "expExitCode": "0",
 "verifyCmd": "echo '{\"qlen\":1}'", "matchJSON": {"qlen": 0}},
{"id": "0007", "name": "designated skip", "skip": "yes", "plugins": {"requires": "nsPlugin"},
 "cmdUnderTest": "false", "expExitCode": "0"},
{"id": "0008", "name": "probe fails", "dependsOn": "false", "plugins": {"requires": "nsPlugin"},
 "cmdUnderTest": "true", "expExitCode": "0", "teardown": ["false"]},
{"id": "0009", "name": "setup fails", "plugins": {"requires": "nsPlugin"},
 "setup": ["true", "echo setup broke >&2; false", "echo not reached"], "cmdUnderTest": "true", "expExitCode": "0",
 "verifyCmd": "echo x", "matchPattern": "x", "matchCount": "1", "teardown": ["echo cleaned"]},
{"id": "000a", "name": "listed exit codes", "plugins": {"requires": "nsPlugin"},
 "setup": [["false", 1, 2], ["true", 0]], "cmdUnderTest": "true", "expExitCode": "0",
 "verifyCmd": "true", "matchPattern": "x", "matchCount": "0", "teardown": [["false", 0, 1]]},
{"id": "000b", "name": "teardown fails", "plugins": {"requires": "nsPlugin"},
 "cmdUnderTest": "true", "expExitCode": "0",
 "verifyCmd": "echo x", "matchPattern": "x", "matchCount": "1", "teardown": ["false", "echo still run"]},
{"id": "000c", "name": "no verify output", "plugins": {"requires": "nsPlugin"},
 "cmdUnderTest": "true", "expExitCode": "0",
 "verifyCmd": "true", "matchPattern": "x", "matchCount": "1"},
{"id": "000d", "name": "stderr of a failing verify", "plugins": {"requires": "nsPlugin"},
 "cmdUnderTest": "true", "expExitCode": "0",
 "verifyCmd": "echo out; echo err >&2; false", "matchPattern": "^err$", "matchCount": "1"},
{"id": "000e", "name": "stdout of a passing verify", "plugins": {"requires": "nsPlugin"},
 "cmdUnderTest": "true", "expExitCode": "0",
 "verifyCmd": "echo out; echo err >&2", "matchPattern": "err", "matchCount": "0"},
{"id": "000f", "name": "substitution", "plugins": {"requires": "nsPlugin"},
 "cmdUnderTest": "true", "expExitCode": "0",
 "verifyCmd": "echo  $TESTID   $DEV0 $DEV1 $DUMMY $IFB $NS $ETH ${TIMEOUT} $$ $NOPE",
 "matchPattern": "^000f v0p0id000f v0p1id000f dummy1id000f ifbtdc0id000f tcut-7 eth0 24 \\$$", "matchCount": "1"},
{"id": "0010", "name": "other plugin", "plugins": {"requires": "scapyPlugin"},
 "cmdUnderTest": "true", "expExitCode": "0"},
{"id": "0011", "name": "host test keeps whitespace",
 "cmdUnderTest": "true", "expExitCode": "0",
 "verifyCmd": "echo 'a  b'", "matchPattern": "a  b", "matchCount": "1"},
{"id": "0012", "name": "bad pattern", "plugins": {"requires": "nsPlugin"},
 "cmdUnderTest": "true", "expExitCode": "0",
 "verifyCmd": "echo x", "matchPattern": "x(?=y)", "matchCount": "1"}
]`

func newTestRunner(out *bytes.Buffer) (*Runner, *fakeSandboxer, *fakeSandboxer) {
	ns, host := &fakeSandboxer{}, &fakeSandboxer{}
	return &Runner{
		Names:   DefaultNames(),
		Netns:   ns,
		Host:    host,
		Timeout: 10 * time.Second,
		Out:     out,
		Random:  func() uint32 { return 7 },
	}, ns, host
}

func TestRunEndToEnd(t *testing.T) {
	cases, err := Parse("e2e.json", []byte(e2eCases))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r, ns, host := newTestRunner(&out)
	sum := r.Run(context.Background(), cases)
	report := out.String()
	t.Log("\n" + report)

	wantLines := []string{
		"1..18",
		"ok 1 0001 - pass",
		"not ok 2 0002 - wrong exit code",
		"  # command exited with 1, expected 0",
		"  #   Error: nope",
		"ok 3 0003 - expected failure",
		"not ok 4 0004 - count mismatch",
		"  # pattern matched 2 times, expected 1: a",
		"ok 5 0005 - json ok",
		"not ok 6 0006 - json mismatch",
		"  # matchJSON: qlen: value doesn't match: expected 0, output has 1",
		"ok 7 0007 - designated skip # skip test case designated as skipped",
		"ok 8 0008 - probe fails # skip probe command exited 1: false",
		"not ok 9 0009 - setup fails",
		"  # setup command exited 1, expected 0: echo setup broke >&2; false",
		"  #   setup broke",
		"ok 10 000a - listed exit codes",
		"not ok 11 000b - teardown fails",
		"  # teardown command exited 1, expected 0: false",
		"not ok 12 000c - no verify output",
		"  # no output generated by verify command",
		"ok 13 000d - stderr of a failing verify",
		"ok 14 000e - stdout of a passing verify",
		"ok 15 000f - substitution",
		"ok 16 0010 - other plugin # skip requires plugin scapyPlugin, which this runner does not implement",
		"ok 17 0011 - host test keeps whitespace",
		"not ok 18 0012 - bad pattern",
		"8 passed, 7 failed, 3 skipped",
	}
	lines := strings.Split(report, "\n")
	have := map[string]bool{}
	for _, l := range lines {
		have[l] = true
	}
	for _, w := range wantLines {
		if !have[w] {
			t.Errorf("report lacks line %q", w)
		}
	}
	if last := lines[len(lines)-2]; last != "8 passed, 7 failed, 3 skipped" || lines[len(lines)-1] != "" {
		t.Errorf("last line = %q", last)
	}
	if sum.Passed != 8 || sum.Failed != 7 || sum.Skipped != 3 {
		t.Errorf("summary %+v", sum)
	}
	// Every nsPlugin test that got past the pre-checks had a sandbox, and
	// each was closed: 14 (18 less designated skip, other plugin, host
	// test, bad pattern).
	if len(ns.opened) != 14 || len(ns.closed) != 14 {
		t.Errorf("netns sandboxes opened %d, closed %d; want 14 and 14", len(ns.opened), len(ns.closed))
	}
	if len(host.opened) != 1 || len(host.closed) != 1 {
		t.Errorf("host sandboxes opened %d, closed %d; want 1 and 1", len(host.opened), len(host.closed))
	}
}

// TestRunCaseSteps checks which commands ran for the cases whose flow
// matters: setup failure runs teardown but not the test, a failed probe
// runs nothing else, a teardown failure still runs later teardown
// commands.
func TestRunCaseSteps(t *testing.T) {
	cases, err := Parse("e2e.json", []byte(e2eCases))
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*Case{}
	for i := range cases {
		byID[cases[i].ID] = &cases[i]
	}
	var out bytes.Buffer
	r, _, _ := newTestRunner(&out)
	for _, tt := range []struct {
		id    string
		steps string
	}{
		{"0009", "setup:true setup:echo setup broke >&2; false teardown:echo cleaned"},
		{"0008", "dependsOn:false"},
		{"000b", "cmdUnderTest:true verify:echo x teardown:false teardown:echo still run"},
		{"0002", "cmdUnderTest:echo Error: nope >&2; false"},
		{"000f", "cmdUnderTest:true verify:echo 000f v0p0id000f v0p1id000f dummy1id000f ifbtdc0id000f tcut-7 eth0 24 $ $NOPE"},
		{"0011", "cmdUnderTest:true verify:echo 'a  b'"},
	} {
		res := r.RunCase(context.Background(), byID[tt.id])
		var got []string
		for _, s := range res.Log {
			got = append(got, s.Stage+":"+s.Cmd)
		}
		if strings.Join(got, " ") != tt.steps {
			t.Errorf("%s ran %q, want %q", tt.id, strings.Join(got, " "), tt.steps)
		}
	}
}

func TestRunNamespaceFailure(t *testing.T) {
	cases, err := Parse("e2e.json", []byte(e2eCases))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r, ns, _ := newTestRunner(&out)
	ns.failOpen = true
	res := r.RunCase(context.Background(), &cases[0])
	if res.Verdict != Fail || len(res.Failures) != 1 || !strings.Contains(res.Failures[0].Reason, "no namespaces here") || len(res.Log) != 0 {
		t.Errorf("result %+v", res)
	}
}

func TestVerboseReport(t *testing.T) {
	cases, err := Parse("e2e.json", []byte(e2eCases))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r, _, _ := newTestRunner(&out)
	r.Verbose = true
	r.Run(context.Background(), cases[8:9]) // setup fails
	for _, want := range []string{
		"  # commands:",
		"  #   [setup] exit 1 ",
		"  #       stderr| setup broke",
		"  #   [teardown] exit 0 ",
		"  #       stdout| cleaned",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("verbose report lacks %q:\n%s", want, out.String())
		}
	}
}

// TestUndecidedRunsAgain: a case whose model comparison was undecidable
// runs again, up to twice more, and passes when a run decides; undecidable
// on every run, or disagreeing, it fails without more runs.
func TestUndecidedRunsAgain(t *testing.T) {
	cases, err := Parse("e2e.json", []byte(e2eCases))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		results []string // each run's failure, "" for a pass
		runs    int
		passed  int
	}{
		{"decided on the second run", []string{undecidableMargin + " 4 µs < 200 µs", ""}, 2, 1},
		{"undecidable on every run", []string{undecidableMargin + " 4 µs < 200 µs", undecidableMargin + " 9 µs < 200 µs", undecidableMargin + " 1 µs < 200 µs", ""}, 3, 0},
		{"stalled, then decided", []string{undecidableStall + ": the kernel's tins[*].peak_delay_us is 120000 µs above the model's", ""}, 2, 1},
		{"a disagreement", []string{"model and kernel disagree:\ndrops 1 != 2", ""}, 1, 0},
	} {
		var out bytes.Buffer
		r, _, _ := newTestRunner(&out)
		runs := 0
		r.Stages = []Stage{StageFunc{"modelCompare", func(tr *TestRun) {
			if reason := tt.results[runs]; reason != "" {
				tr.Fail(reason, "")
			}
			runs++
		}}}
		sum := r.Run(context.Background(), cases[:1])
		if runs != tt.runs || sum.Passed != tt.passed || sum.Failed != 1-tt.passed {
			t.Errorf("%s: %d runs, %+v; want %d runs, %d passed\n%s", tt.name, runs, sum, tt.runs, tt.passed, out.String())
		}
	}
}
