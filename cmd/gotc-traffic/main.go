// SPDX-License-Identifier: Apache-2.0

// Command gotc-traffic sends a traffic plan through a device's qdisc and
// captures what arrives on its veth peer (see package traffic for the plan
// and trace formats; its usage is manual.Traffic, gotc-traffic(8)).
//
//	gotc-traffic send -plan FILE.json [-trace OUT.jsonl]
//	gotc-traffic recv -dev v1 [-netns NS] [-count N] [-timeout D] [-linger D] [-udp-sink PORTS] [-out FILE]
//	gotc-traffic run  -plan FILE.json [-trace OUT.jsonl] [-capture OUT.jsonl] [-timeout D] [-exact]
//	gotc-traffic pcap -in FILE.pcap [-mtu N]
//	gotc-traffic record -dev v1 [-netns NS] [-count N] [-duration D] [-snap N] -out FILE.pcap
//
// send and run print a JSON summary on stdout; recv writes the capture
// (JSONL) to -out or stdout and its summary to stderr; record writes the
// frames arriving on a device as pcap to -out and its summary to stderr. help, -h and
// --help, alone or after a command, print the usage on stdout. Exit
// status: 0 on success, 1 on an error, 2 on bad usage, 3 when run -exact
// finds that the capture differs from what was sent.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gotc/gotc/internal/manual"
	"github.com/gotc/gotc/traffic"
	"github.com/gotc/gotc/traffic/pcapread" // captures: pcap, and plans' pcap flows
)

// errUsage marks errors that are the caller's (exit status 2).
var errUsage = errors.New("usage")

// errHelp is a request for the usage, which is no failure.
var errHelp = errors.New("help")

// errNotExact is run -exact's failure (exit status 3).
var errNotExact = errors.New("capture differs from the trace")

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case err == nil:
	case errors.Is(err, errUsage):
		fmt.Fprintf(os.Stderr, "gotc-traffic: %v\n%s", err, manual.Traffic.Usage)
		os.Exit(2)
	case errors.Is(err, errNotExact):
		fmt.Fprintf(os.Stderr, "gotc-traffic: %v\n", err)
		os.Exit(3)
	default:
		fmt.Fprintf(os.Stderr, "gotc-traffic: %v\n", err)
		os.Exit(1)
	}
}

// run is main without the process; a request for help prints the usage
// on stdout and is no error.
func run(args []string, stdout, stderr io.Writer) error {
	err := command(args, stdout, stderr)
	if errors.Is(err, errHelp) {
		fmt.Fprint(stdout, manual.Traffic.Help())
		return nil
	}
	return err
}

// command runs the command args name.
func command(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: no command", errUsage)
	}
	if manual.IsHelp(args[0]) {
		return errHelp
	}
	switch args[0] {
	case "send":
		return cmdSend(args[1:], stdout)
	case "recv":
		return cmdRecv(args[1:], stdout, stderr)
	case "run":
		return cmdRun(args[1:], stdout)
	case "pcap":
		return cmdPcap(args[1:], stdout)
	case "record":
		return cmdRecord(args[1:], stderr)
	}
	return fmt.Errorf("%w: unknown command %q", errUsage, args[0])
}

func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported once, by main
	return fs
}

// parse reads a command's flags; -h, -help and --help (which the flag
// package knows) and a "help" after the flags ask for the usage.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return errHelp
	} else if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 && manual.IsHelp(fs.Arg(0)) {
		return errHelp
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	return nil
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// cmdPcap writes a capture's packets as a send trace (JSONL): what "gotc
// model ... pcap FILE" reads, through this program, so that gotc does not
// link the capture reader.
func cmdPcap(args []string, stdout io.Writer) error {
	fs := newFlags("pcap")
	in := fs.String("in", "", "the capture (pcap or pcapng)")
	mtu := fs.Int("mtu", 0, "the device's MTU (1500): longer TCP and UDP packets are GSO")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *in == "" {
		return fmt.Errorf("%w: pcap needs -in", errUsage)
	}
	recs, err := traffic.ReadPcapFile(*in, traffic.PcapOptions{MTU: *mtu})
	if err != nil {
		return err
	}
	return traffic.WriteTrace(stdout, recs)
}

// cmdRecord records what arrives on a device as a pcap file: a capture
// of the kernel's own traffic, for replay through a qdisc and its model.
func cmdRecord(args []string, stderr io.Writer) error {
	fs := newFlags("record")
	dev := fs.String("dev", "", "the device to record on")
	ns := fs.String("netns", "", "the network namespace of -dev")
	count := fs.Int("count", 0, "stop after this many frames (0: no limit)")
	dur := fs.Duration("duration", 10*time.Second, "stop after this long")
	out := fs.String("out", "", "the pcap file to write")
	snap := fs.Int("snap", 0, "keep at most this many bytes of each frame (0: all)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *dev == "" || *out == "" {
		return fmt.Errorf("%w: record needs -dev and -out", errUsage)
	}
	if *dur <= 0 {
		return fmt.Errorf("%w: -duration must be positive", errUsage)
	}
	if *snap != 0 && (*snap < 64 || *snap > traffic.RecordSnap) {
		return fmt.Errorf("%w: -snap %d is not 0 or within 64..%d", errUsage, *snap, traffic.RecordSnap)
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	w, err := pcapread.NewWriter(bw, *snap)
	if err == nil {
		frames, bytes := 0, 0
		var drops uint32
		drops, err = traffic.RecordFrames(*ns, *dev, *count, *dur, func(t time.Time, frame []byte) error {
			frames++
			bytes += len(frame)
			return w.Write(t, frame)
		})
		if err == nil {
			fmt.Fprintf(stderr, "recorded %d frames, %d bytes, %d lost, on %s\n", frames, bytes, drops, *dev)
		}
	}
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func cmdSend(args []string, stdout io.Writer) error {
	fs := newFlags("send")
	planPath := fs.String("plan", "", "traffic plan (JSON)")
	tracePath := fs.String("trace", "", "write the send trace (JSONL) here")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *planPath == "" {
		return fmt.Errorf("%w: send needs -plan", errUsage)
	}
	p, err := traffic.ReadPlan(*planPath)
	if err != nil {
		return err
	}
	snd, err := traffic.NewSender(p)
	if err != nil {
		return err
	}
	defer snd.Close()
	tx0, err := traffic.TxPackets(p.Netns, p.Dev)
	if err != nil {
		return err
	}
	recs, sendErr := snd.Run()
	tx1, err := traffic.TxPackets(p.Netns, p.Dev)
	if err != nil {
		return err
	}
	if *tracePath != "" {
		if err := traffic.WriteTraceFile(*tracePath, recs); err != nil {
			return err
		}
	}
	sum := struct {
		Sent         int    `json:"sent"`
		SentSegs     int    `json:"sent_segs"`
		SendErrors   int    `json:"send_errors"`
		DevTxPackets uint64 `json:"dev_tx_packets"`
		DurationNS   int64  `json:"duration_ns"`
		Trace        string `json:"trace,omitempty"`
	}{Sent: len(recs), DevTxPackets: tx1 - tx0, Trace: *tracePath}
	for i := range recs {
		sum.SentSegs += recs[i].Segs()
		if recs[i].Err != "" {
			sum.SendErrors++
		}
	}
	if n := len(recs); n > 0 {
		sum.DurationNS = recs[n-1].T - recs[0].T
	}
	if err := printJSON(stdout, sum); err != nil {
		return err
	}
	return sendErr
}

// parsePorts reads "5000,5001" or "5000,v6:5001" (a port is IPv4 unless
// prefixed with v6:).
func parsePorts(s string) ([]traffic.SinkPort, error) {
	var out []traffic.SinkPort
	for _, f := range strings.Split(s, ",") {
		if f == "" {
			continue
		}
		v4 := true
		if rest, ok := strings.CutPrefix(f, "v6:"); ok {
			f, v4 = rest, false
		}
		n, err := strconv.ParseUint(f, 10, 16)
		if err != nil || n == 0 {
			return nil, fmt.Errorf("%w: bad port %q", errUsage, f)
		}
		out = append(out, traffic.SinkPort{Port: uint16(n), V4: v4})
	}
	return out, nil
}

func cmdRecv(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("recv")
	dev := fs.String("dev", "", "device to capture on (the veth peer)")
	netns := fs.String("netns", "", "network namespace of -dev")
	count := fs.Int("count", 0, "stop after this many packets, GSO segments counted (0: at the timeout)")
	timeout := fs.Duration("timeout", 5*time.Second, "stop after this long")
	linger := fs.Duration("linger", 50*time.Millisecond, "keep listening this long after -count frames")
	sinks := fs.String("udp-sink", "", "UDP ports to bind (comma-separated; v6:PORT for IPv6)")
	out := fs.String("out", "", "write the capture (JSONL) here instead of stdout")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *dev == "" {
		return fmt.Errorf("%w: recv needs -dev", errUsage)
	}
	ports, err := parsePorts(*sinks)
	if err != nil {
		return err
	}
	rcv, err := traffic.NewReceiver(*netns, *dev, ports)
	if err != nil {
		return err
	}
	defer rcv.Close()
	recs, err := rcv.Run(*count, *timeout, *linger)
	if err != nil {
		return err
	}
	if *out != "" {
		err = traffic.WriteTraceFile(*out, recs)
	} else {
		err = traffic.WriteTrace(stdout, recs)
	}
	if err != nil {
		return err
	}
	rep := traffic.Compare(nil, recs)
	sum := map[string]any{
		"received": rep.Received, "received_segs": rep.ReceivedSegs,
		"by_ecn": rep.ByECN, "by_dscp": rep.ByDSCP, "capture_drops": rcv.Drops,
	}
	if err := printJSON(stderr, sum); err != nil {
		return err
	}
	if *count > 0 && rep.ReceivedSegs < *count {
		return fmt.Errorf("received %d of %d packets before the timeout", rep.ReceivedSegs, *count)
	}
	return nil
}

func cmdRun(args []string, stdout io.Writer) error {
	fs := newFlags("run")
	planPath := fs.String("plan", "", "traffic plan (JSON)")
	tracePath := fs.String("trace", "", "write the send trace (JSONL) here")
	capPath := fs.String("capture", "", "write the capture (JSONL) here")
	timeout := fs.Duration("timeout", 2*time.Second, "capture timeout after the plan's last send")
	exact := fs.Bool("exact", false, "exit 3 unless the capture is exactly the trace, in order")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *planPath == "" {
		return fmt.Errorf("%w: run needs -plan", errUsage)
	}
	p, err := traffic.ReadPlan(*planPath)
	if err != nil {
		return err
	}
	sum, err := traffic.Run(p, traffic.RunOptions{Timeout: *timeout, TracePath: *tracePath, CapturePath: *capPath})
	if sum != nil {
		if perr := printJSON(stdout, sum); perr != nil && err == nil {
			err = perr
		}
	}
	if err != nil {
		return err
	}
	if *exact && !sum.Exact {
		return errNotExact
	}
	return nil
}
