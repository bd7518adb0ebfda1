package qdisc

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gotc/gotc/attrs"
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
		got, err := parseBPFBytecode(c.in)
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
	op := bpfOpsBytes([]attrs.SockFilter{{Code: 6}})
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
		got, _, err := parseBPFFilter(args, FilterEnv{})
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

// TestLoadBPFObject loads testdata/bpf-prog.o's sections (where the
// system lets the test load programs) and refuses a section it lacks.
func TestLoadBPFObject(t *testing.T) {
	const obj = "../testdata/bpf-prog.o"
	if _, err := loadBPFObject(obj, "nosuch", "", bpfProgSchedCLS); err == nil || err.Error() != "object file doesn't contain sec nosuch" {
		t.Errorf("section nosuch: error %v", err)
	}
	for _, c := range []struct {
		section string
		typ     bpfProgType
	}{{"classifier", bpfProgSchedCLS}, {"action", bpfProgSchedACT}} {
		fd, err := loadBPFObject(obj, c.section, "", c.typ)
		if err != nil {
			t.Skipf("cannot load BPF programs here: %v", err)
		}
		if fd < 0 {
			t.Errorf("section %s: fd %d", c.section, fd)
		}
	}
}
