// Command capture records output goldens on a real kernel: for every scenario
// of a scenario file it configures a dummy device with the reference tc, saves
// the kernel's raw qdisc and class dump messages, and saves what the reference
// tc prints of them in every output mode. cmd/gotc's golden test replays the
// raw messages through gotc and expects the same bytes.
//
// It runs inside the test bed's VM and writes one framed document to stdout;
// selftests/capture.sh splits it into testdata files on the host.
//
// Scenario file: one scenario per line, "NAME: ARGS; ARGS; ..." where each ARGS
// is a tc command line run with DEV replaced by the scenario's device.
package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/gotc/gotc/internal/nlabi"
	"github.com/gotc/gotc/netlink"
	mnl "github.com/mdlayher/netlink"
)

// Views are the output modes recorded for each scenario.
var Views = []string{
	"qdisc show dev DEV",
	"-s qdisc show dev DEV",
	"-d qdisc show dev DEV",
	"-s -d qdisc show dev DEV",
	"-j qdisc show dev DEV",
	"-j -p qdisc show dev DEV",
	"-s -j qdisc show dev DEV",
	"-s -d -j -p qdisc show dev DEV",
	"-raw qdisc show dev DEV",
	"class show dev DEV",
	"-s class show dev DEV",
	"-s -j class show dev DEV",
	"-d class show dev DEV",
	"-s -d class show dev DEV",
	"-s -d -j -p class show dev DEV",
	"-raw class show dev DEV",
}

func main() {
	tc := flag.String("tc", "/ref/bin/tc", "reference tc")
	ip := flag.String("ip", "/ref/bin/ip", "reference ip")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: capture [-tc PATH] [-ip PATH] SCENARIOS")
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fail(err)
	}
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, cmds, ok := strings.Cut(line, ":")
		if !ok {
			fail(fmt.Errorf("scenario line without name: %q", line))
		}
		n++
		dev := fmt.Sprintf("gd%d", n)
		run(*ip, "link", "add", dev, "type", "dummy")
		run(*ip, "link", "set", dev, "up")
		fmt.Printf("=== scenario %s\n", strings.TrimSpace(name))
		for _, c := range strings.Split(cmds, ";") {
			args := strings.Fields(strings.ReplaceAll(c, "DEV", dev))
			fmt.Printf("--- setup %s\n", strings.Join(args, " "))
			run(*tc, args...)
		}
		idx := ifindex(dev)
		for _, obj := range []netlink.Object{netlink.Qdisc, netlink.Class} {
			for _, m := range rawDump(obj, idx) {
				fmt.Printf("--- raw %s %s\n", obj, hex.EncodeToString(m))
			}
		}
		for _, v := range Views {
			args := strings.Fields(strings.ReplaceAll(v, "DEV", dev))
			out := run(*tc, args...)
			fmt.Printf("--- view %s\n%s", v, out)
			if !strings.HasSuffix(out, "\n") {
				fmt.Printf("\n--- no newline\n")
			}
		}
		fmt.Printf("--- end\n")
		run(*ip, "link", "del", dev)
	}
	if err := sc.Err(); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "capture:", err)
	os.Exit(1)
}

func run(prog string, args ...string) string {
	var out, errOut bytes.Buffer
	cmd := exec.Command(prog, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		fail(fmt.Errorf("%s %s: %v: %s", prog, strings.Join(args, " "), err, errOut.String()))
	}
	return out.String()
}

func ifindex(dev string) int32 {
	c, err := netlink.Dial(nil)
	if err != nil {
		fail(err)
	}
	defer c.Close()
	idx, err := c.LinkIndex(dev)
	if err != nil {
		fail(err)
	}
	return idx
}

// rawDump returns the payloads of the kernel's dump messages for one device,
// exactly as received.
func rawDump(obj netlink.Object, ifindex int32) [][]byte {
	nl, err := mnl.Dial(nlabi.NETLINK_ROUTE, nil)
	if err != nil {
		fail(err)
	}
	defer nl.Close()
	getType := map[netlink.Object]mnl.HeaderType{netlink.Qdisc: nlabi.RTM_GETQDISC, netlink.Class: nlabi.RTM_GETTCLASS}[obj]
	req := make([]byte, 20)
	req[4], req[5], req[6], req[7] = byte(ifindex), byte(ifindex>>8), byte(ifindex>>16), byte(ifindex>>24)
	msgs, err := nl.Execute(mnl.Message{Header: mnl.Header{Type: getType, Flags: mnl.Request | mnl.Dump}, Data: req})
	if err != nil {
		fail(err)
	}
	var out [][]byte
	for _, m := range msgs {
		var msg netlink.Msg
		if err := msg.UnmarshalBinary(m.Data); err == nil && msg.Header.Ifindex == ifindex {
			out = append(out, m.Data)
		}
	}
	return out
}
