// SPDX-License-Identifier: Apache-2.0

package qdisc

// codel (net/sched/sch_codel.c): tc's keywords to netlink attributes, and
// the kernel's attributes and xstats back to tc's text and JSON.
//
// Behaviour mirrored from iproute2 7.x (tc/q_codel.c):
//
//   - Keywords are matched exactly (no abbreviations); the last of a repeated
//     keyword wins.
//   - tc treats 0 as "not given" for limit, interval and target, so a typed
//     0 is not sent; ce_threshold is not sent when it equals 2^32-1.
//   - The TCA_OPTIONS nest is always sent, without NLA_F_NESTED (the kernel
//     parses it leniently), even when empty.
//   - The kernel dumps every option but ce_threshold, which it dumps only
//     when it is on.

import (
	"math"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// codelUsage is tc's explain() of codel, printed for "help" and after an
// unknown keyword.
const codelUsage = "Usage: ... codel [ limit PACKETS ] [ target TIME ]\n" +
	"\t\t [ interval TIME ] [ ecn | noecn ]\n" +
	"\t\t [ ce_threshold TIME ]"

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:  "codel",
			Usage: codelUsage,
			ParseQdisc: func(args []string, _ tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
				o, err := parseCodel(args)
				if err != nil {
					return nil, err
				}
				return o, nil
			},
			PrintOptions: func(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
				if o, ok := opts.(*attrs.CodelAttrs); ok {
					printCodelOptions(p, o)
				}
			},
			PrintXstats: func(p *tcfmt.Printer, x tckind.Xstats) {
				printCodelXstats(p, codelStatsOf(x))
			},
			ChangeAccepted: codelChangeAccepted,
			Stats:          codelStatsTable,
			Keywords:       tckind.KeywordsOf("codel", codelKeywords),
			// codel_change keeps what a request omits. Not a ce_threshold,
			// which no value a request sends turns off again.
			KeptOnChange: tckind.KeptDefaults("codel", codelKeywords, attrs.CodelAttrs{
				Limit: new(uint32(1000)), Target: new(uint32(5000)), Interval: new(uint32(100000)), ECN: new(uint32(0)),
			}),
			Dumped: func(o attrs.TCOptionsMsg) attrs.TCOptionsMsg { return codelTimes(o, codelDumped) },
			Restoring: func(o attrs.TCOptionsMsg) attrs.TCOptionsMsg {
				return codelTimes(o, tcword.SmallestDumpedAs(codelDumped))
			},
		})
	}, "codel")
}

// parseCodel turns the words after "codel" into the qdisc's options as tc
// 7.x does. Only what the user named is set, so that "change" keeps the
// rest; the result is never nil on success (tc always sends the nest).
// Errors are *ParseError: exit 1, with the usage after an unknown keyword
// and for "help"; a keyword missing its value exits 255.
func parseCodel(args []string) (*attrs.CodelAttrs, error) {
	w := newCodelWords()
	if err := tcword.ParseWords(args, w.word); err != nil {
		return nil, err
	}
	o := &attrs.CodelAttrs{}
	o.Limit, o.Interval, o.Target = tcword.NonZero(w.limit), tcword.NonZero(w.interval), tcword.NonZero(w.target)
	o.ECN, o.CEThreshold = w.ecn.Attr(), w.ceThresholdAttr()
	return o, nil
}

// printCodelOptions prints a codel qdisc's options as tc does; the kernel's
// defaults read:
//
//	limit 1000p target 5ms interval 100ms
//
// Times are raw microseconds in JSON; ecn is printed only when on.
func printCodelOptions(p *tcfmt.Printer, o *attrs.CodelAttrs) {
	if o == nil {
		return
	}
	const both = tcfmt.Any
	if o.Limit != nil {
		p.Uint(both, "limit", "limit %up ", uint64(*o.Limit))
	}
	if o.Target != nil {
		p.Time(both, "target", "target %s ", *o.Target)
	}
	if o.CEThreshold != nil {
		p.Time(both, "ce_threshold", "ce_threshold %s ", *o.CEThreshold)
	}
	if o.Interval != nil {
		p.Time(both, "interval", "interval %s ", *o.Interval)
	}
	if o.ECN != nil && *o.ECN != 0 {
		p.Bool(both, "ecn", "ecn ", true)
	}
}

// codelPrint says how tc's -s writes one of codel's statistics.
type codelPrint uint8

const (
	codelPlain     codelPrint = iota // a number
	codelOmitZero                    // a number, only when non-zero
	codelTime                        // microseconds, as a time in text
	codelFlag                        // true, only when non-zero
	codelSignedUs                    // signed microseconds, sign before the time in text
	codelBreakLine                   // a number, on a new line
)

// codelText is how tc's -s text writes one of codel's statistics: its
// format (a leading blank included) and when and how.
type codelText struct {
	format string
	print  codelPrint
}

// codelTexts are tc's -s text of codel's statistics by JSON key; the
// statistics, in tc's order, are tcCodelXstatsFields (from the spec).
var codelTexts = map[string]codelText{
	"count":          {"  count %u", codelPlain},
	"lastcount":      {" lastcount %u", codelPlain},
	"ldelay":         {" ldelay %s", codelTime},
	"dropping":       {" dropping", codelFlag},
	"drop_next":      {" drop_next %s", codelSignedUs},
	"maxpacket":      {"  maxpacket %u", codelBreakLine},
	"ecn_mark":       {" ecn_mark %u", codelPlain},
	"drop_overlimit": {" drop_overlimit %u", codelPlain},
	"ce_mark":        {" ce_mark %u", codelOmitZero},
}

// codelStatsTable is codel's statistics for the registry's consumers.
var codelStatsTable = &tckind.StatsTable{
	Of: func(x tckind.Xstats) any {
		if s := codelStatsOf(x); s != nil {
			return s
		}
		return nil
	},
	Fields: tcCodelXstatsFields,
}

// codelStatsOf returns codel's xstats (see fixedXstats); nil when there
// are none.
func codelStatsOf(x tckind.Xstats) *attrs.TCCodelXstats {
	return tckind.FixedXstats[attrs.TCCodelXstats](x, attrs.TCCodelXstatsLen)
}

// printCodelXstats prints codel's xstats (-s) as tc does:
//
//	count 0 lastcount 0 ldelay 0us drop_next 0us
//	maxpacket 0 ecn_mark 0 drop_overlimit 0
//
// with " dropping" before drop_next while in the dropping state and
// " ce_mark N" at the end when non-zero. In JSON the members sit in the
// qdisc's object, under the keys of the text, times in microseconds.
func printCodelXstats(p *tcfmt.Printer, x *attrs.TCCodelXstats) {
	if x == nil {
		return
	}
	const both = tcfmt.Any
	for i := range tcCodelXstatsFields {
		f := &tcCodelXstatsFields[i]
		t := codelTexts[f.Key]
		v, _ := f.Get(x)
		key := tcfmt.Name(f.Key)
		switch t.print {
		case codelPlain:
			p.Uint(both, key, t.format, v)
		case codelOmitZero:
			if v != 0 {
				p.Uint(both, key, t.format, v)
			}
		case codelBreakLine:
			p.NL()
			p.Uint(both, key, t.format, v)
		case codelTime:
			p.Time(both, key, t.format, uint32(v))
		case codelFlag:
			if v != 0 {
				p.Bool(both, key, t.format, true)
			}
		case codelSignedUs:
			p.Int(tcfmt.JSON, key, "", int64(v))
			printSignedTime(p, t.format, int32(v))
		}
	}
}

// codelChangeAccepted is Kind.ChangeAccepted for codel: codel_change
// takes any value of its u32 attributes, and tc sends only those.
func codelChangeAccepted(opts attrs.TCOptionsMsg, _ string) bool {
	o, ok := opts.(*attrs.CodelAttrs)
	return ok && len(o.Unknown) == 0
}

// codelTimes returns a copy of codel's options with its times converted
// by f (options of another type as they are).
func codelTimes(opts attrs.TCOptionsMsg, f func(uint32) uint32) attrs.TCOptionsMsg {
	o, ok := opts.(*attrs.CodelAttrs)
	if !ok {
		return opts
	}
	c := *o
	convertTimes(f, &c.Target, &c.Interval, &c.CEThreshold)
	return &c
}

// codelKeywords writes codel's options back. A 0 is left out: tc takes it
// for "not given" and sends nothing.
func codelKeywords(o *attrs.CodelAttrs) ([]string, error) {
	var w []string
	if o.Limit != nil && *o.Limit != 0 {
		w = append(w, "limit", tcword.UintWord(*o.Limit))
	}
	for _, t := range []struct {
		name string
		us   *uint32
	}{{"target", o.Target}, {"interval", o.Interval}} {
		if t.us != nil && *t.us != 0 {
			w = append(w, t.name, tcword.TimeWord(*t.us))
		}
	}
	w = tcword.OnOff(w, o.ECN, "ecn", "noecn")
	// tc takes 2^32-1 for "off" and sends no threshold; the kernel dumps
	// none when it is off.
	if o.CEThreshold != nil && *o.CEThreshold != math.MaxUint32 {
		w = append(w, "ce_threshold", tcword.TimeWord(*o.CEThreshold))
	}
	return w, nil
}
