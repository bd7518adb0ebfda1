// SPDX-License-Identifier: Apache-2.0

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
// "NAME LINKARGS: ..." creates the device with those "ip link add" words
// ("mq numtxqueues 4: ..." gives it 4 transmit queues).
//
// With -filters PARENT it records the filters below PARENT instead (their raw
// dump and FilterViews), for the filter goldens in testdata/golden-filters:
//
//	selftests/vm/run --build ./selftests/capture -- /gotc/bin/capture -filters ffff: testdata/golden-filters/scenarios.txt
//
// With -actions KIND it records the standalone actions of KIND (their raw
// dump and ActionViews) and flushes them after each scenario:
//
//	selftests/vm/run --build ./selftests/capture -- /gotc/bin/capture -actions gact testdata/golden-actions/scenarios.txt
//
// With -chains PARENT it records the filters and the chains below PARENT
// (ChainViews), and with -block INDEX those of a shared block with the
// device's qdiscs that name it (BlockViews), for testdata/golden-chains:
//
//	selftests/vm/run --build ./selftests/capture -- /gotc/bin/capture -chains ffff: testdata/golden-chains/scenarios.txt
//	selftests/vm/run --build ./selftests/capture -- /gotc/bin/capture -block 5 testdata/golden-chains/blocks.txt
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/nlabi"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
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

// FilterViews are the output modes recorded for each filter scenario; PARENT
// is the -filters parent.
var FilterViews = []string{
	"filter show dev DEV parent PARENT",
	"-s filter show dev DEV parent PARENT",
	"-j filter show dev DEV parent PARENT",
	"-s -j -p filter show dev DEV parent PARENT",
	"filter get dev DEV parent PARENT protocol all pref 1 handle 1 matchall",
	"-s -j filter get dev DEV parent PARENT protocol all pref 1 handle 1 matchall",
}

// ActionViews are the output modes recorded for each action scenario; KIND
// is the -actions kind.
var ActionViews = []string{
	"actions list action KIND",
	"-s actions list action KIND",
	"-j actions list action KIND",
	"-s -j -p actions ls action KIND",
}

// ChainViews are the output modes recorded for each chain scenario; PARENT
// is the -chains parent. Each scenario has a chain 1. Without -s: an
// action's times in seconds move on between the dump and the views on the
// test bed's slow VM (the filter goldens show them).
var ChainViews = []string{
	"chain show dev DEV parent PARENT",
	"-j chain show dev DEV parent PARENT",
	"-p -j chain show dev DEV parent PARENT",
	"filter show dev DEV parent PARENT",
	"filter show dev DEV parent PARENT chain 1",
	"-j filter show dev DEV parent PARENT chain 1",
	"chain get dev DEV parent PARENT chain 1",
	"-j chain get dev DEV parent PARENT chain 1",
}

// BlockViews are the output modes recorded for each block scenario; BLOCK
// is the -block index.
var BlockViews = []string{
	"filter show block BLOCK",
	"-j filter show block BLOCK",
	"-j -p filter show block BLOCK",
	"filter show block BLOCK chain 1",
	"chain show block BLOCK",
	"-j chain show block BLOCK",
	"chain get block BLOCK parent 1: chain 1",
}

func main() {
	tc := flag.String("tc", "/ref/bin/tc", "reference tc")
	ip := flag.String("ip", "/ref/bin/ip", "reference ip")
	filters := flag.String("filters", "", "record the filters below this parent instead of qdiscs and classes")
	actions := flag.String("actions", "", "record the standalone actions of this kind instead of qdiscs and classes")
	chains := flag.String("chains", "", "record the filters and chains below this parent instead of qdiscs and classes")
	block := flag.Uint("block", 0, "record the filters and chains of this shared block, and the qdiscs, instead of qdiscs and classes")
	flag.Parse()
	objects, views := []netlink.Object{netlink.Qdisc, netlink.Class}, Views
	var parent uint32
	if *filters != "" {
		p, err := tcfmt.ParseClassID(*filters)
		if err != nil {
			fail(err)
		}
		objects, parent = []netlink.Object{netlink.Filter}, p
		views = nil
		for _, v := range FilterViews {
			views = append(views, strings.ReplaceAll(v, "PARENT", *filters))
		}
	}
	if *actions != "" {
		objects, views = nil, nil
		for _, v := range ActionViews {
			views = append(views, strings.ReplaceAll(v, "KIND", *actions))
		}
	}
	if *chains != "" {
		p, err := tcfmt.ParseClassID(*chains)
		if err != nil {
			fail(err)
		}
		objects, parent, views = []netlink.Object{netlink.Filter, netlink.Chain}, p, nil
		for _, v := range ChainViews {
			views = append(views, strings.ReplaceAll(v, "PARENT", *chains))
		}
	}
	if *block != 0 {
		objects, views = []netlink.Object{netlink.Qdisc}, nil
		for _, v := range BlockViews {
			views = append(views, strings.ReplaceAll(v, "BLOCK", fmt.Sprint(*block)))
		}
	}
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
		// Words after the name are the device's own "ip link add"
		// parameters ("numtxqueues 4" for a multiqueue device).
		linkArgs := strings.Fields(name)
		if len(linkArgs) == 0 {
			fail(fmt.Errorf("scenario line without name: %q", line))
		}
		name = linkArgs[0]
		run(*ip, append(append([]string{"link", "add", dev}, linkArgs[1:]...), "type", "dummy")...)
		run(*ip, "link", "set", dev, "up")
		fmt.Printf("=== scenario %s\n", name)
		for _, c := range strings.Split(cmds, ";") {
			args := strings.Fields(strings.ReplaceAll(c, "DEV", dev))
			fmt.Printf("--- setup %s\n", strings.Join(args, " "))
			run(*tc, args...)
		}
		idx := ifindex(dev)
		for _, obj := range objects {
			for _, m := range rawDump(obj, idx, parent) {
				fmt.Printf("--- raw %s %s\n", obj, hex.EncodeToString(m))
			}
		}
		if *block != 0 {
			// The block's own: the kernel names no device in them.
			for _, obj := range []netlink.Object{netlink.Filter, netlink.Chain} {
				for _, m := range rawDump(obj, netlink.IfindexBlock, uint32(*block)) {
					fmt.Printf("--- raw %s %s\n", obj, hex.EncodeToString(m))
				}
			}
		}
		if *actions != "" {
			for _, m := range rawActionDump(*actions) {
				fmt.Printf("--- raw action %s\n", hex.EncodeToString(m))
			}
		}
		for _, v := range views {
			args := strings.Fields(strings.ReplaceAll(v, "DEV", dev))
			out := run(*tc, args...)
			fmt.Printf("--- view %s\n%s", v, out)
			if !strings.HasSuffix(out, "\n") {
				fmt.Printf("\n--- no newline\n")
			}
		}
		fmt.Printf("--- end\n")
		run(*ip, "link", "del", dev)
		if *actions != "" {
			run(*tc, "actions", "flush", "action", *actions)
		}
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
	idx, err := c.LinkIndex(context.Background(), dev)
	if err != nil {
		fail(err)
	}
	return idx
}

// rawDump returns the payloads of the kernel's dump messages for one device
// (and for filters, one parent), exactly as received.
func rawDump(obj netlink.Object, ifindex int32, parent uint32) [][]byte {
	nl, err := mnl.Dial(nlabi.NETLINK_ROUTE, nil)
	if err != nil {
		fail(err)
	}
	defer nl.Close()
	getType := map[netlink.Object]mnl.HeaderType{netlink.Qdisc: nlabi.RTM_GETQDISC, netlink.Class: nlabi.RTM_GETTCLASS, netlink.Filter: nlabi.RTM_GETTFILTER, netlink.Chain: nlabi.RTM_GETCHAIN}[obj]
	req := make([]byte, 20)
	binary.NativeEndian.PutUint32(req[4:], uint32(ifindex))
	binary.NativeEndian.PutUint32(req[12:], parent)
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

// rawActionDump returns the payloads of the kernel's dump of the actions of
// one kind, requested as tc requests it.
func rawActionDump(kind string) [][]byte {
	nl, err := mnl.Dial(nlabi.NETLINK_ROUTE, nil)
	if err != nil {
		fail(err)
	}
	defer nl.Close()
	req := netlink.ActionMsg{Attrs: attrs.ActRootAttrs{
		Tab:   []attrs.ActAttrs{{Kind: &kind}},
		Flags: &attrs.Bitfield32{Value: 1, Selector: 1}, // TCA_ACT_FLAG_LARGE_DUMP_ON
	}}
	payload, _ := req.AppendBinary(nil)
	msgs, err := nl.Execute(mnl.Message{Header: mnl.Header{Type: nlabi.RTM_GETACTION, Flags: mnl.Request | mnl.Dump}, Data: payload})
	if err != nil {
		fail(err)
	}
	var out [][]byte
	for _, m := range msgs {
		out = append(out, m.Data)
	}
	return out
}
