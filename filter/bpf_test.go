// SPDX-License-Identifier: Apache-2.0

package filter

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/bpfprog"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tckind"
)

// TestParseBPFBytecode: tc's bytecode strings, and the ones it refuses
// with what it prints.
func TestParseBPFBytecode(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []attrs.SockFilter
		err  string
	}{
		{"1,6 0 0 0", []attrs.SockFilter{{Code: 6}}, ""},
		{"2,40 0 0 12,21 0 1 2048,", []attrs.SockFilter{{Code: 40, K: 12}, {Code: 21, Jf: 1, K: 2048}}, ""},
		{"1,6 0 0 4294967295", []attrs.SockFilter{{Code: 6, K: 4294967295}}, ""},
		{"1,6 0 0 -1", []attrs.SockFilter{{Code: 6, K: 4294967295}}, ""},
		{"1, 6 0 0 7", []attrs.SockFilter{{Code: 6, K: 7}}, ""},
		{"1;6 0 0 0", nil, ""},
		{"0,", nil, ""},
		{"4097,6 0 0 0", nil, ""},
		{"2,6 0 0 0", nil, "Parsed program length is less than encoded length parameter!"},
		{"1,6 0 0 0,6 0 0 0", nil, "Real program length exceeds encoded length parameter!"},
		{"2,6 0 0 0,6 x 0 0", nil, "Error at instruction 1!"},
	} {
		got, err := bpfprog.ParseBytecode(c.in)
		if c.want != nil {
			if err != nil {
				t.Errorf("%q: %v", c.in, err)
			} else if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("%q: (-want +got)\n%s", c.in, d)
			}
			continue
		}
		if err == nil || err.Error() != c.err {
			t.Errorf("%q: error %v, want %q", c.in, err, c.err)
		}
	}
}

// TestParseBPFFilter: the filter's keywords, in the attributes they set.
func TestParseBPFFilter(t *testing.T) {
	u32 := func(v uint32) *uint32 { return &v }
	u16 := func(v uint16) *uint16 { return &v }
	op := bpfprog.OpsBytes([]attrs.SockFilter{{Code: 6}})
	for _, c := range []struct {
		args string
		want *attrs.BPFAttrs
		err  string
	}{
		{"bytecode 1,6@0@0@0 classid 1:1 da skip_hw", &attrs.BPFAttrs{Classid: u32(0x10001), OpsLen: u16(1), Ops: op, Flags: u32(1), FlagsGen: u32(1)}, ""},
		{"run bc 1,6@0@0@0 skip_sw", &attrs.BPFAttrs{OpsLen: u16(1), Ops: op, FlagsGen: u32(2)}, ""},
		{"classid 1:2", &attrs.BPFAttrs{Classid: u32(0x10002), OpsLen: u16(0), Ops: []byte{}}, ""},
		{"bytecode 1,6@0@0@0 foo", nil, "What is \"foo\"?\n" + bpfFilterUsage},
		{"foo", nil, "What mode is \"foo\"?\nUnable to parse bpf command line"},
		{"bytecode 2,6@0@0@0", nil, "Parsed program length is less than encoded length parameter!\nUnable to parse bpf command line"},
		{"object-file /nonexistent/x.o", nil, "Error opening object /nonexistent/x.o: No such file or directory\nCannot initialize ELF context!\nUnable to load program"},
	} {
		args := strings.Fields(c.args)
		for i := range args {
			args[i] = strings.ReplaceAll(args[i], "@", " ")
		}
		got, _, err := parseBPFFilter(args, tckind.FilterEnv{})
		if c.want != nil {
			if err != nil {
				t.Errorf("%q: %v", c.args, err)
			} else if d := cmp.Diff(attrs.TCOptionsMsg(c.want), got); d != "" {
				t.Errorf("%q: (-want +got)\n%s", c.args, d)
			}
			continue
		}
		if err == nil || err.Error() != c.err {
			t.Errorf("%q: error %v, want %q", c.args, err, c.err)
		}
	}
}

// TestObjectLoader: an ELF object goes to the loader installed, whose error
// prints as tc's message; without one it is refused as tc without ELF
// support refuses it.
func TestObjectLoader(t *testing.T) {
	defer bpfprog.SetObjectLoader(nil)
	const obj = "../testdata/bpf-prog.o"
	if _, err := bpfprog.LoadObject(obj, "classifier", "", bpfprog.ProgSchedCLS); err == nil || err.Error() != "No ELF library support compiled in." {
		t.Errorf("without a loader: error %v", err)
	}
	var got []any
	bpfprog.SetObjectLoader(func(file, section, prog string, forAction bool) (int, error) {
		got = append(got, file, section, prog, forAction)
		if section == "nosuch" {
			return -1, errors.New("object file doesn't contain sec nosuch")
		}
		return 42, nil
	})
	if fd, err := bpfprog.LoadObject(obj, "action", "p", bpfprog.ProgSchedACT); fd != 42 || err != nil {
		t.Errorf("loaded: fd %d, error %v", fd, err)
	}
	var perr *tcword.ParseError
	if _, err := bpfprog.LoadObject(obj, "nosuch", "", bpfprog.ProgSchedCLS); !errors.As(err, &perr) || err.Error() != "object file doesn't contain sec nosuch" {
		t.Errorf("refused: error %#v", err)
	}
	if _, err := bpfprog.LoadObject("/nonexistent.o", "x", "", bpfprog.ProgSchedCLS); err == nil || !strings.HasPrefix(err.Error(), "Error opening object /nonexistent.o: ") {
		t.Errorf("missing file: error %v", err)
	}
	if d := cmp.Diff([]any{obj, "action", "p", true, obj, "nosuch", "", false}, got); d != "" {
		t.Errorf("loader calls (-want +got)\n%s", d)
	}
}
