// SPDX-License-Identifier: Apache-2.0

package qdisc

// sfb (net/sched/sch_sfb.c): tc's keywords to netlink attributes, and the
// kernel's attributes and xstats back to tc's text and JSON, as iproute2
// 7.x's tc/q_sfb.c does.
//
//   - tc always sends the whole struct tc_sfb_qopt, starting from its own
//     defaults (rehash 600s, db 60s, penalty_rate 10, penalty_burst 20,
//     increment 1/2000, decrement 1/20000); max and target default from
//     each other.
//   - rehash and db are milliseconds; the probabilities are fractions in
//     [0,1] scaled to SFB_MAX_PROB.
//   - There is no "help": it is an unknown word like any other.

import (
	"fmt"
	"strconv"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// sfbUsage is tc's explain() of sfb.
const sfbUsage = "Usage: ... sfb [ rehash SECS ] [ db SECS ]\n" +
	"\t    [ limit PACKETS ] [ max PACKETS ] [ target PACKETS ]\n" +
	"\t    [ increment FLOAT ] [ decrement FLOAT ]\n" +
	"\t    [ penalty_rate PPS ] [ penalty_burst PACKETS ]"

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:         "sfb",
			MakesClasses: true,
			Usage:        sfbUsage,
			ParseQdisc: func(args []string, _ tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
				o, err := parseSFB(args)
				if err != nil {
					return nil, err
				}
				return o, nil
			},
			PrintOptions: func(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
				if o, ok := opts.(*attrs.SFBAttrs); ok {
					printSFBOptions(p, o)
				}
			},
			PrintXstats: func(p *tcfmt.Printer, x tckind.Xstats) { printSFBXstats(p, sfbStatsOf(x)) },
			Stats:       sfbStatsTable,
			Keywords:    tckind.KeywordsOf("sfb", sfbKeywords),
		})
	}, "sfb")
}

// sfbKeywords writes sfb's parameters back, all of them: tc sends the
// whole struct, its defaults for what is not given. The probabilities are
// written as the fractions of SFB_MAX_PROB that tc's rounding turns back
// into them.
func sfbKeywords(o *attrs.SFBAttrs) ([]string, error) {
	q := o.Parms
	if q == nil {
		return nil, nil
	}
	var w []string
	for _, n := range []struct {
		name string
		v    uint32
	}{
		{"rehash", q.RehashInterval}, {"db", q.WarmupTime}, {"limit", q.Limit}, {"max", q.Max},
		{"target", q.BinSize}, {"penalty_rate", q.PenaltyRate}, {"penalty_burst", q.PenaltyBurst},
	} {
		w = append(w, n.name, tcword.UintWord(n.v))
	}
	for _, n := range []struct {
		name string
		v    uint32
	}{{"increment", q.Increment}, {"decrement", q.Decrement}} {
		if n.v > tckind.SfbMaxProb {
			return nil, tckind.NoKeywords(fmt.Sprintf("sfb %s %d above 1", n.name, n.v))
		}
		w = append(w, n.name, strconv.FormatFloat(float64(n.v)/tckind.SfbMaxProb, 'g', -1, 64))
	}
	return w, nil
}

// parseSFB turns the words after "sfb" into the qdisc's options as tc 7.x
// does. Errors are *ParseError: exit 1, with the usage after an unknown
// keyword; a keyword missing its value exits 255.
func parseSFB(args []string) (*attrs.SFBAttrs, error) {
	q := &attrs.TCSFBQopt{
		RehashInterval: 600 * 1000,
		WarmupTime:     60 * 1000,
		PenaltyRate:    10,
		PenaltyBurst:   20,
		Increment:      (tckind.SfbMaxProb + 1000) / 2000,
		Decrement:      (tckind.SfbMaxProb + 10000) / 20000,
	}
	fields := map[string]*uint32{
		"rehash": &q.RehashInterval, "db": &q.WarmupTime, "limit": &q.Limit, "max": &q.Max,
		"target": &q.BinSize, "penalty_rate": &q.PenaltyRate, "penalty_burst": &q.PenaltyBurst,
	}
	for i := 0; i < len(args); i++ {
		kw := args[i]
		field, plain := fields[kw]
		if !plain && kw != "increment" && kw != "decrement" {
			return nil, tcword.UsageErrorf("What is \"%s\"?", kw)
		}
		if i+1 >= len(args) {
			return nil, tcword.IncompleteCommand()
		}
		i++
		v := args[i]
		if plain {
			n, err := tcfmt.ParseUint(v, 0, 32) // get_u32, base 0
			if err != nil {
				return nil, tcword.Errorf("Illegal %q", kw)
			}
			*field = uint32(n)
			continue
		}
		prob, ok := sfbProb(v)
		if !ok {
			return nil, tcword.Errorf("Illegal %q", kw)
		}
		if kw == "increment" {
			q.Increment = prob
		} else {
			q.Decrement = prob
		}
	}
	if q.Max == 0 {
		if q.BinSize >= 1 {
			q.Max = (q.BinSize*5 + 1) / 4
		} else {
			q.Max = 25
		}
	}
	if q.BinSize == 0 {
		q.BinSize = (q.Max*4 + 3) / 5
	}
	return &attrs.SFBAttrs{Parms: q}, nil
}

// sfbProb reads a probability as tc's get_prob: a number (strtod's, with
// nothing required after it) within [0,1], scaled to SFB_MAX_PROB and
// rounded.
func sfbProb(arg string) (uint32, bool) {
	d, n, _ := tcfmt.Strtod(arg)
	if n == 0 || d < 0 || d > 1 {
		return 0, false
	}
	return tcfmt.CUint32(d*tckind.SfbMaxProb + 0.5), true
}

// printSFBOptions prints an sfb qdisc's options as tc does; the defaults
// read:
//
//	rehash 600s db 60s limit 0p max 25p target 20p increment 0.00050354 decrement 4.57771e-05 penalty_rate 10pps penalty_burst 20p
//
// rehash and db are microseconds in JSON.
func printSFBOptions(p *tcfmt.Printer, o *attrs.SFBAttrs) {
	if o == nil || o.Parms == nil {
		return
	}
	q := o.Parms
	// tc multiplies the milliseconds in u32, which wraps.
	p.Time(tcfmt.Any, "rehash", "rehash %s ", q.RehashInterval*1000)
	p.Time(tcfmt.Any, "db", "db %s ", q.WarmupTime*1000)
	p.Uint(tcfmt.Any, "limit", "limit %up ", uint64(q.Limit))
	p.Uint(tcfmt.Any, "max", "max %up ", uint64(q.Max))
	p.Uint(tcfmt.Any, "target", "target %up ", uint64(q.BinSize))
	p.Float(tcfmt.Any, "increment", "increment %lg ", float64(q.Increment)/tckind.SfbMaxProb)
	p.Float(tcfmt.Any, "decrement", "decrement %lg ", float64(q.Decrement)/tckind.SfbMaxProb)
	p.Uint(tcfmt.Any, "penalty_rate", "penalty_rate %upps ", uint64(q.PenaltyRate))
	p.Uint(tcfmt.Any, "penalty_burst", "penalty_burst %up ", uint64(q.PenaltyBurst))
}

// sfbStatsTable lists sfb's statistics in tc's order.
var sfbStatsTable = &tckind.StatsTable{
	Of: func(x tckind.Xstats) any {
		if s := sfbStatsOf(x); s != nil {
			return s
		}
		return nil
	},
	Fields: tcSFBXstatsFields,
}

// sfbStatsOf returns sfb's xstats (see fixedXstats); nil when there are
// none.
func sfbStatsOf(x tckind.Xstats) *attrs.TCSFBXstats {
	return tckind.FixedXstats[attrs.TCSFBXstats](x, attrs.TCSFBXstatsLen)
}

// printSFBXstats prints sfb's xstats (-s) as tc does:
//
//	earlydrop 0 penaltydrop 0 bucketdrop 0 queuedrop 0 childdrop 0 marked 0
//	maxqlen 0 maxprob 0 avgprob 0
//
// the probabilities as fractions.
func printSFBXstats(p *tcfmt.Printer, x *attrs.TCSFBXstats) {
	if x == nil {
		return
	}
	p.Uint(tcfmt.Any, "earlydrop", "  earlydrop %u", uint64(x.Earlydrop))
	p.Uint(tcfmt.Any, "penaltydrop", " penaltydrop %u", uint64(x.Penaltydrop))
	p.Uint(tcfmt.Any, "bucketdrop", " bucketdrop %u", uint64(x.Bucketdrop))
	p.Uint(tcfmt.Any, "queuedrop", " queuedrop %u", uint64(x.Queuedrop))
	p.Uint(tcfmt.Any, "childdrop", " childdrop %u", uint64(x.Childdrop))
	p.Uint(tcfmt.Any, "marked", " marked %u", uint64(x.Marked))
	p.NL()
	p.Uint(tcfmt.Any, "maxqlen", "  maxqlen %u", uint64(x.Maxqlen))
	p.Float(tcfmt.Any, "maxprob", " maxprob %lg", float64(x.Maxprob)/tckind.SfbMaxProb)
	p.Float(tcfmt.Any, "avgprob", " avgprob %lg", float64(x.Avgprob)/tckind.SfbMaxProb)
}
