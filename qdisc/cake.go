// SPDX-License-Identifier: Apache-2.0

package qdisc

// CAKE and cake_mq: tc's keywords to TCA_CAKE_* attributes, and the
// attributes and TCA_STATS_APP statistics back to tc's text and JSON.
//
// Both kinds share one option grammar and one set of printers in tc; the
// kernel, not tc, refuses what cake_mq cannot do (autorate-ingress, and
// changing its per-queue children), so nothing here is kind-specific.

import (
	"strconv"
	"strings"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(cakeKind("cake"))
		tckind.MustRegisterQdisc(cakeKind("cake_mq"))
	}, "cake", "cake_mq")
}

// cakeKind returns the Kind entry for "cake" or "cake_mq" (they differ only
// in name). Its ParseQdisc returns typed options, which the generated encoder
// writes in tc's order, and its printers accept the options and statistics in
// every form a dump can bring them (decoded, raw, or in TCA_XSTATS only).
func cakeKind(name string) *tckind.Qdisc {
	k := &tckind.Qdisc{
		Name:             name,
		Usage:            cakeUsage,
		ParseQdisc:       parseCakeQdisc,
		PrintOptions:     printCakeOptionsMsg,
		PrintXstats:      printCakeXstatsMsg,
		PrintClassXstats: printCakeXstatsMsg,
		Stats:            cakeStatsTable,
		Keywords:         tckind.KeywordsOf(name, cakeKeywords),
		// cake_mq's instances share one configuration, with cake's
		// defaults (cake_mq-default.golden).
		KeptOnChange: cakeKept,
	}
	if name == "cake" {
		k.ChangeAccepted = cakeChangeAccepted
	}
	return k
}

// cakeKept is Kind.KeptOnChange for cake, whose change keeps
// every option a request omits: cake_config_init's defaults. The
// bandwidth goes back to unlimited only when the request gives no
// autorate either, the rtt with its target, and raw framing only when the
// request gives no overhead, framing or raw: each of their words sets the
// others. Not mpu, memlimit and fwmark, whose default 0 tc never sends.
var cakeKept = tckind.KeptDefaults("cake", cakeKeywords, attrs.CakeAttrs{
	DiffservMode: new(attrs.CakeDiffservModeDiffserv3), FlowMode: new(attrs.CakeFlowModeTriple),
	NAT: new(uint32(0)), Wash: new(uint32(0)), Ingress: new(uint32(0)), SplitGSO: new(uint32(1)),
	AckFilter: new(attrs.CakeAckFilterNone),
},
	attrs.CakeAttrs{BaseRate64: new(uint64(0)), Autorate: new(uint32(0))},
	attrs.CakeAttrs{RTT: new(uint32(100000)), Target: new(uint32(5000))},
	attrs.CakeAttrs{Raw: new(uint32(0)), Overhead: new(int32(0)), ATM: new(attrs.CakeATMModeNone)})

// cakeChangeAccepted is Kind.ChangeAccepted for cake. cake_change refuses a
// cake below cake_mq (its instances share one configuration), a NAT setting
// on a kernel without conntrack, and attributes of the wrong size; cake's
// policy has no ranges (Linux 6.17 to 7.2).
func cakeChangeAccepted(opts attrs.TCOptionsMsg, parentKind string) bool {
	o, ok := opts.(*attrs.CakeAttrs)
	return ok && parentKind != "cake_mq" && len(o.Unknown) == 0 && o.NAT == nil
}

// parseCakeQdisc is ParseCake for the Kind table. The options are never
// nil: tc sends TCA_OPTIONS even when it is empty.
func parseCakeQdisc(args []string, _ tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
	o, err := ParseCake(args)
	if err != nil {
		return nil, err
	}
	return o, nil
}

// printCakeOptionsMsg prints decoded options; options that did not decode
// as CAKE's are decoded again here (a raw payload) or skipped.
func printCakeOptionsMsg(p *tcfmt.Printer, m attrs.TCOptionsMsg) {
	switch v := m.(type) {
	case *attrs.CakeAttrs:
		printCakeOptions(p, v)
	case attrs.TCOptionsMsgRaw:
		if o, ok := attrs.DecodeTCOptionsMsg("cake", v).(*attrs.CakeAttrs); ok {
			printCakeOptions(p, o)
		}
	}
}

// printCakeXstatsMsg prints CAKE's statistics from TCA_STATS_APP, or from
// TCA_XSTATS, where the kernel puts a copy of the same nest for old tools.
func printCakeXstatsMsg(p *tcfmt.Printer, x tckind.Xstats) {
	if s := cakeStatsOf(x); s != nil {
		printCakeXstats(p, s)
	}
}

// cakeStatsOf returns CAKE's statistics from TCA_STATS_APP, which tc
// prefers, or else from TCA_XSTATS (the copy the kernel sends for older
// tools); nil when neither decoded as CAKE's.
func cakeStatsOf(x tckind.Xstats) *attrs.CakeStatsAttrs {
	if s, ok := x.App.(*attrs.CakeStatsAttrs); ok {
		return s
	}
	s, _ := x.Legacy.(*attrs.CakeStatsAttrs)
	return s
}

// cakeUsage is gotc's own wording of the cake usage text; the keywords and
// the defaults (marked *) are tc's.
const cakeUsage = `Usage: ... cake | cake_mq [ OPTIONS ]
Shaper:    bandwidth RATE | unlimited* | autorate-ingress
RTT:       rtt TIME | datacentre | lan | metro | regional | internet* |
           oceanic | satellite | interplanetary
Tins:      besteffort | precedence | diffserv8 | diffserv4 | diffserv | diffserv3*
Isolation: flowblind | srchost | dsthost | hosts | flows | dual-srchost |
           dual-dsthost | triple-isolate*
Flags:     nat | nonat*   wash | nowash*   split-gso* | no-split-gso
           ack-filter | ack-filter-aggressive | no-ack-filter*
           ingress | egress*
Limits:    memlimit SIZE   fwmark MASK
Framing:   ptm | atm | noatm*   overhead N (-64..256) | raw*   mpu N (0..256)
Presets:   conservative   ipoa-vcmux | ipoa-llcsnap   bridged-vcmux |
           bridged-llcsnap | bridged-ptm   pppoa-vcmux | pppoa-llc
           pppoe-vcmux | pppoe-llcsnap | pppoe-ptm   ethernet | ether-vlan
           docsis   via-ethernet
(* = kernel default; presets add to the overhead given before them)
`

// cakePreset is one of tc's named RTT presets: it sets both the AQM target and
// the interval (the RTT), in microseconds.
type cakePreset struct {
	name             string
	target, interval uint32
}

var cakePresets = []cakePreset{
	{"datacentre", 5, 100},
	{"lan", 50, 1000},
	{"metro", 500, 10000},
	{"regional", 1500, 30000},
	{"internet", 5000, 100000},
	{"oceanic", 15000, 300000},
	{"satellite", 50000, 1000000},
	{"interplanetary", 50000000, 1000000000},
}

// cakeFraming is an ATM/PTM overhead preset: the framing it selects (when
// set) and the bytes it adds to the overhead accumulated so far.
type cakeFraming struct {
	atm    attrs.CakeATMMode
	setATM bool
	add    int32
	mpu    uint32 // absolute mpu it sets, 0 for none
}

// Framing presets that add to the overhead. Their order relative to
// "overhead N" matters, as in tc: "overhead 10 ether-vlan" gives 14, while
// "ether-vlan overhead 10" gives 10.
var cakeFramings = map[string]cakeFraming{
	"ipoa-vcmux":      {atm: attrs.CakeATMModeATM, setATM: true, add: 8},
	"ipoa-llcsnap":    {atm: attrs.CakeATMModeATM, setATM: true, add: 16},
	"bridged-vcmux":   {atm: attrs.CakeATMModeATM, setATM: true, add: 24},
	"bridged-llcsnap": {atm: attrs.CakeATMModeATM, setATM: true, add: 32},
	"pppoa-vcmux":     {atm: attrs.CakeATMModeATM, setATM: true, add: 10},
	"pppoa-llc":       {atm: attrs.CakeATMModeATM, setATM: true, add: 14},
	"pppoe-vcmux":     {atm: attrs.CakeATMModeATM, setATM: true, add: 32},
	"pppoe-llcsnap":   {atm: attrs.CakeATMModeATM, setATM: true, add: 40},
	// VDSL2 over PTM (64b/65b coding).
	"pppoe-ptm":   {atm: attrs.CakeATMModePTM, setATM: true, add: 30},
	"bridged-ptm": {atm: attrs.CakeATMModePTM, setATM: true, add: 22},
	// Ethernet preamble, inter-frame gap and FCS; leaves the framing alone.
	"ethernet": {add: 38, mpu: 84},
	// One 802.1Q tag; may be repeated, each adding 4.
	"ether-vlan": {add: 4},
	// DOCSIS shapers count the Ethernet frame with FCS only.
	"docsis": {atm: attrs.CakeATMModeNone, setATM: true, add: 18, mpu: 64},
}

// cakeParse holds what tc's parser tracks: each option is only sent when the
// user named it, so that "change" and "replace" keep everything else.
type cakeParse struct {
	bandwidth        uint64
	unlimited        bool
	autorate         *uint32
	interval, target uint32
	preset           string
	diffserv         *attrs.CakeDiffservMode
	flowMode         *attrs.CakeFlowMode
	atm              *attrs.CakeATMMode
	overhead         int32
	overheadSet      bool
	raw              bool
	mpu              int32
	memlimit         uint32
	fwmark           uint32
	nat, wash        *uint32
	splitGSO         *uint32
	ingress          *uint32
	ackFilter        *attrs.CakeAckFilter
}

func cakePtr[T any](v T) *T { return &v }

// ParseCake turns the words after "cake" or "cake_mq" into the options tc
// would send. Only what the words name is set; the caller sends the result
// as TCA_OPTIONS (tc sends that nest even when it is empty); the generated
// encoder keeps tc's attribute order.
//
// Errors unwrap (errors.As) to *ParseError with tc's message; "help" gives
// an empty Msg with ShowUsage set (tc prints only the usage and exits 1).
// Code is 255 for a keyword missing its value and for a second RTT preset (tc
// exits from a helper there), and NoNewline is set for the overhead and mpu
// range errors, which tc prints with a literal backslash-n and no line feed.
func ParseCake(args []string) (*attrs.CakeAttrs, error) {
	var st cakeParse
	for i := 0; i < len(args); i++ {
		arg := args[i]
		// next returns the keyword's value; tc's NEXT_ARG exits when none is left.
		next := func() (string, error) {
			if i+1 >= len(args) {
				return "", tcword.IncompleteCommand()
			}
			i++
			return args[i], nil
		}
		if err := st.word(arg, next); err != nil {
			return nil, err
		}
	}
	return st.attrs(), nil
}

func (st *cakeParse) word(arg string, next func() (string, error)) error {
	switch arg {
	case "bandwidth":
		v, err := next()
		if err != nil {
			return err
		}
		bw, perr := tcfmt.ParseRate(v)
		if perr != nil {
			return tcword.Errorf(`Illegal "bandwidth"`)
		}
		// A rate that comes out as 0 is not "unlimited": tc then sends no
		// rate at all, but still turns autorate off.
		st.bandwidth, st.unlimited, st.autorate = bw, false, cakePtr(uint32(0))
	case "unlimited":
		st.bandwidth, st.unlimited, st.autorate = 0, true, cakePtr(uint32(0))
	case "autorate-ingress":
		st.autorate = cakePtr(uint32(1))
	case "rtt":
		v, err := next()
		if err != nil {
			return err
		}
		us, perr := tcfmt.ParseTime(v)
		if perr != nil {
			return tcword.Errorf(`Illegal "rtt"`)
		}
		// tc derives the target as 5% of the RTT (at least 1 µs) and sends
		// both; an RTT of 0 sends only that target.
		st.interval, st.target = us, max(us/20, 1)
	case "diffserv":
		// tc's other word for diffserv4; the modes' own words are the
		// spec's (attrs.CakeDiffservModeByTCName).
		st.diffserv = cakePtr(attrs.CakeDiffservModeDiffserv4)
	case "wash":
		st.wash = cakePtr(uint32(1))
	case "nowash":
		st.wash = cakePtr(uint32(0))
	case "split-gso":
		st.splitGSO = cakePtr(uint32(1))
	case "no-split-gso":
		st.splitGSO = cakePtr(uint32(0))
	case "nat":
		st.nat = cakePtr(uint32(1))
	case "nonat":
		st.nat = cakePtr(uint32(0))
	case "ingress":
		st.ingress = cakePtr(uint32(1))
	case "egress":
		st.ingress = cakePtr(uint32(0))
	case "raw":
		// raw resets the framing and the overhead and sends both the
		// overhead (0) and the RAW attribute, which clears the kernel's
		// overhead flag. Later presets still add to the 0.
		st.atm = cakePtr(attrs.CakeATMModeNone)
		st.overhead, st.overheadSet, st.raw = 0, true, true
	case "conservative":
		// One whole ATM cell plus framing: the only preset that replaces
		// the overhead instead of adding to it.
		st.atm = cakePtr(attrs.CakeATMModeATM)
		st.overhead, st.overheadSet = 48, true
	case "via-ethernet":
		// Accepted and ignored: the kernel compensates for the Ethernet
		// header by itself now.
	case "overhead":
		v, err := next()
		if err != nil {
			return err
		}
		n, ok := cakeStrtolInt(v)
		if !ok || n < -64 || n > 256 {
			return errCakeRange(cakeOverheadRangeMsg)
		}
		st.overhead, st.overheadSet = n, true
	case "mpu":
		v, err := next()
		if err != nil {
			return err
		}
		n, ok := cakeStrtolInt(v)
		if !ok || n < 0 || n > 256 {
			return errCakeRange(cakeMPURangeMsg)
		}
		st.mpu = n
	case "memlimit":
		v, err := next()
		if err != nil {
			return err
		}
		sz, perr := tcfmt.ParseSize(v)
		if perr != nil {
			return tcword.Errorf(`Illegal value for "memlimit": "%s"`, v)
		}
		st.memlimit = sz
	case "fwmark":
		v, err := next()
		if err != nil {
			return err
		}
		m, perr := tcfmt.ParseUint(v, 0, 32)
		if perr != nil {
			return tcword.Errorf(`Illegal value for "fwmark": "%s"`, v)
		}
		st.fwmark = uint32(m)
	case "help":
		return &tcword.ParseError{ShowUsage: true}
	default:
		// The words of the modes are those tc prints, the spec's.
		if m, ok := attrs.CakeDiffservModeByTCName(arg); ok {
			st.diffserv = cakePtr(m)
			return nil
		}
		if m, ok := attrs.CakeFlowModeByTCName(arg); ok {
			st.flowMode = cakePtr(m)
			return nil
		}
		if m, ok := attrs.CakeAckFilterByTCName(arg); ok {
			st.ackFilter = cakePtr(m)
			return nil
		}
		if m, ok := attrs.CakeATMModeByTCName(arg); ok {
			st.atm = cakePtr(m)
			return nil
		}
		if f, ok := cakeFramings[arg]; ok {
			if f.setATM {
				st.atm = cakePtr(f.atm)
			}
			st.overhead += f.add
			st.overheadSet = true
			if f.mpu != 0 {
				st.mpu = int32(f.mpu)
			}
			return nil
		}
		for _, p := range cakePresets {
			if p.name != arg {
				continue
			}
			if st.preset != "" {
				// tc names the new preset as the key and the earlier
				// one as "the second value".
				return errCakeDuplicate(arg, st.preset)
			}
			st.preset = p.name
			st.interval, st.target = p.interval, p.target
			return nil
		}
		return tcword.UsageErrorf(`What is "%s"?`, arg)
	}
	return nil
}

// attrs builds the attribute set, applying tc's rules of what is sent: a
// rate only when given (or unlimited), mpu, RTT, target, memlimit and fwmark
// only when non-zero.
func (st *cakeParse) attrs() *attrs.CakeAttrs {
	o := &attrs.CakeAttrs{
		DiffservMode: st.diffserv,
		ATM:          st.atm,
		FlowMode:     st.flowMode,
		Autorate:     st.autorate,
		NAT:          st.nat,
		Wash:         st.wash,
		SplitGSO:     st.splitGSO,
		Ingress:      st.ingress,
		AckFilter:    st.ackFilter,
	}
	if st.bandwidth != 0 || st.unlimited {
		o.BaseRate64 = cakePtr(st.bandwidth)
	}
	if st.overheadSet {
		o.Overhead = cakePtr(st.overhead)
	}
	if st.raw {
		// Only RAW's presence counts; tc sends it as a u32 0.
		o.Raw = cakePtr(uint32(0))
	}
	if st.mpu > 0 {
		o.MPU = cakePtr(uint32(st.mpu))
	}
	if st.interval != 0 {
		o.RTT = cakePtr(st.interval)
	}
	if st.target != 0 {
		o.Target = cakePtr(st.target)
	}
	if st.memlimit != 0 {
		o.Memory = cakePtr(st.memlimit)
	}
	if st.fwmark != 0 {
		o.Fwmark = cakePtr(st.fwmark)
	}
	return o
}

// cakePick returns a when c holds, else b: tc's "nat "/"nonat " style pairs.
func cakePick(c bool, a, b string) string {
	if c {
		return a
	}
	return b
}

// cakeStrtolInt reads a number as tc's overhead and mpu do: strtol base 10,
// the whole word consumed (so an empty word is 0), and the long result
// stored in a C int, which keeps its low 32 bits.
func cakeStrtolInt(s string) (int32, bool) {
	v, n, _ := tcfmt.Strtol(s, 10)
	if n != len(s) {
		return 0, false
	}
	return int32(v), true
}

// The two range messages tc prints with an escaped "\n" (a backslash and an
// n) and no line feed.
const (
	cakeOverheadRangeMsg = `Illegal "overhead", valid range is -64 to 256\n`
	cakeMPURangeMsg      = `Illegal "mpu", valid range is 0 to 256\n`
)

// errCakeDuplicate is tc's duparg for a second RTT preset (exit 255). tc
// names the new preset as the key and the earlier one as "the second value".
func errCakeDuplicate(key, prev string) error {
	return tcword.DuplicateArgument(key, prev)
}

// errCakeRange is the overhead or mpu range error, whose format in tc has an
// escaped backslash-n, so tc prints those two characters and no line feed.
func errCakeRange(msg string) error {
	return &tcword.ParseError{Msg: msg, NoNewline: true}
}

// cakeU32 reads an optional u32 attribute; tc treats an absent one as 0.
func cakeU32(v *uint32) uint32 {
	if v == nil {
		return 0
	}
	return *v
}

// cakePrintMode prints a diffserv or flow mode by its name (from the
// mode's TCName), or tc's marker for a value it has no name for (which has
// no trailing blank in text).
func cakePrintMode(p *tcfmt.Printer, key tcfmt.Name, name string, named bool) {
	if named {
		p.String(tcfmt.Any, key, "%s ", name)
		return
	}
	p.String(tcfmt.JSON, key, "", "unknown")
	p.String(tcfmt.FP, "", "(?%s?)", string(key))
}

// printCakeOptions prints a cake or cake_mq qdisc's options as tc does:
// in text the part after "refcnt N " (each token followed by a blank), in
// JSON the members of the "options" object, which the caller opens and
// closes. tc prints the same with and without -d.
//
// What is printed follows tc's rules for each attribute: the rate, autorate,
// diffserv and flow mode only when present; nat, wash, split-gso and
// ack-filter always (absent counts as off); ingress in text only when on;
// rtt in text only when non-zero; raw when present; the framing as "atm" or
// "ptm", or "noatm" unless raw; overhead always; mpu, memlimit and fwmark in
// text only when non-zero (JSON always has rtt, raw and fwmark).
func printCakeOptions(p *tcfmt.Printer, o *attrs.CakeAttrs) {
	if o == nil {
		return
	}
	if o.BaseRate64 != nil {
		if bw := *o.BaseRate64; bw != 0 {
			p.Rate(tcfmt.Any, "bandwidth", "bandwidth %s ", bw)
		} else {
			p.String(tcfmt.Any, "bandwidth", "bandwidth %s ", "unlimited")
		}
	}
	if o.Autorate != nil {
		switch *o.Autorate {
		case 0:
		case 1:
			p.String(tcfmt.Any, "autorate", "%s ", "autorate-ingress")
		default:
			p.String(tcfmt.Any, "autorate", "(?autorate?) ", "unknown")
		}
	}
	if o.DiffservMode != nil {
		name, named := o.DiffservMode.TCName()
		cakePrintMode(p, "diffserv", name, named)
	}
	if o.FlowMode != nil {
		name, named := o.FlowMode.TCName()
		cakePrintMode(p, "flowmode", name, named)
	}

	nat := cakeU32(o.NAT) != 0
	p.Text(cakePick(nat, "nat ", "nonat "))
	p.Bool(tcfmt.JSON, "nat", "", nat)

	wash := cakeU32(o.Wash) != 0
	p.Text(cakePick(wash, "wash ", "nowash "))
	p.Bool(tcfmt.JSON, "wash", "", wash)

	ingress := cakeU32(o.Ingress) != 0
	if ingress {
		p.Text("ingress ")
	}
	p.Bool(tcfmt.JSON, "ingress", "", ingress)

	var ack attrs.CakeAckFilter
	if o.AckFilter != nil {
		ack = *o.AckFilter
	}
	switch ack {
	case attrs.CakeAckFilterAggressive:
		p.String(tcfmt.Any, "ack-filter", "ack-filter-%s ", "aggressive")
	case attrs.CakeAckFilterFilter:
		p.String(tcfmt.Any, "ack-filter", "ack-filter ", "enabled")
	default:
		p.String(tcfmt.Any, "ack-filter", "no-ack-filter ", "disabled")
	}

	gso := cakeU32(o.SplitGSO) != 0
	p.Text(cakePick(gso, "split-gso ", "no-split-gso "))
	p.Bool(tcfmt.JSON, "split_gso", "", gso)

	rtt := cakeU32(o.RTT)
	if rtt != 0 {
		p.String(tcfmt.FP, "", "rtt %s ", tcfmt.FormatTime(rtt))
	}
	p.Uint(tcfmt.JSON, "rtt", "", uint64(rtt))

	raw := o.Raw != nil // tc tests only its presence
	if raw {
		p.Text("raw ")
	}
	p.Bool(tcfmt.JSON, "raw", "", raw)

	var atm attrs.CakeATMMode
	if o.ATM != nil {
		atm = *o.ATM
	}
	switch {
	case atm == attrs.CakeATMModeATM:
		p.String(tcfmt.Any, "atm", "%s ", "atm")
	case atm == attrs.CakeATMModePTM:
		p.String(tcfmt.Any, "atm", "%s ", "ptm")
	case !raw:
		p.String(tcfmt.Any, "atm", "%s ", "noatm")
	}

	var overhead int32
	if o.Overhead != nil {
		overhead = *o.Overhead
	}
	p.Int(tcfmt.Any, "overhead", "overhead %d ", int64(overhead))

	if mpu := cakeU32(o.MPU); mpu != 0 {
		p.Uint(tcfmt.Any, "mpu", "mpu %u ", uint64(mpu))
	}
	if mem := cakeU32(o.Memory); mem != 0 {
		p.Size(tcfmt.Any, "memlimit", "memlimit %s ", uint64(mem))
	}
	fwmark := cakeU32(o.Fwmark)
	if fwmark != 0 {
		p.Uint(tcfmt.FP, "", "fwmark 0x%x ", uint64(fwmark))
	}
	p.Hex0x(tcfmt.JSON, "fwmark", "", uint64(fwmark))
}

// printCakeXstats prints CAKE's statistics (the TCA_STATS_APP nest) as tc
// does after "-s": for a qdisc the memory, capacity, size and offset lines
// and the per-tin table (a "tins" array in JSON); for a class (one flow,
// from "class show") the deficit, COBALT and BLUE state. tc uses one routine
// for both and prints whatever is present, and so does this; the caller
// prints the line separator that follows.
//
// The table's columns are named Bulk, Best Effort, Voice for three tins,
// Bulk, Best Effort, Video, Voice for four, and "Tin N" otherwise (besteffort,
// diffserv8, precedence). A row is printed when the first tin has its value.
func printCakeXstats(p *tcfmt.Printer, s *attrs.CakeStatsAttrs) {
	if s == nil {
		return
	}
	if s.MemoryUsed != nil && s.MemoryLimit != nil {
		p.Size(tcfmt.FP, "", " memory used: %s", uint64(*s.MemoryUsed))
		p.Size(tcfmt.FP, "", " of %s\n", uint64(*s.MemoryLimit))
		p.Uint(tcfmt.JSON, "memory_used", "", uint64(*s.MemoryUsed))
		p.Uint(tcfmt.JSON, "memory_limit", "", uint64(*s.MemoryLimit))
	}
	if s.CapacityEstimate64 != nil {
		p.Rate(tcfmt.Any, "capacity_estimate", " capacity estimate: %s\n", *s.CapacityEstimate64)
	}
	if s.MinNetlen != nil && s.MaxNetlen != nil {
		p.Uint(tcfmt.Any, "min_network_size", " min/max network layer size: %12u", uint64(*s.MinNetlen))
		p.Uint(tcfmt.Any, "max_network_size", " /%8u\n", uint64(*s.MaxNetlen))
	}
	if s.MinAdjlen != nil && s.MaxAdjlen != nil {
		p.Uint(tcfmt.Any, "min_adj_size", " min/max overhead-adjusted size: %8u", uint64(*s.MinAdjlen))
		p.Uint(tcfmt.Any, "max_adj_size", " /%8u\n", uint64(*s.MaxAdjlen))
	}
	if s.ActiveQueues != nil {
		p.Uint(tcfmt.Any, "active_queues", " active queues: %25u\n", uint64(*s.ActiveQueues))
	}
	if s.AvgNetoff != nil {
		p.Uint(tcfmt.Any, "avg_hdr_offset", " average network hdr offset: %12u\n\n", uint64(*s.AvgNetoff))
	}

	// Class (per-flow) statistics.
	if s.Deficit != nil {
		p.Int(tcfmt.Any, "deficit", "  deficit %d", int64(*s.Deficit))
	}
	if s.CobaltCount != nil {
		p.Uint(tcfmt.Any, "count", " count %u", uint64(*s.CobaltCount))
	}
	if s.Dropping != nil && *s.Dropping != 0 {
		p.Bool(tcfmt.Any, "dropping", " dropping", true)
		if s.DropNextUS != nil {
			if dn := *s.DropNextUS; dn < 0 {
				// A deadline still ahead: text only, with the sign in front.
				p.String(tcfmt.FP, "", " drop_next -%s", tcfmt.FormatTime(uint32(-dn)))
			} else {
				p.Uint(tcfmt.JSON, "drop_next", "", uint64(dn))
				p.String(tcfmt.FP, "", " drop_next %s", tcfmt.FormatTime(uint32(dn)))
			}
		}
	}
	if s.PDrop != nil {
		p.Uint(tcfmt.Any, "blue_prob", " blue_prob %u", uint64(*s.PDrop))
		if s.BlueTimerUS != nil {
			if bt := *s.BlueTimerUS; bt < 0 {
				// tc formats the negative value itself here (not its
				// magnitude, unlike drop_next), read as unsigned.
				p.String(tcfmt.FP, "", " blue_timer -%s", tcfmt.FormatTime(uint32(bt)))
			} else {
				p.Uint(tcfmt.JSON, "blue_timer", "", uint64(bt))
				p.String(tcfmt.FP, "", " blue_timer %s", tcfmt.FormatTime(uint32(bt)))
			}
		}
	}

	if s.TinStats != nil {
		cakePrintTins(p, s.TinStats)
	}
}

// printCakeClassXstats prints the statistics of a cake class (one flow) as
// tc's "class show -s" does. tc uses the qdisc routine for classes too, so
// this is PrintCakeXstats; it exists to name the use.
func printCakeClassXstats(p *tcfmt.Printer, s *attrs.CakeStatsAttrs) {
	printCakeXstats(p, s)
}

// cakeStatsTable is CAKE's statistics for package watch and package
// exporter, and its tins' table drives the tin table of -s.
var cakeStatsTable = &tckind.StatsTable{
	Of: func(x tckind.Xstats) any {
		if s := cakeStatsOf(x); s != nil {
			return s
		}
		return nil
	},
	Fields: cakeStatsAttrsFields,
	Records: &tckind.StatRecords{
		Key:       "tins",
		Label:     "tin",
		NameLabel: "tin_name",
		Name:      CakeTinName,
		Len:       func(s any) int { return len(s.(*attrs.CakeStatsAttrs).TinStats) },
		Record:    func(s any, i int) any { return &s.(*attrs.CakeStatsAttrs).TinStats[i] },
		// tc's JSON members of a tin, each with its row of tc's text
		// table, then what the kernel sends that tc does not print.
		Fields: cakeTinStatsAttrsFields,
	},
}

// cakeMaxTins is TC_CAKE_MAX_TINS: tc reads at most eight tins.
const cakeMaxTins = 8

// cakePrintTins prints the tin table from cakeTinStatsAttrsFields: in JSON
// a "tins" array of the members tc prints, in text tc's rows.
func cakePrintTins(p *tcfmt.Printer, tins []attrs.CakeTinStatsAttrs) {
	if len(tins) > cakeMaxTins {
		tins = tins[:cakeMaxTins]
	}
	if len(tins) == 0 {
		return
	}
	if p.IsJSON() {
		p.OpenArray(tcfmt.JSON, "tins")
		for i := range tins {
			p.OpenObject("")
			for j := range cakeTinStatsAttrsFields {
				f := &cakeTinStatsAttrsFields[j]
				if f.Text == "" {
					continue // not tc's
				}
				if v, ok := f.Get(&tins[i]); ok {
					p.Uint(tcfmt.JSON, tcfmt.Name(f.Key), "", v)
				}
			}
			p.CloseObject()
		}
		p.CloseArray(tcfmt.JSON, "")
		return
	}

	var b strings.Builder
	switch len(tins) {
	case 3:
		b.WriteString("                   Bulk  Best Effort        Voice\n")
	case 4:
		b.WriteString("                   Bulk  Best Effort        Video        Voice\n")
	default:
		b.WriteString("          ")
		for i := range tins {
			b.WriteString("        Tin ")
			b.WriteString(tcfmt.Sprintf("%u", i))
		}
		b.WriteString(p.SL())
	}
	for _, f := range cakeStatsTable.Records.TextRows() {
		if _, ok := f.Get(&tins[0]); !ok {
			continue
		}
		b.WriteString(f.Text)
		for i := range tins {
			// A later tin missing the value would make tc read a null
			// attribute; print 0 instead.
			v, _ := f.Get(&tins[i])
			var cell string
			switch f.TextFormat {
			case tckind.TextRate:
				cell = tcfmt.FormatRate(v, p.IEC())
			case tckind.TextTime:
				cell = tcfmt.FormatTime(uint32(v))
			case tckind.TextSize:
				cell = tcfmt.FormatSize(v)
			default:
				cell = tcfmt.Sprintf("%llu", v)
			}
			b.WriteString(tcfmt.Sprintf(" %12s", cell))
		}
		b.WriteString(p.SL())
	}
	p.Text(b.String())
}

// CakeTinName names CAKE tin i of a qdisc with n tins as tc's statistics table
// heads its columns: Bulk, Best Effort, Voice for diffserv3; Bulk, Best
// Effort, Video, Voice for diffserv4; "Tin i" otherwise (besteffort,
// diffserv8, precedence).
func CakeTinName(n, i int) string {
	switch {
	case n == 3 && i < 3:
		return [...]string{"Bulk", "Best Effort", "Voice"}[i]
	case n == 4 && i < 4:
		return [...]string{"Bulk", "Best Effort", "Video", "Voice"}[i]
	case i < len(tinNames):
		return tinNames[i]
	}
	return "Tin " + strconv.Itoa(i)
}

var tinNames = [...]string{"Tin 0", "Tin 1", "Tin 2", "Tin 3", "Tin 4", "Tin 5", "Tin 6", "Tin 7"}

func cakeKeywords(o *attrs.CakeAttrs) ([]string, error) {
	var w []string
	if o.BaseRate64 != nil {
		if *o.BaseRate64 == 0 {
			w = append(w, "unlimited")
		} else {
			w = append(w, "bandwidth", tcword.RateWord(*o.BaseRate64))
		}
	}
	if o.Autorate != nil && *o.Autorate != 0 {
		w = append(w, "autorate-ingress")
	}
	var err error
	if o.DiffservMode != nil {
		if w, err = tckind.AppendTCName(w, "cake diffserv mode", *o.DiffservMode); err != nil {
			return nil, err
		}
	}
	if o.FlowMode != nil {
		if w, err = tckind.AppendTCName(w, "cake flow mode", *o.FlowMode); err != nil {
			return nil, err
		}
	}
	w = tcword.OnOff(w, o.NAT, "nat", "nonat")
	w = tcword.OnOff(w, o.Wash, "wash", "nowash")
	w = tcword.OnOff(w, o.Ingress, "ingress", "egress")
	w = tcword.OnOff(w, o.SplitGSO, "split-gso", "no-split-gso")
	if o.AckFilter != nil {
		if w, err = tckind.AppendTCName(w, "cake ack filter", *o.AckFilter); err != nil {
			return nil, err
		}
	}
	if o.RTT != nil {
		w = append(w, "rtt", tcword.TimeWord(*o.RTT))
	}
	// The kernel dumps RAW when no overhead was set: "raw" asks for that
	// (and resets the framing, so it comes before atm and ptm).
	if o.Raw != nil {
		w = append(w, "raw")
	} else if o.Overhead != nil {
		w = append(w, "overhead", strconv.Itoa(int(*o.Overhead)))
	}
	if o.ATM != nil {
		if w, err = tckind.AppendTCName(w, "cake framing", *o.ATM); err != nil {
			return nil, err
		}
	}
	if o.MPU != nil && *o.MPU != 0 {
		w = append(w, "mpu", tcword.UintWord(*o.MPU))
	}
	if o.Memory != nil && *o.Memory != 0 {
		w = append(w, "memlimit", tcword.UintWord(*o.Memory))
	}
	if o.Fwmark != nil && *o.Fwmark != 0 {
		w = append(w, "fwmark", "0x"+strconv.FormatUint(uint64(*o.Fwmark), 16))
	}
	return w, nil
}
