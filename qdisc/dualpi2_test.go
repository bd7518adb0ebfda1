// SPDX-License-Identifier: Apache-2.0

package qdisc

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
)

// describeDualPI2 renders the options that are set, in a fixed order, so that
// table rows can state what tc would send in one readable string.
func describeDualPI2(o *attrs.DualPI2Attrs) string {
	var parts []string
	u32 := func(name string, v *uint32) {
		if v != nil {
			parts = append(parts, fmt.Sprintf("%s=%d", name, *v))
		}
	}
	u32("limit", o.Limit)
	u32("memlimit", o.MemoryLimit)
	u32("target", o.Target)
	u32("tupdate", o.Tupdate)
	u32("alpha", o.Alpha)
	u32("beta", o.Beta)
	u32("step_pkts", o.StepThreshPkts)
	u32("step_us", o.StepThreshUS)
	u32("min_qlen_step", o.MinQlenStep)
	if o.Coupling != nil {
		parts = append(parts, fmt.Sprintf("coupling=%d", *o.Coupling))
	}
	if o.DropOverload != nil {
		parts = append(parts, fmt.Sprintf("drop_overload=%d", *o.DropOverload))
	}
	if o.DropEarly != nil {
		parts = append(parts, fmt.Sprintf("drop_early=%d", *o.DropEarly))
	}
	if o.CProtection != nil {
		parts = append(parts, fmt.Sprintf("c_protection=%d", *o.CProtection))
	}
	if o.ECNMask != nil {
		parts = append(parts, fmt.Sprintf("ecn_mask=%d", *o.ECNMask))
	}
	if o.SplitGSO != nil {
		parts = append(parts, fmt.Sprintf("split_gso=%d", *o.SplitGSO))
	}
	if len(o.Unknown) > 0 {
		parts = append(parts, fmt.Sprintf("unknown=%d", len(o.Unknown)))
	}
	return strings.Join(parts, " ")
}

const (
	warnAlphaSmall = `Warning: "alpha" is too small and will be rounded to zero.` + "\n"
	warnBetaSmall  = `Warning: "beta" is too small and will be rounded to zero.` + "\n"
	ignoreNotice   = "rtt_max is specified, ignore alpha/beta/tupdate/target\n"
)

// dualpi2ParseCases are accepted command lines: what is sent and what tc
// prints on stderr. Expected auto-config numbers were computed separately
// (Python doubles with float32-rounded 0.1, 0.3 and 3.0, left to right).
var dualpi2ParseCases = []struct {
	args   string
	want   string
	stderr string
}{
	{"", "", ""},
	// limit, memlimit, min_qlen_step: get_u32 base 10, no units.
	{"limit 100", "limit=100", ""},
	{"limit 4294967295", "limit=4294967295", ""},
	{"limit 0", "", ""}, // 0 means "not given" to tc
	{"limit -0", "", ""},
	{"limit +7", "limit=7", ""},
	{"limit 010", "limit=10", ""}, // base 10: no octal
	{"limit 5 limit 6", "limit=6", ""},
	{"memlimit 20000000", "memlimit=20000000", ""},
	{"memlimit 0", "", ""},
	{"min_qlen_step 1", "min_qlen_step=1", ""},
	{"min_qlen_step 0", "min_qlen_step=0", ""}, // sent even when 0
	// target and tupdate: get_time, microseconds by default.
	{"target 20ms", "target=20000", ""},
	{"target 1.5ms", "target=1500", ""},
	{"target 5", "target=5", ""},
	{"target 7usecs", "target=7", ""},
	{"target 2SEC", "target=2000000", ""},
	{"target 5000s", "target=705032704", ""}, // wraps like x86-64's conversion
	{"target 0", "", ""},
	{"target inf", "", ""}, // converts to 0
	{"tupdate 16ms", "tupdate=16000", ""},
	{"tupdate 0ms", "", ""},
	// alpha and beta: C float, *256 in float, truncated.
	{"alpha 0.16", "alpha=40", ""},
	{"beta 3.2", "beta=819", ""},
	{"alpha 0.16015625 beta 3.19921875", "alpha=41 beta=819", ""},
	{"alpha 16777215", "alpha=4294967040", ""},
	{"alpha 1e1", "alpha=2560", ""},
	{"alpha 0x1p-2", "alpha=64", ""},
	{"alpha 0.00390625", "alpha=1", ""},
	{"alpha 0.0039", "alpha=0", warnAlphaSmall},
	{"alpha 0", "alpha=0", warnAlphaSmall},
	{"beta -0", "beta=0", warnBetaSmall},
	{"alpha nan", "alpha=0", ""}, // passes tc's range check without a warning
	{"alpha 0 beta 0", "alpha=0 beta=0", warnAlphaSmall + warnBetaSmall},
	// step_thresh: a time first, then packets with a suffix.
	{"step_thresh 2ms", "step_us=2000", ""},
	{"step_thresh 5", "step_us=5", ""},
	{"step_thresh 3p", "step_pkts=3", ""},
	{"step_thresh 3pkt", "step_pkts=3", ""},
	{"step_thresh 3pkts", "step_pkts=3", ""},
	{"step_thresh 3packet", "step_pkts=3", ""},
	{"step_thresh 3packets", "step_pkts=3", ""},
	{"step_thresh 4294967295p", "step_pkts=4294967295", ""},
	{"step_thresh +3p", "step_pkts=3", ""},
	{"step_thresh 0", "", ""},  // not sent
	{"step_thresh 0p", "", ""}, // not sent
	{"step_thresh -0p", "", ""},
	{"step_thresh 3p step_thresh 1ms", "step_us=1000", ""},
	{"step_thresh 1ms step_thresh 3p", "step_pkts=3", ""},
	{"step_thresh 3p step_thresh 0", "", ""},
	// coupling_factor: get_s32 base 0, 0..255 (0 is the kernel's to refuse).
	{"coupling_factor 1", "coupling=1", ""},
	{"coupling_factor 0", "coupling=0", ""},
	{"coupling_factor 255", "coupling=255", ""},
	{"coupling_factor 0x10", "coupling=16", ""},
	{"coupling_factor 010", "coupling=8", ""},
	// Flags.
	{"drop_on_overload", "drop_overload=1", ""},
	{"overflow", "drop_overload=0", ""},
	{"drop_enqueue", "drop_early=1", ""},
	{"drop_dequeue", "drop_early=0", ""},
	{"l4s_ect", "ecn_mask=1", ""},
	{"any_ect", "ecn_mask=3", ""},
	{"any_ect l4s_ect", "ecn_mask=1", ""},
	{"split_gso", "split_gso=1", ""},
	{"no_split_gso", "split_gso=0", ""},
	// classic_protection: parse_percent then rint.
	{"classic_protection 0", "c_protection=0", ""},
	{"classic_protection 10", "c_protection=10", ""},
	{"classic_protection 10%", "c_protection=10", ""},
	{"classic_protection 100%", "c_protection=100", ""},
	{"classic_protection 50.5", "c_protection=50", ""}, // half to even
	{"classic_protection 51.5", "c_protection=52", ""},
	{"classic_protection 29", "c_protection=29", ""},
	{"classic_protection 0x10", "c_protection=16", ""},
	{"classic_protection 1e1%", "c_protection=10", ""},
	{"classic_protection ", "c_protection=0", ""}, // strtod of nothing is 0
	{"classic_protection %", "c_protection=0", ""},
	// max_rtt / typical_rtt.
	{"max_rtt 300ms", "target=50000 tupdate=50000 alpha=14 beta=256",
		"Auto-config [max_rtt: 300ms, typical_rtt: 50ms]: target=50ms tupdate=50ms alpha=0.055556 beta=1.000000\n"},
	{"typical_rtt 20ms max_rtt 200ms", "target=20000 tupdate=20000 alpha=12 beta=384",
		"Auto-config [max_rtt: 200ms, typical_rtt: 20ms]: target=20ms tupdate=20ms alpha=0.050000 beta=1.500000\n"},
	{"max_rtt 100ms", "target=16666 tupdate=16666 alpha=42 beta=768",
		"Auto-config [max_rtt: 100ms, typical_rtt: 16.7ms]: target=16.7ms tupdate=16.7ms alpha=0.166660 beta=3.000000\n"},
	{"typical_rtt 10ms", "target=10000 tupdate=10000 alpha=71 beta=1280",
		"Auto-config [max_rtt: 60ms, typical_rtt: 10ms]: target=10ms tupdate=10ms alpha=0.277778 beta=5.000000\n"},
	{"max_rtt 1", "target=1 tupdate=1 alpha=25600000 beta=76800003",
		"Auto-config [max_rtt: 1us, typical_rtt: 1us]: target=1us tupdate=1us alpha=100000.001490 beta=300000.011921\n"},
	{"max_rtt 1ms", "target=166 tupdate=166 alpha=4249 beta=76800",
		"Auto-config [max_rtt: 1ms, typical_rtt: 166us]: target=166us tupdate=166us alpha=16.600000 beta=300.000012\n"},
	{"max_rtt 4s", "target=666666 tupdate=666666 alpha=1 beta=19",
		"Auto-config [max_rtt: 4s, typical_rtt: 667ms]: target=667ms tupdate=667ms alpha=0.004167 beta=0.075000\n"},
	// tupdate is capped at max_rtt/3 when typical_rtt is larger.
	{"max_rtt 100ms typical_rtt 100ms", "target=100000 tupdate=33333 alpha=85 beta=768",
		"Auto-config [max_rtt: 100ms, typical_rtt: 100ms]: target=100ms tupdate=33.3ms alpha=0.333330 beta=3.000000\n"},
	// max_rtt wins over explicit values, wherever they are.
	{"alpha 1 max_rtt 30ms beta 2 typical_rtt 2ms target 1 tupdate 1 limit 9",
		"limit=9 target=2000 tupdate=2000 alpha=56 beta=2560",
		ignoreNotice + "Auto-config [max_rtt: 30ms, typical_rtt: 2ms]: target=2ms tupdate=2ms alpha=0.222222 beta=10.000000\n"},
	{"target 0 max_rtt 300ms", "target=50000 tupdate=50000 alpha=14 beta=256",
		"Auto-config [max_rtt: 300ms, typical_rtt: 50ms]: target=50ms tupdate=50ms alpha=0.055556 beta=1.000000\n"},
	{"max_rtt 0", "", ""},
	{"max_rtt 0 typical_rtt 0 target 3", "target=3", ""},
	// Everything at once.
	{"limit 1000 memlimit 1000000 target 10ms tupdate 12ms alpha 0.5 beta 4 step_thresh 5p " +
		"min_qlen_step 2 coupling_factor 3 overflow drop_enqueue classic_protection 25 any_ect no_split_gso",
		"limit=1000 memlimit=1000000 target=10000 tupdate=12000 alpha=128 beta=1024 step_pkts=5 " +
			"min_qlen_step=2 coupling=3 drop_overload=0 drop_early=1 c_protection=25 ecn_mask=3 split_gso=0", ""},
}

func splitArgs(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, " ")
}

func TestParseDualPI2(t *testing.T) {
	for _, tc := range dualpi2ParseCases {
		var stderr bytes.Buffer
		o, err := ParseDualPI2(splitArgs(tc.args), &stderr)
		if err != nil {
			t.Errorf("%q: unexpected error %v", tc.args, err)
			continue
		}
		if got := describeDualPI2(o); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.args, got, tc.want)
		}
		if stderr.String() != tc.stderr {
			t.Errorf("%q: stderr %q, want %q", tc.args, stderr.String(), tc.stderr)
		}
	}
}

// The kernel's alpha/beta scaling (sch_dualpi2.c): the netlink value is kept
// in internal units and converted back for dumps, losing one unit on the way.
func kernelScaleAlphaBeta(v uint32) uint32 {
	return uint32((uint64(v) * math.MaxUint32 >> 2) / 1000000000)
}

func kernelUnscaleAlphaBeta(v uint32) uint32 {
	return uint32((uint64(v) * 1000000000 << 2) / math.MaxUint32)
}

// TestDualPI2TdcAlphaBeta replays tdc's dualpi2.json cases 2130 and 90c1: the
// values tc derives, sent through the kernel's scaling, print as tdc expects.
func TestDualPI2TdcAlphaBeta(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{"typical_rtt 20ms max_rtt 200ms", "target 20ms tupdate 20ms alpha 0.042969 beta 1.496094 "},
		{"max_rtt 300ms", "target 50ms tupdate 50ms alpha 0.050781 beta 0.996094 "},
		// The kernel's defaults, 41 and 819, dump as 40 and 818.
		{"alpha 0.16015625 beta 3.19921875 target 15ms tupdate 16ms", "target 15ms tupdate 16ms alpha 0.156250 beta 3.195312 "},
	} {
		o, err := ParseDualPI2(splitArgs(tc.args), nil)
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		dump := &attrs.DualPI2Attrs{
			Target:  o.Target,
			Tupdate: o.Tupdate,
			Alpha:   dualpi2Ptr(kernelUnscaleAlphaBeta(kernelScaleAlphaBeta(*o.Alpha))),
			Beta:    dualpi2Ptr(kernelUnscaleAlphaBeta(kernelScaleAlphaBeta(*o.Beta))),
		}
		var out bytes.Buffer
		p := tcfmt.NewPrinter(&out, tcfmt.Options{})
		PrintDualPI2Options(p, dump)
		p.Flush()
		if out.String() != tc.want {
			t.Errorf("%q: printed %q, want %q", tc.args, out.String(), tc.want)
		}
	}
}

const incomplete = `Command line is not complete. Try option "help"`

var dualpi2ErrorCases = []struct {
	args   string
	msg    string
	usage  bool
	exit   int // tc's exit status
	stderr string
}{
	{"foo", `What is "foo"?`, true, 1, ""},
	{"limit 5 LIMIT 5", `What is "LIMIT"?`, true, 1, ""},
	{`limit 5 "quoted"`, `What is ""quoted""?`, true, 1, ""},
	{"ecn_mask", `What is "ecn_mask"?`, true, 1, ""},
	{"help", "", true, 1, ""},
	{"limit 5 help", "", true, 1, ""},
	{"limit help", `Illegal "limit"`, false, 1, ""},
	{"limit", incomplete, false, 255, ""},
	{"memlimit", incomplete, false, 255, ""},
	{"target", incomplete, false, 255, ""},
	{"tupdate", incomplete, false, 255, ""},
	{"alpha", incomplete, false, 255, ""},
	{"beta", incomplete, false, 255, ""},
	{"step_thresh", incomplete, false, 255, ""},
	{"min_qlen_step", incomplete, false, 255, ""},
	{"coupling_factor", incomplete, false, 255, ""},
	{"classic_protection", incomplete, false, 255, ""},
	{"max_rtt", incomplete, false, 255, ""},
	{"typical_rtt", incomplete, false, 255, ""},
	{"limit 5 max_rtt", incomplete, false, 255, ""},
	{"limit abc", `Illegal "limit"`, false, 1, ""},
	{"limit ", `Illegal "limit"`, false, 1, ""},
	{"limit 0x10", `Illegal "limit"`, false, 1, ""},
	{"limit 4294967296", `Illegal "limit"`, false, 1, ""},
	{"limit -1", `Illegal "limit"`, false, 1, ""},
	{"limit 10p", `Illegal "limit"`, false, 1, ""},
	{"memlimit 1k", `Illegal "memlimit"`, false, 1, ""},
	{"min_qlen_step 1p", `Illegal "min_qlen_step"`, false, 1, ""},
	{"target 1m", `Illegal "target"`, false, 1, ""},
	{"target -1ms", `Illegal "target"`, false, 1, ""},
	{"target 1e999", `Illegal "target"`, false, 1, ""},
	{"target ms", `Illegal "target"`, false, 1, ""},
	{"tupdate x", `Illegal "tupdate"`, false, 1, ""},
	{"max_rtt 3p", `Illegal "max_rtt"`, false, 1, ""},
	{"typical_rtt -5", `Illegal "typical_rtt"`, false, 1, ""},
	{"alpha -1", `Illegal "alpha"`, false, 1, ""},
	{"alpha 16777216", `Illegal "alpha"`, false, 1, ""},
	{"alpha 1Hz", `Illegal "alpha"`, false, 1, ""},
	{"alpha inf", `Illegal "alpha"`, false, 1, ""},
	{"beta ", `Illegal "beta"`, false, 1, ""},
	{"alpha 0 beta x", `Illegal "beta"`, false, 1, warnAlphaSmall},
	{"step_thresh 3P", `Illegal "step_thresh"`, false, 1, ""},
	{"step_thresh 3pk", `Illegal "step_thresh"`, false, 1, ""},
	{"step_thresh p", `Illegal "step_thresh"`, false, 1, ""},
	{"step_thresh 0x3p", `Illegal "step_thresh"`, false, 1, ""},
	{"step_thresh 4294967296p", `Illegal "step_thresh"`, false, 1, ""},
	{"step_thresh -1p", `Illegal "step_thresh"`, false, 1, ""},
	{"step_thresh 1.5p", `Illegal "step_thresh"`, false, 1, ""},
	{"coupling_factor 256", `Illegal "coupling_factor"`, false, 1, ""},
	{"coupling_factor -1", `Illegal "coupling_factor"`, false, 1, ""},
	{"coupling_factor 2x", `Illegal "coupling_factor"`, false, 1, ""},
	{"coupling_factor 4294967298", `Illegal "coupling_factor"`, false, 1, ""},
	{"classic_protection 101", `Illegal "classic_protection"`, false, 1, ""},
	{"classic_protection -1", `Illegal "classic_protection"`, false, 1, ""},
	{"classic_protection 10%%", `Illegal "classic_protection"`, false, 1, ""},
	{"classic_protection abc", `Illegal "classic_protection"`, false, 1, ""},
	{"classic_protection nan", `Illegal "classic_protection"`, false, 1, ""},
	{"classic_protection inf", `Illegal "classic_protection"`, false, 1, ""},
	{"classic_protection 10p", `Illegal "classic_protection"`, false, 1, ""},
	{"typical_rtt 300ms max_rtt 200ms", "typical_rtt must be <= max_rtt!", false, 1, ""},
	{"max_rtt 5s", "Large max_rtt=5s rounds down alpha=0.003333 and/or beta=0.060000!", false, 1, ""},
	// typical_rtt*6 wraps to 0 in 32 bits: beta becomes infinite.
	{"typical_rtt 2147483648", "max_rtt=0us is too low and cause beta to overflow!", false, 1, ""},
	// Errors in the loop win over the auto-config checks; the notice comes
	// after the loop, just before the checks.
	{"typical_rtt 300ms max_rtt 200ms foo", `What is "foo"?`, true, 1, ""},
	{"alpha 1 max_rtt 5s", "Large max_rtt=5s rounds down alpha=0.003333 and/or beta=0.060000!", false, 1, ignoreNotice},
}

func TestParseDualPI2Errors(t *testing.T) {
	for _, tc := range dualpi2ErrorCases {
		var stderr bytes.Buffer
		o, err := ParseDualPI2(splitArgs(tc.args), &stderr)
		if err == nil {
			t.Errorf("%q: accepted as %q", tc.args, describeDualPI2(o))
			continue
		}
		var pe *tcword.ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%q: error %T is not a *ParseError", tc.args, err)
			continue
		}
		if pe.Msg != tc.msg || pe.ShowUsage != tc.usage {
			t.Errorf("%q: got (%q, usage %v), want (%q, usage %v)", tc.args, pe.Msg, pe.ShowUsage, tc.msg, tc.usage)
		}
		if err.Error() != tc.msg {
			t.Errorf("%q: Error() = %q, want %q", tc.args, err.Error(), tc.msg)
		}
		exit := 1
		var ec interface{ ExitCode() int }
		if errors.As(err, &ec) {
			exit = ec.ExitCode()
		}
		if exit != tc.exit {
			t.Errorf("%q: exit %d, want %d", tc.args, exit, tc.exit)
		}
		if stderr.String() != tc.stderr {
			t.Errorf("%q: stderr %q, want %q", tc.args, stderr.String(), tc.stderr)
		}
	}
}

// dualpi2Keywords lists every keyword ParseDualPI2 knows.
var dualpi2Keywords = strings.Fields(`limit memlimit target tupdate alpha beta
	step_thresh min_qlen_step coupling_factor drop_on_overload overflow
	drop_enqueue drop_dequeue classic_protection l4s_ect any_ect split_gso
	no_split_gso max_rtt typical_rtt help`)

func TestDualPI2Usage(t *testing.T) {
	u := dualPI2Usage()
	if !strings.HasSuffix(u, "\n") {
		t.Errorf("usage does not end with a newline")
	}
	for _, kw := range dualpi2Keywords {
		if kw == "help" {
			continue
		}
		if !strings.Contains(u, kw) {
			t.Errorf("usage lacks %q", kw)
		}
	}
}

// TestDualPI2Encode checks the request bytes: nothing for empty
// options (the caller sends the empty nest), attributes in tc's order.
func TestDualPI2Encode(t *testing.T) {
	var e attrs.Encoder
	(&attrs.DualPI2Attrs{}).Encode(&e)
	if got := e.Bytes(); len(got) != 0 {
		t.Errorf("empty options: % x, want nothing", got)
	}

	o, err := ParseDualPI2(splitArgs(dualpi2ParseCases[len(dualpi2ParseCases)-1].args), nil)
	if err != nil {
		t.Fatal(err)
	}
	var e2 attrs.Encoder
	o.Encode(&e2)
	b := e2.Bytes()
	var order []uint16
	if err := attrs.ForEach(b, func(typ uint16, _ []byte) { order = append(order, typ) }); err != nil {
		t.Fatal(err)
	}
	want := []uint16{
		attrs.TCADualPI2Limit, attrs.TCADualPI2MemoryLimit, attrs.TCADualPI2Tupdate, attrs.TCADualPI2Target,
		attrs.TCADualPI2Alpha, attrs.TCADualPI2Beta, attrs.TCADualPI2ECNMask, attrs.TCADualPI2DropOverload,
		attrs.TCADualPI2Coupling, attrs.TCADualPI2SplitGSO, attrs.TCADualPI2StepThreshPkts,
		attrs.TCADualPI2MinQlenStep, attrs.TCADualPI2DropEarly, attrs.TCADualPI2CProtection,
	}
	if !reflect.DeepEqual(order, want) {
		t.Errorf("attribute order %v, want %v", order, want)
	}
	var back attrs.DualPI2Attrs
	if err := back.Decode(b); err != nil {
		t.Fatal(err)
	}
	if describeDualPI2(&back) != describeDualPI2(o) {
		t.Errorf("round trip: %q, want %q", describeDualPI2(&back), describeDualPI2(o))
	}
}

// dualpi2Defaults is what the kernel dumps for "tc qdisc add ... dualpi2" on
// a device with a 1500-byte MTU.
func dualpi2Defaults() *attrs.DualPI2Attrs {
	return &attrs.DualPI2Attrs{
		Limit:        dualpi2Ptr[uint32](10000),
		MemoryLimit:  dualpi2Ptr[uint32](30280000),
		Target:       dualpi2Ptr[uint32](15000),
		Tupdate:      dualpi2Ptr[uint32](16000),
		Alpha:        dualpi2Ptr[uint32](40),
		Beta:         dualpi2Ptr[uint32](818),
		StepThreshUS: dualpi2Ptr[uint32](1000),
		MinQlenStep:  dualpi2Ptr[uint32](0),
		Coupling:     dualpi2Ptr[uint8](2),
		DropOverload: dualpi2Ptr(attrs.DualPI2DropOverloadDrop),
		DropEarly:    dualpi2Ptr(attrs.DualPI2DropEarlyDropDequeue),
		CProtection:  dualpi2Ptr[uint8](10),
		ECNMask:      dualpi2Ptr(attrs.DualPI2ECNMaskL4SECT),
		SplitGSO:     dualpi2Ptr(attrs.DualPI2SplitGSOSplitGSO),
	}
}

// printDualPI2Options prints o alone (text), or inside an "options" object
// of a plain JSON document.
func printDualPI2Options(o *attrs.DualPI2Attrs, opt tcfmt.Options) string {
	var out bytes.Buffer
	p := tcfmt.NewPrinter(&out, opt)
	if opt.JSON {
		p.StartPlain()
		p.OpenObject("")
	}
	PrintDualPI2Options(p, o)
	if opt.JSON {
		p.CloseObject()
	}
	p.Finish()
	return out.String()
}

func TestPrintDualPI2Options(t *testing.T) {
	mod := func(f func(o *attrs.DualPI2Attrs)) *attrs.DualPI2Attrs {
		o := dualpi2Defaults()
		f(o)
		return o
	}
	const defaultsText = "limit 10000p memlimit 30280000B target 15ms tupdate 16ms alpha 0.156250 beta 3.195312 " +
		"step_thresh 1ms min_qlen_step 0p coupling_factor 2 drop_on_overload drop_dequeue classic_protection 10% l4s_ect split_gso "
	const defaultsJSON = `{"limit":10000,"memory-limit":30280000,"target":15000,"tupdate":16000,"alpha":0.15625,"beta":3.19531,` +
		`"step-thresh-us":1000,"min-qlen-step":0,"coupling":2,"drop-overload":"drop","drop-early":"drop-dequeue",` +
		`"c-protection":10,"ecn-mask":"l4s-ect","split-gso":null}` + "\n"
	for _, tc := range []struct {
		name     string
		o        *attrs.DualPI2Attrs
		text     string
		json     string
		contains bool // text and json are substrings
	}{
		{"defaults", dualpi2Defaults(), defaultsText, defaultsJSON, false},
		{"nil", nil, "", "{}\n", false},
		{"empty", &attrs.DualPI2Attrs{}, "", "{}\n", false},
		{"step packets", mod(func(o *attrs.DualPI2Attrs) { o.StepThreshUS, o.StepThreshPkts = nil, dualpi2Ptr[uint32](3) }),
			" step_thresh 3p min_qlen_step", `"beta":3.19531,"step-thresh-pkts":3,"min-qlen-step":0,`, true},
		{"step both", &attrs.DualPI2Attrs{StepThreshPkts: dualpi2Ptr[uint32](3), StepThreshUS: dualpi2Ptr[uint32](1500)},
			"step_thresh 3p step_thresh 1.5ms ", `{"step-thresh-pkts":3,"step-thresh-us":1500}` + "\n", false},
		{"overflow", mod(func(o *attrs.DualPI2Attrs) { o.DropOverload = dualpi2Ptr(attrs.DualPI2DropOverloadOverflow) }),
			" coupling_factor 2 overflow drop_dequeue ", `"drop-overload":"overflow",`, true},
		{"drop_overload 7", &attrs.DualPI2Attrs{DropOverload: dualpi2Ptr(attrs.DualPI2DropOverload(7))},
			"drop_on_overload ", `{"drop-overload":"drop"}` + "\n", false},
		{"drop_enqueue", mod(func(o *attrs.DualPI2Attrs) { o.DropEarly = dualpi2Ptr(attrs.DualPI2DropEarlyDropEnqueue) }),
			" drop_on_overload drop_enqueue classic", `"drop-early":"drop-enqueue",`, true},
		{"any_ect", &attrs.DualPI2Attrs{ECNMask: dualpi2Ptr(attrs.DualPI2ECNMaskAnyECT)},
			"any_ect ", `{"ecn-mask":"any-ect"}` + "\n", false},
		{"cla_ect", &attrs.DualPI2Attrs{ECNMask: dualpi2Ptr(attrs.DualPI2ECNMaskClaECT)},
			"any_ect ", `{"ecn-mask":"any-ect"}` + "\n", false},
		{"ecn 5", &attrs.DualPI2Attrs{ECNMask: dualpi2Ptr(attrs.DualPI2ECNMask(5))},
			"l4s_ect ", `{"ecn-mask":"l4s-ect"}` + "\n", false},
		{"ecn 0", &attrs.DualPI2Attrs{ECNMask: dualpi2Ptr(attrs.DualPI2ECNMask(0))},
			" ", `{"ecn-mask":""}` + "\n", false},
		{"no_split_gso", mod(func(o *attrs.DualPI2Attrs) { o.SplitGSO = dualpi2Ptr(attrs.DualPI2SplitGSONoSplitGSO) }),
			" l4s_ect no_split_gso ", `"ecn-mask":"l4s-ect"}` + "\n", true},
		{"split_gso 2", &attrs.DualPI2Attrs{SplitGSO: dualpi2Ptr(attrs.DualPI2SplitGSO(2))},
			"split_gso ", `{"split-gso":null}` + "\n", false},
		{"classic_protection 0", &attrs.DualPI2Attrs{CProtection: dualpi2Ptr[uint8](0)},
			"classic_protection 0% ", `{"c-protection":0}` + "\n", false},
		{"times", &attrs.DualPI2Attrs{Target: dualpi2Ptr[uint32](999), Tupdate: dualpi2Ptr[uint32](1234567), StepThreshUS: dualpi2Ptr[uint32](999999)},
			"target 999us tupdate 1.23s step_thresh 1e+03ms ", `{"target":999,"tupdate":1234567,"step-thresh-us":999999}` + "\n", false},
		// u32 -> float loses precision above 2^24, as tc's cast does.
		{"alpha max", &attrs.DualPI2Attrs{Alpha: dualpi2Ptr[uint32](2147483647), Beta: dualpi2Ptr[uint32](16777217)},
			"alpha 8388608.000000 beta 65536.000000 ", `{"alpha":8.38861e+06,"beta":65536}` + "\n", false},
		{"alpha tiny", &attrs.DualPI2Attrs{Alpha: dualpi2Ptr[uint32](1), Beta: dualpi2Ptr[uint32](0)},
			"alpha 0.003906 beta 0.000000 ", `{"alpha":0.00390625,"beta":0}` + "\n", false},
		{"max u32", &attrs.DualPI2Attrs{Limit: dualpi2Ptr[uint32](math.MaxUint32), MemoryLimit: dualpi2Ptr[uint32](math.MaxUint32),
			MinQlenStep: dualpi2Ptr[uint32](math.MaxUint32), Coupling: dualpi2Ptr[uint8](255)},
			"limit 4294967295p memlimit 4294967295B min_qlen_step 4294967295p coupling_factor 255 ",
			`{"limit":4294967295,"memory-limit":4294967295,"min-qlen-step":4294967295,"coupling":255}` + "\n", false},
	} {
		text := printDualPI2Options(tc.o, tcfmt.Options{})
		js := printDualPI2Options(tc.o, tcfmt.Options{JSON: true})
		if tc.contains {
			if !strings.Contains(text, tc.text) {
				t.Errorf("%s: text %q lacks %q", tc.name, text, tc.text)
			}
			if !strings.Contains(js, tc.json) {
				t.Errorf("%s: JSON %q lacks %q", tc.name, js, tc.json)
			}
			continue
		}
		if text != tc.text {
			t.Errorf("%s: text\n got %q\nwant %q", tc.name, text, tc.text)
		}
		if js != tc.json {
			t.Errorf("%s: JSON\n got %q\nwant %q", tc.name, js, tc.json)
		}
	}
}

func TestPrintDualPI2OptionsPretty(t *testing.T) {
	got := printDualPI2Options(dualpi2Defaults(), tcfmt.Options{JSON: true, Pretty: true})
	want := `{
    "limit": 10000,
    "memory-limit": 30280000,
    "target": 15000,
    "tupdate": 16000,
    "alpha": 0.15625,
    "beta": 3.19531,
    "step-thresh-us": 1000,
    "min-qlen-step": 0,
    "coupling": 2,
    "drop-overload": "drop",
    "drop-early": "drop-dequeue",
    "c-protection": 10,
    "ecn-mask": "l4s-ect",
    "split-gso": null
}
`
	if got != want {
		t.Errorf("pretty JSON\n got %s\nwant %s", got, want)
	}
}

func printDualPI2Xstats(x *attrs.TCDualPI2Xstats, opt tcfmt.Options) string {
	var out bytes.Buffer
	p := tcfmt.NewPrinter(&out, opt)
	if opt.JSON {
		p.StartPlain()
		p.OpenObject("")
	}
	printDualPI2Stats(p, x)
	if opt.JSON {
		p.CloseObject()
	}
	p.Finish()
	return out.String()
}

func TestPrintDualPI2Xstats(t *testing.T) {
	for _, tc := range []struct {
		name       string
		x          attrs.TCDualPI2Xstats
		text, json string
	}{
		{"idle", attrs.TCDualPI2Xstats{Credit: -121120, MemoryLimit: 30280000},
			"prob 0.000000 delay_c 0us delay_l 0us\npkts_in_c 0 pkts_in_l 0 maxq 0\necn_mark 0 step_mark 0\n" +
				"credit -121120 (L-queue)\nmemory_used 0 (max 0) of memory limit 30280000\n",
			`{"prob":0,"delay-c":0,"delay-l":0,"pkts-in-c":0,"pkts-in-l":0,"maxq":0,"ecn-mark":0,"step-mark":0,` +
				`"credit":-121120,"memory-used":0,"max-memory-used":0,"memory-limit":30280000}` + "\n"},
		{"busy", attrs.TCDualPI2Xstats{Prob: math.MaxUint32 / 2, DelayC: 1234, DelayL: 56, PacketsInC: 7, PacketsInL: 8,
			Maxq: 9, ECNMark: 10, StepMarks: 11, Credit: 1514, MemoryUsed: 2304, MaxMemoryUsed: 4608, MemoryLimit: 1},
			"prob 0.500000 delay_c 1234us delay_l 56us\npkts_in_c 7 pkts_in_l 8 maxq 9\necn_mark 10 step_mark 11\n" +
				"credit 1514 (C-queue)\nmemory_used 2304 (max 4608) of memory limit 1\n",
			`{"prob":0.5,"delay-c":1234,"delay-l":56,"pkts-in-c":7,"pkts-in-l":8,"maxq":9,"ecn-mark":10,"step-mark":11,` +
				`"credit":1514,"memory-used":2304,"max-memory-used":4608,"memory-limit":1}` + "\n"},
		{"extremes", attrs.TCDualPI2Xstats{Prob: math.MaxUint32, DelayC: math.MaxUint32, Credit: 0, PacketsInL: 3},
			"prob 1.000000 delay_c 4294967295us delay_l 0us\npkts_in_c 0 pkts_in_l 3 maxq 0\necn_mark 0 step_mark 0\n" +
				"credit 0 (L-queue)\nmemory_used 0 (max 0) of memory limit 0\n",
			`{"prob":1,"delay-c":4294967295,"delay-l":0,"pkts-in-c":0,"pkts-in-l":3,"maxq":0,"ecn-mark":0,"step-mark":0,` +
				`"credit":0,"memory-used":0,"max-memory-used":0,"memory-limit":0}` + "\n"},
		{"small prob", attrs.TCDualPI2Xstats{Prob: 12345, Credit: math.MinInt32},
			"prob 0.000003 delay_c 0us delay_l 0us\npkts_in_c 0 pkts_in_l 0 maxq 0\necn_mark 0 step_mark 0\n" +
				"credit -2147483648 (L-queue)\nmemory_used 0 (max 0) of memory limit 0\n",
			`{"prob":2.87429e-06,"delay-c":0,"delay-l":0,"pkts-in-c":0,"pkts-in-l":0,"maxq":0,"ecn-mark":0,"step-mark":0,` +
				`"credit":-2147483648,"memory-used":0,"max-memory-used":0,"memory-limit":0}` + "\n"},
	} {
		if got := printDualPI2Xstats(&tc.x, tcfmt.Options{}); got != tc.text {
			t.Errorf("%s: text\n got %q\nwant %q", tc.name, got, tc.text)
		}
		if got := printDualPI2Xstats(&tc.x, tcfmt.Options{JSON: true}); got != tc.json {
			t.Errorf("%s: JSON\n got %q\nwant %q", tc.name, got, tc.json)
		}
	}
	// -oneline replaces each line end with a backslash.
	x := attrs.TCDualPI2Xstats{Credit: -121120, MemoryLimit: 30280000}
	want := `prob 0.000000 delay_c 0us delay_l 0us\pkts_in_c 0 pkts_in_l 0 maxq 0\ecn_mark 0 step_mark 0\` +
		`credit -121120 (L-queue)\memory_used 0 (max 0) of memory limit 30280000\`
	if got := printDualPI2Xstats(&x, tcfmt.Options{Oneline: true}); got != want {
		t.Errorf("oneline\n got %q\nwant %q", got, want)
	}
	if got := printDualPI2Xstats(nil, tcfmt.Options{}); got != "" {
		t.Errorf("nil xstats printed %q", got)
	}
}

// FuzzParseDualPI2 feeds arbitrary words (separated by blanks) to the parser:
// it must not panic, must fail only with a *ParseError, and whatever it
// accepts must encode into a well-formed nest that decodes back the same.
func FuzzParseDualPI2(f *testing.F) {
	for _, tc := range dualpi2ParseCases {
		f.Add(tc.args)
	}
	for _, tc := range dualpi2ErrorCases {
		f.Add(tc.args)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := ParseDualPI2(strings.Split(s, " "), nil)
		if err != nil {
			var pe *tcword.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("%q: error %T is not a *ParseError", s, err)
			}
			return
		}
		if o == nil {
			t.Fatalf("%q: nil options without an error", s)
		}
		if o.StepThreshPkts != nil && o.StepThreshUS != nil {
			t.Fatalf("%q: both step thresholds set", s)
		}
		var e attrs.Encoder
		o.Encode(&e)
		var back attrs.DualPI2Attrs
		if err := back.Decode(e.Bytes()); err != nil {
			t.Fatalf("%q: decode: %v", s, err)
		}
		if describeDualPI2(&back) != describeDualPI2(o) {
			t.Fatalf("%q: round trip %q != %q", s, describeDualPI2(&back), describeDualPI2(o))
		}
		// Printing what was parsed must not panic either.
		printDualPI2Options(o, tcfmt.Options{})
		printDualPI2Options(o, tcfmt.Options{JSON: true, Pretty: true})
	})
}

// TestDualPI2AgainstReferenceTC compares ParseDualPI2 with iproute2's tc on
// every table row: exit status, stderr and the TCA_OPTIONS bytes tc sends
// (read with strace). It runs only when GOTC_REF_TC names a tc command (a
// program or wrapper script) and unshare and strace are installed; tc runs in
// a new network namespace against "lo", so a kernel without DualPI2 is enough
// (tc parses before it sends, and the kernel's refusal has exit status 2).
func TestDualPI2AgainstReferenceTC(t *testing.T) {
	ref := os.Getenv("GOTC_REF_TC")
	if ref == "" {
		t.Skip("GOTC_REF_TC not set")
	}
	for _, tool := range []string{"unshare", "strace"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found", tool)
		}
	}
	var all []string
	for _, tc := range dualpi2ParseCases {
		all = append(all, tc.args)
	}
	for _, tc := range dualpi2ErrorCases {
		all = append(all, tc.args)
	}
	// GOTC_REF_EXTRA: more command lines, one per line (e.g. generated ones).
	if extra := os.Getenv("GOTC_REF_EXTRA"); extra != "" {
		all = append(all, strings.Split(extra, "\n")...)
	}
	trace := filepath.Join(t.TempDir(), "strace.out")
	optsRE := regexp.MustCompile(`\{nla_len=\d+, nla_type=NLA_F_NESTED\|TCA_OPTIONS\}(?:, "([^"]*)")?`)
	for _, args := range all {
		words := splitArgs(args)
		cmd := exec.Command("unshare", append([]string{"-n", "strace", "-f", "-e", "trace=sendmsg",
			"-xx", "-s", "65536", "-o", trace, ref, "qdisc", "add", "dev", "lo", "root", "dualpi2"}, words...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		exit := 0
		if ee, ok := err.(*exec.ExitError); ok {
			exit = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		st, _ := os.ReadFile(trace)
		m := optsRE.FindSubmatch(st)

		var mine bytes.Buffer
		o, perr := ParseDualPI2(words, &mine)
		if perr == nil {
			want := mine.String() + "Error: Specified qdisc kind is unknown.\n"
			if exit != 2 || stderr.String() != want {
				t.Errorf("%q: tc exit %d stderr %q; gotc accepts with stderr %q", args, exit, stderr.String(), mine.String())
				continue
			}
			if m == nil {
				t.Errorf("%q: no TCA_OPTIONS in tc's request", args)
				continue
			}
			var e attrs.Encoder
			o.Encode(&e)
			got := fmt.Sprintf("%x", e.Bytes())
			if wantHex := strings.ReplaceAll(string(m[1]), `\x`, ""); got != wantHex {
				t.Errorf("%q: options %s, tc sent %s", args, got, wantHex)
			}
			continue
		}
		var pe *tcword.ParseError
		errors.As(perr, &pe)
		wantExit := 1
		var ec interface{ ExitCode() int }
		if errors.As(perr, &ec) {
			wantExit = ec.ExitCode()
		}
		want := mine.String()
		if pe.Msg != "" {
			want += pe.Msg + "\n"
		}
		got := stderr.String()
		if pe.ShowUsage {
			if !strings.HasPrefix(got, want+"Usage: ... dualpi2") {
				t.Errorf("%q: tc stderr %q, want %q then tc's usage", args, got, want)
			}
		} else if got != want {
			t.Errorf("%q: tc stderr %q, want %q", args, got, want)
		}
		if exit != wantExit {
			t.Errorf("%q: tc exit %d, want %d", args, exit, wantExit)
		}
		if m != nil {
			t.Errorf("%q: tc sent a request although gotc refuses", args)
		}
	}
}
