// SPDX-License-Identifier: Apache-2.0

package qdisc

// fq_codel (net/sched/sch_fq_codel.c): tc's keywords to netlink attributes,
// and the kernel's attributes and xstats back to tc's text and JSON.
//
// Behaviour mirrored from iproute2 7.x (tc/q_fq_codel.c):
//
//   - Keywords are matched exactly (no abbreviations); the last of a repeated
//     keyword wins.
//   - tc treats 0 as "not given" for limit, flows, quantum, interval, target
//     and drop_batch, so a typed 0 is not sent; ce_threshold and
//     memory_limit are not sent when they equal 2^32-1, and
//     ce_threshold_selector not when its value is 0xff.
//   - The TCA_OPTIONS nest is always sent, without NLA_F_NESTED (the kernel
//     parses it leniently), even when empty.
//   - The kernel dumps every option but the ce_threshold trio, which it
//     dumps only when ce_threshold is on.

import (
	"fmt"
	"math"
	"strings"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// fqCodelUsage is gotc's wording of fq_codel's keywords, printed for "help"
// and after an unknown keyword.
const fqCodelUsage = `Usage: ... fq_codel [ limit PACKETS ] [ flows NUMBER ] [ memory_limit BYTES ]
                   [ target TIME ] [ interval TIME ] [ quantum BYTES ]
                   [ ecn | noecn ] [ ce_threshold TIME ]
                   [ ce_threshold_selector VALUE/MASK ] [ drop_batch SIZE ]`

// fq_codel's xstats types (TCA_FQ_CODEL_XSTATS_QDISC and _CLASS): which
// member of the union in struct tc_fq_codel_xstats the kernel filled.
const (
	fqCodelXstatsQdisc = 0
	fqCodelXstatsClass = 1
)

// fqCodelQuantumMax is the kernel's FQ_CODEL_QUANTUM_MAX: a larger quantum
// makes fq_codel_change fail.
const fqCodelQuantumMax = 1 << 20

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:  "fq_codel",
			Usage: fqCodelUsage,
			ParseQdisc: func(args []string, _ tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
				o, err := parseFQCodel(args)
				if err != nil {
					return nil, err
				}
				return o, nil
			},
			PrintOptions: func(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
				if o, ok := opts.(*attrs.FQCodelAttrs); ok {
					printFQCodelOptions(p, o)
				}
			},
			// Both dumps carry the same struct; its type says which half of
			// the union is filled, and tc prints whichever it finds.
			PrintXstats:      printFQCodelXstats,
			PrintClassXstats: printFQCodelXstats,
			ChangeAccepted:   fqCodelChangeAccepted,
			Stats:            fqCodelStatsTable,
			Keywords:         tckind.KeywordsOf("fq_codel", fqCodelKeywords),
			Dumped:           fqCodelDumped,
			KeptOnChange:     fqCodelKept,
			Restoring: func(o attrs.TCOptionsMsg) attrs.TCOptionsMsg {
				return fqCodelTimes(o, tcword.SmallestDumpedAs(codelDumped))
			},
		})
	}, "fq_codel")
}

// parseFQCodel turns the words after "fq_codel" into the qdisc's options as
// tc 7.x does. Only what the user named is set, so that "change" keeps the
// rest; the result is never nil on success (tc always sends the nest).
// Errors are *ParseError: exit 1, with the usage after an unknown keyword
// and for "help"; a keyword missing its value exits 255.
func parseFQCodel(args []string) (*attrs.FQCodelAttrs, error) {
	w := newCodelWords()
	var (
		flows, quantum, dropBatch uint32
		memory                    uint32 = math.MaxUint32
		ceMask                    uint8
		ceSelector                uint8 = 0xff
	)
	err := tcword.ParseWords(args, func(kw string, value tcword.ValueFunc) (ok bool, err error) {
		if ok, err := w.word(kw, value); ok || err != nil {
			return ok, err
		}
		switch kw {
		case "flows":
			flows, err = tcword.UintArg(kw, value)
		case "quantum":
			quantum, err = tcword.UintArg(kw, value)
		case "drop_batch":
			dropBatch, err = tcword.UintArg(kw, value)
		case "ce_threshold_selector":
			v, err := value()
			if err != nil {
				return true, err
			}
			sel, mask, found := strings.Cut(v, "/")
			if !found {
				return true, tcword.Errorf(`Missing mask for "ce_threshold_selector"`)
			}
			// tc reads the mask first, so a bad mask is reported even
			// when the value is bad too.
			m, perr := tcfmt.ParseUint(mask, 0, 8)
			if perr != nil {
				return true, tcword.Errorf(`Illegal mask for "ce_threshold_selector"`)
			}
			s, perr := tcfmt.ParseUint(sel, 0, 8)
			if perr != nil {
				return true, tcword.Errorf(`Illegal "ce_threshold_selector"`)
			}
			ceMask, ceSelector = uint8(m), uint8(s)
		case "memory_limit":
			memory, err = tcword.SizeArg(kw, value)
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return nil, err
	}

	o := &attrs.FQCodelAttrs{}
	o.Limit, o.Flows, o.Quantum = tcword.NonZero(w.limit), tcword.NonZero(flows), tcword.NonZero(quantum)
	o.Interval, o.Target, o.DropBatchSize = tcword.NonZero(w.interval), tcword.NonZero(w.target), tcword.NonZero(dropBatch)
	o.ECN, o.CEThreshold = w.ecn.Attr(), w.ceThresholdAttr()
	if ceSelector != 0xff {
		o.CEThresholdMask, o.CEThresholdSelector = &ceMask, &ceSelector
	}
	if memory != math.MaxUint32 {
		o.MemoryLimit = &memory
	}
	return o, nil
}

// printFQCodelOptions prints an fq_codel qdisc's options as tc does; the
// kernel's defaults read:
//
//	limit 10240p flows 1024 quantum 1514 target 5ms interval 100ms memory_limit 32Mb ecn drop_batch 64
//
// Times are raw microseconds and memory_limit bytes in JSON; ecn is printed
// only when on and drop_batch only when non-zero; ce_threshold_selector
// (text "%#x/%#x") when the selector or its mask is non-zero.
func printFQCodelOptions(p *tcfmt.Printer, o *attrs.FQCodelAttrs) {
	if o == nil {
		return
	}
	const both = tcfmt.Any
	if o.Limit != nil {
		p.Uint(both, "limit", "limit %up ", uint64(*o.Limit))
	}
	if o.Flows != nil {
		p.Uint(both, "flows", "flows %u ", uint64(*o.Flows))
	}
	if o.Quantum != nil {
		p.Uint(both, "quantum", "quantum %u ", uint64(*o.Quantum))
	}
	if o.Target != nil {
		p.Time(both, "target", "target %s ", *o.Target)
	}
	if o.CEThreshold != nil {
		p.Time(both, "ce_threshold", "ce_threshold %s ", *o.CEThreshold)
	}
	var sel, mask uint8
	if o.CEThresholdSelector != nil {
		sel = *o.CEThresholdSelector
	}
	if o.CEThresholdMask != nil {
		mask = *o.CEThresholdMask
	}
	if sel != 0 || mask != 0 {
		p.Uint(both, "ce_threshold_selector", "ce_threshold_selector %#x", uint64(sel))
		p.Uint(both, "ce_threshold_mask", "/%#x ", uint64(mask))
	}
	if o.Interval != nil {
		p.Time(both, "interval", "interval %s ", *o.Interval)
	}
	if o.MemoryLimit != nil {
		p.Size(both, "memory_limit", "memory_limit %s ", uint64(*o.MemoryLimit))
	}
	if o.ECN != nil && *o.ECN != 0 {
		p.Bool(both, "ecn", "ecn ", true)
	}
	if o.DropBatchSize != nil && *o.DropBatchSize != 0 {
		p.Uint(both, "drop_batch", "drop_batch %u ", uint64(*o.DropBatchSize))
	}
}

// fqCodelText is how tc's -s text writes one of fq_codel's qdisc
// statistics: its format (a leading blank included), and whether tc
// prints it only when non-zero.
type fqCodelText struct {
	format   string
	omitZero bool
}

// fqCodelTexts are tc's -s text of fq_codel's qdisc statistics by JSON
// key; the statistics, in tc's order, are tcFQCodelQdStatsFields (from the
// spec). The second line starts at new_flows_len.
var fqCodelTexts = map[string]fqCodelText{
	"maxpacket":       {"  maxpacket %u", false},
	"drop_overlimit":  {" drop_overlimit %u", false},
	"new_flow_count":  {" new_flow_count %u", false},
	"ecn_mark":        {" ecn_mark %u", false},
	"ce_mark":         {" ce_mark %u", true},
	"memory_used":     {" memory_used %u", true},
	"drop_overmemory": {" drop_overmemory %u", true},
	"new_flows_len":   {"  new_flows_len %u", false},
	"old_flows_len":   {" old_flows_len %u", false},
}

// fqCodelStatsTable is the statistics of an fq_codel qdisc (xstats of
// type 0; a class's are not the qdisc's) for the registry's consumers.
var fqCodelStatsTable = &tckind.StatsTable{
	Of: func(x tckind.Xstats) any {
		if s := fqCodelStatsOf(x); s != nil && s.Type == fqCodelXstatsQdisc {
			var qd attrs.TCFQCodelQdStats
			qd.Decode(s.Union[:]) // the union is larger than either member
			return &qd
		}
		return nil
	},
	Fields: tcFQCodelQdStatsFields,
}

// fqCodelStatsOf returns fq_codel's xstats (see fixedXstats); nil when
// there are none.
func fqCodelStatsOf(x tckind.Xstats) *attrs.TCFQCodelXstats {
	return tckind.FixedXstats[attrs.TCFQCodelXstats](x, attrs.TCFQCodelXstatsLen)
}

// printFQCodelStats prints fq_codel's xstats (-s) as tc does, for the
// qdisc (type 0):
//
//	maxpacket 0 drop_overlimit 0 new_flow_count 0 ecn_mark 0
//	new_flows_len 0 old_flows_len 0
//
// (ce_mark, memory_used and drop_overmemory join the first line when
// non-zero), or for a class, one flow (type 1):
//
//	deficit 1514 count 0 lastcount 0 ldelay 3us[ dropping drop_next 1.0ms]
//
// In JSON the members sit in the object being printed (the qdisc's, or a
// class's "stats"), under the keys of the text. Other types print nothing.
func printFQCodelStats(p *tcfmt.Printer, x *attrs.TCFQCodelXstats) {
	if x == nil {
		return
	}
	const both = tcfmt.Any
	switch x.Type {
	case fqCodelXstatsQdisc:
		var s attrs.TCFQCodelQdStats
		s.Decode(x.Union[:]) // the union is larger than either member
		for i := range tcFQCodelQdStatsFields {
			f := &tcFQCodelQdStatsFields[i]
			t := fqCodelTexts[f.Key]
			v, _ := f.Get(&s)
			if t.omitZero && v == 0 {
				continue
			}
			if f.Key == "new_flows_len" {
				p.NL()
			}
			p.Uint(both, tcfmt.Name(f.Key), t.format, v)
		}
	case fqCodelXstatsClass:
		var s attrs.TCFQCodelClStats
		s.Decode(x.Union[:])
		p.Int(both, "deficit", "  deficit %d", int64(s.Deficit))
		p.Uint(both, "count", " count %u", uint64(s.Count))
		p.Uint(both, "lastcount", " lastcount %u", uint64(s.Lastcount))
		p.Uint(tcfmt.JSON, "ldelay", "", uint64(s.Ldelay))
		p.String(tcfmt.FP, "", " ldelay %s", tcfmt.FormatTime(s.Ldelay))
		if s.Dropping != 0 {
			p.Bool(both, "dropping", " dropping", true)
			p.Int(tcfmt.JSON, "drop_next", "", int64(s.DropNext))
			printSignedTime(p, " drop_next %s", s.DropNext)
		}
	}
}

func printFQCodelXstats(p *tcfmt.Printer, x tckind.Xstats) {
	if s := fqCodelStatsOf(x); s != nil {
		printFQCodelStats(p, s)
	}
}

// fqCodelChangeAccepted is Kind.ChangeAccepted for fq_codel: on an existing
// qdisc fq_codel_change refuses any flows (the flow table exists already)
// and a quantum above FQ_CODEL_QUANTUM_MAX; every attribute tc sends has
// the size the policy wants.
func fqCodelChangeAccepted(opts attrs.TCOptionsMsg, _ string) bool {
	o, ok := opts.(*attrs.FQCodelAttrs)
	if !ok || len(o.Unknown) != 0 || o.Flows != nil {
		return false
	}
	return o.Quantum == nil || *o.Quantum <= fqCodelQuantumMax
}

func fqCodelKeywords(o *attrs.FQCodelAttrs) ([]string, error) {
	var w []string
	num := func(name string, v *uint32) {
		if v != nil {
			w = append(w, name, tcword.UintWord(*v))
		}
	}
	num("limit", o.Limit)
	num("flows", o.Flows)
	num("quantum", o.Quantum)
	if o.Target != nil {
		w = append(w, "target", tcword.TimeWord(*o.Target))
	}
	if o.Interval != nil {
		w = append(w, "interval", tcword.TimeWord(*o.Interval))
	}
	num("memory_limit", o.MemoryLimit)
	num("drop_batch", o.DropBatchSize)
	w = tcword.OnOff(w, o.ECN, "ecn", "noecn")
	if o.CEThreshold != nil {
		w = append(w, "ce_threshold", tcword.TimeWord(*o.CEThreshold))
	}
	if o.CEThresholdSelector != nil && o.CEThresholdMask != nil && *o.CEThresholdMask != 0 {
		w = append(w, "ce_threshold_selector", fmt.Sprintf("%#x/%#x", *o.CEThresholdSelector, *o.CEThresholdMask))
	}
	return w, nil
}

// The defaults fq_codel_init gives the options fq_codel_change keeps
// when a request omits them.
const (
	fqCodelDefaultLimit     uint32 = 10 * 1024
	fqCodelDefaultTarget    uint32 = 5000   // µs
	fqCodelDefaultInterval  uint32 = 100000 // µs
	fqCodelDefaultMemory    uint32 = 32 << 20
	fqCodelDefaultDropBatch uint32 = 64
)

// fqCodelKept is Kind.KeptOnChange for fq_codel: limit, target,
// interval, ecn, memory_limit and drop_batch. Not the quantum, whose
// default is the device's MTU, nor a ce_threshold, which no value a
// request can send turns off again.
var fqCodelKept = tckind.KeptDefaults("fq_codel", fqCodelKeywords, attrs.FQCodelAttrs{
	Limit:         new(fqCodelDefaultLimit),
	Target:        new(fqCodelDefaultTarget),
	Interval:      new(fqCodelDefaultInterval),
	ECN:           new(uint32(1)),
	MemoryLimit:   new(fqCodelDefaultMemory),
	DropBatchSize: new(fqCodelDefaultDropBatch),
})

// fqCodelMinQuantum is the least quantum fq_codel_change keeps: a smaller
// one is raised to it.
const fqCodelMinQuantum = 256

// fqCodelDumped is Kind.Dumped for fq_codel (fq_codel_change and
// fq_codel_dump): the times kept in units of 1.024 µs, the quantum raised
// to 256, and the ECN mark's selector and mask dumped only beside a
// ce_threshold, which a request without one does not set.
func fqCodelDumped(opts attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	d := fqCodelTimes(opts, codelDumped)
	o, ok := d.(*attrs.FQCodelAttrs)
	if !ok || o == nil {
		return d
	}
	if o.Quantum != nil && *o.Quantum < fqCodelMinQuantum {
		q := uint32(fqCodelMinQuantum)
		o.Quantum = &q
	}
	if o.CEThreshold == nil {
		o.CEThresholdSelector, o.CEThresholdMask = nil, nil
	}
	return o
}

// fqCodelTimes returns a copy of fq_codel's options with its times, which
// it keeps as codel does, converted by f (options of another type as they
// are).
func fqCodelTimes(opts attrs.TCOptionsMsg, f func(uint32) uint32) attrs.TCOptionsMsg {
	o, ok := opts.(*attrs.FQCodelAttrs)
	if !ok || o == nil {
		return opts
	}
	c := *o
	convertTimes(f, &c.Target, &c.Interval, &c.CEThreshold)
	return &c
}
