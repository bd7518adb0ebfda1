// SPDX-License-Identifier: Apache-2.0

package tdc

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// DefaultNames returns the substitution values of the kernel's
// tdc_config.py before any per-test suffix. The runner derives each test's
// NS, DEV0, DEV1, DUMMY and IFB from these and adds TESTID.
func DefaultNames() map[string]string {
	return map[string]string{
		"TC":         "/sbin/tc",
		"IP":         "/sbin/ip",
		"DEV0":       "v0p0",
		"DEV1":       "v0p1",
		"DEV2":       "",
		"DUMMY":      "dummy1",
		"IFB":        "ifbtdc0",
		"ETHTOOL":    "/usr/sbin/ethtool",
		"ETH":        "eth0",
		"BATCH_FILE": "./batch.txt",
		"BATCH_DIR":  "tmp",
		"TIMEOUT":    "24",
		"NS":         "tcut",
		"EBPFDIR":    "./",
	}
}

// DefaultTimeout is tdc_config.py's TIMEOUT: the limit for one command.
const DefaultTimeout = 24 * time.Second

// Verdict is a test's outcome. A skip is never a pass.
type Verdict int

// The verdicts.
const (
	Pass Verdict = iota
	Fail
	Skip
)

// CaseResult is the outcome of one test case.
type CaseResult struct {
	Case    *Case
	Verdict Verdict
	// Reason says why the test was skipped.
	Reason string
	// Failures lists why the test failed, first failure first (a teardown
	// failure can follow a verify failure).
	Failures []Failure
	// Log lists every command run for the test, for -v.
	Log     []Step
	Elapsed time.Duration
}

// Failure is one reason a test failed, with the command output it refers
// to, if any.
type Failure struct {
	Reason, Output string
}

// Step is one command run for a test.
type Step struct {
	Stage  string // "dependsOn", "setup", "cmdUnderTest", "verify", "teardown"
	Cmd    string // after substitution, as the shell received it
	Result Result
}

// Summary counts the verdicts of a run.
type Summary struct {
	Passed, Failed, Skipped int
	Elapsed                 time.Duration
}

// A Stage is one step of a test's pipeline. Stages run in order until one
// ends the test (TestRun.Fail or TestRun.Skip); the Cleanup stages run
// afterwards in any case. A later feature (for example sending traffic
// after cmdUnderTest, or checking statistics) is a new Stage inserted into
// Runner.Stages, reading its own keys from Case.Extra.
type Stage interface {
	Name() string
	Run(t *TestRun)
}

// StageFunc adapts a function to a Stage.
type StageFunc struct {
	StageName string
	Fn        func(t *TestRun)
}

// Name returns the stage's name.
func (s StageFunc) Name() string { return s.StageName }

// Run runs the function.
func (s StageFunc) Run(t *TestRun) { s.Fn(t) }

// DefaultStages is tdc.py's pipeline after the dependsOn probe: setup, the
// command under test and verification.
func DefaultStages() []Stage {
	return []Stage{
		StageFunc{"setup", runSetup},
		StageFunc{"cmdUnderTest", runCmdUnderTest},
		StageFunc{"verify", runVerify},
	}
}

// DefaultCleanup is tdc.py's teardown.
func DefaultCleanup() []Stage {
	return []Stage{StageFunc{"teardown", runTeardown}}
}

// Runner runs test cases and writes a TAP-like report.
type Runner struct {
	// Names are the base substitution values (see DefaultNames).
	Names map[string]string
	// Netns provides the sandbox of tests that require nsPlugin; Host that
	// of the others.
	Netns, Host Sandboxer
	// Dir is the working directory of every command (tdc.py runs from its
	// own folder, and tests refer to ./tdc_gso.py and the like).
	Dir string
	// Timeout limits each command (zero: none).
	Timeout time.Duration
	// Out receives the report.
	Out io.Writer
	// Verbose adds every command of a failed test, with its output.
	Verbose bool
	// Stages and Cleanup default to DefaultStages and DefaultCleanup.
	Stages, Cleanup []Stage
	// Random makes the namespace suffix; defaults to math/rand/v2.
	Random func() uint32
}

// TestRun is the state of one test case while its stages run.
type TestRun struct {
	Ctx   context.Context
	Case  *Case
	Names map[string]string
	// CmdResult is cmdUnderTest's result once that stage ran; later stages
	// may use it.
	CmdResult *Result
	// Values lets stages hand data to later stages.
	Values map[string]any

	r      *Runner
	sb     Sandbox
	res    *CaseResult
	ended  bool
	nsMode bool
}

// Exec substitutes and runs one command in the test's sandbox. It returns
// false without running anything when the command is blank, as tdc.py
// skips blank commands.
func (t *TestRun) Exec(stage, cmd string) (Result, bool) {
	if strings.TrimSpace(cmd) == "" {
		return Result{}, false
	}
	cmd = Substitute(cmd, t.Names)
	if t.nsMode {
		cmd = Normalize(cmd)
	}
	r := runArgv(t.Ctx, t.r.Dir, t.sb.Wrap(cmd), "", t.r.Timeout)
	if r.TimedOut {
		// Name the command as the test wrote it, not the wrapped argv.
		r.Argv = []string{cmd}
	}
	t.res.Log = append(t.res.Log, Step{Stage: stage, Cmd: cmd, Result: r})
	return r, true
}

// Fail records a failure and ends the test. A stage that runs after the
// test ended (cleanup) may add further failures; a passed test whose
// cleanup fails becomes a failed one.
func (t *TestRun) Fail(reason, output string) {
	t.ended = true
	t.res.Verdict = Fail
	t.res.Failures = append(t.res.Failures, Failure{reason, output})
}

// Skip ends the test as skipped.
func (t *TestRun) Skip(reason string) {
	if t.ended {
		return
	}
	t.ended = true
	t.res.Verdict, t.res.Reason = Skip, reason
}

// Ended reports whether a stage failed or skipped the test.
func (t *TestRun) Ended() bool { return t.ended }

// Run runs cases in order, reporting each as it finishes, then the summary
// line "N passed, M failed, K skipped". When ctx is cancelled it stops
// after the current test (whose cleanup still runs), and the summary counts
// only the tests that ran.
func (r *Runner) Run(ctx context.Context, cases []Case) Summary {
	start := time.Now()
	var sum Summary
	fmt.Fprintf(r.Out, "1..%d\n", len(cases))
	for i := range cases {
		if ctx.Err() != nil {
			fmt.Fprintf(r.Out, "# interrupted after %d of %d tests\n", i, len(cases))
			break
		}
		res := r.RunCase(ctx, &cases[i])
		for again := 1; again <= undecidedRuns && undecided(res) && ctx.Err() == nil; again++ {
			fmt.Fprintf(r.Out, "# %s: %s; run %d of %d\n", cases[i].ID, res.Failures[0].Reason, again+1, undecidedRuns+1)
			res = r.RunCase(ctx, &cases[i])
		}
		switch res.Verdict {
		case Pass:
			sum.Passed++
		case Fail:
			sum.Failed++
		case Skip:
			sum.Skipped++
		}
		r.report(i+1, res)
	}
	sum.Elapsed = time.Since(start)
	fmt.Fprintf(r.Out, "# %d tests in %.1fs\n", sum.Passed+sum.Failed+sum.Skipped, sum.Elapsed.Seconds())
	fmt.Fprintf(r.Out, "%d passed, %d failed, %d skipped\n", sum.Passed, sum.Failed, sum.Skipped)
	return sum
}

// undecidedRuns is how many times more Run runs a case whose model
// comparison was undecidable.
const undecidedRuns = 2

// undecided reports whether a case failed only because its run left the
// model comparison undecidable: the traffic's own timing put one of the
// model's decisions closer to its threshold than the clock can tell
// apart, or the qdisc's own record of its packets' waits shows a dequeue
// stalled for longer than that distance. That says nothing of the model,
// so the case runs again (a new send has new timing); a disagreement
// fails at once, and a case undecidable on every run fails.
func undecided(res *CaseResult) bool {
	if res.Verdict != Fail || len(res.Failures) != 1 {
		return false
	}
	reason := res.Failures[0].Reason
	return strings.HasPrefix(reason, undecidableMargin) || strings.HasPrefix(reason, undecidableStall)
}

// RunCase runs one test case through the pipeline.
func (r *Runner) RunCase(ctx context.Context, c *Case) *CaseResult {
	start := time.Now()
	res := &CaseResult{Case: c}
	defer func() { res.Elapsed = time.Since(start) }()

	// Decisions tdc.py makes before touching the system.
	if c.Skip == "yes" {
		res.Verdict, res.Reason = Skip, "test case designated as skipped"
		return res
	}
	for _, p := range c.Plugins {
		if p != "nsPlugin" {
			res.Verdict, res.Reason = Skip, fmt.Sprintf("requires plugin %s, which this runner does not implement", p)
			return res
		}
	}
	if contains(c.Category, "flower") && r.Names["DEV2"] == "" {
		res.Verdict, res.Reason = Skip, "flower tests need a physical NIC as $DEV2, which this runner does not provide"
		return res
	}
	if err := Validate(c); err != nil {
		res.Verdict, res.Failures = Fail, []Failure{{Reason: "invalid test case: " + err.Error()}}
		return res
	}

	t := &TestRun{Ctx: ctx, Case: c, Names: r.caseNames(c), Values: map[string]any{}, r: r, res: res}
	sbx := r.Host
	if c.Requires("nsPlugin") {
		sbx, t.nsMode = r.Netns, true
	}
	sb, err := sbx.Open(ctx, t.Names)
	if err != nil {
		res.Verdict, res.Failures = Fail, []Failure{{Reason: "cannot prepare the test's namespace: " + err.Error()}}
		return res
	}
	t.sb = sb

	// A failed probe skips the test before setup, so there is nothing to
	// tear down.
	if runDependsOn(t); t.ended {
		if err := sb.Close(context.WithoutCancel(ctx)); err != nil {
			t.Fail("cannot remove the test's namespace: "+err.Error(), "")
		}
		return res
	}

	stages := r.Stages
	if stages == nil {
		stages = DefaultStages()
	}
	cleanup := r.Cleanup
	if cleanup == nil {
		cleanup = DefaultCleanup()
	}
	for _, s := range stages {
		if t.ended || ctx.Err() != nil {
			break
		}
		s.Run(t)
	}
	if !t.ended && ctx.Err() != nil {
		t.Fail("interrupted", "")
	}
	if !t.ended {
		t.ended = true // passed: every stage ran without ending the test
	}
	// Cleanup runs even when setup failed or the run was interrupted: it
	// removes state that outlives the namespace (netdevsim devices, say).
	cctx := context.WithoutCancel(ctx)
	t.Ctx = cctx
	for _, s := range cleanup {
		s.Run(t)
	}
	if err := sb.Close(cctx); err != nil {
		t.Fail("cannot remove the test's namespace: "+err.Error(), "")
	}
	return res
}

// caseNames returns the substitution values for one test, derived the way
// tdc.py's run_one_test does: NS gets "-<random>", the devices "id<ID>".
func (r *Runner) caseNames(c *Case) map[string]string {
	names := make(map[string]string, len(r.Names)+1)
	for k, v := range r.Names {
		names[k] = v
	}
	rnd := r.Random
	if rnd == nil {
		rnd = rand.Uint32
	}
	names["TESTID"] = c.ID
	names["NS"] = fmt.Sprintf("%s-%d", names["NS"], rnd())
	for _, k := range []string{"DEV0", "DEV1", "DUMMY", "IFB"} {
		names[k] = names[k] + "id" + c.ID
	}
	return names
}

// Validate reports test-case errors that tdc.py would only hit (as a Python
// exception) half-way through the test, so that such a case fails before
// anything runs.
func Validate(c *Case) error {
	if c.ID == "" {
		return fmt.Errorf("no id")
	}
	if !c.ExpExitCode.Set {
		return fmt.Errorf("no expExitCode")
	}
	if c.ExpExitCode.Err != nil {
		return fmt.Errorf("expExitCode: %v", c.ExpExitCode.Err)
	}
	if c.MatchCount.Err != nil {
		return fmt.Errorf("matchCount: %v", c.MatchCount.Err)
	}
	if c.MatchJSON == nil && c.MatchPattern != nil {
		if !c.MatchCount.Set {
			return fmt.Errorf("matchPattern without matchCount")
		}
		if _, err := CompilePattern(*c.MatchPattern); err != nil {
			return err
		}
	}
	if c.MatchJSON != nil {
		if _, err := decodeOrdered(c.MatchJSON); err != nil {
			return fmt.Errorf("matchJSON: %v", err)
		}
	}
	return nil
}

func runDependsOn(t *TestRun) {
	// tdc.py runs the probe before creating the namespace yet wraps it in
	// "ip netns exec" all the same, so with nsPlugin the probe can only
	// fail and the test is always skipped. Run inside the fresh namespace
	// instead, which is what the probe is for.
	r, ran := t.Exec("dependsOn", t.Case.DependsOn)
	if ran && r.Code != 0 {
		t.Skip(fmt.Sprintf("probe command exited %d: %s", r.Code, Substitute(t.Case.DependsOn, t.Names)))
	}
}

// lastCmd is the command line of the test's most recent step.
func (t *TestRun) lastCmd() string { return t.res.Log[len(t.res.Log)-1].Cmd }

func runSetup(t *TestRun) {
	for _, c := range t.Case.Setup {
		r, ran := t.Exec("setup", c.Cmd)
		if ran && !c.Accepts(r.Code) {
			// tdc.py aborts the whole run here and reports every later
			// test as skipped. Each test has its own namespace, so only
			// this one fails; teardown still runs to undo what setup did
			// outside the namespace (netdevsim devices).
			t.Fail(fmt.Sprintf("setup command exited %d, expected %s: %s", r.Code, codes(c.Codes), t.lastCmd()), r.Output())
			return
		}
	}
}

func runCmdUnderTest(t *TestRun) {
	c := t.Case
	r, ran := t.Exec("cmdUnderTest", c.CmdUnderTest)
	if !ran {
		t.Fail("cmdUnderTest is empty", "")
		return
	}
	t.CmdResult = &r
	if r.Code != c.ExpExitCode.Val {
		t.Fail(fmt.Sprintf("command exited with %d, expected %d", r.Code, c.ExpExitCode.Val), r.Output())
	}
}

func runVerify(t *TestRun) {
	c := t.Case
	// tdc.py ignores the verify command's exit status and matches its
	// output (stderr if it failed and wrote there).
	r, ran := t.Exec("verify", c.VerifyCmd)
	out := ""
	if ran {
		out = r.Output()
	}
	if out == "" {
		if c.MatchCount.Set && c.MatchCount.Val == 0 {
			return
		}
		t.Fail("no output generated by verify command", "")
		return
	}
	switch {
	case c.MatchJSON != nil:
		if err := MatchJSON(out, c.MatchJSON); err != nil {
			t.Fail("matchJSON: "+err.Error(), out)
		}
	case c.MatchPattern != nil:
		re, err := CompilePattern(*c.MatchPattern)
		if err != nil { // Validate already checked; keep the failure clear anyway
			t.Fail(err.Error(), out)
			return
		}
		if n := CountMatches(re, out); n != c.MatchCount.Val {
			t.Fail(fmt.Sprintf("pattern matched %d times, expected %d: %s", n, c.MatchCount.Val, *c.MatchPattern), out)
		}
	default:
		t.Fail("must specify a match option: matchJSON or matchPattern", out)
	}
}

func runTeardown(t *TestRun) {
	// tdc.py stops at the first failing teardown command (and aborts the
	// run); the remaining ones are still worth running to clean up.
	for _, c := range t.Case.Teardown {
		r, ran := t.Exec("teardown", c.Cmd)
		if ran && !c.Accepts(r.Code) {
			t.Fail(fmt.Sprintf("teardown command exited %d, expected %s: %s", r.Code, codes(c.Codes), t.lastCmd()), r.Output())
		}
	}
}

func codes(cs []int) string {
	if len(cs) == 1 {
		return strconv.Itoa(cs[0])
	}
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = strconv.Itoa(c)
	}
	return "one of " + strings.Join(s, ", ")
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// report writes one TAP-like result line and, for a failure, the reason and
// output indented under it.
func (r *Runner) report(n int, res *CaseResult) {
	c := res.Case
	switch res.Verdict {
	case Pass:
		fmt.Fprintf(r.Out, "ok %d %s - %s\n", n, c.ID, c.Name)
	case Skip:
		fmt.Fprintf(r.Out, "ok %d %s - %s # skip %s\n", n, c.ID, c.Name, oneLine(res.Reason))
	case Fail:
		fmt.Fprintf(r.Out, "not ok %d %s - %s\n", n, c.ID, c.Name)
		for _, f := range res.Failures {
			indent(r.Out, "  # ", f.Reason)
			if f.Output != "" {
				fmt.Fprintln(r.Out, "  # output:")
				indent(r.Out, "  #   ", f.Output)
			}
		}
		if r.Verbose && len(res.Log) > 0 {
			fmt.Fprintln(r.Out, "  # commands:")
			for _, s := range res.Log {
				fmt.Fprintf(r.Out, "  #   [%s] exit %d (%.2fs): %s\n", s.Stage, s.Result.Code, s.Result.Elapsed.Seconds(), s.Cmd)
				if s.Result.Stdout != "" {
					indent(r.Out, "  #       stdout| ", s.Result.Stdout)
				}
				if s.Result.Stderr != "" {
					indent(r.Out, "  #       stderr| ", s.Result.Stderr)
				}
			}
		}
	}
}

func indent(w io.Writer, prefix, text string) {
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		fmt.Fprintf(w, "%s%s\n", prefix, l)
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
