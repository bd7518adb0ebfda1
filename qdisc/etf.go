// SPDX-License-Identifier: Apache-2.0

package qdisc

// etf (net/sched/sch_etf.c): earliest txtime first, which releases each
// packet delta nanoseconds before the transmit time its socket gave it,
// as iproute2 7.x's tc/q_etf.c sets and prints it.
//
// tc sends struct tc_etf_qopt in TCA_ETF_PARMS whatever was given (clockid
// -1 when none, which the kernel refuses). Its keywords are matched by
// prefix, except skip_sock_check; "delta" is a duplicate only when the first
// was not 0.

import (
	"fmt"
	"strconv"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// etfUsage is tc's explain() for etf.
const etfUsage = "Usage: ... etf delta NANOS clockid CLOCKID [offload] [deadline_mode]\n" +
	"CLOCKID must be a valid SYS-V id (i.e. CLOCK_TAI)"

// etf's flags (TC_ETF_*).
const (
	etfDeadlineMode  = 1 << 0
	etfOffload       = 1 << 1
	etfSkipSockCheck = 1 << 2
)

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:     "etf",
			NoChange: true,
			Usage:    etfUsage,
			ParseQdisc: func(args []string, _ tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
				return parseETF(args)
			},
			PrintOptions: func(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
				if o, ok := opts.(*attrs.ETFAttrs); ok && o.Parms != nil {
					printETF(p, o.Parms)
				}
			},
			Keywords: tckind.KeywordsOf("etf", etfKeywords),
		})
	}, "etf")
}

// parseETF reads etf's keywords into the options tc sends.
func parseETF(args []string) (*attrs.ETFAttrs, error) {
	o := attrs.TCETFQopt{Clockid: tcword.ClockidInvalid}
	flag := func(bit uint32, keyword string) error {
		if o.Flags&bit != 0 {
			return tcword.Errorf("etf: duplicate %q specification", keyword)
		}
		o.Flags |= bit
		return nil
	}
	for i := 0; i < len(args); i++ {
		var err error
		switch w := args[i]; {
		case tcfmt.Matches(w, "offload"):
			err = flag(etfOffload, "offload")
		case tcfmt.Matches(w, "deadline_mode"):
			err = flag(etfDeadlineMode, "deadline_mode")
		case tcfmt.Matches(w, "delta"):
			if i+1 >= len(args) {
				return nil, tcword.IncompleteCommand()
			}
			i++
			if o.Delta != 0 {
				return nil, tcword.Errorf(`etf: duplicate "delta" specification`)
			}
			v, perr := tcfmt.ParseInt(args[i], 0, 32)
			if perr != nil {
				return nil, tcword.Errorf("etf: illegal value for \"delta\": \"%s\"", args[i])
			}
			o.Delta = int32(v)
		case tcfmt.Matches(w, "clockid"):
			if i+1 >= len(args) {
				return nil, tcword.IncompleteCommand()
			}
			i++
			if o.Clockid != tcword.ClockidInvalid {
				return nil, tcword.Errorf(`etf: duplicate "clockid" specification`)
			}
			id, ok := tcword.ParseClockid(args[i])
			if !ok {
				return nil, tcword.Errorf("etf: illegal value for \"clockid\": \"%s\".\nIt must be a valid SYS-V id (i.e. CLOCK_TAI)", args[i])
			}
			o.Clockid = id
		case w == "skip_sock_check":
			err = flag(etfSkipSockCheck, "skip_sock_check")
		case w == "help":
			return nil, &tcword.ParseError{ShowUsage: true}
		default:
			return nil, tcword.UsageErrorf("etf: unknown parameter \"%s\"", w)
		}
		if err != nil {
			return nil, err
		}
	}
	return &attrs.ETFAttrs{Parms: &o}, nil
}

// printETF prints etf's options as tc does:
//
//	clockid TAI delta 0 offload off deadline_mode off skip_sock_check off
//
// (delta is printed as signed in text and as its u32 in JSON).
func printETF(p *tcfmt.Printer, o *attrs.TCETFQopt) {
	const both = tcfmt.Any
	p.String(both, "clockid", "clockid %s ", tcword.ClockName(o.Clockid))
	p.Uint(tcfmt.JSON, "delta", "", uint64(uint32(o.Delta)))
	p.Int(tcfmt.FP, "", "delta %d ", int64(o.Delta))
	onOff := func(key tcfmt.Name, format string, bit uint32) {
		v := "off"
		if o.Flags&bit != 0 {
			v = "on"
		}
		p.String(both, key, format, v)
	}
	onOff("offload", "offload %s ", etfOffload)
	onOff("deadline_mode", "deadline_mode %s ", etfDeadlineMode)
	onOff("skip_sock_check", "skip_sock_check %s", etfSkipSockCheck)
}

// etfKeywords writes etf's parameters back: the clock by the name tc
// reads, delta when not 0 (what tc sends without it), and the flags.
func etfKeywords(o *attrs.ETFAttrs) ([]string, error) {
	p := o.Parms
	if p == nil {
		return nil, nil
	}
	var w []string
	if p.Clockid != tcword.ClockidInvalid {
		name := tcword.ClockName(p.Clockid)
		if _, ok := tcword.ParseClockid(name); !ok {
			// tc reads only the clocks it names.
			return nil, tckind.NoKeywords("etf clockid " + strconv.Itoa(int(p.Clockid)))
		}
		w = append(w, "clockid", "CLOCK_"+name)
	}
	if p.Delta != 0 {
		w = append(w, "delta", strconv.Itoa(int(p.Delta)))
	}
	for _, f := range []struct {
		name string
		bit  uint32
	}{{"offload", etfOffload}, {"deadline_mode", etfDeadlineMode}, {"skip_sock_check", etfSkipSockCheck}} {
		if p.Flags&f.bit != 0 {
			w = append(w, f.name)
		}
	}
	if p.Flags&^(etfOffload|etfDeadlineMode|etfSkipSockCheck) != 0 {
		return nil, tckind.NoKeywords(fmt.Sprintf("etf flags %#x", p.Flags))
	}
	return w, nil
}
