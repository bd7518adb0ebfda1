// SPDX-License-Identifier: Apache-2.0

package action

// The police action (net/sched/act_police.c): a token bucket on bytes (rate
// and burst, optionally a peak rate over packets of at most mtu bytes), on
// packets (pkts_rate and pkts_burst), or a bound on the estimated rate
// (avrate), with a verdict for packets over the limit and one for the rest.
// tc 7.3's m_police.c reads it both as an action and, in the old form, as a
// filter option (u32, basic, fw and route carry it in their TCA_*_POLICE);
// both forms share the parser and printer here.

import (
	"math"
	"strconv"
	"strings"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

const policeUsage = `Usage: ... police [ rate BPS burst BYTES[/BYTES] ] [ pkts_rate RATE pkts_burst PACKETS ]
                  [ mtu BYTES[/BYTES] ] [ peakrate BPS ] [ avrate BPS ] [ mpu BYTES ]
                  [ overhead BYTES ] [ linklayer TYPE ] [ CONTROL ] [ index N ]
Where: CONTROL := conform-exceed EXCEEDACT[/NOTEXCEEDACT] | EXCEEDACT
       EXCEEDACT/NOTEXCEEDACT := { pipe | ok | reclassify | drop | continue |
                                   goto chain CHAIN_INDEX }
The verdict for packets over the limit defaults to reclassify.`

func init() {
	tckind.LazilyActions(func() {
		tckind.MustRegisterAction(&tckind.Action{
			Name:  "police",
			Usage: policeUsage,
			Parse: func(args []string, _ tckind.ActionEnv) (attrs.ActOptionsMsg, []string, error) {
				// The word "police" chose the kind; tc needs one after it.
				if len(args) < 2 {
					return nil, args, tcword.IncompleteCommand()
				}
				o, rest, err := parsePolice(args[1:])
				if err != nil {
					return nil, args, err
				}
				return o, rest, nil
			},
			Print: func(p *tcfmt.Printer, opts attrs.ActOptionsMsg, _ tckind.Links) {
				o, _ := opts.(*attrs.ActPoliceAttrs)
				printPolice(p, o)
			},
			PrintStats: func(p *tcfmt.Printer, opts attrs.ActOptionsMsg) {
				if o, ok := opts.(*attrs.ActPoliceAttrs); ok && o.TBF != nil && o.Tm != nil {
					printTm(p, o.Tm)
				}
			},
			Keywords: func(opts attrs.ActOptionsMsg, _ tckind.Links) ([]string, error) {
				o, _ := opts.(*attrs.ActPoliceAttrs)
				return policeKeywords(o)
			},
		})
	}, "police")
}

// ParseFilterPolice reads a filter's "police ..." option as tc's u32, basic,
// fw and route do: args starts at the word "police" (the filter matched it
// as a keyword), and the rest of the command line, from the first word
// that is not police's, is returned. The result is the filter's
// TCA_*_POLICE nest. Where tc's parse_police gives up (a missing burst, an
// unknown first word, a bad verdict, ...) the error's message ends with the
// filter's line `Illegal "police"` and tc's exit status 1; the errors tc
// exits on at once (a missing value, a bad number, "help") keep their own
// message and status 255.
func ParseFilterPolice(args []string) (*attrs.ActPoliceAttrs, []string, error) {
	if len(args) < 2 {
		return nil, args, tcword.IncompleteCommand()
	}
	o, rest, err := parsePolice(args[1:])
	if err != nil {
		if pe, ok := err.(*tcword.ParseError); ok && pe.Code == 0 {
			msg := `Illegal "police"`
			if pe.Msg != "" {
				msg = pe.Msg + "\n" + msg
			}
			return nil, args, tcword.Errorf("%s", msg)
		}
		return nil, args, err
	}
	return o, rest, nil
}

// PrintFilterPolice prints a filter's police nest as tc_print_police does:
// " police 0xINDEX rate ..." and a line "\tref N bind N ", with the times
// for -s (stats), ending with a line end. In JSON its members go into the
// object open at the call (the filter's options), "kind":"police" among
// them. u32 and basic start a new line before it; fw and route do not, and
// the caller prints that line end itself.
func PrintFilterPolice(p *tcfmt.Printer, o *attrs.ActPoliceAttrs, stats bool) {
	printPolice(p, o)
	if stats && o != nil && o.TBF != nil && o.Tm != nil {
		printTm(p, o.Tm)
	}
	p.NL()
}

// policeVerbs are the verdicts m_police.c takes as a keyword of their own
// (without conform-exceed), in its order of matching: jump and trap are
// not among them.
var policeVerbs = []string{"reclassify", "drop", "shot", "continue", "pass", "ok", "pipe", "goto"}

// parsePolice is m_police.c's act_parse_police from the first word after
// "police". A refusal of tc's parser (which the action list or the filter
// follows with lines of its own) is a ParseError with code 0 and the
// message tc printed, possibly empty.
func parsePolice(args []string) (*attrs.ActPoliceAttrs, []string, error) {
	var (
		p                   = attrs.TCPolice{Action: actReclassify}
		o                   = &attrs.ActPoliceAttrs{TBF: &p}
		avrate              uint32
		result              int32
		mtu, mpu            uint32
		overhead            uint16
		linklayer           uint8 = tcword.LinklayerEthernet
		rcellLog, pcellLog        = -1, -1
		rate, prate, buffer uint64
		pps, ppsBurst       uint64
		ok                  int
	)
	// refused is tc's plain "return -1", after msg (if any) on stderr.
	refused := func(msg string) *tcword.ParseError { return &tcword.ParseError{Msg: msg} }
loop:
	for len(args) > 0 {
		w := args[0]
		// Every keyword but the verdicts takes a value: NEXT_ARG.
		value := func() (string, error) {
			if len(args) < 2 {
				return "", tcword.IncompleteCommand()
			}
			return args[1], nil
		}
		var err error
		var v string
		switch {
		case tcfmt.Matches(w, "index"):
			if v, err = value(); err == nil {
				n, perr := tcfmt.ParseUint(v, 10, 32)
				if perr != nil {
					return nil, args, tcword.InvalidArgument(v, "index")
				}
				p.Index = uint32(n)
			}
		case tcfmt.Matches(w, "burst"), w == "buffer", w == "maxburst":
			if v, err = value(); err == nil {
				if buffer != 0 {
					return nil, args, tcword.DuplicateArgument("buffer/burst", v)
				}
				size, cl, shown, good := tcword.SizeAndCell(v, math.MaxUint64)
				if !good {
					return nil, args, tcword.InvalidArgument(shown, "buffer")
				}
				buffer, rcellLog = size, cl
			}
		case w == "mtu", w == "minburst":
			if v, err = value(); err == nil {
				if mtu != 0 {
					return nil, args, tcword.DuplicateArgument("mtu/minburst", v)
				}
				size, cl, shown, good := tcword.SizeAndCell(v, math.MaxUint32)
				if !good {
					return nil, args, tcword.InvalidArgument(shown, "mtu")
				}
				mtu, pcellLog = uint32(size), cl
			}
		case w == "mpu":
			if v, err = value(); err == nil {
				if mpu != 0 {
					return nil, args, tcword.DuplicateArgument("mpu", v)
				}
				n, perr := tcfmt.ParseSize(v)
				if perr != nil {
					return nil, args, tcword.InvalidArgument(v, "mpu")
				}
				mpu = n
			}
		case w == "rate", tcfmt.Matches(w, "peakrate"):
			name, target := "rate", &rate
			if w != "rate" {
				name, target = "peakrate", &prate
			}
			if v, err = value(); err == nil {
				if *target != 0 {
					return nil, args, tcword.DuplicateArgument(name, v)
				}
				r, perr := tcfmt.ParseRate(v)
				if perr != nil {
					return nil, args, tcword.InvalidArgument(v, name)
				}
				*target = r
			}
		case w == "avrate":
			if v, err = value(); err == nil {
				if avrate != 0 {
					return nil, args, tcword.DuplicateArgument("avrate", v)
				}
				r, perr := tcfmt.ParseRate32(v)
				if perr != nil {
					return nil, args, tcword.InvalidArgument(v, "avrate")
				}
				avrate = r
			}
		case matchesAny(w, policeVerbs):
			code, rest, bad, rerr := readActionControl(args)
			if rerr != nil {
				return nil, args, rerr
			}
			if bad != "" {
				return nil, args, refused(strings.TrimSuffix(bad, "\n"))
			}
			p.Action, args = code, rest
			ok++
			continue
		case w == "conform-exceed":
			if _, err = value(); err != nil {
				return nil, args, err
			}
			exceed, conform, rest, perr := parseConformExceed(args[1:])
			if perr != nil {
				return nil, args, perr
			}
			p.Action, result, args = exceed, conform, rest
			ok++
			continue
		case tcfmt.Matches(w, "overhead"):
			if v, err = value(); err == nil {
				n, perr := tcfmt.ParseUint(v, 10, 16)
				if perr != nil {
					return nil, args, tcword.InvalidArgument(v, "overhead")
				}
				overhead = uint16(n)
			}
		case tcfmt.Matches(w, "linklayer"):
			if v, err = value(); err == nil {
				ll, good := tcword.ParseLinklayer(v)
				if !good {
					return nil, args, tcword.InvalidArgument(v, "linklayer")
				}
				linklayer = ll
			}
		case tcfmt.Matches(w, "pkts_rate"), tcfmt.Matches(w, "pkts_burst"):
			name, target := "pkts_rate", &pps
			if !tcfmt.Matches(w, "pkts_rate") {
				name, target = "pkts_burst", &ppsBurst
			}
			if v, err = value(); err == nil {
				if *target != 0 {
					return nil, args, tcword.DuplicateArgument(name, v)
				}
				n, perr := tcfmt.ParseUint(v, 10, 64)
				if perr != nil {
					return nil, args, tcword.InvalidArgument(v, name)
				}
				*target = n
			}
		case w == "help":
			return nil, args, &tcword.ParseError{Msg: policeUsage, Code: 255}
		default:
			break loop
		}
		if err != nil {
			return nil, args, err
		}
		args = args[2:]
		ok++
	}

	switch {
	case ok == 0, rate != 0 && avrate != 0:
		return nil, args, refused("")
	case rate == 0 && avrate == 0 && p.Index == 0 && mtu == 0 && pps == 0:
		return nil, args, refused("'rate' or 'avrate' or 'mtu' or 'pkts_rate' MUST be specified.")
	case rate != 0 && buffer == 0 && avrate == 0:
		return nil, args, refused("'burst' requires 'rate'.")
	case pps != 0 && ppsBurst == 0:
		return nil, args, refused("'pkts_burst' requires 'pkts_rate'.")
	case pps != 0 && rate != 0:
		return nil, args, refused("'rate' and 'pkts_rate' are not allowed in same action.")
	case prate != 0 && rate == 0:
		return nil, args, refused("'peakrate' requires 'rate'.")
	case prate != 0 && mtu == 0:
		return nil, args, refused("'mtu' is required, if 'peakrate' is requested.")
	}

	if rate != 0 {
		p.Rate.Rate = tcword.Rate32(rate)
		p.Rate.MPU = uint16(mpu)
		p.Rate.Overhead = overhead
		o.Rate = tcword.CalcRtable64(&p.Rate, rcellLog, mtu, linklayer, rate)
		p.Burst = tcword.XmitTime(rate, buffer)
		if p.Burst == math.MaxUint32 {
			return nil, args, refused("POLICE: burst out of range")
		}
		if rate >= 1<<32 {
			o.Rate64 = &rate
		}
	}
	p.Mtu = mtu
	if prate != 0 {
		p.Peakrate.Rate = tcword.Rate32(prate)
		p.Peakrate.MPU = uint16(mpu)
		p.Peakrate.Overhead = overhead
		o.Peakrate = tcword.CalcRtable64(&p.Peakrate, pcellLog, mtu, linklayer, prate)
		if prate >= 1<<32 {
			o.Peakrate64 = &prate
		}
	}
	if avrate != 0 {
		o.Avrate = &avrate
	}
	if result != 0 {
		r := uint32(result)
		o.Result = &r
	}
	if pps != 0 {
		o.Pktrate64 = &pps
		// The bucket travels as the ticks the packet rate needs for it.
		b := uint64(tcword.XmitTime(pps, ppsBurst))
		o.Pktburst64 = &b
	}
	return o, args, nil
}

// parseConformExceed is tc's parse_action_control_slash with numbers
// allowed, from the word after "conform-exceed": EXCEED/CONFORM in one
// word (each a verdict word or a number, with no chain after goto), or
// EXCEED [/ CONFORM] in separate words, each a full verdict. conform is 0
// when none is given.
func parseConformExceed(args []string) (exceed, conform int32, rest []string, err error) {
	w := args[0]
	if first, second, slash := strings.Cut(w, "/"); slash {
		e, ok1 := policeVerdict(first)
		c, ok2 := policeVerdict(second)
		if !ok1 || !ok2 {
			return 0, 0, args, &tcword.ParseError{}
		}
		return e, c, args[1:], nil
	}
	exceed, rest, err = readPoliceControl(args)
	if err != nil {
		return 0, 0, args, err
	}
	if len(rest) == 0 || rest[0] != "/" {
		return exceed, 0, rest, nil
	}
	if len(rest) < 2 {
		return 0, 0, args, tcword.IncompleteCommand()
	}
	conform, rest, err = readPoliceControl(rest[1:])
	if err != nil {
		return 0, 0, args, err
	}
	return exceed, conform, rest, nil
}

// policeVerdict is tc's action_a2n with numbers allowed: a verdict word (or
// its abbreviation) or a decimal int.
func policeVerdict(w string) (int32, bool) {
	if code, ok := actionControl(w); ok {
		return code, true
	}
	// sscanf's %d: leading blanks, a sign, digits, and nothing after.
	n, err := strconv.ParseInt(strings.TrimLeft(w, " \t\n\v\f\r"), 10, 64)
	if err != nil {
		return 0, false
	}
	return int32(n), true
}

// readPoliceControl is parse_action_control with numbers allowed: a
// number that equals the goto or jump opcode takes its chain or count as
// the word would.
func readPoliceControl(args []string) (int32, []string, error) {
	code, ok := policeVerdict(args[0])
	if !ok {
		return 0, args, tcword.Errorf("Bad action type %s", args[0])
	}
	words := args
	if _, verb := actionControl(args[0]); !verb {
		switch code {
		case actGotoChain:
			words = append([]string{"goto"}, args[1:]...)
		case actJump:
			words = append([]string{"jump"}, args[1:]...)
		default:
			return code, args[1:], nil
		}
	}
	code, rest, bad, err := readActionControl(words)
	if err != nil {
		return 0, args, err
	}
	if bad != "" {
		return 0, args, tcword.Errorf("%s", strings.TrimSuffix(bad, "\n"))
	}
	return code, args[len(args)-len(rest):], nil
}

// printPolice is m_police.c's print_police up to its last line's end, the
// times of -s left to the caller; o may be nil.
func printPolice(p *tcfmt.Printer, o *attrs.ActPoliceAttrs) {
	p.String(tcfmt.JSON, "kind", "", "police")
	if o == nil || o.TBF == nil {
		// tc complains on stderr only ("[NULL police tbf]").
		return
	}
	q := o.TBF
	rate := uint64(q.Rate.Rate)
	if o.Rate64 != nil {
		rate = *o.Rate64
	}
	p.Hex(tcfmt.FP, "", " police 0x%x ", q.Index)
	p.Uint(tcfmt.JSON, "index", "", uint64(q.Index))
	p.Rate(tcfmt.FP, "", "rate %s ", rate)
	p.Size(tcfmt.FP, "", "burst %s ", tcword.XmitSize(rate, q.Burst))
	p.Size(tcfmt.FP, "", "mtu %s ", uint64(q.Mtu))
	if p.Raw() {
		p.Hex(tcfmt.FP, "", "[%08x] ", q.Burst)
	}
	prate := uint64(q.Peakrate.Rate)
	if o.Peakrate64 != nil {
		prate = *o.Peakrate64
	}
	if prate != 0 {
		p.Rate(tcfmt.FP, "", "peakrate %s ", prate)
	}
	if o.Avrate != nil {
		p.Rate(tcfmt.FP, "", "avrate %s ", uint64(*o.Avrate))
	}
	if o.Pktrate64 != nil && o.Pktburst64 != nil {
		pps := *o.Pktrate64
		// tc passes the 64-bit ticks to a 32-bit parameter.
		p.Uint(tcfmt.Any, "pkts_rate", "pkts_rate %u ", pps)
		p.Uint(tcfmt.Any, "pkts_burst", "pkts_burst %u ", tcword.XmitSize(pps, uint32(*o.Pktburst64)))
	}
	printActionControl(p, "action ", q.Action, "")
	if o.Result != nil {
		printActionControl(p, "/", int32(*o.Result), " ")
	} else {
		p.Text(" ")
	}
	p.Size(tcfmt.Any, "overhead", "overhead %s ", uint64(q.Rate.Overhead))
	if ll := q.Rate.Linklayer & tcword.LinklayerMask; ll > tcword.LinklayerEthernet || p.Details() {
		p.String(tcfmt.Any, "linklayer", "linklayer %s ", tcword.LinklayerName(ll))
	}
	p.NL()
	p.Int(tcfmt.Any, "ref", "\tref %d ", int64(q.Refcnt))
	p.Int(tcfmt.Any, "bind", "bind %d ", int64(q.Bindcnt))
}

// policeKeywords writes a police action's dumped options (a filter's
// police nest, or the action's) back as the words after "police": rates
// exact in bits, the buckets in bytes as the rates' times give them back,
// the MTU the kernel keeps (its own when none was asked for), and the
// verdicts.
func policeKeywords(o *attrs.ActPoliceAttrs) ([]string, error) {
	if o == nil || o.TBF == nil {
		return nil, tckind.NoKeywords("police without parameters")
	}
	p := o.TBF
	var w []string
	rate := uint64(p.Rate.Rate)
	if o.Rate64 != nil {
		rate = *o.Rate64
	}
	if rate != 0 {
		w = append(w, "rate", tcword.RateWord(rate), "burst", tcword.UintWord(tcword.BurstOf(rate, p.Burst)))
	}
	if p.Mtu != 0 {
		w = append(w, "mtu", tcword.UintWord(p.Mtu))
	}
	prate := uint64(p.Peakrate.Rate)
	if o.Peakrate64 != nil {
		prate = *o.Peakrate64
	}
	if prate != 0 {
		w = append(w, "peakrate", tcword.RateWord(prate))
	}
	if o.Avrate != nil && *o.Avrate != 0 {
		w = append(w, "avrate", tcword.RateWord(uint64(*o.Avrate)))
	}
	if o.Pktrate64 != nil && *o.Pktrate64 != 0 {
		pps := *o.Pktrate64
		var ticks uint64
		if o.Pktburst64 != nil {
			ticks = *o.Pktburst64
		}
		if ticks > math.MaxUint32 {
			return nil, tckind.NoKeywords("police pkts_burst beyond 32 bits of ticks")
		}
		w = append(w, "pkts_rate", tcword.UintWord(pps), "pkts_burst", tcword.UintWord(tcword.BurstOf(pps, uint32(ticks))))
	}
	// tc gives the rate and the peak rate the same size, overhead and
	// link layer.
	if p.Rate.MPU != 0 {
		w = append(w, "mpu", tcword.UintWord(p.Rate.MPU))
	}
	if p.Rate.Overhead != 0 {
		w = append(w, "overhead", tcword.UintWord(p.Rate.Overhead))
	}
	if rate != 0 && p.Rate.Linklayer&0xf != tcword.LinklayerEthernet {
		w = append(w, "linklayer", tcword.LinklayerName(p.Rate.Linklayer&0xf))
	}
	var conform int32
	if o.Result != nil {
		conform = int32(*o.Result)
	}
	if p.Action == actReclassify && conform == 0 {
		return w, nil
	}
	w = append(w, "conform-exceed")
	w, err := verdictWords(w, p.Action)
	if err != nil {
		return nil, err
	}
	if conform == 0 {
		return w, nil
	}
	return verdictWords(append(w, "/"), conform)
}

// FilterPoliceKeywords writes a filter's dumped police nest back as the
// words ParseFilterPolice reads, "police" first. The index is written
// too: the kernel keeps the one it was given, and gives the filter the
// action that already has it.
func FilterPoliceKeywords(o *attrs.ActPoliceAttrs) ([]string, error) {
	w, err := policeKeywords(o)
	if err != nil {
		return nil, err
	}
	w = append([]string{"police"}, w...)
	if o.TBF.Index != 0 {
		w = append(w, "index", tcword.UintWord(o.TBF.Index))
	}
	return w, nil
}
