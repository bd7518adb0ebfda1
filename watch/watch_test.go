// SPDX-License-Identifier: Apache-2.0

package watch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
)

var _ Source = (*netlink.Conn)(nil)

func ptr[T any](v T) *T { return &v }

// advancingKernel dumps qdiscs whose counters grow by a fixed step per
// sample: a CAKE qdisc with three tins, a DualPI2 qdisc and an sfq qdisc (a
// kind gotc does not know). Its drops counter starts just below 2^32 and
// wraps between the second and third samples.
type advancingKernel struct {
	n     int // dumps so far
	extra func(n int) []*netlink.Msg
}

func (k *advancingKernel) LinkNames(context.Context) (map[int32]string, error) {
	return map[int32]string{2: "eth0", 3: "wan0"}, nil
}

func (k *advancingKernel) Dump(_ context.Context, _ netlink.Object, _ netlink.DumpFilter, fn func(*netlink.Msg, error) error) error {
	k.n++
	for _, m := range k.msgs(k.n) {
		if err := fn(m, nil); err != nil {
			return err
		}
	}
	return nil
}

func generic(ifindex int32, handle, parent uint32, kind string, n int) *netlink.Msg {
	m := &netlink.Msg{}
	m.Header.Ifindex = ifindex
	m.Header.Handle = handle
	m.Header.Parent = parent
	m.Attrs.Kind = &kind
	m.Attrs.Stats2 = &attrs.StatsAttrs{
		Basic: &attrs.GnetStatsBasic{Bytes: uint64(n) * 1000, Packets: uint32(n) * 10},
		Queue: &attrs.GnetStatsQueue{Qlen: 2, Backlog: 3000, Drops: math.MaxUint32 - 4 + uint32(n)*2, Overlimits: uint32(n), Requeues: 0},
	}
	return m
}

func (k *advancingKernel) msgs(n int) []*netlink.Msg {
	cake := generic(2, 0x10000, netlink.HandleRoot, "cake", n)
	s := &attrs.CakeStatsAttrs{MemoryUsed: ptr(uint32(1000)), MemoryLimit: ptr(uint32(4 << 20)), CapacityEstimate64: ptr(uint64(125000))}
	for t := range 3 {
		s.TinStats = append(s.TinStats, attrs.CakeTinStatsAttrs{
			SentPackets:      ptr(uint32(n * (t + 1))),
			SentBytes64:      ptr(uint64(n * (t + 1) * 1500)),
			DroppedPackets:   ptr(uint32(n * t)),
			ECNMarkedPackets: ptr(uint32(n)),
			BacklogBytes:     ptr(uint32(100 * t)),
			PeakDelayUS:      ptr(uint32(2000)),
			TargetUS:         ptr(uint32(5000)),
		})
	}
	cake.Attrs.Stats2.App = s

	pi2 := generic(3, 0x20000, netlink.HandleRoot, "dualpi2", n)
	pi2.Attrs.Stats2.App = &attrs.TCDualPI2Xstats{Prob: math.MaxUint32 / 4, DelayC: 1500, PacketsInC: uint32(100 * n), PacketsInL: uint32(200 * n), ECNMark: uint32(n), StepMarks: 0, Credit: -5}

	sfq := generic(2, 0x100000, netlink.MakeHandle(1, 2), "sfq", n)
	sfq.Attrs.Options = attrs.TCOptionsMsgRaw{1, 2, 3, 4}
	sfq.Attrs.Unknown = []attrs.Attribute{{Type: 77, Data: []byte{0, 0, 0, 0}}}
	out := []*netlink.Msg{cake, pi2, sfq}
	if k.extra != nil {
		out = append(out, k.extra(n)...)
	}
	return out
}

// clock returns a Now that advances by step per call.
func clock(step time.Duration) func() time.Time {
	t := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time { t = t.Add(step); return t }
}

func lines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var res []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		res = append(res, m)
	}
	return res
}

// get walks a path of keys and array indexes.
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func TestRunDeltasOverThreeSamples(t *testing.T) {
	var out bytes.Buffer
	k := &advancingKernel{}
	err := Run(context.Background(), k, netlink.DumpFilter{}, time.Millisecond, &out,
		Options{Samples: 3, Deltas: true, Rates: true, Now: clock(2 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	ls := lines(t, out.String())
	if len(ls) != 9 || k.n != 3 {
		t.Fatalf("%d lines from %d dumps:\n%s", len(ls), k.n, out.String())
	}
	for i, l := range ls {
		sample := float64(i/3 + 1)
		if l["sample"] != sample {
			t.Errorf("line %d: sample %v", i, l["sample"])
		}
		if _, ok := l["deltas"]; ok != (sample > 1) {
			t.Errorf("line %d (sample %v): deltas present = %v", i, sample, ok)
		}
	}

	first, cake := ls[0], ls[6]
	for key, want := range map[string]any{
		"time": "2026-01-02T03:04:07Z", "dev": "eth0", "kind": "cake", "handle": "1:", "parent": "root", "root": true,
		"bytes": 1000.0, "packets": 10.0, "qlen": 2.0, "backlog": 3000.0, "memory_limit": float64(4 << 20), "capacity_estimate": 125000.0,
	} {
		if first[key] != want {
			t.Errorf("first line %s = %#v, want %#v", key, first[key], want)
		}
	}
	if cake["time"] != "2026-01-02T03:04:11Z" || cake["bytes"] != 3000.0 || cake["elapsed"] != 2.0 {
		t.Errorf("third cake line: %v", cake)
	}
	for _, c := range []struct {
		path []any
		want float64
	}{
		{[]any{"tins", 2, "sent_packets"}, 9},
		{[]any{"tins", 1, "sent_bytes"}, 9000},
		{[]any{"tins", 2, "peak_delay_us"}, 2000},
		{[]any{"deltas", "bytes"}, 1000},
		{[]any{"deltas", "packets"}, 10},
		{[]any{"drops"}, 1},           // 2^32+1, wrapped
		{[]any{"deltas", "drops"}, 2}, // across the 2^32 wrap
		{[]any{"deltas", "overlimits"}, 1},
		{[]any{"deltas", "requeues"}, 0},
		{[]any{"deltas", "tins", 0, "sent_packets"}, 1},
		{[]any{"deltas", "tins", 2, "sent_packets"}, 3},
		{[]any{"deltas", "tins", 2, "sent_bytes"}, 4500},
		{[]any{"deltas", "tins", 1, "drops"}, 1},
		{[]any{"deltas", "tins", 1, "ecn_mark"}, 1},
		{[]any{"rates", "bytes"}, 500},
		{[]any{"rates", "tins", 2, "sent_bytes"}, 2250},
	} {
		if got := get(cake, c.path...); got != c.want {
			t.Errorf("third cake line %v = %v, want %v", c.path, got, c.want)
		}
	}
	// Gauges are not deltas.
	if get(cake, "deltas", "qlen") != nil || get(cake, "deltas", "tins", 0, "peak_delay_us") != nil || get(cake, "deltas", "memory_used") != nil {
		t.Errorf("gauge in deltas: %v", cake["deltas"])
	}

	pi2 := ls[7]
	for _, c := range []struct {
		key  string
		want any
	}{
		{"kind", "dualpi2"}, {"dev", "wan0"}, {"delay-c", 1500.0}, {"pkts-in-c", 300.0}, {"credit", -5.0},
	} {
		if pi2[c.key] != c.want {
			t.Errorf("dualpi2 %s = %v, want %v", c.key, pi2[c.key], c.want)
		}
	}
	if p := pi2["prob"].(float64); math.Abs(p-0.25) > 1e-9 {
		t.Errorf("prob %v", p)
	}
	if get(pi2, "deltas", "pkts-in-l") != 200.0 || get(pi2, "deltas", "ecn-mark") != 1.0 || get(pi2, "rates", "pkts-in-c") != 50.0 {
		t.Errorf("dualpi2 deltas %v rates %v", pi2["deltas"], pi2["rates"])
	}

	sfq := ls[8]
	if sfq["kind"] != "sfq" || sfq["parent"] != "1:2" || sfq["handle"] != "10:" || sfq["root"] != nil ||
		sfq["unknown_attributes"] != 1.0 || get(sfq, "deltas", "bytes") != 1000.0 || sfq["tins"] != nil {
		t.Errorf("sfq line %v", sfq)
	}
}

func TestQdiscsComingAndGoing(t *testing.T) {
	k := &advancingKernel{extra: func(n int) []*netlink.Msg {
		switch n {
		case 2:
			// Appears in sample 2 on a device without a name, with a
			// truncated message; and a repeat of it.
			m := generic(9, 0x30000, netlink.HandleRoot, "fq_codel", n)
			return []*netlink.Msg{m, m}
		}
		return nil
	}}
	var out bytes.Buffer
	w := New(k, netlink.DumpFilter{}, &out, Options{Deltas: true, Now: clock(time.Second)})
	for range 3 {
		if err := w.Sample(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(w.prev) != 3+map[uint64]int{2: 1}[w.n] {
			t.Errorf("after sample %d: %d qdiscs remembered", w.n, len(w.prev))
		}
	}
	ls := lines(t, out.String())
	if len(ls) != 10 {
		t.Fatalf("%d lines:\n%s", len(ls), out.String())
	}
	fq := ls[6]
	if fq["dev"] != "if9" || fq["deltas"] != nil || fq["bytes"] != 2000.0 {
		t.Errorf("new qdisc line %v", fq)
	}
}

func TestDecodeErrors(t *testing.T) {
	k := &advancingKernel{}
	trunc := fmt.Errorf("tc message: %w", attrs.ErrTruncated)
	src := funcSource{k, func(fn func(*netlink.Msg, error) error) error {
		m := generic(2, 0x50000, netlink.HandleRoot, "fq", 1)
		if err := fn(m, trunc); err != nil {
			return err
		}
		// A header that did not decode: m is stale, the line is skipped.
		return fn(m, errors.New("attrs: tcmsg needs 20 bytes, got 8"))
	}}
	var out bytes.Buffer
	if err := New(src, netlink.DumpFilter{}, &out, Options{}).Sample(context.Background()); err != nil {
		t.Fatal(err)
	}
	ls := lines(t, out.String())
	if len(ls) != 1 || ls[0]["decode_error"] != trunc.Error() || ls[0]["bytes"] != 1000.0 {
		t.Errorf("lines %v", ls)
	}
}

type funcSource struct {
	*advancingKernel
	dump func(fn func(*netlink.Msg, error) error) error
}

func (f funcSource) Dump(_ context.Context, _ netlink.Object, _ netlink.DumpFilter, fn func(*netlink.Msg, error) error) error {
	return f.dump(fn)
}

func TestRunStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	k := &advancingKernel{}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Run(ctx, k, netlink.DumpFilter{}, 10*time.Millisecond, pw, Options{}); pw.Close() }()
	sc := bufio.NewScanner(pr)
	for range 6 { // two samples' lines
		if !sc.Scan() {
			t.Fatal("stream ended")
		}
	}
	cancel()
	go io.Copy(io.Discard, pr)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run returned %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not stop")
	}
}

func TestRunReportsDumpErrors(t *testing.T) {
	boom := errors.New("socket broke")
	src := funcSource{&advancingKernel{}, func(func(*netlink.Msg, error) error) error { return boom }}
	err := Run(context.Background(), src, netlink.DumpFilter{}, time.Millisecond, io.Discard, Options{})
	if !errors.Is(err, boom) {
		t.Errorf("err %v", err)
	}
	if err := Run(context.Background(), src, netlink.DumpFilter{}, 0, io.Discard, Options{}); err == nil {
		t.Error("zero interval accepted")
	}
}

func TestAppendString(t *testing.T) {
	for in, want := range map[string]string{
		"eth0":       `"eth0"`,
		`a"b\c`:      `"a\"b\\c"`,
		"tab\there":  `"tab\u0009here"`,
		"bad\xffdev": `"bad\ufffddev"`,
		"wlan-ü":     `"wlan-ü"`,
	} {
		got := string(appendString(nil, in))
		if got != want {
			t.Errorf("appendString(%q) = %s, want %s", in, got, want)
		}
		var s string
		if err := json.Unmarshal([]byte(got), &s); err != nil {
			t.Errorf("%s: %v", got, err)
		}
	}
}

// reusingKernel is a Source whose dumps can reuse memory; it counts which
// of its dumps a watch called.
type reusingKernel struct {
	*advancingKernel
	plain, reusing int
}

func (k *reusingKernel) Dump(ctx context.Context, o netlink.Object, f netlink.DumpFilter, fn func(*netlink.Msg, error) error) error {
	k.plain++
	return k.advancingKernel.Dump(ctx, o, f, fn)
}

func (k *reusingKernel) DumpReusing(ctx context.Context, o netlink.Object, f netlink.DumpFilter, fn func(*netlink.Msg, error) error) error {
	k.reusing++
	return k.advancingKernel.Dump(ctx, o, f, fn)
}

// TestReusingDumpAndNoMemoryWithoutDeltas: a watch takes the dump that
// reuses memory where its source has one, and without deltas or rates
// remembers no more of a qdisc than the sample it was last written in.
func TestReusingDumpAndNoMemoryWithoutDeltas(t *testing.T) {
	for _, opts := range []Options{{}, {Deltas: true}} {
		k := &reusingKernel{advancingKernel: &advancingKernel{}}
		var out bytes.Buffer
		opts.Now = clock(time.Second)
		w := New(k, netlink.DumpFilter{}, &out, opts)
		for range 2 {
			if err := w.Sample(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		if k.plain != 0 || k.reusing != 2 {
			t.Errorf("%+v: %d plain dumps, %d reusing", opts, k.plain, k.reusing)
		}
		if opts.Deltas != (len(w.prev) > 0) || opts.Deltas == (len(w.seen) > 0) {
			t.Errorf("%+v: %d previous samples kept, %d qdiscs seen", opts, len(w.prev), len(w.seen))
		}
		if ls := lines(t, out.String()); len(ls) == 0 || ls[len(ls)-1]["sample"] != 2.0 || ls[len(ls)-1]["time"] != "2026-01-02T03:04:07Z" {
			t.Errorf("%+v: last line %v", opts, ls[len(ls)-1])
		}
	}
}

// treeSource dumps an htb qdisc on eth0 and, for eth0's classes, an htb
// class and an fq_codel flow; wan0 has only a classless qdisc.
type treeSource struct {
	*advancingKernel
	classDumps []int32
}

func (s *treeSource) Dump(_ context.Context, o netlink.Object, f netlink.DumpFilter, fn func(*netlink.Msg, error) error) error {
	msgs := []*netlink.Msg{generic(2, 0x10000, netlink.HandleRoot, "htb", 1), generic(3, 0x20000, netlink.HandleRoot, "fq_codel", 1)}
	if o == netlink.Class {
		s.classDumps = append(s.classDumps, f.Ifindex)
		cl := generic(2, 0x10010, 0x10001, "htb", 2)
		cl.Attrs.Stats2.App = &attrs.TCHTBXstats{Lends: 3, Borrows: 4, Tokens: -15625, Ctokens: 100}
		msgs = []*netlink.Msg{cl, generic(2, 0x100001, 0x100000, "fq_codel", 1)}
	}
	for _, m := range msgs {
		if err := fn(m, nil); err != nil {
			return err
		}
	}
	return nil
}

func TestClasses(t *testing.T) {
	src := &treeSource{advancingKernel: &advancingKernel{}}
	var out bytes.Buffer
	w := New(src, netlink.DumpFilter{}, &out, Options{Now: func() time.Time { return time.Unix(0, 0) }})
	if err := w.Sample(context.Background()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 3 || !slices.Equal(src.classDumps, []int32{2}) {
		t.Fatalf("%d lines, class dumps of %v:\n%s", len(lines), src.classDumps, out.String())
	}
	want := `"dev":"eth0","kind":"htb","class":true,"handle":"1:10","parent":"1:1","bytes":2000,"packets":20,` +
		`"drops":4294967295,"overlimits":2,"requeues":0,"backlog":3000,"qlen":2,` +
		`"lended":3,"borrowed":4,"giants":0,"tokens":-15625,"ctokens":100}`
	if !strings.HasSuffix(lines[2], want) {
		t.Errorf("class line\n%s\nwant it to end in\n%s", lines[2], want)
	}
}
