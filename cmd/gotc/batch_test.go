// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/nlabi"
	"github.com/gotc/gotc/netlink"
	mnl "github.com/mdlayher/netlink"
	"github.com/mdlayher/netlink/nltest"
	"golang.org/x/sys/unix"
)

// rtKernel is a fake rtnetlink below a real netlink.Conn (through nltest), so
// batches go through netlink.Conn.Pipeline. Like the kernel it processes every
// message of a datagram in order, even after one fails, and answers each that
// is refused or asks for an answer with its own datagram; it refuses tc
// requests for the device failDev.
type rtKernel struct {
	links   map[string]int32
	qdiscs  []*netlink.Msg // what a qdisc dump lists
	failDev int32
	failReq int      // refuse the failReq-th tc request too (1-based; 0: none)
	log     []string // what it processed, in order: "qdisc 3" or "dump qdisc"
	bursts  []int    // tc requests per sendmsg
	queue   [][]mnl.Message
}

func (k *rtKernel) fn(reqs []mnl.Message) ([]mnl.Message, error) {
	if reqs == nil {
		if len(k.queue) == 0 {
			return nil, fmt.Errorf("read with nothing queued")
		}
		d := k.queue[0]
		k.queue = k.queue[1:]
		return d, nil
	}
	tcReqs := 0
	for _, r := range reqs {
		seq := r.Header.Sequence
		ack := func(errno unix.Errno, msg string) []mnl.Message {
			b := binary.NativeEndian.AppendUint32(nil, uint32(-int32(errno)))
			b = append(b, make([]byte, 16)...)
			flags := mnl.HeaderFlags(0)
			if msg != "" {
				flags = mnl.HeaderFlags(nlabi.NLM_F_ACK_TLVS | nlabi.NLM_F_CAPPED)
				e := attrs.NewEncoder(b)
				e.String(nlabi.NLMSGERR_ATTR_MSG, msg)
				b = e.Bytes()
			}
			return []mnl.Message{{Header: mnl.Header{Type: mnl.Error, Flags: flags, Sequence: seq}, Data: b}}
		}
		switch t := uint16(r.Header.Type); t {
		case nlabi.RTM_GETLINK:
			if r.Header.Flags&mnl.Dump != 0 {
				k.log = append(k.log, "dump links")
				var d []mnl.Message
				for name, idx := range k.links {
					d = append(d, linkMsg(seq, name, idx, mnl.Multi))
				}
				k.queue = append(k.queue, append(d, mnl.Message{Header: mnl.Header{Type: mnl.Done, Flags: mnl.Multi, Sequence: seq}, Data: make([]byte, 4)}))
				continue
			}
			var name string
			attrs.ForEach(r.Data[16:], func(typ uint16, data []byte) {
				if typ == nlabi.IFLA_IFNAME {
					name = strings.TrimRight(string(data), "\x00")
				}
			})
			k.log = append(k.log, "link "+name)
			if idx, ok := k.links[name]; ok {
				k.queue = append(k.queue, []mnl.Message{linkMsg(seq, name, idx, 0)})
			} else {
				k.queue = append(k.queue, ack(unix.ENODEV, ""))
			}
		case nlabi.RTM_GETQDISC:
			k.log = append(k.log, "dump qdisc")
			var d []mnl.Message
			for _, q := range k.qdiscs {
				b, err := q.MarshalBinary()
				if err != nil {
					return nil, err
				}
				d = append(d, mnl.Message{Header: mnl.Header{Type: nlabi.RTM_NEWQDISC, Flags: mnl.Multi, Sequence: seq}, Data: b})
			}
			k.queue = append(k.queue, append(d, mnl.Message{Header: mnl.Header{Type: mnl.Done, Flags: mnl.Multi, Sequence: seq}, Data: make([]byte, 4)}))
		default:
			tcReqs++
			var m netlink.Msg
			if err := m.UnmarshalBinary(r.Data); err != nil {
				return nil, err
			}
			k.log = append(k.log, fmt.Sprintf("tc %d", m.Header.Ifindex))
			if m.Header.Ifindex == k.failDev || len(tcLog(k)) == k.failReq {
				k.queue = append(k.queue, ack(unix.EINVAL, "Specified qdisc kind is unknown"))
			} else if r.Header.Flags&mnl.Acknowledge != 0 {
				k.queue = append(k.queue, ack(0, ""))
			}
		}
	}
	if tcReqs > 0 {
		k.bursts = append(k.bursts, tcReqs)
	}
	return nil, nil
}

func linkMsg(seq uint32, name string, idx int32, flags mnl.HeaderFlags) mnl.Message {
	b := make([]byte, 16)
	binary.NativeEndian.PutUint32(b[4:], uint32(idx))
	e := attrs.NewEncoder(b)
	e.String(nlabi.IFLA_IFNAME, name)
	return mnl.Message{Header: mnl.Header{Type: nlabi.RTM_NEWLINK, Flags: flags, Sequence: seq}, Data: e.Bytes()}
}

func newRTKernel(failDev int32) *rtKernel {
	k := &rtKernel{links: map[string]int32{}, failDev: failDev}
	for i := 1; i <= 9; i++ {
		k.links[fmt.Sprintf("d%d", i)] = int32(i)
	}
	return k
}

// runBatch runs gotc [flags] -batch FILE on lines against k.
func runBatch(t *testing.T, k *rtKernel, flags string, lines ...string) (status int, stdout, stderr, file string) {
	t.Helper()
	file = filepath.Join(t.TempDir(), "cmds")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	status, stdout, stderr = runBatchFrom(k, flags, file, "")
	return status, stdout, stderr, file
}

// runBatchOnStdin is runBatch with the lines on standard input ("-batch -").
func runBatchOnStdin(k *rtKernel, flags string, lines ...string) (status int, stdout, stderr string) {
	return runBatchFrom(k, flags, "-", strings.Join(lines, "\n")+"\n")
}

func runBatchFrom(k *rtKernel, flags, name, stdin string) (status int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	args := append([]string{"gotc"}, strings.Fields(flags)...)
	args = append(args, "-batch", name)
	status = run(args, strings.NewReader(stdin), &out, &errOut, func(int) (conn, error) {
		return netlink.NewConn(nltest.Dial(k.fn)), nil
	})
	return status, out.String(), errOut.String()
}

func replaceLines(n int) []string {
	var lines []string
	for i := 1; i <= n; i++ {
		lines = append(lines, fmt.Sprintf("qdisc replace dev d%d root cake bandwidth %dmbit", i, i))
	}
	return lines
}

func tcLog(k *rtKernel) []string {
	var out []string
	for _, l := range k.log {
		if strings.HasPrefix(l, "tc ") {
			out = append(out, l)
		}
	}
	return out
}

func TestPipelinedBatchStopsAtKernelFailure(t *testing.T) {
	const refusal = "Error: Specified qdisc kind is unknown.\n"
	for _, tc := range []struct {
		name, flags string
		wantSent    int // tc requests the kernel processed
		wantBursts  []int
		wantStderr  string // after the refusal
	}{
		// Exact, as tc: nothing after line 3 reaches the kernel.
		{"default", "", 3, []int{1, 1, 1}, "Command failed %s:3\n"},
		// -force: tc sends every line, so does gotc, in one burst.
		{"force", "-force", 6, []int{6}, "Command failed %s:3\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := newRTKernel(3)
			status, _, stderr, file := runBatch(t, k, tc.flags, replaceLines(6)...)
			want := refusal + fmt.Sprintf(tc.wantStderr, file)
			if status != exitBadOption || stderr != want {
				t.Errorf("status %d stderr %q, want 1 and %q", status, stderr, want)
			}
			sent := tcLog(k)
			if len(sent) != tc.wantSent || !slices.Equal(k.bursts, tc.wantBursts) {
				t.Errorf("kernel processed %v in bursts %v", sent, k.bursts)
			}
			for i, l := range sent {
				if l != fmt.Sprintf("tc %d", i+1) {
					t.Errorf("request %d was %q: out of order", i, l)
				}
			}
		})
	}
}

// TestPipelinedBatchOutputOrder mixes failures of both kinds with listings:
// messages come out in line order, a line parsed while requests were in
// flight prints its message once, and a listing sees the earlier lines
// applied.
func TestPipelinedBatchOutputOrder(t *testing.T) {
	lines := []string{
		"qdisc replace dev d1 root cake",
		"qdisc replace dev d2 root dualpi2",
		"qdisc replace dev d3 root cake",             // refused by the kernel
		"qdisc replace dev d4 root cake bandwidth x", // bad option
		"qdisc replace dev nosuch root cake",         // unknown device
		"qdisc show dev d1",
		"qdisc replace dev d5 root dualpi2",
		`qdisc "open`,
		"qdisc replace dev d6 root cake",
	}
	k := newRTKernel(3)
	status, _, stderr, file := runBatch(t, k, "-force", lines...)
	// The same batch, one line at a time, on the sequential fake.
	var want strings.Builder
	want.WriteString("Error: Specified qdisc kind is unknown.\nCommand failed FILE:3\n")
	f := newFake()
	_, _, bad := gotc(f, "qdisc replace dev d4 root cake bandwidth x")
	want.WriteString(bad + "Command failed FILE:4\n")
	want.WriteString("Cannot find device \"nosuch\"\nCommand failed FILE:5\n")
	want.WriteString("Unterminated quoted string\n") // tc exits there, -force or not
	if w := strings.ReplaceAll(want.String(), "FILE", file); status != exitBadOption || stderr != w {
		t.Errorf("status %d stderr:\n%s\nwant:\n%s", status, stderr, w)
	}
	// The listing came after lines 1-3 were answered and before line 7 was sent.
	log := strings.Join(k.log, ",")
	if !strings.Contains(log, "tc 3,") || strings.Index(log, "dump qdisc") < strings.Index(log, "tc 3") || strings.Index(log, "dump qdisc") > strings.Index(log, "tc 5") {
		t.Errorf("kernel log %s", log)
	}
	if got := tcLog(k); !slices.Equal(got, []string{"tc 1", "tc 2", "tc 3", "tc 5"}) {
		t.Errorf("requests %v", got)
	}
}

// cakeRoots gives k devices d1..dn, each with a cake root qdisc.
func cakeRoots(k *rtKernel, n int) {
	for i := 1; i <= n; i++ {
		k.links[fmt.Sprintf("d%d", i)] = int32(i)
		k.qdiscs = append(k.qdiscs, qdiscOf(int32(i), netlink.MakeHandle(uint16(i), 0), netlink.HandleRoot, "cake"))
	}
}

func qdiscOf(ifindex int32, handle, parent uint32, kind string) *netlink.Msg {
	m := &netlink.Msg{}
	m.Header.Ifindex, m.Header.Handle, m.Header.Parent = ifindex, handle, parent
	m.Attrs.Kind = &kind
	return m
}

// replaceLinesOver is n cake replace lines taking devices d1..d(devs) in turn.
func replaceLinesOver(n, devs int) []string {
	var lines []string
	for i := 1; i <= n; i++ {
		lines = append(lines, fmt.Sprintf("qdisc replace dev d%d root cake bandwidth %dmbit", (i-1)%devs+1, i))
	}
	return lines
}

func ones(n int) []int { return slices.Repeat([]int{1}, n) }

// goodBatch runs lines without -force, from a file or from standard input,
// on devices d1..d(devs) with a cake root each, and fails the test unless
// every line went through.
func goodBatch(t *testing.T, devs int, onStdin bool, lines []string) *rtKernel {
	t.Helper()
	k := newRTKernel(0)
	cakeRoots(k, devs)
	var status int
	var stderr string
	if onStdin {
		status, _, stderr = runBatchOnStdin(k, "", lines...)
	} else {
		status, _, stderr, _ = runBatch(t, k, "", lines...)
	}
	if status != exitOK || stderr != "" {
		t.Fatalf("status %d stderr %q", status, stderr)
	}
	return k
}

// TestBatchSendsAcceptedChangesInBursts: without -force, a batch file with
// at least a candidate line per device (and acceptanceAfter) reads the
// qdiscs before its first line, and changes the kernel is sure to accept
// share bursts.
func TestBatchSendsAcceptedChangesInBursts(t *testing.T) {
	k := goodBatch(t, 20, false, replaceLinesOver(150, 20))
	if want := []int{64, 64, 150 - 2*64}; !slices.Equal(k.bursts, want) {
		t.Errorf("bursts %v, want %v", k.bursts, want)
	}
	if log := strings.Join(k.log, ","); !strings.HasPrefix(log, "dump links,dump qdisc,tc 1,") {
		t.Errorf("the qdiscs were not read before the first line: %s", log)
	}
}

// TestBatchOnStdinReadsQdiscsAfterALinePerDevice: standard input cannot be
// read ahead (it may still be being written), so the batch shows it is long
// by sending as many candidate lines as the larger of acceptanceAfter and
// the number of devices, one at a time.
func TestBatchOnStdinReadsQdiscsAfterALinePerDevice(t *testing.T) {
	k := goodBatch(t, 20, true, replaceLinesOver(150, 20))
	if want := append(ones(acceptanceAfter), 64, 150-acceptanceAfter-64); !slices.Equal(k.bursts, want) {
		t.Errorf("bursts %v, want %v", k.bursts, want)
	}
	log := strings.Join(k.log, ",")
	if !strings.Contains(log, fmt.Sprintf("tc %d,dump qdisc,tc %d,", acceptanceAfter%20, acceptanceAfter%20+1)) {
		t.Errorf("the qdiscs were not read right before the first burst: %s", log)
	}
}

// TestBatchReadsQdiscsOnlyWhenLong: a batch with fewer candidate lines than
// devices does not read the qdiscs (the dump costs about as much as a third
// of a line per qdisc), whether it comes from a file or standard input.
func TestBatchReadsQdiscsOnlyWhenLong(t *testing.T) {
	k := goodBatch(t, 150, false, replaceLinesOver(149, 150))
	if !slices.Equal(k.bursts, ones(149)) || slices.Contains(k.log, "dump qdisc") {
		t.Errorf("file: bursts %v, log %v", k.bursts, k.log)
	}
	k = goodBatch(t, 150, true, replaceLinesOver(150, 150))
	if !slices.Equal(k.bursts, ones(150)) || slices.Contains(k.log, "dump qdisc") {
		t.Errorf("stdin: bursts %v, log %v", k.bursts, k.log)
	}
}

// refusingBatch runs, without -force, 150 cake replace lines over 20 devices
// with a cake root each, line lineNo (1-based) replaced by line, against a
// kernel that refuses its failReq-th request.
func refusingBatch(t *testing.T, failReq, lineNo int, line string) (k *rtKernel, status int, stderr, file string) {
	t.Helper()
	lines := replaceLinesOver(150, 20)
	lines[lineNo-1] = line
	k = newRTKernel(0)
	k.failReq = failReq
	cakeRoots(k, 20)
	status, _, stderr, file = runBatch(t, k, "", lines...)
	return k, status, stderr, file
}

// TestBatchWaitsForLineNotShownAccepted: a line the kernel may refuse (here
// the kind differs, so the kernel would create a qdisc) ends its burst, and
// when it is refused nothing after it reaches the kernel.
func TestBatchWaitsForLineNotShownAccepted(t *testing.T) {
	k, status, stderr, file := refusingBatch(t, 100, 100, "qdisc replace dev d20 root dualpi2 limit 5")
	want := "Error: Specified qdisc kind is unknown.\nCommand failed " + file + ":100\n"
	if status != exitBadOption || stderr != want {
		t.Errorf("status %d stderr %q, want %q", status, stderr, want)
	}
	if sent := tcLog(k); len(sent) != 100 {
		t.Errorf("the kernel processed %d requests, want 100", len(sent))
	}
	if want := []int{64, 100 - 64}; !slices.Equal(k.bursts, want) {
		t.Errorf("bursts %v, want %v", k.bursts, want)
	}
}

// TestBatchAcceptedLineRefusedAnyway: if a change shown accepted is refused
// (someone else changed the device), the rest of its burst was applied: the
// batch says which lines, and a line after the burst that failed in
// userspace (line 80) is never reported, as tc never gets to it.
func TestBatchAcceptedLineRefusedAnyway(t *testing.T) {
	k, status, stderr, file := refusingBatch(t, 70, 80, "qdisc replace dev d20 root cake bandwidth x")
	want := "Error: Specified qdisc kind is unknown.\nCommand failed " + file + ":70\n" +
		"Warning: the requests of lines 71-79 were sent before line 70 was refused: the qdiscs read at the start of the batch said the kernel would accept it\n"
	if status != exitBadOption || stderr != want {
		t.Errorf("status %d stderr:\n%s\nwant:\n%s", status, stderr, want)
	}
	if want := []int{64, 79 - 64}; !slices.Equal(k.bursts, want) {
		t.Errorf("bursts %v, want %v", k.bursts, want)
	}
}

func TestPipelinedBatchAllGood(t *testing.T) {
	k := newRTKernel(0)
	status, stdout, stderr, _ := runBatch(t, k, "-force", replaceLines(9)...)
	if status != exitOK || stdout != "" || stderr != "" {
		t.Fatalf("status %d stdout %q stderr %q", status, stdout, stderr)
	}
	// One dump of the links, then one burst.
	if got := strings.Join(k.log[:2], ","); got != "dump links,tc 1" || !slices.Equal(k.bursts, []int{9}) {
		t.Errorf("log %v bursts %v", k.log, k.bursts)
	}
}
