// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/cmdline"
	"github.com/gotc/gotc/internal/manual"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/model/predict"
	"github.com/gotc/gotc/model/report"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
	"github.com/gotc/gotc/tcline"
	"github.com/gotc/gotc/traffic"
)

// modelWords are the keywords that end KIND's options.
var modelWords = map[string]bool{"trace": true, "plan": true, "pcap": true}

// modelCmd is "gotc model": it runs a reference model on a recorded trace
// or a traffic plan and prints the predicted qdisc as "qdisc show" prints
// the kernel's, so that a user can put the two side by side.
func (t *tc) modelCmd(args []string) error {
	if len(args) > 0 && args[0] == "help" {
		fmt.Fprint(t.Stderr, manual.Model.Help())
		return nil
	}
	// "compare A vs B" is "A vs B" said outright, for a user who looks
	// for the word: it takes two configurations or more.
	compare := len(args) > 0 && args[0] == "compare"
	if compare {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprint(t.Stderr, manual.Model.Help())
		return errStatus(exitUsage)
	}
	// The qdisc's own words come first; they end at "trace", "plan" or
	// "pcap", which no kind uses as an option.
	cut := len(args)
	for i, a := range args {
		if modelWords[a] {
			cut = i
			break
		}
	}
	head, rest := args[:cut], args[cut:]
	// "A vs B vs C" compares configurations on one capture.
	var heads []predict.Config
	for h := range splitAt(head, "vs") {
		c, err := t.modelConfig(h)
		if err != nil {
			return err
		}
		heads = append(heads, c)
	}
	if compare && len(heads) < 2 {
		fmt.Fprintln(t.Stderr, `"compare" needs two configurations or more: "compare A vs B ... pcap FILE"`)
		return errStatus(exitUsage)
	}
	// The model's own options apply to every configuration.
	var cfg predict.Config
	var (
		trace  []traffic.Record
		pcap   string // read once the options (mtu) are known
		sweep  []string
		plot   string
		metric = "p99"
	)
	for len(rest) > 0 {
		if err := t.needArg(rest); err != nil {
			return err
		}
		key, val := rest[0], rest[1]
		if key == "sweep" {
			if len(rest) < 5 {
				fmt.Fprintln(t.Stderr, `"sweep" needs PARAM FROM TO STEPS`)
				return errStatus(exitUsage)
			}
			sweep, rest = rest[1:5], rest[5:]
			continue
		}
		var err error
		switch key {
		case "trace":
			trace, err = traffic.ReadTraceFile(val)
		case "pcap":
			pcap = val
		case "plot":
			plot = val
		case "metric":
			if _, _, err := report.Metric(report.Group{}, val); err != nil {
				return t.invarg(err.Error(), val)
			}
			metric = val
		case "rate":
			r, perr := tcfmt.ParseRate(val)
			if perr != nil || r == 0 {
				return t.invarg("invalid rate", val)
			}
			cfg.Rate = r
		case "burst":
			n, perr := tcfmt.ParseSize(val)
			if perr != nil || n == 0 {
				return t.invarg("invalid burst", val)
			}
			cfg.Burst = n
		case "nic", "bql":
			if cfg.NIC == nil {
				cfg.NIC = &predict.NIC{}
			}
			if key == "nic" {
				r, perr := tcfmt.ParseRate(val)
				if perr != nil || r == 0 {
					return t.invarg("invalid rate", val)
				}
				cfg.NIC.Rate = r
			} else {
				n, perr := strconv.ParseUint(val, 0, 32)
				if perr != nil || n == 0 {
					return t.invarg("invalid BQL limit", val)
				}
				cfg.NIC.BQL = uint32(n)
			}
		case "plan":
			var p *traffic.Plan
			if p, err = traffic.ReadPlan(val); err == nil {
				trace, err = traffic.DryRun(p)
				// A dry run starts at 0; the models' timers (and the
				// kernel's) also start at 0, so move it well past them.
				cfg.Offset = 10_000_000_000
			}
		case "truesize":
			var n uint64
			if n, err = strconv.ParseUint(val, 0, 32); err == nil && n > 0 {
				cfg.Truesize = predict.ConstTruesize(uint32(n))
			} else {
				return t.invarg("invalid truesize", val)
			}
		case "handle":
			h, herr := tcfmt.ParseQdiscHandle(val)
			if herr != nil {
				return t.invarg("invalid qdisc ID", val)
			}
			cfg.Handle = h
		case "mtu":
			n, perr := strconv.ParseUint(val, 0, 32)
			if perr != nil || n == 0 {
				return t.invarg("invalid mtu", val)
			}
			cfg.MTU = uint32(n)
		case "enqueue":
			switch val {
			case "start":
				cfg.AtEnd = false
			case "end":
				cfg.AtEnd = true
			default:
				return t.invarg(`"start" or "end" expected`, val)
			}
		case "start", "at":
			n, perr := strconv.ParseInt(val, 0, 64)
			if perr != nil || n <= 0 {
				return t.invarg("invalid time in ns", val)
			}
			if key == "start" {
				cfg.Start = n
			} else {
				cfg.At = n
			}
		case "seed":
			n, perr := strconv.ParseUint(val, 0, 64)
			if perr != nil {
				return t.invarg("invalid seed", val)
			}
			cfg.Seed = n
		default:
			fmt.Fprintf(t.Stderr, "What is %q? Try \"gotc model help\".\n", key)
			return errStatus(exitUsage)
		}
		if err != nil {
			fmt.Fprintf(t.Stderr, "%s %s: %v\n", key, val, err)
			return errStatus(exitBadOption)
		}
		rest = rest[2:]
	}
	if pcap != "" {
		// mtu is psched_mtu, the MTU and the hard header.
		o := traffic.PcapOptions{}
		if cfg.MTU != 0 {
			o.MTU = int(cfg.MTU) - 14
		}
		var err error
		if trace, err = readCapture(pcap, o); err != nil {
			fmt.Fprintf(t.Stderr, "pcap %s: %v\n", pcap, err)
			return errStatus(exitBadOption)
		}
	}
	if trace == nil {
		fmt.Fprintln(t.Stderr, `gotc model needs "trace FILE", "plan FILE" or "pcap FILE"`)
		return errStatus(exitUsage)
	}
	if cfg.Burst != 0 && cfg.Rate == 0 {
		fmt.Fprintln(t.Stderr, `"burst" meters a "rate": give both`)
		return errStatus(exitUsage)
	}
	if cfg.NIC != nil && (cfg.NIC.Rate == 0 || cfg.NIC.BQL == 0) {
		fmt.Fprintln(t.Stderr, `a NIC needs both "nic RATE" and "bql BYTES"`)
		return errStatus(exitUsage)
	}
	if len(heads) > 1 {
		if pcap == "" || sweep != nil {
			fmt.Fprintln(t.Stderr, `"vs" compares configurations on a capture ("pcap FILE"), without "sweep"`)
			return errStatus(exitUsage)
		}
		return t.modelCompare(cfg, heads, head, trace, plot)
	}
	cfg = withQdisc(cfg, heads[0])
	if sweep != nil {
		return t.modelSweep(cfg, head, trace, sweep, plot, metric)
	}
	if plot != "" && pcap == "" {
		fmt.Fprintln(t.Stderr, `"plot" draws a capture's report: it needs "pcap FILE"`)
		return errStatus(exitUsage)
	}
	res, err := predict.Run(cfg, trace)
	if err != nil {
		fmt.Fprintln(t.Stderr, err)
		return errStatus(exitBadOption)
	}
	// A capture's report follows the qdisc; with -j both go in one
	// object, {"qdisc": [...], "report": {...}}.
	var rep *report.Report
	stdout := t.Stdout
	var qd bytes.Buffer
	if pcap != "" {
		rep = report.New(cfg.Kind, trace, res)
		if t.JSON {
			t.Stdout = &qd
		}
	}
	out := &netlink.Msg{Header: res.Header, Attrs: res.Attrs}
	p := t.printer()
	p.Start()
	tcline.PrintQdisc(p, out, t.printEnv(), false, tcline.Verb{})
	err = p.Finish()
	t.Stdout = stdout
	if err != nil {
		fmt.Fprintln(t.Stderr, err)
		return errStatus(exitBadOption)
	}
	// The margins go to stderr so that stdout stays exactly what "qdisc
	// show" would print; the tdc runner reads this line.
	fmt.Fprintln(t.Stderr, marginsLine(res))
	if rep == nil {
		return nil
	}
	if t.JSON {
		err = t.writeJSON(map[string]any{"qdisc": json.RawMessage(bytes.TrimSpace(qd.Bytes())), "report": rep})
	} else {
		fmt.Fprintln(t.Stdout)
		err = rep.WriteText(t.Stdout)
	}
	if err == nil && plot != "" {
		err = rep.Plot(plot)
	}
	if err != nil {
		fmt.Fprintln(t.Stderr, err)
		return errStatus(exitBadOption)
	}
	return nil
}

// readCapture reads a capture as traffic.ReadPcapFile does, through
// gotc-traffic ("gotc-traffic pcap"), so that gotc does not link the
// capture reader (gopacket's initialisation would slow every start). Tests
// replace it.
var readCapture = func(path string, o traffic.PcapOptions) ([]traffic.Record, error) {
	helper, err := cmdline.FindHelper(trafficBinary)
	if err != nil {
		return nil, fmt.Errorf("%v: it reads captures for gotc model", err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(helper, "pcap", "-in", path, "-mtu", strconv.Itoa(o.MTU))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(strings.TrimPrefix(stderr.String(), trafficBinary+": ")); msg != "" {
			return nil, errors.New(msg)
		}
		return nil, err
	}
	return traffic.ReadTrace(&stdout)
}

// trafficBinary is the helper that reads captures.
const trafficBinary = "gotc-traffic"

// modelConfig reads one configuration: KIND OPTIONS, or dev DEV [parent
// CLASSID] (the kind, options, handle and parent of the device's root
// qdisc, or of the qdisc attached to the class).
func (t *tc) modelConfig(head []string) (predict.Config, error) {
	var cfg predict.Config
	if len(head) > 0 && head[0] == "dev" {
		if err := t.needArg(head); err != nil {
			return cfg, err
		}
		parent := uint32(netlink.HandleRoot)
		if len(head) > 2 && head[2] == "parent" {
			if err := t.needArg(head[2:]); err != nil {
				return cfg, err
			}
			p, err := tcfmt.ParseClassID(head[3])
			if err != nil {
				return cfg, t.invarg("invalid parent ID", head[3])
			}
			parent = p
			head = append(head[:2:2], head[4:]...)
		}
		if len(head) > 2 {
			fmt.Fprintf(t.Stderr, "What is %q? Try \"gotc model help\".\n", head[2])
			return cfg, errStatus(exitUsage)
		}
		live, err := t.liveQdisc(head[1], parent)
		if err != nil {
			return cfg, err
		}
		cfg.Kind, cfg.Options, cfg.Dumped = live.Kind(), live.Attrs.Options, true
		cfg.Handle, cfg.Ifindex, cfg.Parent = live.Header.Handle, live.Header.Ifindex, live.Header.Parent
		return cfg, nil
	}
	if len(head) == 0 {
		fmt.Fprint(t.Stderr, manual.Model.Help())
		return cfg, errStatus(exitUsage)
	}
	opts, err := tcline.ParseKindOptions(netlink.Qdisc, head[0], head[1:], tckind.ParseEnv{Stderr: t.Stderr})
	if err != nil {
		return cfg, t.parseFailed(err)
	}
	cfg.Kind, cfg.Options = head[0], opts
	return cfg, nil
}

// withQdisc returns the model's options cfg with the qdisc of q: its
// kind, options, device, parent and (unless the options name one) handle.
func withQdisc(cfg, q predict.Config) predict.Config {
	cfg.Kind, cfg.Options, cfg.Ifindex, cfg.Parent, cfg.Dumped = q.Kind, q.Options, q.Ifindex, q.Parent, q.Dumped
	if cfg.Handle == 0 {
		cfg.Handle = q.Handle
	}
	return cfg
}

// splitAt yields the runs of words between the separators sep.
func splitAt(words []string, sep string) func(func([]string) bool) {
	return func(yield func([]string) bool) {
		for {
			i := slices.Index(words, sep)
			if i < 0 {
				yield(words)
				return
			}
			if !yield(words[:i]) {
				return
			}
			words = words[i+1:]
		}
	}
}

// modelCompare runs each configuration (heads, the words of all of them
// in words) over one capture and prints a row per configuration, or JSON
// with -j; plot draws their delay distributions side by side. rate
// applies to the kinds that take one (predict.TakesRate; CAKE shapes by
// itself).
func (t *tc) modelCompare(cfg predict.Config, heads []predict.Config, words []string, trace []traffic.Record, plot string) error {
	cmp := &report.Comparison{}
	i := 0
	for h := range splitAt(words, "vs") {
		c := withQdisc(cfg, heads[i])
		if !predict.TakesRate(c.Kind) {
			c.Rate, c.Burst = 0, 0
		}
		res, err := predict.Run(c, trace)
		if err != nil {
			fmt.Fprintf(t.Stderr, "%s: %v\n", strings.Join(h, " "), err)
			return errStatus(exitBadOption)
		}
		name := strings.Join(h, " ")
		if c.Rate != 0 {
			name += " at " + tcword.RateWord(c.Rate)
		}
		if c.Burst != 0 {
			name += fmt.Sprintf(" burst %db", c.Burst)
		}
		cmp.Add(name, report.New(c.Kind, trace, res))
		i++
	}
	var err error
	if t.JSON {
		err = t.writeJSON(map[string]any{"compare": cmp})
	} else {
		err = cmp.WriteText(t.Stdout)
	}
	if err == nil && plot != "" {
		err = cmp.Plot(plot)
	}
	if err != nil {
		fmt.Fprintln(t.Stderr, err)
		return errStatus(exitBadOption)
	}
	return nil
}

// modelSweep runs the model once per value of a parameter (sweep: PARAM
// FROM TO STEPS) and prints one row per value, or JSON with -j; plot
// draws metric against the parameter. PARAM is one of KIND's options
// (its word after the kind replaced, or added) or the model's rate.
func (t *tc) modelSweep(cfg predict.Config, head []string, trace []traffic.Record, sweep []string, plot, metric string) error {
	if head[0] == "dev" {
		fmt.Fprintln(t.Stderr, `"sweep" needs the qdisc's words (KIND OPTIONS), not "dev DEV"`)
		return errStatus(exitUsage)
	}
	param := sweep[0]
	rng, err := report.ParseRange(sweep[1], sweep[2], sweep[3])
	if err != nil {
		return t.invarg(err.Error(), strings.Join(sweep[1:], " "))
	}
	sw := &report.Sweep{Kind: cfg.Kind, Param: param, Unit: rng.Unit}
	xs, words := rng.Values()
	for i, w := range words {
		c := cfg
		if param == "rate" {
			if c.Rate, err = tcfmt.ParseRate(w); err != nil || c.Rate == 0 {
				return t.invarg("invalid rate", w)
			}
		} else if c.Options, err = tcline.ParseKindOptions(netlink.Qdisc, head[0], report.SetWord(head[1:], param, w),
			tckind.ParseEnv{Stderr: t.Stderr}); err != nil {
			return t.parseFailed(err)
		}
		res, err := predict.Run(c, trace)
		if err != nil {
			fmt.Fprintf(t.Stderr, "%s %s: %v\n", param, w, err)
			return errStatus(exitBadOption)
		}
		sw.Add(w, xs[i], report.New(cfg.Kind, trace, res))
	}
	if t.JSON {
		err = t.writeJSON(map[string]any{"sweep": sw})
	} else {
		err = sw.WriteText(t.Stdout)
	}
	if err == nil && plot != "" {
		err = sw.Plot(plot, metric)
	}
	if err != nil {
		fmt.Fprintln(t.Stderr, err)
		return errStatus(exitBadOption)
	}
	return nil
}

// writeJSON writes v as JSON, indented with -p as tc's JSON is.
func (t *tc) writeJSON(v any) error {
	enc := json.NewEncoder(t.Stdout)
	if t.Pretty {
		enc.SetIndent("", "    ")
	}
	return enc.Encode(v)
}

// marginsLine describes the prediction's timing margins:
//
//	model margins: shaper none aqm 1234567ns min 1234567ns sends 64 max_send_dur 2100ns
//
// A counter that depends on timing is only predicted exactly when min is
// at least predict.SafeMargin.
func marginsLine(r *predict.Result) string {
	var b strings.Builder
	b.WriteString("model margins:")
	ns := func(v int64) string {
		if v == predict.NoMargin {
			return "none"
		}
		return strconv.FormatInt(v, 10) + "ns"
	}
	for i, n := range r.Margins.Names {
		fmt.Fprintf(&b, " %s %s", n, ns(r.Margins.NS[i]))
	}
	fmt.Fprintf(&b, " min %s sends %d max_send_dur %dns", ns(r.Margins.Min()), r.Sends, r.MaxSendDur)
	return b.String()
}

// liveQdisc returns the qdisc of dev whose parent is parent (the root
// qdisc for netlink.HandleRoot) from a dump.
func (t *tc) liveQdisc(dev string, parent uint32) (*netlink.Msg, error) {
	idx, err := t.ifindex(dev)
	if err != nil {
		return nil, err
	}
	c, err := t.Kernel()
	if err != nil {
		return nil, err
	}
	var found *netlink.Msg
	err = c.Dump(t.Ctx, netlink.Qdisc, netlink.DumpFilter{Ifindex: idx}, func(m *netlink.Msg, decodeErr error) error {
		if found == nil && decodeErr == nil && m.Header.Ifindex == idx && m.Header.Parent == parent {
			cp := *m
			found = &cp
		}
		return nil
	})
	if err != nil {
		return nil, t.kernelRefused(err)
	}
	if found == nil {
		if parent == netlink.HandleRoot {
			fmt.Fprintf(t.Stderr, "No root qdisc on %q\n", dev)
		} else {
			fmt.Fprintf(t.Stderr, "No qdisc on %q below %s\n", dev, tcfmt.FormatClassID(parent))
		}
		return nil, errStatus(exitBadOption)
	}
	if _, ok := found.Attrs.Options.(attrs.TCOptionsMsgRaw); ok {
		fmt.Fprintf(t.Stderr, "The options of %s on %q did not decode\n", found.Kind(), dev)
		return nil, errStatus(exitBadOption)
	}
	return found, nil
}
