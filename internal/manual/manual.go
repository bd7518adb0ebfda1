// SPDX-License-Identifier: Apache-2.0

// Package manual is the one source of the help that gotc's commands print
// and of their man pages: each Page is what "gotc COMMAND help" prints
// (Help) and what man gotc-COMMAND(8) says (Roff, written by
// internal/manual/mkman). The objects gotc shares with tc (qdisc, class,
// filter, chain, actions, monitor) keep tc's own help texts, in cmd/gotc
// and package tcline; gotc(8) points to tc's pages for them.
//
// The pages are plain data, so that gotc pays nothing at start for them.
package manual

import "strings"

// Page is one command's (or one file format's) help and man page.
type Page struct {
	// Name is the man page's name: "gotc", "gotc-apply".
	Name string
	// Section is the manual's section: "8" for commands, "5" for files.
	Section string
	// Summary is the man page's NAME line after the dash.
	Summary string
	// Usage is the synopsis, as help prints it first: "Usage: " and the
	// command lines, in tc's notation.
	Usage string
	// About is help's lines between the usage and the options: what the
	// command does, and whether it is tc's or gotc's own.
	About string
	// Options are help's lines after the usage, one term a line followed by
	// its text, a text going on on lines indented further: the man page's
	// OPTIONS.
	Options string
	// Example is one or more command lines, each with a "#" comment after
	// it when it needs one, that help prints under "Example:".
	Example string
	// Description is the man page's DESCRIPTION in Go's doc-comment
	// syntax: paragraphs, code indented by a tab, "- " lists and "# "
	// headings. Empty for a page whose description is a package's doc
	// (DocOf).
	Description string
	// DocOf names the package (relative to the module's root) whose doc
	// comment is the page's description: gotc-apply(5) is package apply's.
	DocOf string
	// ExitStatus is the man page's EXIT STATUS, a paragraph.
	ExitStatus string
	// SeeAlso names related pages, as "tc(8)".
	SeeAlso []string
}

// Help is what the command prints for "help", -h and --help: its usage, its
// options, one example and where to read more.
func (p *Page) Help() string {
	var b strings.Builder
	b.WriteString(p.Usage)
	b.WriteString(p.About)
	b.WriteString(p.Options)
	if p.Example != "" {
		b.WriteString("Example:\n")
		for _, line := range strings.Split(strings.TrimSuffix(p.Example, "\n"), "\n") {
			b.WriteString("  " + line + "\n")
		}
	}
	b.WriteString("More in " + p.Ref() + ".\n")
	return b.String()
}

// Ref is how other pages name this one: "gotc-apply(8)".
func (p *Page) Ref() string { return p.Name + "(" + p.Section + ")" }

// IsHelp reports whether a word asks for help where a command or its
// first argument is expected: "help" as tc spells it, and the -h, -help
// and --help a newcomer tries first.
func IsHelp(word string) bool {
	switch word {
	case "help", "-h", "-help", "--help":
		return true
	}
	return false
}

// Pages are every page, gotc(8) first.
var Pages = []*Page{&Gotc, &Apply, &Stats, &Model, &Exporter, &ApplyFile, &Traffic, &BPF, &CNI, &Agent}

// The exit statuses gotc shares with tc.
const tcExitStatus = `0 on success; 1 for a bad option (nothing is sent to the kernel) or
a failure to reach it; 2 when the kernel refuses a request ("Error:" and
the kernel's message on standard error); 255 for a usage error.`

// Gotc is gotc(8): the top level, which names every object and command.
var Gotc = Page{
	Name:    "gotc",
	Section: "8",
	Summary: "show and manipulate traffic control settings, as tc does",
	Usage: `Usage:	gotc [ OPTIONS ] OBJECT { COMMAND | help }
	gotc [ OPTIONS ] { apply | stats | model | exporter } [ ARGS ]
	gotc [ -force ] -batch FILE
where  OBJECT := { qdisc | class | filter | chain | actions | monitor }
       OPTIONS := { -V[ersion] | -s[tatistics] | -d[etails] | -r[aw] |
		    -o[neline] | -j[son] | -p[retty] | -iec |
		    -b[atch] [filename] | -n[etns] name | -force }
`,
	Options: `  qdisc class filter chain actions monitor
                 tc's objects, with tc's words, output and exit status (tc(8))
  apply          gotc's own: bring devices to the state a file describes
  stats          gotc's own: sample statistics as JSON lines
  model          gotc's own: predict a qdisc's statistics for a packet trace
  exporter       gotc's own: serve statistics to Prometheus
  help           this text; "gotc OBJECT help" and "gotc COMMAND help" (or
                 -h, --help) say more, "gotc qdisc help" lists the qdisc kinds
  -V[ersion]     print gotc's version and commit
  -s[tatistics]  show statistics
  -d[etails]     show details (tc's -d)
  -r[aw]         show raw values where tc does (tc's -r)
  -o[neline]     print each object on one line
  -j[son]        print JSON, as tc's -j
  -p[retty]      indent the JSON
  -iec           print rates and sizes in IEC units (Kibit, MiB)
  -b[atch] FILE  run the commands of FILE ("-": standard input), one a line;
                 stop at the first that fails
  -force         in a batch, go on after a failing line
  -n[etns] NAME  run in the network namespace NAME (ip netns's, or a path)
`,
	Example: `gotc -s qdisc show dev lo`,
	Description: `gotc is a replacement for iproute2's tc, written in Go over rtnetlink.
For the objects tc knows (qdisc, class, filter, chain, actions and
monitor) it takes tc's command lines and prints tc's output (text, -s,
-d, -j, -p) with tc's exit status, so that scripts, and the kernel's own
tests, can run gotc in tc's place: tc(8) and its pages for each kind
(tc-cake(8), tc-htb(8), ...) describe them.

gotc adds commands of its own, each with a page:

- gotc apply: the traffic control of a set of devices brought to the
  state a file describes, with the fewest requests (gotc-apply(8), and
  gotc-apply(5) for the file);
- gotc stats: statistics sampled at an interval as JSON lines
  (gotc-stats(8));
- gotc model: the statistics a reference model of CAKE, DualPI2 or
  fq_codel predicts for a recorded packet trace (gotc-model(8));
- gotc exporter: the statistics of every qdisc served as Prometheus
  metrics (gotc-exporter(8)).

"gotc OBJECT help" prints tc's usage of an object ("gotc qdisc help"
lists the qdisc kinds gotc knows), "gotc qdisc add dev D root KIND help"
a kind's options, and "gotc COMMAND help" a command's usage; -h, -help
and --help are the same as help.

# Helpers

gotc runs programs of its own, which it looks for beside its own
executable and then in PATH: gotc-exporter(8), which serves "gotc
exporter" (so that gotc itself does not link an HTTP server);
gotc-bpf(8), which loads the eBPF ELF objects of "bpf obj FILE";
gotc-model and gotc-apply, which serve "gotc model" (gotc-model(8)) and
"gotc apply" (gotc-apply(8)), so that gotc does not link the models,
the plotting and the YAML reader; and gotc-traffic(8), which gotc-model
runs to read captures.

# Completion

bash, zsh and fish complete gotc's command lines: objects and commands,
tc's words, the kinds gotc knows and their keywords, and the kernel's
devices. The package installs the scripts; from the source, run
"source completion/gotc.bash". They ask "gotc __complete WORDS", which
prints the words that may come next.

# Environment

GOGC and GOMEMLIMIT, when set, replace gotc's own settings of the Go
garbage collector (none for a short command, Go's defaults for stats
and batches). GOTC_CPUPROFILE=FILE writes a CPU profile of the command
to FILE.`,
	ExitStatus: tcExitStatus,
	SeeAlso:    []string{"tc(8)", "gotc-apply(8)", "gotc-apply(5)", "gotc-stats(8)", "gotc-model(8)", "gotc-exporter(8)", "ip-netns(8)"},
}

// Apply is gotc-apply(8).
var Apply = Page{
	Name:    "gotc-apply",
	Section: "8",
	Summary: "bring traffic control to the state a file describes",
	Usage: `Usage: gotc apply [ --check ] [ --diff [ -j ] ] [ -v ] FILE
       gotc apply --try [ DURATION ] [ -v ] FILE
       gotc apply --confirm
       gotc apply --from-kernel [ DEV... ]
       gotc apply --example
`,
	About: `gotc's own command (tc has none): it sends the fewest requests that bring
the devices FILE names to the state FILE describes (gotc-apply(5)).
`,
	Options: `  FILE           the desired state (YAML or JSON, "-" for standard input)
                 of the devices it names; gotc sends the fewest requests
                 that reach it. A file with a fault (an unknown key or
                 kind, a value of the wrong shape, a bad option) is refused
                 whole before anything is sent, each fault named as
                 FILE:LINE:COLUMN
  --check        send nothing; exit 0 when in sync, 2 when changes are pending
  --diff         send nothing; print the plan as tc command lines
  -j             with --diff, print the plan as JSON: an array of one object
                 per request, with op, object, device, parent, handle, kind,
                 protocol, pref, chain, words, command and reason (block,
                 in place of device and parent, for a shared block's)
  -v             print each request as it is sent and the kernel's answer
                 ("kernel: ok", its warning, or its refusal)
  --try [ DURATION ]
                 send the plan, then roll it back unless it is confirmed
                 within DURATION ("90s", "2m", or seconds; 120s when
                 omitted): by Enter on standard input or by
                 gotc apply --confirm from another session
  --confirm      confirm the apply --try that waits in this network
                 namespace (-n) and say whether it kept its changes
  --from-kernel  print the devices' present state as such a file
  --example      print a commented example file
`,
	Example: `gotc apply --example > tc.yaml   # then edit it
gotc apply --diff tc.yaml        # the plan; nothing is sent`,
	Description: `gotc apply is gotc's own command; tc has none like it. It reads a file
that describes the traffic control of some devices (gotc-apply(5)),
reads the present state of those devices from the kernel, and sends the
fewest requests that bring the one to the other: a change in place where
a qdisc or class of the same kind is already there (its counters kept),
a replacement where not, deletions of what the file leaves out.

The file owns every device it names and nothing else: on those devices
what it does not describe is deleted (the kernel's default qdiscs
excepted), and a device it does not name is never touched. A request
sets what the file names. An option the file stops naming goes back to
its default where the kernel keeps the option in a fixed structure (an
htb class's rate, ceil, burst and prio, htb's default class, tbf's
rate, burst, peak rate and limit) and for the fifos' limit (the
device's transmit queue length, in frames of its MTU for bfifo), and
for the options of cake, fq_codel, fq, codel, pie, fq_pie, hhf and
dualpi2, and netem's delay, jitter, loss, duplication, reordering,
corruption and rate, whose change keeps what it is not sent: gotc sends
their defaults (not a quantum whose default is the device's MTU, nor a
ce_threshold). Another option sent as an attribute of its own (htb's
direct_qlen; netem's correlations, ecn and slot, for which tc has no
word that turns them off) keeps the value the kernel has: write the
default out to bring it back, or replace the qdisc.

A change keeps the packets a qdisc holds; a qdisc replaced by another
kind, or deleted and added (a new kind at the same handle, htb's own
options, sfq's, which Linux 7.2 cannot change), loses them. The
measurements are in gotc's docs/live-changes.md.

When the kernel refuses a request, gotc undoes the requests it had
already sent, in reverse order, and says so ("the state before the apply
is restored"); if an undo fails too it says that the state is neither.

An apply killed midway (a crash, SIGKILL, a reboot) leaves the requests
sent before it done and none half done, each being one kernel
transaction; the next apply of the same file reads that state and plans
from it, so it converges to the state an apply never killed reaches.
No journal is kept because none is needed for that: the file is the
whole state, and the kernel's state is read anew every time. What a
journal would add is undoing a killed apply, back to the state before
it; --try, killed, leaves the file's state.

Two writers. An apply holds an exclusive lock (flock(2) on
/run/gotc/net-INODE.DEVICE.lock, one per device the file names, in the
namespace of that inode) from before it reads the kernel's state until
it is done, and one per shared filter block its plan may change
(net-INODE.block:INDEX.lock) from when its plan is made, since devices
the file does not name may share the block; a second apply of one of
those devices or blocks is refused at once, naming the process that
holds it (status 4). Right before sending, apply
reads the devices' state again and computes the plan anew: when it
differs from the first, another writer (a tc command, a script, another
program) changed the devices in between, and apply refuses, sending
nothing (status 4).

--try is for a change that may cut the session it is made from (a
shaping change on an SSH link): like netplan try and commit confirmed,
it reads the devices' state, sends the plan, and waits. A line on
standard input (Enter) or gotc apply --confirm, run from another session
in the same namespace, keeps the changes (status 0); the wait's end,
SIGINT or SIGTERM brings the devices back to the state read before the
plan (status 5), by the plan that leads back to it. The waiting process
ignores SIGHUP and SIGPIPE and takes the end of its input for no answer,
so that an SSH session that dies leaves it waiting and rolling back by
itself, without a terminal. It does not survive SIGKILL, nor a
systemd-logind that kills a closed session's processes
(KillUserProcesses=yes): there, run it in a scope of its own
(systemd-run --scope gotc apply --try ...). Its locks are held until it
is done, so no other apply interleaves with the trial; one --try waits
at a time in a namespace. A state --from-kernel cannot write (a kind
whose options it cannot print) is refused before anything is sent.

With --diff or --check nothing is sent: --diff prints the plan as tc
command lines on standard output and, on standard error, how many
changes are pending; --check only says how many, and its exit status
tells whether the devices are in sync, for a monitoring check or a
deployment's dry run.

--from-kernel writes the present state of the devices named (every
device when none is) as a file that apply reads back: a starting point,
and a backup.`,
	ExitStatus: `0 when the devices are in the file's state (or, with --check, already
were; with --diff, the plan is printed); 1 when nothing was sent because
the file is bad, names a device this machine lacks or cannot be read, or
the kernel's state cannot be read; 2 with --check when changes are
pending, otherwise when the kernel refused a request and the changes
made before it were undone; 3 when the kernel refused a request and
undoing the changes made before it failed too, so that the state is
neither the file's nor the one before (also when the rollback of --try
fails); 4 when nothing was sent because another apply holds the devices'
locks or another writer changed them between the plan and its sending;
5 when --try was not confirmed and the state before it is restored (and
for a --confirm that came too late); 255 for a usage error.`,
	SeeAlso: []string{"gotc-apply(5)", "gotc(8)", "tc(8)"},
}

// ApplyFile is gotc-apply(5), the file format: package apply's doc.
var ApplyFile = Page{
	Name:    "gotc-apply",
	Section: "5",
	Summary: "the desired state of traffic control that gotc apply reads",
	DocOf:   "apply",
	SeeAlso: []string{"gotc-apply(8)", "gotc(8)", "tc(8)"},
}

// Stats is gotc-stats(8).
var Stats = Page{
	Name:    "gotc-stats",
	Section: "8",
	Summary: "sample traffic control statistics as JSON lines",
	Usage: `Usage: gotc stats [ dev STRING ] [ interval TIME ] [ count N ]
                  [ deltas ] [ rates ]
`,
	About: `gotc's own command (tc has none): one JSON line per qdisc and class per
sample, tc's -s -j statistics, from one netlink socket kept open.
`,
	Options: `  dev STRING     only the qdiscs and classes of this device (all by default)
  interval TIME  time between samples, in tc's units (1s by default)
  count N        stop after N samples (0, the default: until interrupted)
  deltas         add each counter's increase since the previous sample
  rates          add each counter's rate per second
`,
	Example: `gotc stats dev lo interval 100ms count 3 deltas`,
	Description: `gotc stats is gotc's own command; tc has none like it. It prints one
JSON line per qdisc and class per sample, from one netlink socket kept
open: the statistics "tc -s -j qdisc show" and "tc -s -j class show"
print (CAKE's per tin, DualPI2's extended statistics, htb's tokens and
borrows, hfsc's periods, drr's deficit), and with deltas and rates the
counters' increase and rate since the previous sample. A class's line
has "class":true and its class ID as "handle"; the classes are those of
the devices with a classful qdisc (htb, hfsc, drr, qfq, ets, prio ...),
not the flows that fq_codel, sfq and cake dump as classes. Sampling a hundred qdiscs ten times
a second costs a fraction of running "tc -s -j" as often.

It runs until interrupted (SIGINT or SIGTERM) or until count samples
are printed.`,
	ExitStatus: `0 when stopped by a signal or after count samples; 1 when the kernel
cannot be read; 255 for a usage error.`,
	SeeAlso: []string{"gotc(8)", "gotc-exporter(8)", "tc(8)"},
}

// Model is gotc-model(8).
var Model = Page{
	Name:    "gotc-model",
	Section: "8",
	Summary: "predict a qdisc's statistics for a packet trace",
	Usage: `Usage: gotc [ -s ] [ -j ] model QDISC [ vs QDISC ]...
                  { trace FILE | plan FILE | pcap FILE } [ MODEL-OPTIONS ]
       gotc [ -j ] model compare QDISC vs QDISC [ vs QDISC ]...
                  pcap FILE [ MODEL-OPTIONS ]
Where:
QDISC := { KIND [ OPTIONS ] | dev DEV [ parent CLASSID ] }
KIND := { cake | dualpi2 | fq_codel }  OPTIONS as for "tc qdisc add ... KIND"
MODEL-OPTIONS := [ truesize BYTES ] [ handle QHANDLE ] [ mtu BYTES ]
                 [ enqueue { start | end } ] [ start NS ] [ at NS ] [ seed N ]
                 [ rate RATE [ burst BYTES ] ] [ nic RATE bql BYTES ]
                 [ sweep PARAM FROM TO STEPS ]
                 [ plot FILE.svg|FILE.png ] [ metric METRIC ]
METRIC := { p50 | p95 | p99 | max | drops | marks | throughput }
`,
	About: `gotc's own command (tc has none): it prints the qdisc a reference model
predicts for a trace, as "tc qdisc show" prints a live one, and the model's
timing margins on stderr.
`,
	Options: `  dev DEV            take kind, options and handle from DEV's root qdisc
  parent CLASSID     (after dev DEV) from the qdisc below that class instead,
                     such as an fq_codel leaf of an HTB class: give "rate"
                     (and "burst") the class's
  vs QDISC           compare: run the capture through each QDISC in turn
  trace FILE         a send trace (JSON lines) recorded by gotc-traffic
  plan FILE          a traffic plan, sent exactly on time (a dry run)
  pcap FILE          a capture (pcap or pcapng, as tcpdump -w writes it):
                     each packet offered to the qdisc at its timestamp
  truesize BYTES     each packet's skb->truesize (the kernel's, by default)
  handle QHANDLE     the qdisc's handle (8001:)
  mtu BYTES          the device's MTU and hard header (1514, a veth's)
  enqueue start|end  a packet enters the qdisc when its send starts, or ends
  start NS           when a DualPI2 qdisc was made, in trace time (1s before
                     the first send)
  at NS              when to take the dump, in trace time (when it drained)
  seed N             the seed of the models' random draws
  rate RATE          dualpi2, fq_codel: the rate the device below takes
                     packets at,
                     as a parent shaper's (unlimited, a veth's)
  burst BYTES        fq_codel: the depth of the token bucket that meters
                     rate, as an HTB class's burst (0: none, each packet
                     leaves when the previous one has)
  nic RATE bql BYTES cake: a NIC below the qdisc, draining at line rate
                     RATE, its queue stopped by BQL above BYTES in flight
                     (a veth, which takes every packet at once, without);
                     the qdisc then holds what the NIC refuses
  sweep PARAM FROM TO STEPS
                     run once per value of PARAM (one of KIND's options,
                     or rate), STEPS values from FROM to TO: one row each
  plot FILE          draw a capture's delays (or a sweep's metric), .svg
                     or .png, 800 pixels wide
  metric METRIC      what a sweep's plot draws (p99)
`,
	Example: `gotc -s model cake bandwidth 10mbit diffserv3 trace cake-diffserv3.trace.jsonl
gotc model cake bandwidth 20mbit diffserv4 pcap up.pcap plot up.png
gotc model cake diffserv4 pcap up.pcap sweep bandwidth 10mbit 40mbit 7
gotc model compare dev eth0 vs cake bandwidth 20mbit diffserv4 pcap up.pcap
gotc model fq_codel vs fq_codel target 1ms vs dualpi2 pcap up.pcap rate 20mbit`,
	Description: `gotc model is gotc's own command; tc has none like it. It runs a
userspace reference model of CAKE, DualPI2 or fq_codel over a recorded trace of
sent packets, or over a traffic plan sent exactly on time, and prints
the qdisc the model predicts as "tc qdisc show" prints a live one (with
-s its statistics, with -j as JSON), so that the two can be put side by
side. The model's timing margins go to standard error: a counter that
depends on timing is predicted exactly only when the margin is wide.

Traces to try it on are in the source's traffic/testdata and in the
package's /usr/share/doc/gotc/examples: cake-diffserv3.trace.jsonl (64
packets, one per DSCP, through "cake bandwidth 10mbit diffserv3") and
dualpi2-ecn.trace.jsonl. gotc-traffic(8) records new ones.

A capture ("pcap FILE") is what a user has of their own traffic:
"tcpdump -i eth0 -w up.pcap" on the sending host, or on the router's
uplink. gotc model reads pcap and pcapng files of Ethernet (VLAN tags
removed, as hardware offload removes them before the qdisc), Linux
cooked (SLL, SLL2: "tcpdump -i any") and raw IP captures, and offers
every packet to the qdisc at its timestamp, with the length the IP
header declares (so a short snap length, "tcpdump -s 128", is enough),
its DSCP, ECN, addresses, ports and TCP header. A TCP or UDP packet
longer than the MTU ("mtu", less 14) is taken as the GSO super-packet a
TSO sender hands its qdisc. A capture that cannot be read is refused
with the number of the packet at fault.

For a capture, the qdisc's statistics are followed by a report: per
queue (CAKE's tins, DualPI2's C and L queues, fq_codel's flows as one),
per traffic class (TCP
data, TCP ACK, UDP, ICMP, other) and per flow (the ten largest; all of
them with -j), the packets offered, sent, dropped and CE-marked by the
qdisc, the queueing delay's 50th, 95th and 99th percentiles and maximum
over the delivered packets, and the throughput. With -j the output is
one object, {"qdisc": [...], "report": {...}}. With "nic", the report
adds the NIC stage: what left the NIC ("Sent", as tc words it) and each
queue's, class's and flow's delay from arrival at the qdisc to its last
bit on the wire (with -j, each group's "nic"). "plot FILE" draws each
packet's queueing delay over time, by queue, above the delay's
distribution by traffic class.

"sweep PARAM FROM TO STEPS" runs the model once per value (bandwidth,
rtt, overhead, target, step_thresh... any of the kind's options, its
word after KIND replaced or added; or rate) and prints one row per
value: the totals and each queue's 99th percentile delay (with -j, a
"sweep" object). "plot FILE" then draws "metric" against the parameter.

The model is open-loop: it replays the capture's packets at their
captured times, and its senders do not slow down when the qdisc drops or
marks, as real TCP senders would. Delays behind a bandwidth well below
the captured rate therefore grow further than they would; the queues
that stay short (voice, pings, ACKs in their own tins or sparse flows)
are predicted as they would be. DualPI2 and fq_codel queue only below a
rate: give "rate" the link's. On a device without one (a veth) fq_codel
is bypassed while empty, as the kernel bypasses it. A leaf of a shaper
is modelled from the live leaf, "dev DEV parent CLASSID", below its
class's "rate" and (for fq_codel) "burst": HTB lets a packet go while its
token bucket holds tokens, so a full bucket passes a burst at once.

fq_codel's flows come from a random hash the model cannot know: it
gives each socket of a trace (each 5-tuple of a capture) its own flow,
which is right when the kernel's hash does not collide them; a packet
whose priority is the qdisc's handle with a minor in 1..flows goes to
that flow, as in the kernel.

"A vs B vs C" (or "compare A vs B vs C") runs one capture through each
configuration (KIND OPTIONS,
or dev DEV for the qdisc a device runs now) and prints one row per
configuration: the totals and each traffic class's 99th percentile
delay (with -j, a "compare" object). "plot FILE" draws their delay
distributions side by side, of every packet and of the packets other
than TCP data. The model's options apply to every configuration; "rate"
to the DualPI2 and fq_codel ones.`,
	ExitStatus: `0 on success; 1 for a trace or plan that cannot be read or a
qdisc the model cannot run; 255 for a usage error.`,
	SeeAlso: []string{"gotc(8)", "gotc-traffic(8)", "tc-cake(8)", "tc(8)"},
}

// Exporter is gotc-exporter(8); "gotc exporter" and gotc-exporter print
// its help.
var Exporter = Page{
	Name:    "gotc-exporter",
	Section: "8",
	Summary: "serve traffic control statistics as Prometheus metrics",
	Usage: `Usage: gotc exporter [ listen ADDR ] [ dev STRING ] [ include SEL ]
                     [ exclude SEL ] [ aggregate SEL ] [ names FILE ]
       gotc-exporter [ -netns NAME ] [ -- ] [ ARGS as above ]
Where:
SEL := KEY=VALUE[,KEY=VALUE...]   KEY := { dev | kind | handle | under }
`,
	About: `gotc's own command (tc has none): it serves the statistics of every qdisc
and class (or of one device's) as Prometheus metrics at http://ADDR/metrics.
`,
	Options: `  listen ADDR    the address to serve on, host:port (localhost:9978)
  dev STRING     only the qdiscs and classes of this device (all by default)
  include SEL    only what SEL selects (any include, when given more than once)
  exclude SEL    not what SEL selects
  aggregate SEL  what SEL selects, but nothing below it (its subtree's total)
  names FILE     label what an apply file names ("name:") with its name
  -netns NAME    (gotc-exporter) the namespace to read, as gotc's -netns
`,
	Example: `gotc exporter dev eth0 exclude kind=fq_codel names subscribers.yaml`,
	Description: `gotc exporter is gotc's own command; tc has none like it. It serves the
statistics of every qdisc and class (or of one device's) as Prometheus
metrics at http://ADDR/metrics, in the text format or OpenMetrics as the
client asks, reading the kernel at each scrape over one netlink socket.
It runs until SIGINT or SIGTERM.

# Metrics

Every qdisc has gotc_qdisc_* (labels dev, handle, kind, parent) and
every class of a classful kind (htb, hfsc, drr, qfq, ets, prio, mqprio,
taprio, ...) gotc_class_* (labels dev, class, kind, parent); the flows
that fq_codel, sfq and cake dump as classes are left out. Each kind's
own statistics follow, from its table: gotc_htb_*, gotc_hfsc_*,
gotc_drr_*, gotc_cake_* and gotc_cake_tin_* (labels tin and tin_name),
and so on. Names end in their unit (_bytes, _seconds,
_bytes_per_second, _packets) and counters, only they, in _total.

	gotc_qdisc_bytes_total, gotc_class_bytes_total        counter  bytes sent
	gotc_qdisc_packets_total, gotc_class_packets_total    counter  packets sent
	gotc_qdisc_drops_total, gotc_class_drops_total        counter  packets dropped
	gotc_qdisc_overlimits_total, gotc_class_overlimits_total  counter  times over the limit
	gotc_qdisc_requeues_total, gotc_class_requeues_total  counter  packets requeued
	gotc_qdisc_backlog_bytes, gotc_class_backlog_bytes    gauge    bytes queued
	gotc_qdisc_backlog_packets, gotc_class_backlog_packets  gauge  packets queued
	gotc_qdisc_rate_bytes_per_second (and class)          gauge    rate estimator
	gotc_qdisc_rate_packets_per_second (and class)        gauge    rate estimator
	gotc_htb_lends_total, gotc_htb_borrows_total          counter  packets within / above the rate
	gotc_htb_giants_total                                 counter  packets above the MTU
	gotc_htb_tokens_seconds, gotc_htb_ctokens_seconds     gauge    rate and ceil bucket, as time
	gotc_hfsc_periods_total                               counter  periods begun
	gotc_hfsc_work_bytes_total, gotc_hfsc_realtime_work_bytes_total  counter  bytes sent
	gotc_drr_deficit_bytes                                gauge    bytes left this round
	gotc_exporter_scrape_duration_seconds, _scrape_success, _qdiscs, _classes,
	_decode_errors_total, _scrape_errors_total            the exporter's own

The full table, with every kind's, is in docs/exporter.md.

# Selecting what to export

A selector SEL is one word of KEY=VALUE pairs, all of which must hold:
dev=DEV, kind=KIND (a class's kind is its qdisc's), handle=ID (a qdisc's
handle "1:" or a class's ID "1:10"), under=ID (that qdisc or class and
everything below it). With include only what one include selects is
exported; exclude leaves out what it selects; aggregate exports what it
selects and nothing below it: an inner htb or hfsc class, or a qdisc,
counts all that went through its subtree. names FILE reads an apply file
(gotc-apply(5)) whose qdiscs and classes carry "name:", and labels their
series with name="...": a subscriber's name for its class ID.

"gotc exporter" checks its words and hands over to gotc-exporter, a
program of its own so that gotc does not link an HTTP server; gotc
finds it beside its own executable or in PATH. The package's
gotc-exporter.service runs it as a service.`,
	ExitStatus: `0 when stopped by a signal; 1 when it cannot serve (an unknown
device, an address it cannot listen on); 255 for a usage error or a
namespace it cannot open.`,
	SeeAlso: []string{"gotc(8)", "gotc-stats(8)"},
}

// Traffic is gotc-traffic(8), the sender and receiver of traffic plans.
var Traffic = Page{
	Name:    "gotc-traffic",
	Section: "8",
	Summary: "send a traffic plan through a qdisc and record what arrives",
	Usage: `Usage: gotc-traffic send -plan FILE.json [ -trace OUT.jsonl ]
       gotc-traffic recv -dev DEV [ -netns NS ] [ -count N ] [ -timeout D ]
                    [ -linger D ] [ -udp-sink PORT,... ] [ -out FILE ]
       gotc-traffic run  -plan FILE.json [ -trace OUT.jsonl ]
                    [ -capture OUT.jsonl ] [ -timeout D ] [ -exact ]
       gotc-traffic pcap -in FILE [ -mtu N ]
       gotc-traffic record -dev DEV [ -netns NS ] [ -count N ]
                    [ -duration D ] [ -snap N ] -out FILE.pcap
`,
	About: `Sends a traffic plan's packets through a device's qdisc and records when
each left (the trace gotc model reads) and what arrived.
`,
	Options: `  send           send the plan's packets, recording when each left
  recv           capture what arrives on DEV (a veth's far end)
  run            send and capture together, over the plan's veth pair
  pcap           write a capture (pcap, pcapng) as a send trace on stdout:
                 how gotc model reads a capture
  record         write the frames arriving on DEV, whole (a GSO packet is
                 one frame), as pcap: a capture of the kernel's own
                 traffic, to replay through a qdisc
  -plan FILE     the traffic plan (JSON)
  -trace FILE    write the send trace (JSON lines) here: gotc model reads it
  -capture FILE  write the capture (JSON lines) here (recv: -out FILE)
  -exact         exit 3 unless the capture is exactly the trace, in order
  -in FILE       (pcap) the capture to read
  -mtu N         (pcap) the device's MTU (1500): longer TCP and UDP packets
                 are GSO super-packets
  -count N       (recv, record) stop after N packets; record: frames
  -duration D    (record) stop after D (10s)
  -snap N        (record) keep N bytes of each frame (64..262144; 0: all)
  -out FILE      (recv) the capture, JSON lines; (record) the pcap file
`,
	Example: `gotc-traffic run -plan plan.json -trace out.trace.jsonl`,
	Description: `gotc-traffic sends the packets of a traffic plan (flows of UDP packets
with their sizes, DSCP and ECN marks, counts and intervals) through a
device's qdisc, records when each was sent (the trace gotc-model(8)
reads), and captures what arrives on the far end of a veth pair. It is
gotc's tool for testing qdiscs with real packets; it needs root (raw
sockets, network namespaces). A plan to start from is
/usr/share/doc/gotc/examples/mixed-plan.json.`,
	ExitStatus: `0 on success; 1 on an error; 2 for a usage error; 3 when run -exact
finds that the capture differs from what was sent.`,
	SeeAlso: []string{"gotc-model(8)", "gotc(8)"},
}

// BPF is gotc-bpf(8), the loader of eBPF objects that gotc runs.
var BPF = Page{
	Name:    "gotc-bpf",
	Section: "8",
	Summary: "load an eBPF ELF object for gotc's bpf filter and action",
	Usage: `Usage: gotc-bpf FILE SECTION PROG { cls | act }
`,
	About: `Loads the program of an eBPF ELF object for gotc's "bpf obj FILE" and
passes it to gotc over descriptor 3: gotc runs it, not you.
`,
	Options: `  FILE           the ELF object
  SECTION, PROG  the program's section and name, as "bpf obj FILE sec S"
  cls | act      load it for a classifier or for an action
`,
	Example: `gotc filter add dev eth0 ingress bpf da obj prog.o sec classifier`,
	Description: `gotc-bpf is run by gotc, not by hand: for "bpf obj FILE" in a filter or
an action, gotc runs it with a Unix socket as descriptor 3, and gotc-bpf
loads the program and sends its descriptor back over the socket. It is
a program of its own so that gotc does not link and initialise an ELF
loader at every start. gotc finds it beside its own executable or in
PATH.`,
	ExitStatus: `0 when the program was passed to gotc; 1 when the object cannot be
loaded (tc's message on standard error); 2 for a bad invocation.`,
	SeeAlso: []string{"gotc(8)", "tc-bpf(8)"},
}

// CNI is gotc-cni(8), the chained CNI plugin.
var CNI = Page{
	Name:    "gotc-cni",
	Section: "8",
	Summary: "CNI plugin that shapes a pod's traffic, the bandwidth plugin's way or with AQM",
	Usage: `Usage: CNI_COMMAND=ADD|DEL|CHECK|STATUS|GC|VERSION CNI_CONTAINERID=ID
         CNI_NETNS=PATH CNI_IFNAME=IF CNI_PATH=DIRS gotc-cni < CONFIG.json
       gotc-cni help
`,
	About: `A chained CNI plugin (spec 1.1) that reads the bandwidth plugin's
configuration and makes the same kernel state, or cake, fq_codel or fq
under it, or a whole tree in gotc apply's schema, on the pod's host veth.
`,
	Options: `  ingressRate, ingressBurst  the pod's ingress rate (bit/s) and burst (bits)
  egressRate, egressBurst    the pod's egress, shaped on an ifb
  runtimeConfig.bandwidth    the same four, from the runtime (Kubernetes'
                             annotations), when the top level has none
  aqm                        cake, fq_codel or fq
  tree                       {"root": ..., "ingress": ...}: the host veth's
                             trees as a device in gotc-apply(5)
`,
	Example: `{"type": "gotc-cni", "egressRate": 10000000, "egressBurst": 80000}
{"type": "gotc-cni", "ingressRate": 10000000, "ingressBurst": 80000,
 "aqm": "fq_codel"}`,
	Description: `gotc-cni runs after the plugin that makes the pod's veth pair, as the
bandwidth plugin does, and reads its configuration as it is: ingressRate
and ingressBurst (bits per second, bits) shape what the pod receives with
a TBF of latency 25 ms at the host veth's root; egressRate and egressBurst
shape what it sends, redirected by a u32 filter on the host veth's ingress
to an ifb named "bwp" and a hash of the network's name and the container
ID, with its own TBF. runtimeConfig.bandwidth counts when the top level
has none of the four. With these alone gotc-cni sends the bandwidth
plugin's requests (its TBF arithmetic, its rate spec, its two mirred
actions), and gotc's test bed compares the two plugins' kernel state.

"aqm" puts cake in place of each TBF (cake's own shaper at the rate), or
fq_codel or fq as each TBF's leaf. "tree" is the host veth's whole state
(root and ingress) in gotc-apply(5)'s schema, and goes alone.

ADD applies the state with gotc apply's engine: a second ADD sends
nothing, and a refused request undoes what came before it. CHECK compares
the whole state, not three numbers, and its error names the changes that
would repair it. DEL deletes the ifb and the host veth's qdiscs, and finds
what a crashed ADD left, the ifb's name being derived. STATUS reports
whether the kernel answers, failing with CNI's code 50 (not available)
when it does not; GC deletes gotc-cni's ifbs of the network whose
attachment is not among the valid ones.

shapedSubnets and unshapedSubnets are refused: the bandwidth plugin
pinned in gotc's tests has no such keys and would shape all traffic.`,
	ExitStatus: `0 on success; otherwise 1 with the CNI error (code, msg) as JSON on
standard output, as the CNI specification asks.`,
	SeeAlso: []string{"gotc-apply(5)", "gotc(8)", "tc-tbf(8)"},
}

// Agent is gotc-agent(8), gotc apply as a reconciler.
var Agent = Page{
	Name:    "gotc-agent",
	Section: "8",
	Summary: "keep a node's traffic control in the state of a file",
	Usage: `Usage: gotc-agent [ -netns NAME ] [ -node NAME ] [ -label KEY=VALUE ]...
                  [ -kube-labels ] [ -listen ADDR ] [ -settle TIME ]
                  [ -resync TIME ] [ -delete-on-exit ] [ -v ] FILE
`,
	About: `gotc's own command (tc has none): gotc apply as a reconciler. It applies
this node's part of FILE when the file changes, and repairs drift.
`,
	Options: `  FILE           the desired state (gotc-apply(5)), or a fleet file whose
                 parts select nodes by host name or labels; its directory
                 is watched (mount a ConfigMap as a directory, not with
                 subPath, which is never updated)
  -node NAME     this node's host name, as the fleet's parts select it (the
                 machine's host name)
  -label KEY=VALUE
                 a label of this node, as the fleet's parts select it
  -kube-labels   read this node's labels (those of the Kubernetes node
                 -node names) from the API server, with the pod's service
                 account, at each pass
  -listen ADDR   serve /metrics and /status on ADDR, host:port
                 (localhost:9979; "" serves nothing)
  -settle TIME   read the file once its directory has been quiet this long
                 (1s): a burst of changes is one apply
  -resync TIME   compare the kernel's state with the file this often, and
                 repair drift (1m)
  -delete-on-exit
                 on SIGTERM, delete the trees of the devices the node owns
                 (by default they stay as they are)
  -netns NAME    the network namespace to work in, as gotc's -netns
  -v             log every change seen in the file's directory
`,
	Example: `gotc-agent -listen :9979 -resync 30s /etc/gotc/tc.yaml`,
	Description: `gotc-agent keeps the traffic control of a node in the state that a file
describes, as gotc apply would bring it there once: it applies the file at
start, again whenever it changes, and every resync period it compares the
kernel's state with the file in force and repairs any drift, sending the
fewest requests, as gotc apply does.

The file is either gotc apply's (gotc-apply(5)) or a fleet file, whose
parts select the nodes they are for by host name (-node) or by labels
(-label, or -kube-labels for a Kubernetes node's own), so that one file (a
ConfigMap, a CRM sync's output) serves a fleet. A node's part is the
devices of every part that selects it.

It watches the file's directory rather than the file, for a mounted
ConfigMap is updated by swapping the directory's "..data" symlink, and a
file written as it should be (to a temporary file, then renamed over it)
is a new file. It reads the file once the directory has been quiet for
-settle, so that a burst of changes is one apply. A file written in place
may be read half-written if its writer pauses longer than that: such a file
is refused when it does not parse, and applied as it is when it does, so
write by renaming.

A file that cannot be read, is refused (a fault, a device this node lacks),
or that the kernel refuses (the requests sent for it are undone) leaves the
last good file in force: the agent goes on repairing drift towards it,
counts the failure, sets gotc_agent_file_refused to 1, logs why and says it
at /status. It tries the file again when it changes and at each resync.

It serves Prometheus metrics at http://ADDR/metrics: passes by trigger
(gotc_agent_passes_total), contents applied (gotc_agent_applies_total),
drifts found and repaired, failures by reason (read, bad_file, kernel,
labels), change requests sent, the time of the last success (the kernel in
the state of the file as it is now) and whether the file is refused.
/status says the same as JSON, with the reason.

On SIGINT or SIGTERM it stops and leaves the trees as they are, so that a
restart or an upgrade does not interrupt the shaping; with -delete-on-exit
it deletes the trees of the devices it owns first.

deploy/kubernetes in gotc's source runs it as a DaemonSet (host network,
CAP_NET_ADMIN, the ConfigMap mounted as a directory, a ClusterRole that
reads nodes for -kube-labels); gotc-agent.service runs it on a host,
started by gotc-agent.path once /etc/gotc/tc.yaml exists.`,
	ExitStatus: `0 when stopped by a signal; 1 when it cannot run (the file's directory
cannot be watched, the address cannot be listened on, the kernel cannot be
reached, -kube-labels outside a pod, the trees cannot be deleted on exit);
255 for a usage error.`,
	SeeAlso: []string{"gotc-apply(8)", "gotc-apply(5)", "gotc-exporter(8)", "gotc(8)"},
}
