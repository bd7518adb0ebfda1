// SPDX-License-Identifier: Apache-2.0

package tcfmt

import (
	"io"
	"testing"
)

// benchQdiscs prints n cake-like qdiscs with -s.
func benchQdiscs(p *Printer, n int) {
	st := Stats2{
		HasBasic: true, Basic: BasicStats{Bytes: 123456789, Packets: 98765},
		HasQueue: true, Queue: QueueStats{Qlen: 3, Backlog: 4542, Drops: 17, Overlimits: 5},
	}
	h := QdiscHeader{Kind: "cake", Parent: HandleRoot, Info: 2, Dev: "veth0", ShowDev: true}
	p.Start()
	for i := 0; i < n; i++ {
		h.Handle = uint32(0x8000+i) << 16
		p.QdiscHead(&h)
		p.OpenObject("options")
		p.Rate(Any, "bandwidth", "bandwidth %s ", 12187500)
		p.String(Any, "diffserv", "%s ", "diffserv3")
		p.Bool(Any, "nat", "nat ", false)
		p.Time(Any, "rtt", "rtt %s ", 100000)
		p.Int(Any, "overhead", "overhead %d ", -4)
		p.Size(Any, "memlimit", "memlimit %s ", 32<<20)
		p.Hex0x(JSON, "fwmark", "", 0)
		p.CloseObject()
		p.NL()
		p.Stats(&st, " ")
		p.NL()
		p.Float(Any, "prob", "prob %f ", 0.0125)
		p.NL()
		p.QdiscTail("", false)
	}
	p.Finish()
}

func benchmarkPrint(b *testing.B, o Options) {
	p := NewPrinter(io.Discard, o)
	b.ReportAllocs()
	for b.Loop() {
		p.Reset(io.Discard, o)
		benchQdiscs(p, 10000)
	}
}

// BenchmarkPrint10kText prints 10,000 qdiscs as "tc -s qdisc show".
func BenchmarkPrint10kText(b *testing.B) { benchmarkPrint(b, Options{}) }

// BenchmarkPrint10kJSON prints 10,000 qdiscs as "tc -s -j qdisc show".
func BenchmarkPrint10kJSON(b *testing.B) { benchmarkPrint(b, Options{JSON: true}) }

// BenchmarkPrint10kPretty prints 10,000 qdiscs as "tc -s -j -p qdisc show".
func BenchmarkPrint10kPretty(b *testing.B) { benchmarkPrint(b, Options{JSON: true, Pretty: true}) }

func TestPrintAllocs(t *testing.T) {
	p := NewPrinter(io.Discard, Options{JSON: true})
	for _, o := range []Options{{}, {JSON: true}, {JSON: true, Pretty: true}} {
		n := testing.AllocsPerRun(5, func() {
			p.Reset(io.Discard, o)
			benchQdiscs(p, 100)
		})
		if n > 0 {
			t.Errorf("%+v: %v allocations for 100 qdiscs", o, n)
		}
	}
}
