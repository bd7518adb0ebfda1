// SPDX-License-Identifier: Apache-2.0

package qdisc

// HTB (net/sched/sch_htb.c): the qdisc's and the classes' tc keywords to
// netlink attributes, and their options and class statistics back to tc's
// text and JSON, as iproute2 7.x's tc/q_htb.c does.
//
// What tc does, and gotc with it:
//
//   - The qdisc always sends TCA_HTB_INIT (version 3, r2q 10 unless given),
//     direct_qlen and offload only when named; "default" is hexadecimal.
//   - A class needs a rate; ceil defaults to it; burst and cburst default
//     to rate/HZ + mtu bytes (HZ from /proc/net/psched, see ratespec.go),
//     and travel as transmission times in psched ticks, with both rate
//     tables (which the kernel ignores). Rates of 2^32 bytes/s and more go
//     in TCA_HTB_RATE64/CEIL64, the 32-bit fields then saturated.
//   - A class's "change" sends everything again: whatever is not named
//     takes its default, not its old value.

import (
	"fmt"
	"math"
	"strconv"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// htbUsage is gotc's summary of tc's htb keywords (tc prints its own usage
// after bad input and for "help"; the words are tc's).
const htbUsage = `Usage: ... qdisc add ... htb [ default N ] [ r2q N ] [ direct_qlen P ] [ offload ]
                          [ debug 0..3 digits ]
       ... class add ... htb rate RATE [ ceil RATE ] [ burst BYTES[/CELL] ]
                          [ cburst BYTES[/CELL] ] [ mtu BYTES ] [ mpu BYTES ]
                          [ overhead BYTES ] [ linklayer ethernet|atm|adsl ]
                          [ prio N ] [ quantum BYTES ]
  default is the minor id (hexadecimal) of the class for unclassified packets.`

// Defaults of tc's htb parser.
const (
	htbR2QDefault = 10
	// htbVersion is the protocol version tc sends (the kernel checks the
	// major number, TC_HTB_PROTOVER).
	htbVersion = 3
	// htbMTUDefault is the largest packet a class's rate tables cover.
	htbMTUDefault = 1600
	// htbDebugDigits is how many debug digits tc reads, 2 bits each.
	htbDebugDigits = 16
)

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:              "htb",
			ClassFilters:      true,
			NoChange:          true,
			Usage:             htbUsage,
			ParseQdisc:        func(args []string, _ tckind.ParseEnv) (attrs.TCOptionsMsg, error) { return parseHTB(args) },
			ParseClass:        func(args []string, env tckind.ParseEnv) (attrs.TCOptionsMsg, error) { return parseHTBClass(args, env) },
			PrintOptions:      printHTB,
			PrintClassOptions: printHTB,
			PrintClassXstats:  printHTBXstats,
			Stats:             htbStatsTable,
			Keywords:          tckind.KeywordsOf("htb", htbQdiscKeywords),
			ClassKeywords:     tckind.KeywordsOf("htb class", htbClassKeywords),
			Dumped:            htbDumped,
			Restoring:         htbRestoring,
		})
	}, "htb")
}

// htbIllegal is tc's explain1: the keyword whose value was refused, then
// the usage.
func htbIllegal(keyword string) *tcword.ParseError {
	return &tcword.ParseError{Msg: `Illegal "` + keyword + `"`, ShowUsage: true}
}

// parseHTB reads the htb qdisc's keywords.
func parseHTB(args []string) (*attrs.HTBAttrs, error) {
	glob := attrs.TCHTBGlob{Rate2quantum: htbR2QDefault, Version: htbVersion}
	o := &attrs.HTBAttrs{Init: &glob}
	for i := 0; i < len(args); i++ {
		kw := args[i]
		next := func() (string, error) {
			if i+1 >= len(args) {
				return "", tcword.IncompleteCommand()
			}
			i++
			return args[i], nil
		}
		var field *uint32
		base, name := 10, ""
		switch {
		case tcfmt.Matches(kw, "r2q"):
			field, name = &glob.Rate2quantum, "r2q"
		case tcfmt.Matches(kw, "default"):
			field, name, base = &glob.Defcls, "default", 16
		case tcfmt.Matches(kw, "debug"):
			v, err := next()
			if err != nil {
				return nil, err
			}
			// Each leading digit 0..3 sets two bits; tc stops at anything else.
			for d := 0; d < htbDebugDigits && d < len(v) && v[d] >= '0' && v[d] <= '3'; d++ {
				glob.Debug |= uint32(v[d]-'0') << (2 * d)
			}
			continue
		case tcfmt.Matches(kw, "direct_qlen"):
			o.DirectQlen = new(uint32)
			field, name = o.DirectQlen, "direct_qlen"
		case tcfmt.Matches(kw, "offload"):
			o.Offload = true
			continue
		default:
			return nil, &tcword.ParseError{Msg: `What is "` + kw + `"?`, ShowUsage: true}
		}
		v, err := next()
		if err != nil {
			return nil, err
		}
		n, perr := tcfmt.ParseUint(v, base, 32)
		if perr != nil {
			return nil, htbIllegal(name)
		}
		*field = uint32(n)
	}
	// tc leaves direct_qlen out when it is 2^32-1, its "not given".
	if o.DirectQlen != nil && *o.DirectQlen == math.MaxUint32 {
		o.DirectQlen = nil
	}
	return o, nil
}

// parseHTBClass reads an htb class's keywords.
func parseHTBClass(args []string, env tckind.ParseEnv) (*attrs.HTBAttrs, error) {
	var (
		opt                attrs.TCHTBOpt
		rate, ceil, buffer uint64
		cbuffer            uint32
		cellLog, ccellLog         = -1, -1
		mtu                uint32 = htbMTUDefault
		mpu, overhead      uint16
		linklayer          uint8 = tcword.LinklayerEthernet
	)
	for i := 0; i < len(args); i++ {
		kw := args[i]
		if kw == "help" {
			return nil, &tcword.ParseError{ShowUsage: true}
		}
		if i+1 >= len(args) && htbClassTakesValue(kw) {
			return nil, tcword.IncompleteCommand()
		}
		switch {
		case tcfmt.Matches(kw, "prio"):
			if err := htbUint(&opt.Prio, "prio", args[i+1]); err != nil {
				return nil, err
			}
			i++
		case tcfmt.Matches(kw, "mtu"):
			if err := htbUint(&mtu, "mtu", args[i+1]); err != nil {
				return nil, err
			}
			i++
		case tcfmt.Matches(kw, "mpu"), tcfmt.Matches(kw, "overhead"):
			name, field := "mpu", &mpu
			if !tcfmt.Matches(kw, "mpu") {
				name, field = "overhead", &overhead
			}
			i++
			n, err := tcfmt.ParseUint(args[i], 10, 16)
			if err != nil {
				return nil, htbIllegal(name)
			}
			*field = uint16(n)
		case tcfmt.Matches(kw, "linklayer"):
			i++
			ll, ok := tcword.ParseLinklayer(args[i])
			if !ok {
				return nil, htbIllegal("linklayer")
			}
			linklayer = ll
		case tcfmt.Matches(kw, "quantum"):
			if err := htbUint(&opt.Quantum, "quantum", args[i+1]); err != nil {
				return nil, err
			}
			i++
		case tcfmt.Matches(kw, "burst"), kw == "buffer", kw == "maxburst":
			i++
			size, cl, _, ok := tcword.SizeAndCell(args[i], math.MaxUint64)
			if !ok {
				return nil, htbIllegal(kw)
			}
			buffer = size
			if cl >= 0 {
				cellLog = cl
			}
		case tcfmt.Matches(kw, "cburst"), kw == "cbuffer", kw == "cmaxburst":
			i++
			size, cl, _, ok := tcword.SizeAndCell(args[i], math.MaxUint32)
			if !ok {
				return nil, htbIllegal(kw)
			}
			cbuffer = uint32(size)
			if cl >= 0 {
				ccellLog = cl
			}
		case kw == "ceil", kw == "rate":
			i++
			target := &rate
			if kw == "ceil" {
				target = &ceil
			}
			if *target != 0 {
				return nil, tcword.Errorf(`Double "%s" spec`, kw)
			}
			v, ok := tcword.ParseRate64(args[i], env.Dev, env.Notes())
			if !ok {
				return nil, htbIllegal(kw)
			}
			*target = v
		default:
			return nil, &tcword.ParseError{Msg: `What is "` + kw + `"?`, ShowUsage: true}
		}
	}
	if rate == 0 {
		return nil, tcword.Errorf(`"rate" is required.`)
	}
	if ceil == 0 {
		ceil = rate
	}
	opt.Rate.Rate = tcword.Rate32(rate)
	opt.Ceil.Rate = tcword.Rate32(ceil)
	// The smallest burst tc allows: what the rate sends in one timer tick,
	// plus a packet of mtu bytes.
	hz := uint64(int64(tcword.Psched().Hz))
	if buffer == 0 {
		buffer = rate/hz + uint64(mtu)
	}
	if cbuffer == 0 {
		cbuffer = uint32(ceil/hz + uint64(mtu))
	}
	opt.Rate.Overhead, opt.Ceil.Overhead = overhead, overhead
	opt.Rate.MPU, opt.Ceil.MPU = mpu, mpu
	rtab := tcword.CalcRtable(&opt.Rate, cellLog, mtu, linklayer)
	opt.Buffer = tcword.XmitTime(rate, buffer)
	if opt.Buffer == math.MaxUint32 {
		return nil, tcword.Errorf("htb: burst out of range")
	}
	ctab := tcword.CalcRtable(&opt.Ceil, ccellLog, mtu, linklayer)
	opt.Cbuffer = tcword.XmitTime(ceil, uint64(cbuffer))
	o := &attrs.HTBAttrs{Parms: &opt, Rtab: rtab, Ctab: ctab}
	if rate >= 1<<32 {
		o.Rate64 = &rate
	}
	if ceil >= 1<<32 {
		o.Ceil64 = &ceil
	}
	return o, nil
}

// htbUint reads a class keyword's 32-bit decimal value.
func htbUint(field *uint32, keyword, v string) error {
	n, err := tcfmt.ParseUint(v, 10, 32)
	if err != nil {
		return htbIllegal(keyword)
	}
	*field = uint32(n)
	return nil
}

// htbClassTakesValue reports whether a class keyword reads a value (tc's
// NEXT_ARG), so that a missing one is "Command line is not complete".
func htbClassTakesValue(kw string) bool {
	for _, k := range []string{"prio", "mtu", "mpu", "overhead", "linklayer", "quantum", "burst", "cburst"} {
		if tcfmt.Matches(kw, k) {
			return true
		}
	}
	switch kw {
	case "buffer", "maxburst", "cbuffer", "cmaxburst", "ceil", "rate":
		return true
	}
	return false
}

// printHTB prints htb options, of the qdisc or of a class (tc uses one
// function for both).
func printHTB(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
	o, ok := opts.(*attrs.HTBAttrs)
	if !ok {
		return
	}
	if h := o.Parms; h != nil {
		if h.Level == 0 {
			p.Int(tcfmt.Any, "prio", "prio %d ", int64(int32(h.Prio)))
			if p.Details() {
				p.Int(tcfmt.Any, "quantum", "quantum %d ", int64(int32(h.Quantum)))
			}
		}
		rate, ceil := uint64(h.Rate.Rate), uint64(h.Ceil.Rate)
		if o.Rate64 != nil {
			rate = *o.Rate64
		}
		if o.Ceil64 != nil {
			ceil = *o.Ceil64
		}
		p.Rate(tcfmt.Any, "rate", "rate %s ", rate)
		if h.Rate.Overhead != 0 {
			p.Uint(tcfmt.Any, "overhead", "overhead %u ", uint64(h.Rate.Overhead))
		}
		buffer := tcword.XmitSize(rate, h.Buffer)
		p.Rate(tcfmt.Any, "ceil", "ceil %s ", ceil)
		cbuffer := tcword.XmitSize(ceil, h.Cbuffer)
		if ll := h.Rate.Linklayer & tcword.LinklayerMask; ll > tcword.LinklayerEthernet || p.Details() {
			p.String(tcfmt.Any, "linklayer", "linklayer %s ", tcword.LinklayerName(ll))
		}
		if p.Details() {
			p.Size(tcfmt.Any, "burst", "burst %s/", buffer)
			p.Uint(tcfmt.Any, "burst_cell", "%u", tcword.CellSize(h.Rate.CellLog))
			p.Size(tcfmt.Any, "mpu_rate", "mpu %s ", uint64(h.Rate.MPU))
			p.Size(tcfmt.Any, "cburst", "cburst %s/", cbuffer)
			p.Uint(tcfmt.Any, "cburst_cell", "%u", tcword.CellSize(h.Ceil.CellLog))
			p.Size(tcfmt.Any, "mpu_ceil", "mpu %s ", uint64(h.Ceil.MPU))
			p.Int(tcfmt.Any, "level", "level %d ", int64(int32(h.Level)))
		} else {
			p.Size(tcfmt.Any, "burst", "burst %s ", buffer)
			p.Size(tcfmt.Any, "cburst", "cburst %s", cbuffer)
		}
		if p.Raw() {
			// tc writes these past its JSON printer; gotc keeps them to text.
			p.Text(fmt.Sprintf("buffer [%08x] cbuffer [%08x] ", h.Buffer, h.Cbuffer))
		}
	}
	if g := o.Init; g != nil {
		p.Int(tcfmt.Any, "r2q", "r2q %d", int64(int32(g.Rate2quantum)))
		p.Hex0x(tcfmt.Any, "default", " default %#llx", uint64(g.Defcls))
		p.Uint(tcfmt.Any, "direct_packets_stat", " direct_packets_stat %u", uint64(g.DirectPkts))
		if p.Details() {
			p.String(tcfmt.Any, "ver", " ver %s", fmt.Sprintf("%d.%d", g.Version>>16, g.Version&0xffff))
		}
	}
	if o.DirectQlen != nil {
		p.Uint(tcfmt.Any, "direct_qlen", " direct_qlen %u", uint64(*o.DirectQlen))
	}
	if o.Offload {
		p.Null(tcfmt.Any, "offload", " offload", "")
	}
}

// htbXstatsFields are an htb class's statistics in tc's order: JSON key,
// text format, value, and whether a line ends after it.
var htbXstatsFields = []struct {
	key    tcfmt.Name
	format string
	signed bool
	value  func(*attrs.TCHTBXstats) int64
	nl     bool
}{
	{"lended", " lended: %u ", false, func(s *attrs.TCHTBXstats) int64 { return int64(s.Lends) }, false},
	{"borrowed", "borrowed: %u ", false, func(s *attrs.TCHTBXstats) int64 { return int64(s.Borrows) }, false},
	{"giants", "giants: %u", false, func(s *attrs.TCHTBXstats) int64 { return int64(s.Giants) }, true},
	{"tokens", " tokens: %d ", true, func(s *attrs.TCHTBXstats) int64 { return int64(s.Tokens) }, false},
	{"ctokens", "ctokens: %d", true, func(s *attrs.TCHTBXstats) int64 { return int64(s.Ctokens) }, true},
}

// htbXstats returns an htb class's xstats from TCA_STATS_APP or else
// TCA_XSTATS.
func htbXstats(x tckind.Xstats) (*attrs.TCHTBXstats, bool) {
	if s, ok := x.App.(*attrs.TCHTBXstats); ok {
		return s, true
	}
	s, ok := x.Legacy.(*attrs.TCHTBXstats)
	return s, ok
}

// htbStatsTable lists a class's statistics (the qdisc has none of its
// own) in tc's order.
var htbStatsTable = &tckind.StatsTable{
	Of: func(x tckind.Xstats) any {
		if s, ok := htbXstats(x); ok {
			return s
		}
		return nil
	},
	Fields: tcHTBXstatsFields,
}

// printHTBXstats prints an htb class's statistics (htb_print_xstats).
func printHTBXstats(p *tcfmt.Printer, x tckind.Xstats) {
	s, ok := htbXstats(x)
	if !ok {
		return
	}
	for _, f := range htbXstatsFields {
		if f.signed {
			p.Int(tcfmt.Any, f.key, f.format, f.value(s))
		} else {
			p.Uint(tcfmt.Any, f.key, f.format, uint64(f.value(s)))
		}
		if f.nl {
			p.NL()
		}
	}
}

func htbQdiscKeywords(o *attrs.HTBAttrs) ([]string, error) {
	var w []string
	if g := o.Init; g != nil {
		if g.Debug != 0 {
			return nil, tckind.NoKeywords("htb debug")
		}
		if g.Rate2quantum != htbR2QDefault {
			w = append(w, "r2q", tcword.UintWord(g.Rate2quantum))
		}
		w = append(w, "default", strconv.FormatUint(uint64(g.Defcls), 16))
	}
	if o.DirectQlen != nil {
		w = append(w, "direct_qlen", tcword.UintWord(*o.DirectQlen))
	}
	if o.Offload {
		w = append(w, "offload")
	}
	return w, nil
}

func htbClassKeywords(o *attrs.HTBAttrs) ([]string, error) {
	h := o.Parms
	rate, ceil := uint64(h.Rate.Rate), uint64(h.Ceil.Rate)
	if o.Rate64 != nil {
		rate = *o.Rate64
	}
	if o.Ceil64 != nil {
		ceil = *o.Ceil64
	}
	if rate == 0 || ceil == 0 {
		return nil, tckind.NoKeywords("htb class without a rate")
	}
	burst, cburst := tcword.BurstOf(rate, h.Buffer), tcword.BurstOf(ceil, h.Cbuffer)
	w := []string{"rate", tcword.RateWord(rate), "ceil", tcword.RateWord(ceil),
		"burst", tcword.UintWord(burst), "cburst", tcword.UintWord(cburst)}
	if burst == 0 || cburst == 0 {
		// tc takes a burst of 0 as none, and gives the bucket rate/HZ
		// plus the MTU: an empty bucket needs "mtu 0" (and a clock whose
		// HZ leaves rate/HZ at 0, as high-resolution ones do).
		w = append(w, "mtu", "0")
	}
	if h.Prio != 0 {
		w = append(w, "prio", tcword.UintWord(h.Prio))
	}
	if h.Quantum != 0 {
		w = append(w, "quantum", tcword.UintWord(h.Quantum))
	}
	rateSpecWords := func(r attrs.TCRatespec) []string {
		var w []string
		if r.Overhead != 0 {
			w = append(w, "overhead", tcword.UintWord(r.Overhead))
		}
		if r.MPU != 0 {
			w = append(w, "mpu", tcword.UintWord(r.MPU))
		}
		if r.Linklayer&tcword.LinklayerMask == tcword.LinklayerATM {
			w = append(w, "linklayer", "atm")
		}
		return w
	}
	return append(w, rateSpecWords(h.Rate)...), nil
}

// htbDumped is Kind.Dumped for htb's qdisc: the kernel keeps no debug
// level (htb_dump sends 0 whatever tc asked for).
func htbDumped(opts attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	o, ok := opts.(*attrs.HTBAttrs)
	if !ok || o == nil || o.Init == nil || o.Init.Debug == 0 {
		return opts
	}
	c, g := *o, *o.Init
	g.Debug = 0
	c.Init = &g
	return &c
}

// htbRestoring is Kind.Restoring for htb's qdisc: a dump carries the
// version as major and minor (3.17), which htb_init refuses ("need tc/htb
// version 3"), and the count of direct packets, which a request does not
// set; the request carries the major number alone, as tc's does.
func htbRestoring(dumped attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	o, ok := dumped.(*attrs.HTBAttrs)
	if !ok || o == nil || o.Init == nil {
		return dumped
	}
	c, g := *o, *o.Init
	if g.Version > 0xffff {
		g.Version >>= 16
	}
	g.DirectPkts = 0
	c.Init = &g
	return &c
}
