// SPDX-License-Identifier: Apache-2.0

package qdisc

// HFSC (net/sched/sch_hfsc.c): hierarchical fair service curves. The qdisc
// takes only its default class; a class takes up to three service curves
// (real-time, link-sharing, upper-limit), each two line segments: slope m1
// for a time d, then slope m2.
//
// What tc 7.x (tc/q_hfsc.c) does, and gotc with it:
//
//   - The qdisc's TCA_OPTIONS is a bare struct tc_hfsc_qopt, always sent;
//     "default" is hexadecimal, and a second non-zero one is refused.
//   - A curve is "[m1 RATE] [d TIME] m2 RATE", or else "[umax BYTES] [dmax
//     TIME] rate RATE", which tc turns into the m1/d/m2 form. Its words
//     must come in that order; "sc" sets the real-time and link-sharing
//     curves alike, and a link-sharing curve must come with "ul".
//   - Each keyword that reads a value needs a word after it, and the first
//     two of a curve need one more after that: "m1 1mbit" ending the line
//     is "Command line is not complete" (exit 255).
//   - The class nest goes without NLA_F_NESTED, curves in the order rt, ls, ul.
//   - Printing: "sc" when the real-time and link-sharing curves are equal,
//     else "rt" and "ls", then "ul"; in JSON one object per curve.

import (
	"math"
	"strconv"
	"strings"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// hfscUsage and hfscClassUsage are tc's explain_qdisc and explain_class;
// the class text ends in a blank line, which tc prints.
const (
	hfscUsage = `Usage: ... hfsc [ default CLASSID ]

 default: default class for unclassified packets`
	hfscClassUsage = `Usage: ... hfsc [ [ rt SC ] [ ls SC ] | [ sc SC ] ] [ ul SC ]

SC := [ [ m1 BPS ] d SEC ] m2 BPS

 m1 : slope of first segment
 d  : x-coordinate of intersection
 m2 : slope of second segment

Alternative format:

SC := [ [ umax BYTE ] dmax SEC ] rate BPS

 umax : maximum unit of work
 dmax : maximum delay
 rate : rate

Remarks:
 - at least one of 'rt', 'ls' or 'sc' must be specified
 - 'ul' can only be specified with 'ls' or 'sc'
`
)

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:              "hfsc",
			ClassFilters:      true,
			Usage:             hfscUsage,
			ParseQdisc:        func(args []string, _ tckind.ParseEnv) (attrs.TCOptionsMsg, error) { return parseHFSC(args) },
			ParseClass:        func(args []string, env tckind.ParseEnv) (attrs.TCOptionsMsg, error) { return parseHFSCClass(args, env) },
			PrintOptions:      printHFSC,
			PrintClassOptions: printHFSCClass,
			PrintXstats:       printHFSCXstats,
			PrintClassXstats:  printHFSCXstats,
			Stats:             hfscStatsTable,
			Keywords:          hfscKeywords,
			ClassKeywords:     tckind.KeywordsOf("hfsc class", hfscClassKeywords),
			// The kernel takes any default class in a change, even one that
			// does not exist.
			ChangeAccepted: func(opts attrs.TCOptionsMsg, _ string) bool {
				raw, ok := opts.(attrs.TCOptionsMsgRaw)
				return ok && len(raw) >= attrs.TCHFSCQoptLen
			},
		})
	}, "hfsc")
}

// hfscIllegal is tc's explain1: "HFSC: Illegal" and the keyword.
func hfscIllegal(keyword string) string { return `HFSC: Illegal "` + keyword + `"` }

// parseHFSC reads the qdisc's keywords. The result is the raw struct
// tc_hfsc_qopt: the spec's hfsc format is the classes' attribute set.
func parseHFSC(args []string) (attrs.TCOptionsMsg, error) {
	var qopt attrs.TCHFSCQopt
	for i := 0; i < len(args); i++ {
		switch {
		case tcfmt.Matches(args[i], "default"):
			if i+1 >= len(args) {
				return nil, tcword.IncompleteCommand()
			}
			i++
			if qopt.Defcls != 0 {
				return nil, tcword.Errorf(`HFSC: Double "default"`)
			}
			v, err := tcfmt.ParseUint(args[i], 16, 16)
			if err != nil {
				return nil, tcword.Errorf("%s", hfscIllegal("default"))
			}
			qopt.Defcls = uint16(v)
		case tcfmt.Matches(args[i], "help"):
			return nil, &tcword.ParseError{ShowUsage: true}
		default:
			return nil, tcword.UsageErrorf(`HFSC: What is "%s" ?`, args[i])
		}
	}
	return attrs.TCOptionsMsgRaw(qopt.Append(nil)), nil
}

// hfscQopt decodes the qdisc's options, nil when there are none or too few
// bytes (tc then prints nothing of them).
func hfscQopt(opts attrs.TCOptionsMsg) *attrs.TCHFSCQopt {
	raw, ok := opts.(attrs.TCOptionsMsgRaw)
	if !ok || len(raw) < attrs.TCHFSCQoptLen {
		return nil
	}
	var q attrs.TCHFSCQopt
	if q.Decode(raw) != nil {
		return nil
	}
	return &q
}

// printHFSC prints the qdisc's default class, when it has one.
func printHFSC(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
	if q := hfscQopt(opts); q != nil && q.Defcls != 0 {
		p.Hex0x(tcfmt.Any, "default", " default %#llx ", uint64(q.Defcls))
	}
}

// hfscClassError is a class parse error: tc's messages, then (when usage)
// the class usage.
func hfscClassError(usage bool, lines ...string) *tcword.ParseError {
	msg := strings.Join(lines, "\n")
	if usage {
		msg += "\n" + hfscClassUsage
	}
	return &tcword.ParseError{Msg: msg}
}

// parseHFSCClass turns the words after "hfsc" in a class command into the
// class's curves, as tc's hfsc_parse_class_opt does. env.Dev is the device
// that rates given as a percentage refer to; tc's notes about those go to
// env.Stderr.
func parseHFSCClass(args []string, env tckind.ParseEnv) (*attrs.HFSCAttrs, error) {
	o := &attrs.HFSCAttrs{}
	for i := 0; i < len(args); i++ {
		kw := args[i]
		var name string
		switch {
		case tcfmt.Matches(kw, "rt"):
			name = "rt"
		case tcfmt.Matches(kw, "ls"):
			name = "ls"
		case tcfmt.Matches(kw, "sc"):
			name = "sc"
		case tcfmt.Matches(kw, "ul"):
			name = "ul"
		case tcfmt.Matches(kw, "help"):
			return nil, &tcword.ParseError{Msg: hfscClassUsage}
		default:
			return nil, hfscClassError(true, `HFSC: What is "`+kw+`" ?`)
		}
		if i+1 >= len(args) {
			return nil, tcword.IncompleteCommand()
		}
		sc, n, err := parseHFSCCurve(name, args[i+1:], env)
		if err != nil {
			return nil, err
		}
		i += n
		switch name {
		case "rt":
			o.Rsc = sc
		case "ls":
			o.Fsc = sc
		case "sc":
			fsc := *sc
			o.Rsc, o.Fsc = sc, &fsc
		case "ul":
			o.Usc = sc
		}
	}
	switch {
	case o.Rsc == nil && o.Fsc == nil && o.Usc == nil:
		return nil, hfscClassError(true, "HFSC: no parameters given")
	case o.Usc != nil && o.Fsc == nil:
		return nil, hfscClassError(true, "HFSC: Upper-limit Service Curve without Link-Share Service Curve")
	}
	return o, nil
}

// parseHFSCCurve reads one curve from args, which start after its keyword
// (rt, ls, sc or ul: name, for the messages), as tc's hfsc_get_sc does: the
// curve and how many words it took.
func parseHFSCCurve(name string, args []string, env tckind.ParseEnv) (*attrs.TCServiceCurve, int, error) {
	// tc tries the m1/d/m2 form, then the umax/dmax/rate form from the
	// same word; each reports its own bad values first.
	var notes []string
	sc, n, err := hfscSlopes(args, env, &notes)
	if err == nil && sc == nil {
		sc, n, err = hfscDelays(args, env, &notes)
	}
	if err != nil {
		return nil, 0, err
	}
	if sc != nil && sc.M1 == 0 && sc.M2 == 0 {
		notes = append(notes, "HFSC: Service Curve has two zero slopes")
		sc = nil
	}
	if sc == nil {
		return nil, 0, hfscClassError(false, append(notes, hfscIllegal(name))...)
	}
	return sc, n, nil
}

// hfscRate reads a curve's rate as tc's get_rate does (32 bits), or as a
// share of the device's speed when it holds a '%'.
func hfscRate(arg string, env tckind.ParseEnv) (uint32, bool) {
	if strings.Contains(arg, "%") {
		v, ok := tcword.PercentRate(arg, env.Dev, env.Notes())
		return uint32(v), ok && v <= math.MaxUint32
	}
	v, err := tcfmt.ParseRate32(arg)
	return v, err == nil
}

// hfscCursor walks the words of one curve form the way tc's NEXT_ARG does:
// a word that needs a successor at the end of the line is fatal.
type hfscCursor struct {
	args []string
	i    int
}

func (c *hfscCursor) word() string { return c.args[c.i] }

// next steps to the following word; false (tc exits) when there is none.
func (c *hfscCursor) next() bool {
	c.i++
	return c.i < len(c.args)
}

// hfscSlopes reads "[m1 RATE] [d TIME] m2 RATE" (tc's hfsc_get_sc1). A nil
// curve without error means the words are not of this form; notes gets
// tc's messages about bad values.
func hfscSlopes(args []string, env tckind.ParseEnv, notes *[]string) (*attrs.TCServiceCurve, int, error) {
	c := hfscCursor{args: args}
	var m1, d, m2 uint32
	if tcfmt.Matches(c.word(), "m1") {
		if !c.next() {
			return nil, 0, tcword.IncompleteCommand()
		}
		v, ok := hfscRate(c.word(), env)
		if !ok {
			*notes = append(*notes, hfscIllegal("m1"))
			return nil, 0, nil
		}
		m1 = v
		if !c.next() {
			return nil, 0, tcword.IncompleteCommand()
		}
	}
	if tcfmt.Matches(c.word(), "d") {
		if !c.next() {
			return nil, 0, tcword.IncompleteCommand()
		}
		v, err := tcfmt.ParseTime(c.word())
		if err != nil {
			*notes = append(*notes, hfscIllegal("d"))
			return nil, 0, nil
		}
		d = v
		if !c.next() {
			return nil, 0, tcword.IncompleteCommand()
		}
	}
	if !tcfmt.Matches(c.word(), "m2") {
		return nil, 0, nil
	}
	if !c.next() {
		return nil, 0, tcword.IncompleteCommand()
	}
	v, ok := hfscRate(c.word(), env)
	if !ok {
		*notes = append(*notes, hfscIllegal("m2"))
		return nil, 0, nil
	}
	m2 = v
	return &attrs.TCServiceCurve{M1: m1, D: time2ktime(d), M2: m2}, c.i + 1, nil
}

// hfscDelays reads "[umax BYTES] [dmax TIME] rate RATE" (tc's
// hfsc_get_sc2) and turns it into slopes: a first segment of umax bytes in
// dmax when that is steeper than rate (concave), else a flat one that
// ends where rate would have sent umax bytes by dmax (convex).
func hfscDelays(args []string, env tckind.ParseEnv, notes *[]string) (*attrs.TCServiceCurve, int, error) {
	c := hfscCursor{args: args}
	var umax, dmax, rate uint32
	if tcfmt.Matches(c.word(), "umax") {
		if !c.next() {
			return nil, 0, tcword.IncompleteCommand()
		}
		v, err := tcfmt.ParseSize(c.word())
		if err != nil {
			*notes = append(*notes, hfscIllegal("umax"))
			return nil, 0, nil
		}
		umax = v
		if !c.next() {
			return nil, 0, tcword.IncompleteCommand()
		}
	}
	if tcfmt.Matches(c.word(), "dmax") {
		if !c.next() {
			return nil, 0, tcword.IncompleteCommand()
		}
		v, err := tcfmt.ParseTime(c.word())
		if err != nil {
			*notes = append(*notes, hfscIllegal("dmax"))
			return nil, 0, nil
		}
		dmax = v
		if !c.next() {
			return nil, 0, tcword.IncompleteCommand()
		}
	}
	if !tcfmt.Matches(c.word(), "rate") {
		return nil, 0, nil
	}
	if !c.next() {
		return nil, 0, tcword.IncompleteCommand()
	}
	v, ok := hfscRate(c.word(), env)
	if !ok {
		*notes = append(*notes, hfscIllegal("rate"))
		return nil, 0, nil
	}
	rate = v
	if umax != 0 && dmax == 0 {
		*notes = append(*notes, "HFSC: umax given but dmax is zero.")
		return nil, 0, nil
	}
	sc := &attrs.TCServiceCurve{M2: rate}
	if slope := math.Ceil(float64(umax) * tcword.TimeUnitsPerSec / float64(dmax)); dmax != 0 && slope > float64(rate) {
		sc.M1 = tcfmt.CUint32(slope)
		sc.D = time2ktime(dmax)
	} else {
		// tc computes the offset in 32-bit unsigned arithmetic, wrapping
		// as it does. With no rate and no umax it divides by zero and
		// dies; gotc takes the offset as 0, and the two zero slopes are
		// then refused.
		var off uint32
		if rate != 0 {
			off = umax * tcword.TimeUnitsPerSec / rate
		}
		sc.D = time2ktime(dmax - off)
	}
	return sc, c.i + 1, nil
}

// time2ktime is tc's tc_core_time2ktime: microseconds to the kernel's
// psched clock units (the same at the usual microsecond resolution).
func time2ktime(us uint32) uint32 { return tcfmt.CUint32(float64(us) * tcword.Psched().ClockFactor) }

// ktime2time is tc_core_ktime2time, time2ktime's inverse (truncating).
func ktime2time(kt uint32) uint32 { return tcfmt.CUint32(float64(kt) / tcword.Psched().ClockFactor) }

// printHFSCCurve prints one curve as tc's hfsc_print_sc does, e.g.
// "rt m1 0bit d 0us m2 1Mbit ".
func printHFSCCurve(p *tcfmt.Printer, name tcfmt.Name, sc *attrs.TCServiceCurve) {
	d := ktime2time(sc.D)
	p.OpenObject(name)
	p.String(tcfmt.FP, "", "%s ", string(name))
	p.Rate(tcfmt.Any, "m1", "m1 %s ", uint64(sc.M1))
	p.Time(tcfmt.FP, "", "d %s ", d)
	p.Uint(tcfmt.JSON, "d", "", uint64(d))
	p.Rate(tcfmt.Any, "m2", "m2 %s ", uint64(sc.M2))
	p.CloseObject()
}

// printHFSCClass prints a class's curves.
func printHFSCClass(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
	o, ok := opts.(*attrs.HFSCAttrs)
	if !ok {
		return
	}
	if o.Rsc != nil && o.Fsc != nil && *o.Rsc == *o.Fsc {
		printHFSCCurve(p, "sc", o.Rsc)
	} else {
		if o.Rsc != nil {
			printHFSCCurve(p, "rt", o.Rsc)
		}
		if o.Fsc != nil {
			printHFSCCurve(p, "ls", o.Fsc)
		}
	}
	if o.Usc != nil {
		printHFSCCurve(p, "ul", o.Usc)
	}
}

// printHFSCXstats prints a class's struct tc_hfsc_stats; tc prints nothing
// of a payload too short for it.
func printHFSCXstats(p *tcfmt.Printer, x tckind.Xstats) {
	s := hfscStatsOf(x)
	if s == nil {
		return
	}
	p.Uint(tcfmt.Any, "period", " period %u ", uint64(s.Period))
	if s.Work != 0 {
		p.Uint(tcfmt.Any, "work", "work %llu bytes ", s.Work)
	}
	if s.Rtwork != 0 {
		p.Uint(tcfmt.Any, "rtwork", "rtwork %llu bytes ", s.Rtwork)
	}
	p.Uint(tcfmt.Any, "level", " level %u ", uint64(s.Level))
	p.NL()
}

// hfscStatsTable lists a class's statistics (the qdisc has none of its
// own) in tc's order.
var hfscStatsTable = &tckind.StatsTable{
	Of: func(x tckind.Xstats) any {
		if s := hfscStatsOf(x); s != nil {
			return s
		}
		return nil
	},
	Fields: tcHFSCStatsFields,
}

// hfscStatsOf returns a class's struct tc_hfsc_stats from TCA_STATS_APP,
// or else TCA_XSTATS; nil for a payload too short for it, of which tc
// prints nothing.
func hfscStatsOf(x tckind.Xstats) *attrs.TCHFSCStats {
	s, ok := x.App.(*attrs.TCHFSCStats)
	if x.App == nil {
		s, ok = x.Legacy.(*attrs.TCHFSCStats)
	}
	if !ok {
		return nil
	}
	return s
}

// hfscKeywords writes the qdisc's default class (hexadecimal, as tc
// reads it); a default of 0 is the kernel's "none" and takes no words.
func hfscKeywords(opts attrs.TCOptionsMsg) ([]string, error) {
	raw, ok := opts.(attrs.TCOptionsMsgRaw)
	q := hfscQopt(opts)
	if !ok || q == nil || len(raw) != attrs.TCHFSCQoptLen {
		return nil, tckind.NoKeywords("hfsc options that are not a struct tc_hfsc_qopt")
	}
	if q.Defcls == 0 {
		return nil, nil
	}
	return []string{"default", strconv.FormatUint(uint64(q.Defcls), 16)}, nil
}

// hfscClassKeywords writes a class's curves: "sc" when the real-time and
// link-sharing curves are one, else "rt" and "ls", then "ul", each in the
// m1/d/m2 form with exact values (a zero m1 or d left out, as tc reads
// it).
func hfscClassKeywords(o *attrs.HFSCAttrs) ([]string, error) {
	if o.Rsc == nil && o.Fsc == nil {
		// The class hfsc makes itself at the top of the tree (X:0)
		// dumps no curve, and tc refuses a class without one: no
		// command asks for it.
		return nil, tckind.NoKeywords("hfsc class without real-time or link-sharing curve (the qdisc's root class)")
	}
	var w []string
	curve := func(name string, sc *attrs.TCServiceCurve) error {
		if sc == nil {
			return nil
		}
		if sc.M1 == 0 && sc.M2 == 0 {
			// The kernel drops such a curve rather than keep it, and tc
			// refuses it.
			return tckind.NoKeywords("hfsc " + name + " curve of two zero slopes")
		}
		w = append(w, name)
		if sc.M1 != 0 {
			w = append(w, "m1", tcword.RateWord(uint64(sc.M1)))
		}
		if sc.D != 0 {
			w = append(w, "d", tcword.TimeWord(ktime2time(sc.D)))
		}
		w = append(w, "m2", tcword.RateWord(uint64(sc.M2)))
		return nil
	}
	var err error
	if o.Rsc != nil && o.Fsc != nil && *o.Rsc == *o.Fsc {
		err = curve("sc", o.Rsc)
	} else if err = curve("rt", o.Rsc); err == nil {
		err = curve("ls", o.Fsc)
	}
	if err == nil {
		err = curve("ul", o.Usc)
	}
	if err != nil {
		return nil, err
	}
	return w, nil
}
