// SPDX-License-Identifier: Apache-2.0

package qdisc

import (
	"bytes"
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
)

// This file replays testdata/dualpi2/reference.txt, a transcript of the
// reference tc on a kernel with DualPI2 (see testdata/dualpi2/README.md).
// A small model of sch_dualpi2.c's configuration (defaults, change, dump)
// stands in for the kernel: each "qdisc add/change/replace" runs through
// ParseDualPI2 and the model, and each "qdisc show" must then print exactly
// what tc printed.

// dualpi2Model is the configuration part of sch_dualpi2.c, in its internal
// units (nanoseconds, internal alpha/beta) on a device whose psched_mtu is
// 1514 (a 1500-byte Ethernet-like device such as dummy).
type dualpi2Model struct {
	limit, memoryLimit uint32
	targetNS           uint64
	tupdateNS          uint32
	alpha, beta        uint32
	stepThresh         uint32 // ns, or packets when stepInPackets
	stepInPackets      bool
	minQlenStep        uint32
	coupling           uint8
	dropOverload       bool
	dropEarly          bool
	wc                 uint8
	credit             int32
	ecnMask            uint8
	splitGSO           bool
}

const dualpi2ModelMTU = 1514

func modelMemoryLimit(limit uint32) uint32 {
	m := uint64(limit) * 2 * dualpi2ModelMTU
	if m > math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(m)
}

func modelUsToNs(us uint32) uint32 {
	return uint32(min(uint64(us)*1000, math.MaxUint32))
}

func modelNsToUs(ns uint64) uint32 {
	return uint32(min(ns/1000, math.MaxUint32))
}

func newDualPI2Model() *dualpi2Model {
	m := &dualpi2Model{
		limit:        10000,
		targetNS:     15000000,
		tupdateNS:    16000000,
		alpha:        kernelScaleAlphaBeta(41),
		beta:         kernelScaleAlphaBeta(819),
		stepThresh:   1000000,
		coupling:     2,
		dropOverload: true,
		ecnMask:      1,
		splitGSO:     true,
	}
	m.memoryLimit = modelMemoryLimit(m.limit)
	m.setWC(10)
	return m
}

func (m *dualpi2Model) setWC(wc uint8) {
	m.wc = wc
	m.credit = dualpi2ModelMTU * (int32(wc) - int32(100-wc))
}

// change applies o as dualpi2_change does, after the netlink policy checks.
// It returns the extack message tc prints (without "Error: " and the final
// "."), or "" when the kernel accepts.
func (m *dualpi2Model) change(o *attrs.DualPI2Attrs, empty bool) string {
	if empty {
		return "sch_dualpi2: Dualpi2 options are required"
	}
	const outOfRange = "integer out of range"
	switch {
	case o.Limit != nil && *o.Limit < 1,
		o.MemoryLimit != nil && *o.MemoryLimit < 1,
		o.Tupdate != nil && *o.Tupdate < 1,
		o.Alpha != nil && (*o.Alpha < 1 || *o.Alpha > math.MaxInt32),
		o.Beta != nil && (*o.Beta < 1 || *o.Beta > math.MaxInt32),
		o.Coupling != nil && *o.Coupling < 1,
		o.DropOverload != nil && *o.DropOverload > 1,
		o.DropEarly != nil && *o.DropEarly > 1,
		o.CProtection != nil && *o.CProtection > 100,
		o.ECNMask != nil && (*o.ECNMask < 1 || *o.ECNMask > 3),
		o.SplitGSO != nil && *o.SplitGSO > 1:
		return outOfRange
	case o.StepThreshPkts != nil && o.StepThreshUS != nil:
		return "sch_dualpi2: multiple step thresh attributes"
	}
	if o.Limit != nil {
		m.limit = *o.Limit
		m.memoryLimit = modelMemoryLimit(m.limit)
	}
	if o.MemoryLimit != nil {
		m.memoryLimit = *o.MemoryLimit
	}
	if o.Target != nil {
		m.targetNS = uint64(*o.Target) * 1000
	}
	if o.Tupdate != nil {
		m.tupdateNS = modelUsToNs(*o.Tupdate)
	}
	if o.Alpha != nil {
		m.alpha = kernelScaleAlphaBeta(*o.Alpha)
	}
	if o.Beta != nil {
		m.beta = kernelScaleAlphaBeta(*o.Beta)
	}
	if o.StepThreshPkts != nil {
		m.stepInPackets, m.stepThresh = true, *o.StepThreshPkts
	} else if o.StepThreshUS != nil {
		m.stepInPackets, m.stepThresh = false, modelUsToNs(*o.StepThreshUS)
	}
	if o.MinQlenStep != nil {
		m.minQlenStep = *o.MinQlenStep
	}
	if o.Coupling != nil {
		m.coupling = *o.Coupling
	}
	if o.DropOverload != nil {
		m.dropOverload = *o.DropOverload != 0
	}
	if o.DropEarly != nil {
		m.dropEarly = *o.DropEarly != 0
	}
	if o.CProtection != nil {
		m.setWC(*o.CProtection)
	}
	if o.ECNMask != nil {
		m.ecnMask = uint8(*o.ECNMask)
	}
	if o.SplitGSO != nil {
		m.splitGSO = *o.SplitGSO != 0
	}
	return ""
}

func b2u8(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// dump is dualpi2_dump: every option, in the kernel's units.
func (m *dualpi2Model) dump() *attrs.DualPI2Attrs {
	o := &attrs.DualPI2Attrs{
		Limit:        dualpi2Ptr(m.limit),
		MemoryLimit:  dualpi2Ptr(m.memoryLimit),
		Target:       dualpi2Ptr(modelNsToUs(m.targetNS)),
		Tupdate:      dualpi2Ptr(modelNsToUs(uint64(m.tupdateNS))),
		Alpha:        dualpi2Ptr(kernelUnscaleAlphaBeta(m.alpha)),
		Beta:         dualpi2Ptr(kernelUnscaleAlphaBeta(m.beta)),
		MinQlenStep:  dualpi2Ptr(m.minQlenStep),
		Coupling:     dualpi2Ptr(m.coupling),
		DropOverload: dualpi2Ptr(attrs.DualPI2DropOverload(b2u8(m.dropOverload))),
		DropEarly:    dualpi2Ptr(attrs.DualPI2DropEarly(b2u8(m.dropEarly))),
		CProtection:  dualpi2Ptr(m.wc),
		ECNMask:      dualpi2Ptr(attrs.DualPI2ECNMask(m.ecnMask)),
		SplitGSO:     dualpi2Ptr(attrs.DualPI2SplitGSO(b2u8(m.splitGSO))),
	}
	if m.stepInPackets {
		o.StepThreshPkts = dualpi2Ptr(m.stepThresh)
	} else {
		o.StepThreshUS = dualpi2Ptr(modelNsToUs(uint64(m.stepThresh)))
	}
	return o
}

// xstats is dualpi2_dump_stats of an idle qdisc.
func (m *dualpi2Model) xstats() *attrs.TCDualPI2Xstats {
	return &attrs.TCDualPI2Xstats{Credit: m.credit, MemoryLimit: m.memoryLimit}
}

// show prints the qdisc as "tc [-s] [-j [-p]] qdisc show dev d0" does for
// handle 1: at the root of a device with one tx queue, idle.
func (m *dualpi2Model) show(opt tcfmt.Options, stats bool) string {
	var out bytes.Buffer
	p := tcfmt.NewPrinter(&out, opt)
	p.Start()
	p.QdiscHead(&tcfmt.QdiscHeader{Kind: "dualpi2", Handle: 0x10000, Parent: tcfmt.HandleRoot, Info: 2, Dev: "d0"})
	p.OpenObject("options")
	PrintDualPI2Options(p, m.dump())
	p.CloseObject()
	p.NL()
	if stats {
		p.Stats(&tcfmt.Stats2{HasBasic: true, HasQueue: true}, " ")
		p.NL()
		printDualPI2Stats(p, m.xstats())
		p.NL()
	}
	p.QdiscTail("", false)
	p.Finish()
	return out.String()
}

type refRecord struct {
	cmd            []string
	exit           int
	stdout, stderr string
}

func readReference(t *testing.T) []refRecord {
	b, err := os.ReadFile("../testdata/dualpi2/reference.txt")
	if err != nil {
		t.Skipf("no reference transcript: %v", err)
	}
	var recs []refRecord
	var cur *refRecord
	var section *strings.Builder
	var out, errb strings.Builder
	for _, line := range strings.SplitAfter(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "### CMD: "):
			recs = append(recs, refRecord{cmd: strings.Fields(strings.TrimPrefix(line, "### CMD: "))})
			cur = &recs[len(recs)-1]
			out.Reset()
			errb.Reset()
			section = nil
		case cur == nil:
		case strings.HasPrefix(line, "### EXIT: "):
			n := 0
			for _, c := range strings.TrimSpace(strings.TrimPrefix(line, "### EXIT: ")) {
				n = n*10 + int(c-'0')
			}
			cur.exit = n
		case line == "### STDOUT:\n":
			section = &out
		case line == "### STDERR:\n":
			section = &errb
		case line == "### END\n":
			cur.stdout, cur.stderr = out.String(), errb.String()
			cur, section = nil, nil
		case section != nil:
			section.WriteString(line)
		}
	}
	if len(recs) == 0 {
		t.Fatal("empty reference transcript")
	}
	return recs
}

func TestDualPI2ReferenceTranscript(t *testing.T) {
	recs := readReference(t)
	var m *dualpi2Model
	checked := 0
	for _, r := range recs {
		name := strings.Join(r.cmd, " ")
		if len(r.cmd) < 3 || !strings.HasSuffix(r.cmd[0], "/tc") {
			continue
		}
		flags, rest := []string{}, r.cmd[1:]
		for len(rest) > 0 && strings.HasPrefix(rest[0], "-") {
			flags, rest = append(flags, rest[0]), rest[1:]
		}
		if len(rest) < 2 || rest[0] != "qdisc" {
			continue
		}
		switch verb := rest[1]; verb {
		case "add", "change", "replace":
			i := 0
			for i < len(rest) && rest[i] != "dualpi2" {
				i++
			}
			if i == len(rest) {
				t.Fatalf("%s: no dualpi2", name)
			}
			args := rest[i+1:]
			var stderr bytes.Buffer
			o, err := ParseDualPI2(args, &stderr)
			if err != nil {
				var pe *tcword.ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("%s: %v", name, err)
				}
				exit := 1
				var ec interface{ ExitCode() int }
				if errors.As(err, &ec) {
					exit = ec.ExitCode()
				}
				want := stderr.String()
				if pe.Msg != "" {
					want += pe.Msg + "\n"
				}
				if r.exit != exit || !strings.HasPrefix(r.stderr, want) ||
					(pe.ShowUsage != strings.Contains(r.stderr, "Usage: ... dualpi2")) {
					t.Errorf("%s: tc exit %d stderr %q; gotc exit %d stderr %q usage %v",
						name, r.exit, r.stderr, exit, want, pe.ShowUsage)
				}
				checked++
				continue
			}
			empty := describeDualPI2(o) == ""
			target := m
			if verb == "add" || (verb == "replace" && m == nil) {
				target = newDualPI2Model()
				empty = false // init ignores an empty nest
			}
			msg := target.change(o, empty)
			wantErr := stderr.String()
			wantExit := 0
			if msg != "" {
				wantErr += "Error: " + msg + ".\n"
				wantExit = 2
			}
			if r.exit != wantExit || r.stderr != wantErr {
				t.Errorf("%s: tc exit %d stderr %q; model exit %d stderr %q", name, r.exit, r.stderr, wantExit, wantErr)
			}
			if msg == "" && r.exit == 0 {
				m = target
			}
			checked++
		case "del":
			m = nil
		case "show":
			var opt tcfmt.Options
			stats := false
			for _, f := range flags {
				switch f {
				case "-s":
					stats = true
				case "-j":
					opt.JSON = true
				case "-p":
					opt.Pretty = true
				}
			}
			want := ""
			if m != nil {
				want = m.show(opt, stats)
			} else if opt.JSON {
				want = "[]\n"
			}
			// Without a dualpi2 the device shows its default qdisc: skip.
			if m == nil && r.stdout != want {
				continue
			}
			if r.stdout != want || r.exit != 0 || r.stderr != "" {
				t.Errorf("%s:\n tc printed %q (exit %d, stderr %q)\ngotc prints %q", name, r.stdout, r.exit, r.stderr, want)
			}
			checked++
		}
	}
	t.Logf("%d records checked", checked)
}
