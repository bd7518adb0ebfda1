// SPDX-License-Identifier: Apache-2.0

package cmdline

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/gotc/gotc/internal/manual"
)

func TestParseExporterArgs(t *testing.T) {
	for _, tc := range []struct {
		args   string
		want   ExporterArgs
		status int // 0: no error
		stderr string
	}{
		{"", ExporterArgs{Listen: defaultListen}, 0, ""},
		{"listen :1 dev eth0", ExporterArgs{Listen: ":1", Dev: "eth0"}, 0, ""},
		{"dev eth0 --listen [::1]:2 dev eth1", ExporterArgs{Listen: "[::1]:2", Dev: "eth1"}, 0, ""},
		{"dev abcdefghijklmnopqrstuvwxyz", ExporterArgs{Listen: defaultListen, Dev: "abcdefghijklmno"}, 0, ""},
		{"dev eth0 help bogus", ExporterArgs{Listen: defaultListen, Dev: "eth0", Help: true}, 0, manual.Exporter.Help()},
		{"listen", ExporterArgs{}, ExitUsage, "Command line is not complete. Try option \"help\"\n"},
		{"listen :1 -listen :2", ExporterArgs{}, ExitUsage, "What is \"-listen\"? Try \"gotc exporter help\".\n"},
		{"include dev=eth0,under=1:1 exclude kind=fq_codel include handle=10: aggregate handle=1:10 names subs.yaml",
			ExporterArgs{Listen: defaultListen, Names: "subs.yaml",
				Include:   []Selector{{Dev: "eth0", Under: 0x10001}, {Handle: 0x100000}},
				Exclude:   []Selector{{Kind: "fq_codel"}},
				Aggregate: []Selector{{Handle: 0x10010}}}, 0, ""},
		{"include dev", ExporterArgs{}, ExitUsage, "Illegal \"include\": \"dev\" is not KEY=VALUE\n"},
		{"exclude size=3", ExporterArgs{}, ExitUsage, "Illegal \"exclude\": unknown key \"size\" (dev, kind, handle, under)\n"},
		{"aggregate under=root", ExporterArgs{}, ExitUsage, "Illegal \"aggregate\": \"root\" is not a qdisc handle or class ID\n"},
		{"names", ExporterArgs{}, ExitUsage, "Command line is not complete. Try option \"help\"\n"},
	} {
		var stderr bytes.Buffer
		got, err := ParseExporterArgs(strings.Fields(tc.args), &stderr)
		status := 0
		if err != nil {
			status = err.(Status).ExitCode()
		}
		if status != tc.status || stderr.String() != tc.stderr || (err == nil && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("%q: %+v, status %d, stderr %q; want %+v, %d, %q", tc.args, got, status, stderr.String(), tc.want, tc.status, tc.stderr)
		}
	}
}

func TestOpenNetNS(t *testing.T) {
	if p := netNSPath("blue"); p != "/var/run/netns/blue" {
		t.Errorf("netNSPath(blue) = %q", p)
	}
	if p := netNSPath("/proc/1/ns/net"); p != "/proc/1/ns/net" {
		t.Errorf("netNSPath(/proc/1/ns/net) = %q", p)
	}
	var stderr bytes.Buffer
	f, err := OpenNetNS("/proc/self/ns/net", &stderr)
	if err != nil {
		t.Fatalf("own namespace: %v (%s)", err, stderr.String())
	}
	f.Close()
	_, err = OpenNetNS("gotc-test-no-such-ns", &stderr)
	if want := "Cannot open network namespace \"gotc-test-no-such-ns\": No such file or directory\n"; err != Status(ExitUsage) || stderr.String() != want {
		t.Errorf("missing namespace: %v, stderr %q; want 255, %q", err, stderr.String(), want)
	}
}

// nopCloser is a connection that Helper can hold in its tests.
type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// TestHelperParseArgs: gotc's options as gotc passes them to a helper,
// then the command's words; a line for another command, or an option
// without its value, is a usage error (255) with its message.
func TestHelperParseArgs(t *testing.T) {
	var stderr strings.Builder
	h := Helper[nopCloser]{Stderr: &stderr}
	words, err := h.ParseArgs([]string{"gotc-model", "-s", "-j", "-netns", "red", "--", "model", "cake", "-s"}, "model", "gotc-model")
	if err != nil || !h.Stats || !h.JSON || h.Pretty || h.NetNS != "red" || strings.Join(words, " ") != "cake -s" {
		t.Errorf("words %q, err %v, options %+v", words, err, h)
	}
	for _, args := range [][]string{{"gotc-apply", "model"}, {"gotc-apply", "-netns"}, {"gotc-apply"}} {
		stderr.Reset()
		h := Helper[nopCloser]{Stderr: &stderr}
		if _, err := h.ParseArgs(args, "apply", "gotc-apply"); ExitCodeOf(err, 0) != ExitUsage || stderr.Len() == 0 {
			t.Errorf("%q: %v, stderr %q; want status 255 with a message", args, err, stderr.String())
		}
	}
}
