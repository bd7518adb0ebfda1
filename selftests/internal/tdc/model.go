// SPDX-License-Identifier: Apache-2.0

package tdc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/traffic"
	_ "github.com/gotc/gotc/traffic/pcapread" // plans' pcap flows
)

// Model comparison: a case with a "traffic" block (a traffic plan, see
// package traffic) and a "modelCompare" block sends the plan through the
// qdisc under test after cmdUnderTest and verify, dumps the kernel's
// statistics ($TC -s -j qdisc show dev DEV), asks gotc's reference model
// for its prediction on the recorded trace (GOTC -s -j model dev DEV trace
// FILE: the live qdisc's kind, options and handle, read through netlink)
// and compares the two dumps field by field. See selftests/tdc/README.md.

// ModelCompare is a case's "modelCompare" block.
type ModelCompare struct {
	// Exact lists the dump fields (paths, see resolvePath) that must be
	// equal in the kernel's dump and the prediction.
	Exact []string `json:"exact"`
	// Bounded lists fields the kernel must report within the model's
	// bounds: the range of the predictions with each send enqueued at the
	// start and at the end of its syscall, widened for fields that are
	// times (delays, in µs) by the kernel's latency bound.
	Bounded []string `json:"bounded"`
	// Truesize, if set, calibrates every skb's truesize to this constant
	// (gotc model's "truesize"); by default the model's calibration of the
	// test VM's kernel applies.
	Truesize uint32 `json:"truesize"`
	// MinMarginUS is the smallest timing margin at which the prediction is
	// trusted (default and minimum 200 µs).
	MinMarginUS int64 `json:"minMarginUs"`
	// DelaySlackUS widens the bounds of delay fields beyond the timing
	// uncertainty (default: the uncertainty). A delay the kernel measures
	// includes the platform's latency between enqueue and dequeue, which in
	// an emulated VM (a descheduled vCPU) can exceed the kernel's own
	// latency bound without any decision of the qdisc depending on it.
	DelaySlackUS int64 `json:"delaySlackUs"`
	// Dev is the device whose root qdisc is compared (default: the plan's
	// dev). Substitution values ($DEV1...) apply.
	Dev string `json:"dev"`
	// Parent, if set, compares the qdisc attached to this class of Dev
	// (such as "1:1", an HTB class) rather than the root qdisc.
	Parent string `json:"parent"`
	// Rate and Burst tell the model what drains a qdisc below a shaper:
	// the class's rate (a tc rate, "1mbit") and burst (a tc size, "2k"),
	// gotc model's "rate" and "burst".
	Rate  string `json:"rate"`
	Burst string `json:"burst"`
	// TrafficTimeoutMS bounds the capture after the last send (default
	// 1000): a run with drops waits this long for packets that never come.
	TrafficTimeoutMS int `json:"trafficTimeoutMs"`
	// StallDelay, if set, is a delay field (µs) of the dump in which the
	// qdisc records how long packets waited in it (cake's
	// "tins[*].peak_delay_us"). A run whose kernel recorded a wait longer
	// than the model's by more than the timing margin had its dequeue
	// stalled (an emulated VM's vCPU descheduled): its decisions may
	// differ from the model's for that alone, so a disagreement of such
	// a run is undecidable, and the case runs again.
	StallDelay string `json:"stallDelay"`
}

// DefaultMinMarginUS is the timing uncertainty of a kernel run (timer and
// softirq latency, clock reads) below which the models' timing-dependent
// predictions are not trusted, as both models document.
const DefaultMinMarginUS = 200

// ModelTools locates the programs the model stage runs.
type ModelTools struct {
	// Traffic is gotc-traffic; Gotc the gotc that runs the models.
	Traffic, Gotc string
}

// modelCase reads a case's traffic and modelCompare blocks; ok is false
// when the case has neither.
func modelCase(c *Case) (plan json.RawMessage, mc *ModelCompare, ok bool, err error) {
	plan, hasPlan := c.Extra["traffic"]
	raw, hasMC := c.Extra["modelCompare"]
	if !hasPlan && !hasMC {
		return nil, nil, false, nil
	}
	if !hasPlan || !hasMC {
		return nil, nil, true, fmt.Errorf(`"traffic" and "modelCompare" go together`)
	}
	mc = &ModelCompare{}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(mc); err != nil {
		return nil, nil, true, fmt.Errorf("modelCompare: %v", err)
	}
	if len(mc.Exact)+len(mc.Bounded) == 0 {
		return nil, nil, true, fmt.Errorf("modelCompare compares no field")
	}
	for _, p := range append(slices.Clone(mc.Exact), mc.Bounded...) {
		if _, err := parsePath(p); err != nil {
			return nil, nil, true, fmt.Errorf("modelCompare: %v", err)
		}
	}
	if mc.MinMarginUS == 0 {
		mc.MinMarginUS = DefaultMinMarginUS
	}
	if mc.MinMarginUS < DefaultMinMarginUS {
		return nil, nil, true, fmt.Errorf("modelCompare: minMarginUs %d is below the kernel's timing uncertainty (%d µs)", mc.MinMarginUS, DefaultMinMarginUS)
	}
	if mc.TrafficTimeoutMS == 0 {
		mc.TrafficTimeoutMS = 1000
	}
	if mc.Parent != "" {
		h, err := tcfmt.ParseClassID(mc.Parent)
		if err != nil || h == tcfmt.HandleRoot {
			return nil, nil, true, fmt.Errorf("modelCompare: parent %q is not a class ID", mc.Parent)
		}
		mc.Parent = tcfmt.FormatClassID(h) // as the dumps print it
	}
	if mc.Rate != "" {
		if r, err := tcfmt.ParseRate(mc.Rate); err != nil || r == 0 {
			return nil, nil, true, fmt.Errorf("modelCompare: rate %q is not a rate", mc.Rate)
		}
	}
	if mc.Burst != "" {
		if _, err := tcfmt.ParseSize(mc.Burst); err != nil || mc.Rate == "" {
			return nil, nil, true, fmt.Errorf("modelCompare: burst %q needs a rate and a size", mc.Burst)
		}
	}
	return plan, mc, true, nil
}

// ModelStage returns the stage that sends a case's traffic and compares
// the kernel's statistics with the model's; cases without a traffic block
// pass through it untouched.
func ModelStage(tools ModelTools) Stage {
	return StageFunc{"modelCompare", func(t *TestRun) { runModelCompare(t, tools) }}
}

// undecidableMargin begins the failure of a run whose timing margin is
// below the clock's uncertainty, undecidableStall that of a run whose
// qdisc was stalled longer than the margin (Run runs such a case again).
const (
	undecidableMargin = "undecidable: margin"
	undecidableStall  = "undecidable: stalled"
)

func runModelCompare(t *TestRun, tools ModelTools) {
	rawPlan, mc, ok, err := modelCase(t.Case)
	if !ok {
		return
	}
	if err != nil {
		t.Fail("invalid test case: "+err.Error(), "")
		return
	}
	plan, err := traffic.ParsePlan([]byte(Substitute(string(rawPlan), t.Names)))
	if err != nil {
		t.Fail(err.Error(), "")
		return
	}
	// A replayed capture's path is the case file's (relative to the
	// working directory); gotc-traffic reads the plan from elsewhere.
	for i := range plan.Flows {
		if f := &plan.Flows[i]; f.Pcap != "" {
			f.Pcap, _ = filepath.Abs(f.Pcap) // ParsePlan has read it
		}
	}
	// The qdisc under test sits on DEV1 in the test's namespace; its veth
	// peer DEV0 is in the initial namespace, where the capture runs.
	if plan.Peer == "" && t.nsMode {
		plan.Peer, plan.PeerNetns = t.Names["DEV0"], "/proc/1/ns/net"
	}
	dev := Substitute(mc.Dev, t.Names)
	if dev == "" {
		dev = plan.Dev
	}
	dir, err := os.MkdirTemp("", "tdc-model-")
	if err != nil {
		t.Fail(err.Error(), "")
		return
	}
	defer os.RemoveAll(dir)
	planPath, tracePath := filepath.Join(dir, "plan.json"), filepath.Join(dir, "trace.jsonl")
	b, _ := json.Marshal(plan)
	if err := os.WriteFile(planPath, b, 0o644); err != nil {
		t.Fail(err.Error(), "")
		return
	}

	r, _ := t.Exec("traffic", fmt.Sprintf("%s run -plan %s -trace %s -timeout %dms",
		shellQuote(tools.Traffic), planPath, tracePath, mc.TrafficTimeoutMS))
	if r.Code != 0 {
		t.Fail(fmt.Sprintf("traffic: %s exited %d", tools.Traffic, r.Code), r.Stdout+r.Stderr)
		return
	}
	r, _ = t.Exec("traffic", fmt.Sprintf("$TC -s -j qdisc show dev %s", shellQuote(dev)))
	if r.Code != 0 {
		t.Fail(fmt.Sprintf("kernel dump exited %d", r.Code), r.Output())
		return
	}
	kernel, err := qdiscJSON(r.Stdout, mc.Parent)
	if err != nil {
		t.Fail("kernel dump: "+err.Error(), r.Stdout)
		return
	}

	// Two predictions: each send enqueued at the start of its syscall, and
	// at its end. The kernel enqueued somewhere in between.
	var preds [2]map[string]any
	margin := int64(math.MaxInt64)
	for i, at := range []string{"start", "end"} {
		cmd := fmt.Sprintf("%s -s -j model dev %s", shellQuote(tools.Gotc), shellQuote(dev))
		if mc.Parent != "" {
			cmd += " parent " + mc.Parent
		}
		cmd += fmt.Sprintf(" trace %s enqueue %s", tracePath, at)
		if mc.Truesize != 0 {
			cmd += fmt.Sprintf(" truesize %d", mc.Truesize)
		}
		if mc.Rate != "" {
			cmd += " rate " + shellQuote(mc.Rate)
		}
		if mc.Burst != "" {
			cmd += " burst " + shellQuote(mc.Burst)
		}
		r, _ := t.Exec("modelCompare", cmd)
		if r.Code != 0 {
			t.Fail(fmt.Sprintf("model exited %d", r.Code), r.Stdout+r.Stderr)
			return
		}
		if preds[i], err = qdiscJSON(r.Stdout, mc.Parent); err != nil {
			t.Fail("model dump: "+err.Error(), r.Stdout)
			return
		}
		m, err := parseMargin(r.Stderr)
		if err != nil {
			t.Fail(err.Error(), r.Stderr)
			return
		}
		margin = min(margin, m)
	}
	// The timing uncertainty is the kernel's latency bound, or the clock's
	// resolution if coarser: on a jiffies clocksource every timestamp the
	// qdisc takes is only good to a tick (4 ms at HZ=250).
	res, cs, err := clockResolution(t, tracePath)
	if err != nil {
		t.Fail(err.Error(), "")
		return
	}
	uncertainty := max(mc.MinMarginUS*1000, res)
	if margin < uncertainty {
		why := ""
		if res > mc.MinMarginUS*1000 {
			why = fmt.Sprintf(" (clocksource %s steps by %d µs)", cs, res/1000)
		}
		t.Fail(fmt.Sprintf("%s %d µs < %d µs%s", undecidableMargin, margin/1000, uncertainty/1000, why), "")
		return
	}
	slack := max(uncertainty, mc.DelaySlackUS*1000)
	report, fails := compareDumps(kernel, preds, mc, float64(slack)/1000)
	report = fmt.Sprintf("timing margin %s, clocksource %s (step %d µs), uncertainty %d µs, delay slack %d µs\n", marginText(margin), cs, res/1000, uncertainty/1000, slack/1000) + report
	t.res.Log = append(t.res.Log, Step{Stage: "modelCompare", Cmd: "compare", Result: Result{Stdout: report}})
	if len(fails) == 0 {
		return
	}
	late, stall := stalled(kernel, preds, mc.StallDelay, margin)
	if stall {
		t.Fail(fmt.Sprintf("%s: the kernel's %s is %d µs above the model's, more than the timing margin %s; it disagreed on %s", undecidableStall, mc.StallDelay, late, marginText(margin), strings.Join(fails, "; ")), report)
		return
	}
	if mc.StallDelay != "" {
		// Not a stall: say by how much, for whoever reads the failure.
		fails = append(fails, fmt.Sprintf("(no stall: the kernel's %s is %d µs from the model's, within the timing margin %s)", mc.StallDelay, late, marginText(margin)))
	}
	t.Fail("model and kernel disagree:\n"+strings.Join(fails, "\n"), report)
}

// stalled reports how far (µs) the largest value of the delay field path
// in the kernel's dump exceeds the largest of both predictions, and
// whether that is more than margin (ns): the qdisc's dequeue ran that
// late. An empty path, or a field missing in a dump, is no stall.
func stalled(kernel map[string]any, preds [2]map[string]any, path string, margin int64) (int64, bool) {
	if path == "" {
		return 0, false
	}
	most := func(doc map[string]any) (int64, bool) {
		p, err := parsePath(path)
		if err != nil {
			return 0, false
		}
		fields, err := resolvePath(doc, p, "")
		if err != nil || len(fields) == 0 {
			return 0, false
		}
		var top int64
		for _, v := range fields {
			n, err := strconv.ParseInt(jsonText(v), 10, 64)
			if err != nil {
				return 0, false
			}
			top = max(top, n)
		}
		return top, true
	}
	k, ok := most(kernel)
	m0, ok0 := most(preds[0])
	m1, ok1 := most(preds[1])
	if !ok || !ok0 || !ok1 {
		return 0, false
	}
	late := k - max(m0, m1)
	return late, late*1000 > margin
}

// marginRE reads gotc model's margins line.
var marginRE = regexp.MustCompile(`(?m)^model margins:.* min (none|(\d+)ns) `)

func parseMargin(stderr string) (int64, error) {
	m := marginRE.FindStringSubmatch(stderr)
	if m == nil {
		return 0, fmt.Errorf("model printed no margins line")
	}
	if m[1] == "none" {
		return math.MaxInt64, nil
	}
	return strconv.ParseInt(m[2], 10, 64)
}

// qdiscJSON picks from a "-j qdisc show" dump the object of the qdisc
// whose parent is parent (as the dump prints it), or of the root qdisc if
// parent is "".
func qdiscJSON(out, parent string) (map[string]any, error) {
	var list []map[string]any
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&list); err != nil {
		return nil, err
	}
	for _, q := range list {
		if (parent == "" && q["root"] == true) || (parent != "" && q["parent"] == parent) {
			return q, nil
		}
	}
	if parent != "" {
		return nil, fmt.Errorf("no qdisc below %s in the dump", parent)
	}
	return nil, fmt.Errorf("no root qdisc in the dump")
}

// pathElem is one step of a field path: a key, then optionally an index
// (-1 for [*]).
type pathElem struct {
	key      string
	index    int
	hasIndex bool
}

var pathElemRE = regexp.MustCompile(`^([A-Za-z0-9_-]+)(?:\[(\*|\d+)\])?$`)

// parsePath reads a field path: keys separated by dots, each optionally
// indexed, such as "packets", "options.diffserv", "tins[*].sent_packets"
// or "tins[2].ecn_mark".
func parsePath(p string) ([]pathElem, error) {
	var out []pathElem
	for _, part := range strings.Split(p, ".") {
		m := pathElemRE.FindStringSubmatch(part)
		if m == nil {
			return nil, fmt.Errorf("bad field path %q", p)
		}
		e := pathElem{key: m[1]}
		if m[2] != "" {
			e.hasIndex = true
			e.index = -1
			if m[2] != "*" {
				e.index, _ = strconv.Atoi(m[2])
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// resolvePath expands a path in a dump into concrete field names and
// values ([*] becomes every index present). A missing field is an error.
func resolvePath(v any, path []pathElem, prefix string) (map[string]any, error) {
	out := map[string]any{}
	if len(path) == 0 {
		out[prefix] = v
		return out, nil
	}
	e := path[0]
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s is not an object", prefix)
	}
	name := strings.TrimPrefix(prefix+"."+e.key, ".")
	child, ok := obj[e.key]
	if !ok {
		return nil, fmt.Errorf("no field %s", name)
	}
	if !e.hasIndex {
		return resolvePath(child, path[1:], name)
	}
	arr, ok := child.([]any)
	if !ok {
		return nil, fmt.Errorf("%s is not an array", name)
	}
	idx := []int{e.index}
	if e.index < 0 {
		idx = nil
		for i := range arr {
			idx = append(idx, i)
		}
	}
	for _, i := range idx {
		if i >= len(arr) {
			return nil, fmt.Errorf("%s has no element %d", name, i)
		}
		sub, err := resolvePath(arr[i], path[1:], fmt.Sprintf("%s[%d]", name, i))
		if err != nil {
			return nil, err
		}
		for k, v := range sub {
			out[k] = v
		}
	}
	return out, nil
}

// timeSlackUS widens the bounds of a field that is a time in µs by the
// timing uncertainty: the model dequeues at the exact instant the kernel
// only reaches later, and reads an exact clock.
func timeSlackUS(field string, uncertaintyUS float64) float64 {
	f := strings.ToLower(field[strings.LastIndexAny(field, ".]")+1:])
	if strings.Contains(f, "delay") {
		return uncertaintyUS
	}
	return 0
}

func marginText(ns int64) string {
	if ns == math.MaxInt64 {
		return "none"
	}
	return fmt.Sprintf("%d µs", ns/1000)
}

// clocksourcePath names the kernel's clocksource.
const clocksourcePath = "/sys/devices/system/clocksource/clocksource0/current_clocksource"

// clockResolution is the step of the kernel's clock while the trace was
// recorded: 0 for a fine clocksource (tsc, hpet...); for a jiffies-based
// one (jiffies, refined-jiffies) the tick: the hrtimer resolution of
// /proc/timer_list if readable, else from the trace. Readings within a tick differ
// by a few ns only, so every gap of 1 ms or more between consecutive send
// times is a whole number of ticks: the tick is their greatest common
// divisor in whole ms (10 ms, HZ=100's, when the trace has no such gap).
func clockResolution(t *TestRun, tracePath string) (int64, string, error) {
	r, _ := t.Exec("modelCompare", "cat "+clocksourcePath)
	cs := strings.TrimSpace(r.Stdout)
	if r.Code != 0 || !strings.Contains(cs, "jiffies") {
		return 0, cs, nil
	}
	// In low-resolution mode (a jiffies clocksource) hrtimers report the
	// tick as their resolution.
	r, _ = t.Exec("modelCompare", "grep -m1 resolution: /proc/timer_list")
	if f := strings.Fields(r.Stdout); r.Code == 0 && len(f) >= 2 {
		if ns, err := strconv.ParseInt(f[1], 10, 64); err == nil && ns > 1 {
			return ns, cs, nil
		}
	}
	recs, err := traffic.ReadTraceFile(tracePath)
	if err != nil {
		return 0, cs, fmt.Errorf("trace: %v", err)
	}
	var g int64
	for i := 1; i < len(recs); i++ {
		if d := (recs[i].T - recs[i-1].T) / 1_000_000; d >= 1 {
			for d != 0 {
				g, d = d, g%d
			}
		}
	}
	if g == 0 {
		g = 10
	}
	return g * 1_000_000, cs, nil
}

// compareDumps compares the kernel's dump with the two predictions. It
// returns a report of every field and the failures.
func compareDumps(kernel map[string]any, preds [2]map[string]any, mc *ModelCompare, uncertaintyUS float64) (string, []string) {
	var report strings.Builder
	var fails []string
	fields := func(doc map[string]any, p string) (map[string]any, error) {
		path, _ := parsePath(p)
		return resolvePath(doc, path, "")
	}
	for _, p := range mc.Exact {
		k, err := fields(kernel, p)
		if err != nil {
			fails = append(fails, "kernel: "+err.Error())
			continue
		}
		m0, err0 := fields(preds[0], p)
		m1, err1 := fields(preds[1], p)
		if err0 != nil || err1 != nil {
			fails = append(fails, fmt.Sprintf("model: %v", errors2(err0, err1)))
			continue
		}
		if len(k) != len(m0) {
			fails = append(fails, fmt.Sprintf("%s: kernel has %d fields, model %d", p, len(k), len(m0)))
			continue
		}
		for _, name := range sortedKeys(k) {
			kv, mv, mv1 := jsonText(k[name]), jsonText(m0[name]), jsonText(m1[name])
			verdict := "ok"
			switch {
			case mv != mv1:
				verdict = "UNDECIDABLE"
				fails = append(fails, fmt.Sprintf("undecidable: %s is %s or %s depending on when in its send syscall each packet was enqueued", name, mv, mv1))
			case kv != mv:
				verdict = "MISMATCH"
				fails = append(fails, fmt.Sprintf("%s: kernel %s, model %s", name, kv, mv))
			}
			fmt.Fprintf(&report, "exact   %-32s kernel %-12s model %-12s %s\n", name, kv, mv, verdict)
		}
	}
	for _, p := range mc.Bounded {
		k, err := fields(kernel, p)
		if err != nil {
			fails = append(fails, "kernel: "+err.Error())
			continue
		}
		m0, err0 := fields(preds[0], p)
		m1, err1 := fields(preds[1], p)
		if err0 != nil || err1 != nil {
			fails = append(fails, fmt.Sprintf("model: %v", errors2(err0, err1)))
			continue
		}
		for _, name := range sortedKeys(k) {
			kv, ok0 := number(k[name])
			a, ok1 := number(m0[name])
			b, ok2 := number(m1[name])
			if !ok0 || !ok1 || !ok2 {
				fails = append(fails, fmt.Sprintf("%s: not a number (kernel %v, model %v)", name, k[name], m0[name]))
				continue
			}
			slack := timeSlackUS(name, uncertaintyUS)
			lo, hi := min(a, b)-slack, max(a, b)+slack
			verdict := "ok"
			if kv < lo || kv > hi {
				verdict = "OUT OF BOUNDS"
				fails = append(fails, fmt.Sprintf("%s: kernel %v outside the model's [%v, %v]", name, kv, lo, hi))
			}
			fmt.Fprintf(&report, "bounded %-32s kernel %-12v model [%v, %v] %s\n", name, kv, lo, hi, verdict)
		}
	}
	return report.String(), fails
}

func errors2(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// jsonText renders a dump value for an exact comparison (numbers keep
// their text, so 64-bit counters compare exactly).
func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

// shellQuote quotes a word for /bin/sh unless it is plainly safe.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:=$") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
