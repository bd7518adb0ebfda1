// SPDX-License-Identifier: Apache-2.0

package qdisc

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
)

// testbedClock is the psched clock of the test bed's kernel (and of any
// kernel with high-resolution timers): /proc/net/psched reads
// "000003e8 00000040 000f4240 3b9aca00", so a tick is 64 ns and HZ reads 1e9.
var testbedClock = tcword.PschedClock{TickInUsec: 1000.0 / 64, Hz: 1000000000}

// useClock makes the rate arithmetic use c for the rest of the test.
func useClock(t *testing.T, c tcword.PschedClock) {
	old := tcword.Psched
	tcword.Psched = func() tcword.PschedClock { return c }
	t.Cleanup(func() { tcword.Psched = old })
}

func TestReadPschedLikeTC(t *testing.T) {
	name := filepath.Join(t.TempDir(), "psched")
	if err := os.WriteFile(name, []byte("000003e8 00000040 000f4240 3b9aca00\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v, ok := tcword.ReadPsched(name)
	if !ok || len(v) != 4 || v[0] != 1000 || v[1] != 64 || v[2] != 1000000 || v[3] != 1000000000 {
		t.Fatalf("readPsched = %v, %v", v, ok)
	}
	t.Setenv("PROC_NET_PSCHED", name)
	if hz := tcword.GetHZ(); hz != 1000000000 {
		t.Errorf("getHZ = %d, want the fourth number", hz)
	}
	t.Setenv("HZ", "250")
	if hz := tcword.GetHZ(); hz != 250 {
		t.Errorf("getHZ with HZ=250 = %d", hz)
	}
	t.Setenv("HZ", "x")
	if hz := tcword.GetHZ(); hz != tcword.HzFallback {
		t.Errorf("getHZ with HZ=x = %d, want tc's fallback", hz)
	}
}

func TestRateTable(t *testing.T) {
	useClock(t, testbedClock)
	// 1mbit = 125000 bytes/s; mtu 1600 gives cells of 8 bytes. Entry i is
	// the time of (i+1)*8 bytes: 64 µs per 8 bytes = 1000 ticks of 64 ns.
	spec := testRatespec(125000, 0)
	tab := tcword.CalcRtable(&spec, -1, 1600, tcword.LinklayerEthernet)
	if spec.CellLog != 3 || spec.CellAlign != -1 || spec.Linklayer != tcword.LinklayerEthernet {
		t.Errorf("ratespec = %+v", spec)
	}
	if got := binary.NativeEndian.Uint32(tab[0:]); got != 1000 {
		t.Errorf("rtab[0] = %d, want 1000", got)
	}
	if got := binary.NativeEndian.Uint32(tab[4*255:]); got != 256000 {
		t.Errorf("rtab[255] = %d, want 256000", got)
	}
	// ATM: 8 bytes fill one 53-byte cell; an mpu of 100 makes three cells.
	spec = testRatespec(125000, 100)
	tab = tcword.CalcRtable(&spec, -1, 1600, tcword.LinklayerATM)
	if got, want := binary.NativeEndian.Uint32(tab[0:]), tcword.XmitTime(125000, 3*53); got != want {
		t.Errorf("atm rtab[0] = %d, want %d", got, want)
	}
	if tcword.XmitTime(1, 1<<40) != ^uint32(0) {
		t.Error("xmitTime does not saturate")
	}
	if got := tcword.XmitSize(125000, 1000); got != 8 {
		t.Errorf("xmitSize = %d, want 8", got)
	}
}

func TestSizeAndCell(t *testing.T) {
	for _, c := range []struct {
		arg     string
		size    uint64
		cellLog int
		shown   string
		ok      bool
	}{
		{"10k", 10240, -1, "10k", true},
		{"10k/8", 10240, 3, "10k/8", true},
		{"1mb/0x40", 1 << 20, 6, "1mb/0x40", true},
		{"10k/3", 0, 0, "10k/3", false}, // tc restores the slash
		{"10k/y", 0, 0, "10k", false},   // ... only after the cell parsed
		{"x/8", 0, 0, "x", false},
	} {
		size, cl, shown, ok := tcword.SizeAndCell(c.arg, ^uint64(0))
		if ok != c.ok || shown != c.shown || (ok && (size != c.size || cl != c.cellLog)) {
			t.Errorf("sizeAndCell(%q) = %d, %d, %q, %v", c.arg, size, cl, shown, ok)
		}
	}
	if _, _, _, ok := tcword.SizeAndCell("5g", 1<<32-1); ok {
		t.Error("the 32-bit variant takes 5g")
	}
}

// goldenSetup is one configuring command of a recorded scenario with the
// dump message of the object it configured last.
type goldenSetup struct {
	args []string // words after the kind
	msg  *netlink.Msg
}

// goldenSetups reads the recorded scenarios of a kind: for each object
// configured with it, the last command's words and the kernel's dump of it.
func goldenSetups(t *testing.T, kind, object string) []goldenSetup {
	t.Helper()
	files, _ := filepath.Glob("../testdata/golden/*.golden")
	var out []goldenSetup
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		last := map[string][]string{} // handle -> words after kind
		dumps := map[string]*netlink.Msg{}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if rest, ok := strings.CutPrefix(line, "--- setup "+object+" "); ok {
				w := strings.Fields(rest)
				for i := 0; i+1 < len(w); i++ {
					if w[i] == "handle" || w[i] == "classid" {
						h := w[i+1]
						for j := range w {
							if w[j] == kind {
								last[h] = w[j+1:]
							}
						}
					}
				}
			}
			if rest, ok := strings.CutPrefix(line, "--- raw "+object+" "); ok {
				b, err := hex.DecodeString(rest)
				if err != nil {
					t.Fatal(err)
				}
				m := &netlink.Msg{}
				if err := m.UnmarshalBinary(b); err != nil {
					t.Fatal(err)
				}
				if m.Kind() == kind {
					h := formatHandle(object, m.Header.Handle)
					dumps[h] = m
				}
			}
		}
		f.Close()
		for h, args := range last {
			if m := dumps[h]; m != nil {
				out = append(out, goldenSetup{args, m})
			}
		}
	}
	return out
}

// formatHandle writes a dumped handle as the setup commands name it.
func formatHandle(object string, h uint32) string {
	if object == "qdisc" {
		return tcfmt.FormatQdiscHandle(h)
	}
	return tcfmt.FormatClassID(h)
}

func testRatespec(rate uint32, mpu uint16) attrs.TCRatespec {
	return attrs.TCRatespec{Rate: rate, MPU: mpu}
}
