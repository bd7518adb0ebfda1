// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"

	"github.com/gotc/gotc/internal/nlabi"
	"github.com/gotc/gotc/netlink"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/requests")

// fakeKernel records requests and answers dumps from canned messages.
type fakeKernel struct {
	requests []string
	refuse   error
	dump     map[netlink.Object][]*netlink.Msg
	actions  []*netlink.ActionMsg // answers to action gets and dumps
	links    map[string]int32
}

func (f *fakeKernel) Do(ctx context.Context, o netlink.Object, op netlink.Op, m *netlink.Msg) error {
	req, err := netlink.Request(o, op, m)
	if err != nil {
		return err
	}
	var back netlink.Msg
	if err := back.UnmarshalBinary(req.Data); err != nil {
		return err
	}
	f.requests = append(f.requests, fmt.Sprintf("type=%d flags=%#x %s\n  %s", req.Header.Type, uint16(req.Header.Flags), hex.EncodeToString(req.Data), describe(reflect.ValueOf(back))))
	return f.refuse
}

func (f *fakeKernel) recordAction(typ uint16, flags uint16, m *netlink.ActionMsg) {
	data, _ := m.AppendBinary(nil)
	var back netlink.ActionMsg
	if err := back.UnmarshalBinary(data); err != nil {
		panic(err)
	}
	f.requests = append(f.requests, fmt.Sprintf("type=%d flags=%#x %s\n  %s", typ, flags, hex.EncodeToString(data), describe(reflect.ValueOf(back))))
}

func (f *fakeKernel) DoAction(ctx context.Context, op netlink.ActionOp, m *netlink.ActionMsg) error {
	req := netlink.ActionRequest(op, m)
	f.recordAction(uint16(req.Header.Type), uint16(req.Header.Flags), m)
	return f.refuse
}

// GetAction answers with the first canned action message.
func (f *fakeKernel) GetAction(ctx context.Context, m *netlink.ActionMsg) (*netlink.ActionMsg, error) {
	f.recordAction(nlabi.RTM_GETACTION, nlabi.NLM_F_REQUEST, m)
	if f.refuse != nil {
		return nil, f.refuse
	}
	if len(f.actions) == 0 {
		return nil, &netlink.Error{Errno: syscall.ENOENT}
	}
	return f.actions[0], nil
}

func (f *fakeKernel) DumpActions(ctx context.Context, m *netlink.ActionMsg, fn func(*netlink.ActionMsg, error) error) error {
	f.recordAction(nlabi.RTM_GETACTION, nlabi.NLM_F_REQUEST|nlabi.NLM_F_DUMP, m)
	for _, a := range f.actions {
		if err := fn(a, nil); err != nil {
			return err
		}
	}
	return nil
}

func (f *fakeKernel) Dump(ctx context.Context, o netlink.Object, filter netlink.DumpFilter, fn func(*netlink.Msg, error) error) error {
	for _, m := range f.dump[o] {
		if filter.Ifindex != 0 && m.Header.Ifindex != filter.Ifindex && m.Header.Ifindex != netlink.IfindexBlock {
			continue
		}
		if err := fn(m, nil); err != nil {
			return err
		}
	}
	return nil
}

// Get records the request and answers with the first canned message of
// the object whose header names the same device, parent and handle (and
// chain, when the request names one).
func (f *fakeKernel) Get(ctx context.Context, o netlink.Object, m *netlink.Msg) (*netlink.Msg, error) {
	req, err := netlink.GetRequest(o, m)
	if err != nil {
		return nil, err
	}
	var back netlink.Msg
	if err := back.UnmarshalBinary(req.Data); err != nil {
		return nil, err
	}
	f.requests = append(f.requests, fmt.Sprintf("type=%d flags=%#x %s\n  %s", req.Header.Type, uint16(req.Header.Flags), hex.EncodeToString(req.Data), describe(reflect.ValueOf(back))))
	if f.refuse != nil {
		return nil, f.refuse
	}
	for _, d := range f.dump[o] {
		h := d.Header
		if h.Ifindex != m.Header.Ifindex || h.Parent != m.Header.Parent || h.Handle != m.Header.Handle {
			continue
		}
		if c := m.Attrs.Chain; c != nil && (d.Attrs.Chain == nil || *d.Attrs.Chain != *c) {
			continue
		}
		return d, nil
	}
	return nil, &netlink.Error{Errno: syscall.ENOENT}
}

func (f *fakeKernel) LinkIndex(ctx context.Context, name string) (int32, error) {
	if idx, ok := f.links[name]; ok {
		return idx, nil
	}
	return 0, &netlink.NoDeviceError{Name: name}
}

func (f *fakeKernel) LinkNames(ctx context.Context) (map[int32]string, error) {
	names := map[int32]string{}
	for n, i := range f.links {
		names[i] = n
	}
	return names, nil
}

func (f *fakeKernel) Close() error { return nil }

func newFake() *fakeKernel {
	return &fakeKernel{links: map[string]int32{"eth0": 2, "dummy0": 3}}
}

// describe renders a decoded message readably for the goldens: the fields
// that are set, with pointers followed and enums by name.
func describe(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return ""
		}
		return describe(v.Elem())
	case reflect.Struct:
		var parts []string
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			if f.IsZero() {
				continue
			}
			parts = append(parts, v.Type().Field(i).Name+"="+describe(f))
		}
		return "{" + strings.Join(parts, " ") + "}"
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return hex.EncodeToString(v.Bytes())
		}
		var parts []string
		for i := 0; i < v.Len(); i++ {
			parts = append(parts, describe(v.Index(i)))
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	if s, ok := v.Interface().(fmt.Stringer); ok {
		return s.String()
	}
	return fmt.Sprint(v.Interface())
}

// gotc runs one command line against k and returns status, stdout, stderr.
func gotc(k *fakeKernel, line string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	args := append([]string{"gotc"}, strings.Fields(line)...)
	status := run(args, strings.NewReader(""), &stdout, &stderr, func(int) (conn, error) { return k, nil })
	return status, stdout.String(), stderr.String()
}

// TestRequestGoldens checks the bytes of the request each command line sends
// against testdata/requests: at least one line per keyword of every kind.
func TestRequestGoldens(t *testing.T) {
	files, err := filepath.Glob("testdata/requests/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no request goldens: %v", err)
	}
	total := 0
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		for _, block := range strings.Split(strings.TrimSpace(string(raw)), "\n\n") {
			lines := strings.Split(block, "\n")
			cmd := strings.TrimPrefix(lines[0], "$ gotc ")
			k := newFake()
			status, _, stderr := gotc(k, cmd)
			got := fmt.Sprintf("$ gotc %s\nexit %d\n", cmd, status)
			for _, r := range k.requests {
				got += r + "\n"
			}
			for _, l := range strings.Split(strings.TrimRight(stderr, "\n"), "\n") {
				if l != "" {
					got += "stderr: " + l + "\n"
				}
			}
			if want := block + "\n"; !*update && got != want {
				t.Errorf("%s:\n got:\n%s want:\n%s", file, got, want)
			}
			out.WriteString(got + "\n")
			total++
		}
		if *update {
			if err := os.WriteFile(file, []byte(strings.TrimRight(out.String(), "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("%d command lines checked", total)
}

func TestBadOptionSendsNothing(t *testing.T) {
	for _, line := range []string{
		"qdisc add dev eth0 root cake bandwidth foo",
		"qdisc add dev eth0 root cake overhead 300",
		"qdisc add dev eth0 root cake nosuchword",
		"qdisc add dev eth0 root dualpi2 limit x",
		"qdisc add dev eth0 root dualpi2 classic_protection 101",
		"qdisc add dev eth0 root dualpi2 nosuchword",
		"qdisc add dev eth0 root sfq limit 1",
	} {
		k := newFake()
		status, _, stderr := gotc(k, line)
		if status != exitBadOption || len(k.requests) != 0 || stderr == "" {
			t.Errorf("%q: status %d, %d requests sent, stderr %q", line, status, len(k.requests), stderr)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct{ line, stderr string }{
		{"qdisk show", `Object "qdisk" is unknown, try "tc help".`},
		{"qdisc frob", `Command "frob" is unknown, try "tc qdisc help".`},
		{"qdisc add dev", `Command line is not complete. Try option "help"`},
		{"qdisc add dev eth0 dev eth0 root cake", `Error: duplicate "dev": "eth0" is the second value.`},
		{"qdisc add dev eth0 root root cake", `Error: "root" is duplicate parent ID`},
		{"qdisc show foo", `What is "foo"? Try "tc qdisc help".`},
		{"-x qdisc show", `Option "-x" is unknown, try "tc -help".`},
	} {
		k := newFake()
		status, _, stderr := gotc(k, tc.line)
		if status != exitUsage || strings.TrimSpace(stderr) != tc.stderr || len(k.requests) != 0 {
			t.Errorf("%q: status %d, stderr %q, want 255 and %q", tc.line, status, stderr, tc.stderr)
		}
	}
}

func TestUnknownDevice(t *testing.T) {
	status, _, stderr := gotc(newFake(), "qdisc add dev nosuch root cake")
	if status != exitBadOption || stderr != "Cannot find device \"nosuch\"\n" {
		t.Fatalf("status %d stderr %q", status, stderr)
	}
}

// TestMissingNetnsOnce: a namespace that cannot be opened is said once, as
// tc says it, though the command asks for it again to name the device.
func TestMissingNetnsOnce(t *testing.T) {
	for _, line := range []string{"qdisc show", "qdisc show dev eth0", "-s class show dev eth0", "filter show dev eth0", "stats dev eth0 count 1"} {
		status, _, stderr := gotc(newFake(), "-n gotc-test-no-such-ns "+line)
		if want := "Cannot open network namespace \"gotc-test-no-such-ns\": No such file or directory\n"; status != exitUsage || stderr != want {
			t.Errorf("%q: status %d, stderr %q; want 255, %q", line, status, stderr, want)
		}
	}
}

// TestLongDeviceNameCut: tc copies the word after "dev" into IFNAMSIZ
// bytes, so it looks up, and names in its message, the first 15 characters.
func TestLongDeviceNameCut(t *testing.T) {
	long := strings.Repeat("a", 200)
	for _, line := range []string{"qdisc show dev ", "qdisc add dev %s root cake", "class show dev ", "filter show dev ", "chain show dev ", "stats count 1 dev "} {
		if !strings.Contains(line, "%s") {
			line += "%s"
		}
		status, _, stderr := gotc(newFake(), fmt.Sprintf(line, long))
		if want := "Cannot find device \"aaaaaaaaaaaaaaa\"\n"; status != exitBadOption || stderr != want {
			t.Errorf("%q: status %d, stderr %q; want 1, %q", line, status, stderr, want)
		}
	}
	k := newFake()
	k.links["abcdefghijklmno"] = 7
	if status, _, stderr := gotc(k, "qdisc add dev abcdefghijklmnopqrst root cake"); status != exitOK || len(k.requests) != 1 || !strings.Contains(k.requests[0], "Ifindex=7") {
		t.Errorf("a long name of a device with its first 15 characters: status %d, stderr %q, requests %q", status, stderr, k.requests)
	}
}

func TestKernelRefusalPrintsExtack(t *testing.T) {
	k := newFake()
	k.refuse = &netlink.Error{Errno: 22, Message: "Dualpi2 options are required"}
	status, _, stderr := gotc(k, "qdisc change dev eth0 root dualpi2")
	if status != exitKernel || stderr != "Error: Dualpi2 options are required.\n" {
		t.Fatalf("status %d stderr %q", status, stderr)
	}
	k.refuse = &netlink.Error{Errno: 2}
	_, _, stderr = gotc(k, "qdisc del dev eth0 root")
	if stderr != "RTNETLINK answers: No such file or directory\n" {
		t.Fatalf("stderr %q", stderr)
	}
}

func TestGlobalOptionAbbreviations(t *testing.T) {
	for _, line := range []string{"-s qdisc show", "-stat qdisc show", "--stats qdisc show", "-statistics qdisc show", "-j -p -s -d qdisc ls", "-n qdisc show"} {
		k := newFake()
		status, _, stderr := gotc(k, line)
		if line == "-n qdisc show" {
			// -n takes the namespace name "qdisc"; "show" is then an unknown object.
			if status != exitUsage {
				t.Errorf("%q: status %d (%s)", line, status, stderr)
			}
			continue
		}
		if status != exitOK {
			t.Errorf("%q: status %d (%s)", line, status, stderr)
		}
	}
}

// TestOptionsInTcsOrder: options are read one by one, as tc reads them, so
// that -Version and -help act where they stand and a missing value is tc's
// error.
func TestOptionsInTcsOrder(t *testing.T) {
	for _, tc := range []struct {
		line           string
		status         int
		stdout, stderr string
	}{
		{"-V -x", exitOK, versionLine(debug.ReadBuildInfo()) + "\n", ""},
		{"-x -V", exitUsage, "", `Option "-x" is unknown, try "tc -help".` + "\n"},
		{"-s -Version", exitOK, versionLine(debug.ReadBuildInfo()) + "\n", ""},
		{"-batch", exitUsage, "", `Error: argument "batch file" is required` + "\n"},
		{"-netns", exitUsage, "", `Command line is not complete. Try option "help"` + "\n"},
		{"-- -s", exitUsage, "", `Object "-s" is unknown, try "tc help".` + "\n"},
	} {
		k := newFake()
		status, stdout, stderr := gotc(k, tc.line)
		if status != tc.status || stdout != tc.stdout || stderr != tc.stderr || len(k.requests) != 0 {
			t.Errorf("%q: status %d, stdout %q, stderr %q; want %d, %q, %q", tc.line, status, stdout, stderr, tc.status, tc.stdout, tc.stderr)
		}
	}
}

func TestBatchStopsAtFirstFailure(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "cmds")
	os.WriteFile(file, []byte("qdisc add dev eth0 root cake\n# comment\n\nqdisc add dev eth0 root cake bandwidth x\nqdisc del dev eth0 root\n"), 0o644)
	k := newFake()
	status, _, stderr := gotc(k, "-batch "+file)
	if status != exitBadOption || len(k.requests) != 1 || !strings.Contains(stderr, "Command failed "+file+":4") {
		t.Fatalf("status %d, %d requests, stderr %q", status, len(k.requests), stderr)
	}
	k = newFake()
	status, _, _ = gotc(k, "-force -batch "+file)
	if status != exitBadOption || len(k.requests) != 2 {
		t.Fatalf("-force: status %d, %d requests", status, len(k.requests))
	}
}

// TestReadCommand: comments and continued lines as tc's getcmdline reads
// them.
func TestReadCommand(t *testing.T) {
	in := bufio.NewReader(strings.NewReader("a \\\n  b\\\nc\n" + // three lines joined
		"d # e \\\n" + // a comment hides the backslash
		"f \"g#h\"\n" + // '#' ends the line inside quotes too
		"i\\ \n" + // a backslash not right before the newline
		"j\r\n" +
		"k \\\n")) // a continuation at the end
	for _, want := range []struct {
		cmd   string
		lines int
		err   error
	}{
		{"a   bc\n", 3, nil},
		{"d ", 1, nil},
		{"f \"g", 1, nil},
		{"i\\ \n", 1, nil},
		{"j\r\n", 1, nil},
		{"", 1, errMissingContinuation},
		{"", 0, nil},
	} {
		cmd, lines, err := readCommand(in)
		if cmd != want.cmd || lines != want.lines || err != want.err {
			t.Errorf("readCommand: %q, %d lines, %v; want %q, %d, %v", cmd, lines, err, want.cmd, want.lines, want.err)
		}
	}
}

// TestQdiscHelpListsKinds: the qdisc usage lists the kinds of the
// registry, mq (which apply --example uses) among them.
func TestQdiscHelpListsKinds(t *testing.T) {
	_, _, stderr := gotc(newFake(), "qdisc help")
	for _, kind := range []string{"mq", "cake", "htb", "teql0"} {
		if !strings.Contains(stderr, " "+kind+" ") {
			t.Errorf("qdisc help does not list %s:\n%s", kind, stderr)
		}
	}
}
