// SPDX-License-Identifier: Apache-2.0

package qdisc

// The RED arithmetic that tc does for red, choke, gred and sfq (iproute2's
// tc/tc_red.c): the averaging weight from the burst, the probability's
// log, the idle-damping table, and the keywords the four read alike. The
// kernel takes the results as they are, so they must be tc's to the bit:
// the computations keep tc's order of double operations and C's
// conversions.

import (
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// The RED flags (TC_RED_*), in tc_red_qopt's flags, red's bitfield and
// gred's per-queue flags.
const (
	redFlagECN      = 1
	redFlagHarddrop = 2
	redFlagAdaptive = 4
	redFlagNodrop   = 8
)

// redStabLen is the size of the idle-damping table (TCA_*_STAB).
const redStabLen = 256

// redDefaultBandwidth is the rate red and gred assume without bandwidth:
// get_rate's "10Mbit", in bytes/s.
const redDefaultBandwidth = 10_000_000 / 8

// redWords are the keywords red, choke, gred and sfq read alike, with
// tc's defaults: avpkt (0 where the kind has no default), burst,
// probability (0.02) and bandwidth (0: not given).
type redWords struct {
	burst, avpkt, rate uint32
	probability        float64
}

func newREDWords(avpkt uint32) *redWords {
	return &redWords{avpkt: avpkt, probability: 0.02}
}

// word takes kw and its value when it is one of the shared keywords;
// bandwidth only when withRate (sfq has none). ok is false for any other
// word.
func (r *redWords) word(kw string, value func() (string, error), withRate bool, env tckind.ParseEnv) (ok bool, err error) {
	switch {
	case kw == "burst", kw == "avpkt", kw == "probability", kw == "bandwidth" && withRate:
	default:
		return false, nil
	}
	v, err := value()
	if err != nil {
		return true, err
	}
	illegal := tcword.Errorf("Illegal %q", kw)
	switch kw {
	case "burst":
		n, perr := tcfmt.ParseUint(v, 0, 32) // get_unsigned, base 0
		if perr != nil {
			return true, illegal
		}
		r.burst = uint32(n)
	case "avpkt":
		n, perr := tcfmt.ParseSize(v)
		if perr != nil {
			return true, illegal
		}
		r.avpkt = n
	case "probability":
		// sscanf's "%lg": any leading number will do.
		p, n, _ := tcfmt.Strtod(v)
		if n == 0 {
			return true, illegal
		}
		r.probability = p
	default:
		rate, ok := parseRate32(v, env)
		if !ok {
			return true, illegal
		}
		r.rate = rate
	}
	return true, nil
}

// parseRate32 is how red, choke and gred read a rate: tc's get_rate, or,
// when arg holds a '%', get_percent_rate's share of env.Dev's speed.
func parseRate32(arg string, env tckind.ParseEnv) (uint32, bool) {
	for i := 0; i < len(arg); i++ {
		if arg[i] == '%' {
			return tcword.PercentRate32(arg, env.Dev, env.Notes())
		}
	}
	v, err := tcfmt.ParseRate32(arg)
	return v, err == nil
}

// redEvalEWMA is tc_red_eval_ewma: the smallest Wlog (1..31) whose weight
// W = 2^-Wlog lets a burst of burst packets in, from an empty queue, stay
// below qmin: burst + 1 - qmin/avpkt <= (1 - (1-W)^burst) / W. -1 when
// none does, after the note tc prints when the burst is below what qmin
// needs.
func redEvalEWMA(qmin, burst, avpkt uint32, w io.Writer) int {
	a := float64(burst) + 1 - float64(qmin)/float64(avpkt)
	if a < 1.0 {
		try := uint32(1)
		if avpkt != 0 { // tc divides by zero here and dies
			try += qmin / avpkt
		}
		fmt.Fprintf(w, "tc_red_eval_ewma() burst %d is too small ? Try burst %d\n", burst, try)
		return -1
	}
	W := 0.5
	for wlog := 1; wlog < 32; wlog++ {
		if a <= (1-math.Pow(1-W, float64(burst)))/W {
			return wlog
		}
		W /= 2
	}
	return -1
}

// redEvalP is tc_red_eval_P: Plog, the log2 of (qmax - qmin) / prob, the
// smallest i (0..31) with prob / (qmax-qmin) * 2^i above 1; 0 when the
// thresholds are equal, -1 when qmax is below qmin or no i fits.
func redEvalP(qmin, qmax uint32, prob float64) int {
	d := int32(qmax - qmin) // tc's int
	if d == 0 {
		return 0
	}
	if d < 0 {
		return -1
	}
	prob /= float64(d)
	i := 0
	for ; i < 32; i++ {
		if prob > 1.0 {
			break
		}
		prob *= 2
	}
	if i >= 32 {
		return -1
	}
	return i
}

// redEvalIdleDamping is tc_red_eval_idle_damping: the table by which the
// kernel decays the average while the queue idles, Stab[t >> Scell_log] =
// -log(1-W) * t / (transmission time of avpkt at bps), in psched ticks and
// capped at 31, with Scell_log the smallest cell that covers the time the
// decay needs in 512 cells. -1 when no cell does.
func redEvalIdleDamping(wlog int, avpkt, bps uint32) (int, []byte) {
	xmit := float64(tcword.XmitTime(uint64(bps), uint64(avpkt)))
	// 1<<Wlog and i<<clog are C ints: 1<<31 is negative.
	lW := -math.Log(1.0-1.0/float64(int32(1)<<uint(wlog))) / xmit
	maxtime := 31 / lW
	clog := 0
	for ; clog < 32; clog++ {
		if maxtime/float64(int32(1)<<uint(clog)) < 512 {
			break
		}
	}
	if clog >= 32 {
		return -1, nil
	}
	stab := make([]byte, redStabLen)
	for i := 1; i < redStabLen-1; i++ {
		// The double becomes the u8 as C's conversion does on x86-64:
		// truncated to an int, of which the byte is kept.
		v := uint8(cInt32(float64(int32(uint32(i)<<uint(clog))) * lW))
		stab[i] = min(v, 31)
	}
	stab[redStabLen-1] = 31
	return clog, stab
}

// cInt32 converts a double to int as x86-64's cvttsd2si does: truncated,
// and INT_MIN for NaN and what does not fit.
func cInt32(f float64) int32 {
	if !(f > math.MinInt32-1 && f < math.MaxInt32+1) {
		return math.MinInt32
	}
	return int32(f)
}

// redMaxP is the probability as TCA_*_MAX_P and sfq's max_P carry it:
// scaled to 2^32, converted to u32 as C does (1.0 wraps to 0, which the
// kernel takes for "use Plog").
func redMaxP(prob float64) uint32 { return tcfmt.CUint32(prob * (1 << 32)) }

// redDerived is what tc computes of a RED configuration.
type redDerived struct {
	wlog, plog, scellLog uint8
	stab                 []byte
}

// deriveRED computes Wlog and Plog from the thresholds the kind evaluates
// them on (choke's in bytes, avpkt times its packets), and, when
// idleDamping, the idle-damping table at rate. Errors and warnings carry
// who's prefix as tc's do ("RED", "CHOKE", "GRED", "SFQ"); the warnings
// and tc_red_eval_ewma's note go to env's Stderr.
func deriveRED(who string, qmin, qmax uint32, r *redWords, idleDamping bool, env tckind.ParseEnv) (redDerived, error) {
	var d redDerived
	w := env.Notes()
	wlog := redEvalEWMA(qmin, r.burst, r.avpkt, w)
	if wlog < 0 {
		return d, tcword.Errorf("%s: failed to calculate EWMA constant.", who)
	}
	if wlog >= 10 {
		if who == "CHOKE" { // choke's format has %d
			fmt.Fprintf(w, "%s: WARNING. Burst %d seems to be too large.\n", who, int32(r.burst))
		} else {
			fmt.Fprintf(w, "%s: WARNING. Burst %d seems to be too large.\n", who, r.burst)
		}
	}
	d.wlog = uint8(wlog)
	plog := redEvalP(qmin, qmax, r.probability)
	if plog < 0 {
		return d, tcword.Errorf("%s: failed to calculate probability.", who)
	}
	d.plog = uint8(plog)
	if idleDamping {
		clog, stab := redEvalIdleDamping(wlog, r.avpkt, r.rate)
		if clog < 0 {
			return d, tcword.Errorf("%s: failed to calculate idle damping table.", who)
		}
		d.scellLog, d.stab = uint8(clog), stab
	}
	return d, nil
}

// redBurstDefault is tc's default burst: (2*min + max) / (3*avpkt), in C's
// unsigned arithmetic (avpkt of 0 divides by zero in tc).
func redBurstDefault(qmin, qmax, avpkt uint32) uint32 {
	if avpkt*3 == 0 {
		return 0
	}
	return (2*qmin + qmax) / (3 * avpkt)
}

// printREDFlags prints the RED flags as tc_red_print_flags: in text the
// ones set, in JSON all four as booleans.
func printREDFlags(p *tcfmt.Printer, flags uint32) {
	for _, f := range []struct {
		bit uint32
		key tcfmt.Name
	}{{redFlagECN, "ecn"}, {redFlagHarddrop, "harddrop"}, {redFlagAdaptive, "adaptive"}, {redFlagNodrop, "nodrop"}} {
		if flags&f.bit != 0 {
			p.Bool(tcfmt.Any, f.key, string(f.key)+" ", true)
		} else {
			p.Bool(tcfmt.JSON, f.key, "", false)
		}
	}
}

// printREDDetails prints what red, choke and gred show of the derived
// values with -d: ewma, the probability (Plog when the kernel has no
// max_P), and Scell_log through scellFormat.
func printREDDetails(p *tcfmt.Printer, wlog, plog, scellLog uint8, maxP uint32, scellFormat string) {
	p.Uint(tcfmt.Any, "ewma", "ewma %u ", uint64(wlog))
	if maxP != 0 {
		p.Float(tcfmt.Any, "probability", "probability %lg ", float64(maxP)/(1<<32))
	} else {
		p.Uint(tcfmt.Any, "Plog", "Plog %u ", uint64(plog))
	}
	p.Uint(tcfmt.Any, "Scell_log", scellFormat, uint64(scellLog))
}

// redQoptFrom fills the parameters every RED kind sends.
func redQoptFrom(limit, qmin, qmax uint32, d redDerived, flags uint8) *attrs.TCREDQopt {
	return &attrs.TCREDQopt{Limit: limit, QthMin: qmin, QthMax: qmax,
		Wlog: d.wlog, Plog: d.plog, ScellLog: d.scellLog, Flags: flags}
}

// Writing a RED kind's dump back as words. The dump holds the thresholds
// and what tc derived from its other words (Wlog, Plog, Scell_log and
// max_P), not those words: avpkt, burst and bandwidth are lost, and the
// probability survives only scaled and truncated to max_P. redFind looks
// for words that make tc's arithmetic derive the same values again: tc has
// no keyword that sets Wlog, Plog or Scell_log directly (q_red.c,
// q_choke.c, q_gred.c and q_sfq.c always compute them).

// redKernelMaxP is the max_P the kernel keeps when a request's is 0 (as a
// probability of 1 or any whole number makes it): red_set_parms's
// red_maxp(Plog) times the thresholds' distance (at least 1), in its u32.
func redKernelMaxP(qmin, qmax uint32, plog uint8) uint32 {
	delta := int32(qmax - qmin) // the kernel's int
	if delta <= 0 {
		delta = 1
	}
	maxP := uint32(math.MaxUint32)
	if plog < 32 {
		maxP >>= plog
	}
	return maxP * uint32(delta)
}

// redDumpedMaxP is a request's max_P as the kernel keeps and dumps it.
func redDumpedMaxP(maxP, qmin, qmax uint32, plog uint8) uint32 {
	if maxP != 0 {
		return maxP
	}
	return redKernelMaxP(qmin, qmax, plog)
}

// redDump is what a dump shows of a RED configuration.
type redDump struct {
	qmin, qmax           uint32 // as given: choke's count packets
	wlog, plog, scellLog uint8
	maxP                 uint32 // 0: the kernel's own (redKernelMaxP)
}

// redFound are words that give a redDump's values again: rate is 0 for a
// kind without idle damping (sfq), which has no bandwidth keyword.
type redFound struct {
	avpkt, burst, rate uint32
	probability        string
}

// words appends the found keywords to w.
func (f redFound) words(w []string) []string {
	w = append(w, "avpkt", tcword.UintWord(f.avpkt), "burst", tcword.UintWord(f.burst), "probability", f.probability)
	if f.rate != 0 {
		w = append(w, "bandwidth", tcword.RateWord(uint64(f.rate)))
	}
	return w
}

// redAvpkts are the packet sizes redFind tries, round ones first; each
// factor of two from 1 to 64000 holds one, so that choke, whose Plog
// depends on avpkt, finds one in the range that gives its Plog.
var redAvpkts = []uint32{1000, 1500, 500, 1, 2, 4, 8, 16, 32, 64, 100, 128, 200, 256, 400, 512,
	800, 1024, 1280, 2000, 3000, 4000, 6000, 8000, 9000, 12000, 16000, 32000, 64000}

// redFind finds avpkt, burst, probability and (with idleDamping) bandwidth
// that give d's Wlog, Plog, Scell_log and max_P through tc's arithmetic,
// trying the round avpkts and then, for thresholds in bytes, fractions of
// min. perPacket is choke's arithmetic, on thresholds of avpkt-byte
// packets. An error wraps tckind.ErrNoKeywords; who names the kind.
func redFind(who string, d redDump, perPacket, idleDamping bool) (redFound, error) {
	if !idleDamping && d.scellLog != 0 {
		return redFound{}, tckind.NoKeywords(fmt.Sprintf("%s's Scell_log %d (tc sends 0)", who, d.scellLog))
	}
	avpkts := slices.Clone(redAvpkts)
	if !perPacket {
		for k := uint32(2); k <= 64 && d.qmin/k != 0; k++ {
			avpkts = append(avpkts, d.qmin/k)
		}
	}
	for _, avpkt := range avpkts {
		qmin, qmax := d.qmin, d.qmax
		if perPacket { // in C's u32, as tc multiplies
			qmin, qmax = qmin*avpkt, qmax*avpkt
		}
		f := redFound{avpkt: avpkt}
		var ok bool
		if f.probability, ok = redProbabilityWord(qmin, qmax, d); !ok {
			continue
		}
		if f.burst, ok = redBurstFor(qmin, avpkt, d.wlog); !ok {
			continue
		}
		if idleDamping {
			if f.rate, ok = redRateFor(d.wlog, avpkt, d.scellLog); !ok {
				continue
			}
		}
		return f, nil
	}
	return redFound{}, tckind.NoKeywords(fmt.Sprintf("%s's ewma %d, Plog %d and Scell_log %d: no avpkt, burst, probability and bandwidth found to give them",
		who, d.wlog, d.plog, d.scellLog))
}

// redProbabilityWord writes the probability that tc turns into d's max_P
// and, on the thresholds qmin and qmax of its arithmetic, d's Plog: the
// shortest decimal that truncates to max_P, or, for the kernel's own
// max_P, a power of two (1 and more reach it as max_P 0).
func redProbabilityWord(qmin, qmax uint32, d redDump) (string, bool) {
	givesPlog := func(p float64) bool { return redEvalP(qmin, qmax, p) == int(d.plog) }
	kernel := redKernelMaxP(d.qmin, d.qmax, d.plog)
	maxP := d.maxP
	if maxP == 0 {
		maxP = kernel
	}
	lo := float64(maxP) / (1 << 32)
	hi := math.Nextafter((float64(maxP)+1)/(1<<32), 0)
	if s, ok := tcword.ShortestFloatWord([]float64{lo, (lo + hi) / 2, hi}, "", func(s string) bool {
		p, _, _ := tcfmt.Strtod(s)
		return redMaxP(p) == maxP && givesPlog(p)
	}); ok {
		return s, true
	}
	if maxP == kernel {
		for j := range 31 {
			if givesPlog(float64(uint32(1) << j)) {
				return tcword.UintWord(uint32(1) << j), true
			}
		}
	}
	return "", false
}

// redBurstFor is the smallest burst that gives wlog for a min of qmin
// bytes and packets of avpkt bytes. tc_red_eval_ewma's Wlog grows with the
// burst, from none (the burst is below what min needs, ranked 0 here) to
// none again (no Wlog up to 31 fits, ranked 32).
func redBurstFor(qmin, avpkt uint32, wlog uint8) (uint32, bool) {
	rank := func(burst uint32) int {
		if float64(burst)+1-float64(qmin)/float64(avpkt) < 1 {
			return 0
		}
		if w := redEvalEWMA(qmin, burst, avpkt, io.Discard); w >= 0 {
			return w
		}
		return 32
	}
	lo, hi := uint32(1), uint32(math.MaxUint32)
	for lo < hi {
		mid := lo + (hi-lo)/2
		if rank(mid) >= int(wlog) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo, wlog != 0 && rank(lo) == int(wlog)
}

// redRateFor is a bandwidth (bytes/s) that gives scellLog for wlog and
// avpkt: tc's 10Mbit when it does, else the roundest of the rates that do.
// Scell_log falls as the rate rises (the transmission time of avpkt
// shrinks), from none (ranked 32) to 0.
func redRateFor(wlog uint8, avpkt uint32, scellLog uint8) (uint32, bool) {
	clog := func(rate uint32) int {
		if c, _ := redEvalIdleDamping(int(wlog), avpkt, rate); c >= 0 {
			return c
		}
		return 32
	}
	// The first rate whose Scell_log is at most want.
	first := func(want int) uint64 {
		lo, hi := uint64(1), uint64(math.MaxUint32)+1
		for lo < hi {
			mid := lo + (hi-lo)/2
			if clog(uint32(mid)) <= want {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		return lo
	}
	lo, hi := first(int(scellLog)), first(int(scellLog)-1)-1 // the rates that give it
	if lo > hi || lo > math.MaxUint32 {
		return 0, false
	}
	if lo <= redDefaultBandwidth && redDefaultBandwidth <= hi {
		return redDefaultBandwidth, true
	}
	for m := uint64(1e9); ; m /= 10 {
		if r := (lo + m - 1) / m * m; r <= hi {
			return uint32(r), true
		}
	}
}

// redFlagWords appends the keywords of the RED flags to w, those of
// known (the flags the kind has words for); an error wraps
// tckind.ErrNoKeywords for any other.
func redFlagWords(w []string, who string, flags, known uint32) ([]string, error) {
	if flags&^known != 0 {
		return nil, tckind.NoKeywords(fmt.Sprintf("%s's flags %#x", who, flags&^known))
	}
	for _, f := range []struct {
		bit  uint32
		word string
	}{{redFlagECN, "ecn"}, {redFlagHarddrop, "harddrop"}, {redFlagAdaptive, "adaptive"}, {redFlagNodrop, "nodrop"}} {
		if flags&f.bit != 0 {
			w = append(w, f.word)
		}
	}
	return w, nil
}
