// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
)

// benchKernel is a kernel that costs nothing: requests are encoded as the
// real socket would send them and accepted; dumps decode canned raw messages,
// as the real socket's datagrams are decoded. What the benchmarks below
// measure is gotc's own work per line and per qdisc.
type benchKernel struct {
	links map[string]int32
	raw   [][]byte // dump replies, as the kernel sends their payloads
	sent  int
}

func (k *benchKernel) Do(ctx context.Context, o netlink.Object, op netlink.Op, m *netlink.Msg) error {
	if _, err := m.MarshalBinary(); err != nil {
		return err
	}
	k.sent++
	return nil
}

func (k *benchKernel) Dump(ctx context.Context, o netlink.Object, f netlink.DumpFilter, fn func(*netlink.Msg, error) error) error {
	if o != netlink.Qdisc {
		return nil
	}
	var m netlink.Msg
	for _, b := range k.raw {
		if err := fn(&m, m.UnmarshalBinary(b)); err != nil {
			return err
		}
	}
	return nil
}

// DumpReusing decodes as netlink.Conn.DumpReusing does: into one Decoder.
func (k *benchKernel) DumpReusing(ctx context.Context, o netlink.Object, f netlink.DumpFilter, fn func(*netlink.Msg, error) error) error {
	if o != netlink.Qdisc {
		return nil
	}
	var m netlink.Msg
	var d attrs.Decoder
	for _, b := range k.raw {
		err := m.Header.Decode(b)
		if err == nil {
			err = d.DecodeTCAttrs(&m.Attrs, b[attrs.TCMsgLen:])
		}
		if err := fn(&m, err); err != nil {
			return err
		}
	}
	return nil
}

// Pipeline answers every request at once, accepted.
func (k *benchKernel) Pipeline(ctx context.Context, reqs iter.Seq[netlink.PipelineRequest], window int, onResult func(i int, err error) bool) error {
	return sequentialPipeline(ctx, k, reqs, onResult)
}

// QdiscPlaces lists the places the benchmark's batch changes: an mq root
// per device and a qdisc of the line's kind under each of its queues.
func (k *benchKernel) QdiscPlaces(ctx context.Context, fn func(netlink.QdiscPlace)) error {
	for _, idx := range k.links {
		fn(netlink.QdiscPlace{Ifindex: idx, Handle: netlink.MakeHandle(1, 0), Parent: netlink.HandleRoot, Kind: "mq"})
		for q := uint16(1); q <= 10; q++ {
			kind := "dualpi2"
			if q == 1 {
				kind = "cake"
			}
			fn(netlink.QdiscPlace{Ifindex: idx, Handle: netlink.MakeHandle(0x8000+q, 0), Parent: netlink.MakeHandle(1, q), Kind: kind})
		}
	}
	return nil
}

func (k *benchKernel) Get(context.Context, netlink.Object, *netlink.Msg) (*netlink.Msg, error) {
	return nil, fmt.Errorf("benchKernel answers no gets")
}

func (k *benchKernel) LinkIndex(ctx context.Context, name string) (int32, error) {
	if i, ok := k.links[name]; ok {
		return i, nil
	}
	return 0, &netlink.NoDeviceError{Name: name}
}

func (k *benchKernel) LinkNames(ctx context.Context) (map[int32]string, error) {
	names := map[int32]string{}
	for n, i := range k.links {
		names[i] = n
	}
	return names, nil
}

func (k *benchKernel) Close() error { return nil }

// BenchmarkBatch3000 runs the benchmark script's batch (selftests/bench):
// 3,000 "qdisc replace" lines, CAKE and DualPI2, over 300 devices, all
// shown accepted from the qdiscs' places (batchaccept.go).
func BenchmarkBatch3000(b *testing.B) {
	k := &benchKernel{links: map[string]int32{}}
	var lines []string
	for d := range 300 {
		k.links[fmt.Sprintf("d%d", d)] = int32(d + 2)
	}
	for s := 1; s <= 10; s++ {
		for d := range 300 {
			if s == 1 {
				lines = append(lines, fmt.Sprintf("qdisc replace dev d%d parent 1:%x cake bandwidth %dmbit diffserv4", d, s, 100+d%100))
			} else {
				lines = append(lines, fmt.Sprintf("qdisc replace dev d%d parent 1:%x dualpi2 limit %d target 15ms", d, s, 1000+d%100))
			}
		}
	}
	file := filepath.Join(b.TempDir(), "batch")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	dial := func(int) (conn, error) { return k, nil }
	b.ReportAllocs()
	for b.Loop() {
		if status := run([]string{"gotc", "-batch", file}, nil, io.Discard, io.Discard, dial); status != 0 {
			b.Fatalf("status %d", status)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lines)), "ns/line")
}

// BenchmarkDumpJSON3300 prints 3,300 qdiscs (CAKE diffserv8 and DualPI2, as
// recorded from the kernel) as "gotc -s -j qdisc show" does.
func BenchmarkDumpJSON3300(b *testing.B) {
	k := &benchKernel{links: map[string]int32{}}
	var kinds [][]byte
	for _, name := range []string{"cake-diffserv8", "dualpi2-default"} {
		raw := goldenRaw(b, "../../testdata/golden/"+name+".golden")
		kinds = append(kinds, raw)
	}
	for i := range 3300 {
		k.raw = append(k.raw, kinds[min(i%10, 1)])
	}
	dial := func(int) (conn, error) { return k, nil }
	b.ReportAllocs()
	for b.Loop() {
		if status := run([]string{"gotc", "-s", "-j", "qdisc", "show"}, nil, io.Discard, io.Discard, dial); status != 0 {
			b.Fatalf("status %d", status)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(k.raw)), "ns/qdisc")
}

// goldenRaw returns the first raw qdisc message of a recorded scenario.
func goldenRaw(b *testing.B, path string) []byte {
	g, _ := readGolden(b, path)
	m := g.dump[netlink.Qdisc][0]
	raw, err := m.MarshalBinary()
	if err != nil {
		b.Fatal(err)
	}
	return raw
}
