// SPDX-License-Identifier: Apache-2.0

package qdisc

// netem (net/sched/sch_netem.c): delay, jitter, loss, duplication,
// corruption, reordering, rate and slotting of packets, as iproute2 7.x's
// tc/q_netem.c sets and prints them.
//
// What tc does, and gotc with it:
//
//   - TCA_OPTIONS is struct tc_netem_qopt (limit 1000 unless given, loss,
//     gap, duplicate) followed by attributes; delay and jitter travel as
//     nanoseconds in TCA_NETEM_LATENCY64/JITTER64, never in the struct.
//   - Probabilities are fractions scaled to the u32 range, rounded to
//     nearest (percentages in [0,100], "%" optional). The correlations of
//     delay, loss, reorder and corrupt make tc send TCA_NETEM_CORR; that of
//     duplicate alone does not.
//   - Optional values are taken only when the next word starts with a
//     digit (or '-' for the signed rate overheads).
//   - A distribution is the table of tc's NAME.dist file, from
//     $TC_LIB_DIR or tc's library directory (see netemLibDir).
//   - Reordering needs a delay and sets gap 1 when none was given; gap
//     needs a reordering probability, ecn a loss model, a distribution a
//     delay and a jitter.
//   - The kernel dumps latency, jitter, corr, reorder, corrupt, rate and
//     the generator's seed every time (a random one when none was given),
//     and tc prints what is not zero among them.

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// netemUsage is gotc's summary of tc's netem keywords.
const netemUsage = `Usage: ... netem [ limit PACKETS ] [ delay TIME [ JITTER [ CORRELATION ] ] ]
       [ distribution {uniform|normal|pareto|paretonormal|NAME} ]
       [ loss random PERCENT [ CORRELATION ] | loss state P13 [ P31 [ P32 [ P23 [ P14 ] ] ] ]
         | loss gemodel PERCENT [ R [ 1-H [ 1-K ] ] ] ] [ ecn ]
       [ corrupt PERCENT [ CORRELATION ] ] [ duplicate PERCENT [ CORRELATION ] ]
       [ reorder PERCENT [ CORRELATION ] [ gap DISTANCE ] ] [ seed SEED ]
       [ rate RATE [ PACKETOVERHEAD [ CELLSIZE [ CELLOVERHEAD ] ] ] ]
       [ slot MIN_DELAY [ MAX_DELAY ] | slot distribution NAME DELAY JITTER ]
         [ packets MAX_PACKETS ] [ bytes MAX_BYTES ]
  NAME is a table NAME.dist in $TC_LIB_DIR or tc's library directory.`

// netemDefaultLimit is the queue limit tc sends when none is given.
const netemDefaultLimit = 1000

// netemMaxDist is the most entries tc reads from a distribution file (and
// the most the kernel takes).
const netemMaxDist = 16 * 1024

// netemDistBound is the bound tc checks a distribution's attribute
// against: the whole request, up to and including the table, must fit in
// this many bytes.
const netemDistBound = netemMaxDist * 2

// netemRequestHead is what a qdisc request holds before TCA_OPTIONS when
// tc adds netem without an estimator or a block: the netlink and tc
// headers and TCA_KIND "netem". tc's bound on the distributions counts it.
const netemRequestHead = 16 + 20 + 12

// debianTriplets are Debian's multiarch directories under /usr/lib, by
// GOARCH: Debian builds tc with LIBDIR /usr/lib/<triplet>.
var debianTriplets = map[string]string{
	"amd64": "x86_64-linux-gnu", "arm64": "aarch64-linux-gnu", "386": "i386-linux-gnu",
	"arm": "arm-linux-gnueabihf", "riscv64": "riscv64-linux-gnu", "ppc64le": "powerpc64le-linux-gnu",
	"s390x": "s390x-linux-gnu", "mips64le": "mips64el-linux-gnuabi64", "loong64": "loongarch64-linux-gnu",
}

// netemLibDir is where tc looks for distribution tables unless TC_LIB_DIR
// says otherwise, slash included as tc has it: Debian's tc (the one gotc
// follows, whose messages name the directory) reads its multiarch
// directory; where that does not exist but /usr/lib/tc does (most other
// distributions), that one.
func netemLibDir() string {
	debian := "/usr/lib/" + debianTriplets[runtime.GOARCH] + "/tc/"
	if _, err := os.Stat(debian); err != nil {
		if _, err := os.Stat("/usr/lib/tc/"); err == nil {
			return "/usr/lib/tc/"
		}
	}
	return debian
}

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:         "netem",
			MakesClasses: true,
			Usage:        netemUsage,
			ParseQdisc: func(args []string, env tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
				return parseNetem(args, env)
			},
			PrintOptions: func(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
				if o, ok := opts.(*attrs.TCOptionsMsgNetem); ok {
					printNetemOptions(p, o)
				}
			},
			PrintXstats:    func(p *tcfmt.Printer, x tckind.Xstats) { printNetemXstats(p, netemStatsOf(x)) },
			ChangeAccepted: netemChangeAccepted,
			Stats:          netemStatsTable,
			Keywords:       tckind.KeywordsOf("netem", netemKeywords),
			Dumped:         netemDumped,
			Restoring:      netemRestoring,
			KeptOnChange:   netemKept,
		})
	}, "netem")
}

// netemChangeAccepted holds options against what netem_change refuses:
// negative times (huge ones wrap there), a slot whose minimum exceeds its
// maximum or with negative limits (tc passes "packets -1" and sizes of 2^31
// or more), tables empty or longer than the kernel's, and anything the spec
// does not describe. Where netem sits does not matter.
func netemChangeAccepted(opts attrs.TCOptionsMsg, _ string) bool {
	o, ok := opts.(*attrs.TCOptionsMsgNetem)
	if !ok {
		return false
	}
	a := &o.Attrs
	if len(a.Unknown) != 0 || a.Loss != nil && len(a.Loss.Unknown) != 0 {
		return false
	}
	if a.Latency64 != nil && *a.Latency64 < 0 || a.Jitter64 != nil && *a.Jitter64 < 0 {
		return false
	}
	if s := a.Slot; s != nil && (s.MinDelay < 0 || s.MaxDelay < 0 || s.MinDelay > s.MaxDelay ||
		s.DistDelay < 0 || s.DistJitter < 0 || s.MaxPackets < 0 || s.MaxBytes < 0) {
		return false
	}
	for _, t := range [][]int16{a.DelayDist, a.SlotDist} {
		if t != nil && (len(t) == 0 || len(t) > netemMaxDist) {
			return false
		}
	}
	return true
}

// netemIllegal is tc's explain1 for netem.
func netemIllegal(what string) *tcword.ParseError { return tcword.Errorf(`Illegal "%s"`, what) }

// scalePercent is tc's set_percent: a fraction in [0,1] scaled to the u32
// range and rounded to nearest, even on ties (rint).
func scalePercent(per float64) uint32 {
	return tcfmt.CUint32(math.RoundToEven(per * math.MaxUint32))
}

// netemPercent is tc's get_percent: parsePercent, then scaled.
func netemPercent(s string) (uint32, bool) {
	per, ok := tcword.ParsePercent(s)
	return scalePercent(per), ok
}

// isDigit is C's isdigit in the C locale.
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// netemParser is the state of one netem command line: the words and the
// options built so far.
type netemParser struct {
	args []string
	i    int // the word being read
	env  tckind.ParseEnv

	opt       attrs.TCNetemQopt
	cor       attrs.TCNetemCorr
	reorder   attrs.TCNetemReorder
	corrupt   attrs.TCNetemCorrupt
	gi        attrs.TCNetemGimodel
	ge        attrs.TCNetemGemodel
	rate      attrs.TCNetemRate
	slot      attrs.TCNetemSlot
	lossModel uint16 // 0, attrs' NetemLossGi or NetemLossGe
	latency   int64
	jitter    int64
	rate64    uint64
	seed      uint64
	dist      []int16
	slotDist  []int16

	// What tc sends besides the struct; corr counts the keywords that set
	// a correlation it sends.
	hasLatency, hasJitter, hasReorder, hasCorrupt, hasSlot, hasECN, hasRate, hasSeed bool
	corr                                                                             int
}

// next is tc's NEXT_ARG: the next word, or the end of the command.
func (n *netemParser) next() (string, error) {
	if n.i+1 >= len(n.args) {
		return "", tcword.IncompleteCommand()
	}
	n.i++
	return n.args[n.i], nil
}

// nextIsNumber is tc's NEXT_IS_NUMBER: the next word starts with a digit
// (or, signed, with '-').
func (n *netemParser) nextIsNumber(signed bool) bool {
	if n.i+1 >= len(n.args) || n.args[n.i+1] == "" {
		return false
	}
	c := n.args[n.i+1][0]
	return isDigit(c) || signed && c == '-'
}

// optionalPercent reads the next word as a percentage into *v when it is
// a number; what names it in the message.
func (n *netemParser) optionalPercent(v *uint32, what string) (bool, error) {
	if !n.nextIsNumber(false) {
		return false, nil
	}
	n.i++
	p, ok := netemPercent(n.args[n.i])
	if !ok {
		return false, netemIllegal(what)
	}
	*v = p
	return true, nil
}

// percentWithCorr reads a percentage and its optional correlation (which
// makes tc send TCA_NETEM_CORR when sendsCorr).
func (n *netemParser) percentWithCorr(p, corr *uint32, what, corrWhat string, sendsCorr bool) error {
	v, err := n.next()
	if err != nil {
		return err
	}
	var ok bool
	if *p, ok = netemPercent(v); !ok {
		return netemIllegal(what)
	}
	got, err := n.optionalPercent(corr, corrWhat)
	if got && sendsCorr {
		n.corr++
	}
	return err
}

// parseNetem reads netem's keywords into the options tc sends. Errors are
// *ParseError: exit 1 (with the usage after an unknown word, for "help"
// and for the combinations tc refuses), 255 for a keyword missing its
// value.
func parseNetem(args []string, env tckind.ParseEnv) (*attrs.TCOptionsMsgNetem, error) {
	n := &netemParser{args: args, env: env}
	n.opt.Limit = netemDefaultLimit
	for ; n.i < len(args); n.i++ {
		if err := n.word(args[n.i]); err != nil {
			return nil, err
		}
	}
	return n.finish()
}

// word reads one keyword and its values.
func (n *netemParser) word(kw string) error {
	var err error
	switch {
	case tcfmt.Matches(kw, "limit"):
		v, err := n.next()
		if err != nil {
			return err
		}
		if n.opt.Limit, err = tcfmt.ParseSize(v); err != nil {
			return netemIllegal("limit")
		}
	case tcfmt.Matches(kw, "latency"), tcfmt.Matches(kw, "delay"):
		err = n.delay()
	case tcfmt.Matches(kw, "loss"), tcfmt.Matches(kw, "drop"):
		err = n.loss()
	case tcfmt.Matches(kw, "seed"):
		v, err := n.next()
		if err != nil {
			return err
		}
		n.hasSeed = true
		if n.seed, err = tcfmt.ParseUint(v, 10, 64); err != nil {
			return netemIllegal("seed")
		}
	case tcfmt.Matches(kw, "ecn"):
		n.hasECN = true
	case tcfmt.Matches(kw, "reorder"):
		n.hasReorder = true
		err = n.percentWithCorr(&n.reorder.Probability, &n.reorder.Correlation, "reorder", "reorder", true)
	case tcfmt.Matches(kw, "corrupt"):
		n.hasCorrupt = true
		err = n.percentWithCorr(&n.corrupt.Probability, &n.corrupt.Correlation, "corrupt", "corrupt", true)
	case tcfmt.Matches(kw, "gap"):
		v, err := n.next()
		if err != nil {
			return err
		}
		g, perr := tcfmt.ParseUint(v, 0, 32)
		if perr != nil {
			return netemIllegal("gap")
		}
		n.opt.Gap = uint32(g)
	case tcfmt.Matches(kw, "duplicate"):
		// Its correlation travels in TCA_NETEM_CORR only when another
		// correlation sends it.
		err = n.percentWithCorr(&n.opt.Duplicate, &n.cor.DupCorr, "duplicate", "duplicate", false)
	case tcfmt.Matches(kw, "distribution"):
		v, err := n.next()
		if err != nil {
			return err
		}
		// A second distribution replaces the first.
		if n.dist, err = n.readDist(v); err != nil {
			return err
		}
	case tcfmt.Matches(kw, "rate"):
		err = n.rateWords()
	case tcfmt.Matches(kw, "slot"):
		err = n.slotWords()
	default:
		if kw == "help" {
			return &tcword.ParseError{ShowUsage: true}
		}
		return tcword.UsageErrorf(`What is "%s"?`, kw)
	}
	return err
}

// delay reads "delay TIME [JITTER [CORRELATION]]".
func (n *netemParser) delay() error {
	v, err := n.next()
	if err != nil {
		return err
	}
	n.hasLatency = true
	if n.latency, err = tcfmt.ParseTime64(v); err != nil {
		return netemIllegal("latency")
	}
	if !n.nextIsNumber(false) {
		return nil
	}
	n.i++
	n.hasJitter = true
	if n.jitter, err = tcfmt.ParseTime64(n.args[n.i]); err != nil {
		return netemIllegal("latency")
	}
	got, err := n.optionalPercent(&n.cor.DelayCorr, "latency")
	if got {
		n.corr++
	}
	return err
}

// loss reads one of the three loss models.
func (n *netemParser) loss() error {
	if n.opt.Loss > 0 || n.lossModel != 0 {
		// tc's message has the newline inside the quotes.
		return netemIllegal("duplicate loss argument\n")
	}
	model, err := n.next()
	if err != nil {
		return err
	}
	switch {
	case model != "" && isDigit(model[0]):
		// The old syntax: "loss PERCENT" is the random model.
		n.i--
		return n.percentWithCorr(&n.opt.Loss, &n.cor.LossCorr, "loss percent", "loss correlation", true)
	case model == "random":
		return n.percentWithCorr(&n.opt.Loss, &n.cor.LossCorr, "loss percent", "loss correlation", true)
	case model == "state":
		v, err := n.next()
		if err != nil {
			return err
		}
		p13, ok := tcword.ParsePercent(v)
		if !ok {
			return netemIllegal("loss p13")
		}
		n.gi = attrs.TCNetemGimodel{P13: scalePercent(p13), P31: scalePercent(1 - p13), P23: math.MaxUint32}
		n.lossModel = attrs.NetemLossGi
		for _, f := range []struct {
			v    *uint32
			name string
		}{{&n.gi.P31, "loss p31"}, {&n.gi.P32, "loss p32"}, {&n.gi.P23, "loss p23"}, {&n.gi.P14, "loss p14"}} {
			if got, err := n.optionalPercent(f.v, f.name); !got || err != nil {
				return err
			}
		}
	case model == "gemodel":
		v, err := n.next()
		if err != nil {
			return err
		}
		p, ok := tcword.ParsePercent(v)
		if !ok {
			return netemIllegal("loss gemodel p")
		}
		n.ge = attrs.TCNetemGemodel{P: scalePercent(p), R: scalePercent(1 - p)}
		n.lossModel = attrs.NetemLossGe
		if got, err := n.optionalPercent(&n.ge.R, "loss gemodel r"); !got || err != nil {
			return err
		}
		got, err := n.optionalPercent(&n.ge.H, "loss gemodel h")
		if !got || err != nil {
			return err
		}
		// The word is 1-h; the kernel wants h.
		n.ge.H = math.MaxUint32 - n.ge.H
		_, err = n.optionalPercent(&n.ge.K1, "loss gemodel k")
		return err
	default:
		return tcword.Errorf("Unknown loss parameter: %s", model)
	}
	return nil
}

// rateWords reads "rate RATE [PACKETOVERHEAD [CELLSIZE [CELLOVERHEAD]]]".
func (n *netemParser) rateWords() error {
	n.hasRate = true
	v, err := n.next()
	if err != nil {
		return err
	}
	var ok bool
	if n.rate64, ok = tcword.ParseRate64(v, n.env.Dev, n.env.Notes()); !ok {
		return netemIllegal("rate")
	}
	fields := []struct {
		signed bool
		set    func(string) error
	}{
		{true, func(s string) error {
			v, err := tcfmt.ParseInt(s, 0, 32)
			n.rate.PacketOverhead = int32(v)
			return err
		}},
		{false, func(s string) error {
			v, err := tcfmt.ParseUint(s, 0, 32)
			n.rate.CellSize = uint32(v)
			return err
		}},
		{true, func(s string) error {
			v, err := tcfmt.ParseInt(s, 0, 32)
			n.rate.CellOverhead = int32(v)
			return err
		}},
	}
	// Each is read when the next word looks like a number, even after one
	// that did not.
	for _, f := range fields {
		if n.nextIsNumber(f.signed) {
			n.i++
			if f.set(n.args[n.i]) != nil {
				return netemIllegal("rate")
			}
		}
	}
	return nil
}

// slotWords reads "slot MIN [MAX]" or "slot distribution NAME DELAY
// JITTER", then "packets N" and "bytes N".
func (n *netemParser) slotWords() error {
	if n.nextIsNumber(false) {
		n.i++
		n.hasSlot = true
		var err error
		if n.slot.MinDelay, err = tcfmt.ParseTime64(n.args[n.i]); err != nil {
			return netemIllegal("slot min_delay")
		}
		n.slot.MaxDelay = n.slot.MinDelay
		if n.nextIsNumber(false) {
			n.i++
			if n.slot.MaxDelay, err = tcfmt.ParseTime64(n.args[n.i]); err != nil || n.slot.MaxDelay < n.slot.MinDelay {
				return netemIllegal("slot max_delay")
			}
		}
	} else {
		v, err := n.next()
		if err != nil {
			return err
		}
		if v != "distribution" {
			return tcword.Errorf("Unknown slot parameter: %s", v)
		}
		n.hasSlot = true
		if v, err = n.next(); err != nil {
			return err
		}
		if n.slotDist, err = n.readDist(v); err != nil {
			return err
		}
		if v, err = n.next(); err != nil {
			return err
		}
		if n.slot.DistDelay, err = tcfmt.ParseTime64(v); err != nil {
			return netemIllegal("slot delay")
		}
		if v, err = n.next(); err != nil {
			return err
		}
		if n.slot.DistJitter, err = tcfmt.ParseTime64(v); err != nil {
			return netemIllegal("slot jitter")
		}
		if n.slot.DistJitter <= 0 {
			return tcword.Errorf("Non-positive jitter")
		}
	}
	// A limit's keyword is taken only when another word follows it.
	limit := func(kw string, set func(string) bool) error {
		if n.i+1 >= len(n.args) || !tcfmt.Matches(n.args[n.i+1], kw) {
			return nil
		}
		n.i++
		if n.i+1 >= len(n.args) || !set(n.args[n.i+1]) {
			return netemIllegal("slot " + kw)
		}
		n.i++
		return nil
	}
	if err := limit("packets", func(s string) bool {
		v, err := tcfmt.ParseInt(s, 0, 32)
		n.slot.MaxPackets = int32(v)
		return err == nil
	}); err != nil {
		return err
	}
	return limit("bytes", func(s string) bool {
		v, err := tcfmt.ParseSize(s)
		// tc stores the unsigned size in the int as is.
		n.slot.MaxBytes = int32(v)
		return err == nil
	})
}

// finish checks the combination as tc does and builds the options.
func (n *netemParser) finish() (*attrs.TCOptionsMsgNetem, error) {
	switch {
	case n.reorder.Probability != 0:
		if n.latency == 0 {
			return nil, tcword.UsageErrorf("reordering not possible without specifying some delay")
		}
		if n.opt.Gap == 0 {
			n.opt.Gap = 1
		}
	case n.opt.Gap > 0:
		return nil, tcword.UsageErrorf("gap specified without reorder probability")
	}
	if n.hasECN && n.opt.Loss == 0 && n.lossModel == 0 {
		return nil, tcword.UsageErrorf("ecn requested without loss model")
	}
	if n.dist != nil && (n.latency == 0 || n.jitter == 0) {
		return nil, tcword.UsageErrorf("distribution specified but no latency and jitter values")
	}
	o := &attrs.TCOptionsMsgNetem{Header: n.opt}
	a := &o.Attrs
	if n.hasLatency {
		a.Latency64 = &n.latency
	}
	if n.hasJitter {
		a.Jitter64 = &n.jitter
	}
	if n.corr > 0 {
		a.Corr = &n.cor
	}
	if n.hasReorder {
		a.Reorder = &n.reorder
	}
	if n.hasECN {
		one := uint32(1)
		a.ECN = &one
	}
	if n.hasCorrupt {
		a.Corrupt = &n.corrupt
	}
	if n.hasSlot {
		a.Slot = &n.slot
	}
	switch n.lossModel {
	case attrs.NetemLossGi:
		a.Loss = &attrs.NetemLossAttrs{Gi: &n.gi}
	case attrs.NetemLossGe:
		a.Loss = &attrs.NetemLossAttrs{Ge: &n.ge}
	}
	if n.hasRate {
		n.rate.Rate = uint32(n.rate64)
		if n.rate64 >= 1<<32 {
			a.Rate64 = &n.rate64
			n.rate.Rate = math.MaxUint32
		}
		a.Rate = &n.rate
	}
	if n.hasSeed {
		a.PrngSeed = &n.seed
	}
	// tc checks each table's attribute against its bound on the request
	// as built so far.
	e := attrs.NewEncoder(nil)
	a.Encode(e)
	size := netemRequestHead + 4 + attrs.TCNetemQoptLen + len(e.Bytes())
	for _, t := range [][]int16{n.dist, n.slotDist} {
		if t == nil {
			continue
		}
		size += (4 + 2*len(t) + 3) &^ 3
		if size > netemDistBound {
			return nil, tcword.Errorf("addattr_l ERROR: message exceeded bound of %d", netemDistBound)
		}
	}
	a.DelayDist, a.SlotDist = n.dist, n.slotDist
	return o, nil
}

// netemDistPath is the file tc reads for distribution name: in its 128-byte
// buffer, so cut to 127 bytes.
func netemDistPath(name string) string {
	dir, ok := os.LookupEnv("TC_LIB_DIR")
	if !ok {
		dir = netemLibDir()
	}
	path := dir + "/" + name + ".dist"
	if len(path) > 127 {
		path = path[:127]
	}
	return path
}

// readDist reads a distribution table as tc's get_distribution does: every
// line not empty and not starting with '#' holds numbers (C's strtol, any
// base, stored as s16) up to the first word that is not one. A file that
// yields no number fails without a message.
func (n *netemParser) readDist(name string) ([]int16, error) {
	path := netemDistPath(name)
	f, err := os.Open(path)
	if err != nil {
		return nil, tcword.Errorf("No distribution data for %s (%s: %s)", name, path, tcword.Strerror(err))
	}
	defer f.Close()
	// A read error (a directory, say) ends the file, as getline's does.
	data, _ := io.ReadAll(f)
	var table []int16
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		if line[0] == '\n' || line[0] == '#' {
			continue
		}
		// The line is a C string to strtol.
		if i := bytes.IndexByte(line, 0); i >= 0 {
			line = line[:i]
		}
		for s := string(line); ; {
			v, k, _ := tcfmt.Strtol(s, 0)
			if k == 0 {
				break
			}
			if len(table) >= netemMaxDist {
				return nil, tcword.Errorf("%s: too much data", path)
			}
			table = append(table, int16(v))
			s = s[k:]
		}
	}
	if len(table) == 0 {
		// tc gives up silently: exit 1, no message.
		return nil, &tcword.ParseError{}
	}
	return table, nil
}

// netemFraction is a scaled probability as a fraction.
func netemFraction(v uint32) float64 { return float64(v) / math.MaxUint32 }

// printNetemPercent prints a probability as tc's PRINT_PERCENT does:
// percentage points in text, through format, and the fraction in JSON.
func printNetemPercent(p *tcfmt.Printer, key tcfmt.Name, format string, v uint32) {
	p.Float(tcfmt.FP, "", format, 100*float64(v)/math.MaxUint32)
	p.Float(tcfmt.JSON, key, "", netemFraction(v))
}

// printNetemCorr prints a correlation: in text after its probability when
// shown, in JSON always.
func printNetemCorr(p *tcfmt.Printer, shown bool, v uint32) {
	if p.IsJSON() || shown {
		printNetemPercent(p, "correlation", " %g%%", v)
	}
}

// printNetemTime prints a time in ns: tc's sprint_time64 in text, seconds
// in JSON.
func printNetemTime(p *tcfmt.Printer, key tcfmt.Name, format string, ns int64) {
	p.String(tcfmt.FP, "", format, tcfmt.FormatTime64(ns))
	p.Float(tcfmt.JSON, key, "", float64(ns)/1e9)
}

// printNetemInt prints a signed value in JSON always and in text when not
// zero.
func printNetemInt(p *tcfmt.Printer, key tcfmt.Name, v int32) {
	p.Int(tcfmt.JSON, key, "", int64(v))
	if v != 0 {
		p.Int(tcfmt.FP, "", " "+string(key)+" %d", int64(v))
	}
}

// printNetemOptions prints netem's options as tc does, for example
//
//	limit 1000 delay 10ms  2ms 25% loss 1% duplicate 2% reorder 5% 10%
//	corrupt 1% rate 1Mbit slot 1ms 2ms seed 7 ecn  gap 3
//
// each impairment in JSON an object of its own ("delay", "loss-random",
// "loss-state", "loss-gemodel", "duplicate", "reorder", "corrupt", "rate",
// "slot") with its probabilities as fractions and its times in seconds.
func printNetemOptions(p *tcfmt.Printer, o *attrs.TCOptionsMsgNetem) {
	q, a := &o.Header, &o.Attrs
	p.Uint(tcfmt.Any, "limit", "limit %d", uint64(q.Limit))
	var latency, jitter uint64
	if a.Latency64 != nil {
		latency = uint64(*a.Latency64)
	}
	if a.Jitter64 != nil {
		jitter = uint64(*a.Jitter64)
	}
	var cor attrs.TCNetemCorr
	if a.Corr != nil {
		cor = *a.Corr
	}
	if latency != 0 {
		p.OpenObject("delay")
		p.Float(tcfmt.JSON, "delay", "", float64(latency)/1e9)
		p.Float(tcfmt.JSON, "jitter", "", float64(jitter)/1e9)
		p.String(tcfmt.FP, "", " delay %s", tcfmt.FormatTime64(int64(latency)))
		if jitter != 0 {
			p.String(tcfmt.FP, "", "  %s", tcfmt.FormatTime64(int64(jitter)))
		}
		printNetemCorr(p, jitter != 0 && cor.DelayCorr != 0, cor.DelayCorr)
		p.CloseObject()
	}
	if q.Loss != 0 {
		p.OpenObject("loss-random")
		printNetemPercent(p, "loss", " loss %g%%", q.Loss)
		printNetemCorr(p, cor.LossCorr != 0, cor.LossCorr)
		p.CloseObject()
	}
	if a.Loss != nil && a.Loss.Gi != nil {
		g := a.Loss.Gi
		p.OpenObject("loss-state")
		printNetemPercent(p, "p13", " loss state p13 %g%%", g.P13)
		printNetemPercent(p, "p31", " p31 %g%%", g.P31)
		printNetemPercent(p, "p32", " p32 %g%%", g.P32)
		printNetemPercent(p, "p23", " p23 %g%%", g.P23)
		printNetemPercent(p, "p14", " p14 %g%%", g.P14)
		p.CloseObject()
	}
	if a.Loss != nil && a.Loss.Ge != nil {
		g := a.Loss.Ge
		p.OpenObject("loss-gemodel")
		printNetemPercent(p, "p", " loss gemodel p %g%%", g.P)
		printNetemPercent(p, "r", " r %g%%", g.R)
		printNetemPercent(p, "1-h", " 1-h %g%%", math.MaxUint32-g.H)
		printNetemPercent(p, "1-k", " 1-k %g%%", g.K1)
		p.CloseObject()
	}
	if q.Duplicate != 0 {
		p.OpenObject("duplicate")
		printNetemPercent(p, "duplicate", " duplicate %g%%", q.Duplicate)
		printNetemCorr(p, cor.DupCorr != 0, cor.DupCorr)
		p.CloseObject()
	}
	if r := a.Reorder; r != nil && r.Probability != 0 {
		p.OpenObject("reorder")
		printNetemPercent(p, "reorder", " reorder %g%%", r.Probability)
		printNetemCorr(p, r.Correlation != 0, r.Correlation)
		p.CloseObject()
	}
	if c := a.Corrupt; c != nil && c.Probability != 0 {
		p.OpenObject("corrupt")
		printNetemPercent(p, "corrupt", " corrupt %g%%", c.Probability)
		printNetemCorr(p, c.Correlation != 0, c.Correlation)
		p.CloseObject()
	}
	if r := a.Rate; r != nil && r.Rate != 0 {
		p.OpenObject("rate")
		rate := uint64(r.Rate)
		if a.Rate64 != nil && *a.Rate64 != 0 {
			rate = *a.Rate64
		}
		p.Rate(tcfmt.Any, "rate", " rate %s", rate)
		printNetemInt(p, "packetoverhead", r.PacketOverhead)
		p.Uint(tcfmt.JSON, "cellsize", "", uint64(r.CellSize))
		if r.CellSize != 0 {
			p.Uint(tcfmt.FP, "", " cellsize %u", uint64(r.CellSize))
		}
		printNetemInt(p, "celloverhead", r.CellOverhead)
		p.CloseObject()
	}
	if s := a.Slot; s != nil {
		p.OpenObject("slot")
		if s.DistJitter > 0 {
			printNetemTime(p, "distribution", " slot distribution %s", s.DistDelay)
			printNetemTime(p, "jitter", " %s", s.DistJitter)
		} else {
			printNetemTime(p, "min-delay", " slot %s", s.MinDelay)
			printNetemTime(p, "max-delay", " %s", s.MaxDelay)
		}
		printNetemInt(p, "packets", s.MaxPackets)
		printNetemInt(p, "bytes", s.MaxBytes)
		p.CloseObject()
	}
	if a.PrngSeed != nil {
		p.Uint(tcfmt.Any, "seed", " seed %llu", *a.PrngSeed)
	}
	p.Bool(tcfmt.JSON, "ecn", "", a.ECN != nil)
	if a.ECN != nil {
		p.Bool(tcfmt.FP, "", " ecn ", true)
	}
	p.Uint(tcfmt.JSON, "gap", "", uint64(q.Gap))
	if q.Gap != 0 {
		p.Uint(tcfmt.FP, "", " gap %lu", uint64(q.Gap))
	}
}

// netemTexts are the formats of tc's -s text (a leading blank included)
// of netem's statistics by JSON key; the statistics, in tc's order, are
// tcNetemXstatsFields (from the spec).
var netemTexts = map[string]string{
	"delayed":      "  delayed %llu",
	"dropped":      " dropped %llu",
	"corrupted":    " corrupted %llu",
	"duplicated":   " duplicated %llu",
	"reordered":    " reordered %llu",
	"ecn_marked":   " ecn_marked %llu",
	"alloc_errors": " alloc_errors %llu",
}

// netemStatsTable is netem's statistics for the registry's consumers.
var netemStatsTable = &tckind.StatsTable{
	Of: func(x tckind.Xstats) any {
		if s := netemStatsOf(x); s != nil {
			return s
		}
		return nil
	},
	Fields: tcNetemXstatsFields,
}

// netemStatsOf returns netem's xstats (see fixedXstats); nil when there
// are none.
func netemStatsOf(x tckind.Xstats) *attrs.TCNetemXstats {
	return tckind.FixedXstats[attrs.TCNetemXstats](x, attrs.TCNetemXstatsLen)
}

// printNetemXstats prints netem's statistics (-s) as tc does:
//
//	delayed 0 dropped 0 corrupted 0 duplicated 0 reordered 0 ecn_marked 0
//
// with alloc_errors after them when not zero; in JSON the members sit in
// the qdisc's object.
func printNetemXstats(p *tcfmt.Printer, x *attrs.TCNetemXstats) {
	if x == nil {
		return
	}
	for i := range tcNetemXstatsFields {
		f := &tcNetemXstatsFields[i]
		// tc prints alloc_errors only when not zero.
		if v, _ := f.Get(x); v != 0 || f.Key != "alloc_errors" {
			p.Uint(tcfmt.Any, tcfmt.Name(f.Key), netemTexts[f.Key], v)
		}
	}
}

// netemKeywords writes netem's options back: limit, delay with jitter and
// correlation, the loss model, ecn, duplicate, reorder with gap, corrupt,
// rate with its overheads and cell size, slot with its limits, and seed.
// TCA_NETEM_CORR travels when a delay, loss, reorder or corrupt
// correlation is given; a duplicate correlation alone is written with the
// corrupt keyword's correlation to carry it. The kernel does not dump
// distribution tables: a slot distribution (whose delay and jitter the
// dump shows) is refused, and a delay's distribution is not seen, so a
// jittered delay is written as uniform. What tc refuses in one command
// (random loss beside a loss model, ecn without one, reordering without a
// delay, a gap without reordering) is refused too.
func netemKeywords(o *attrs.TCOptionsMsgNetem) ([]string, error) {
	q, a := &o.Header, &o.Attrs
	switch {
	case len(a.Unknown) != 0 || a.Loss != nil && len(a.Loss.Unknown) != 0:
		return nil, tckind.NoKeywords("netem attributes gotc does not know")
	case a.DelayDist != nil || a.SlotDist != nil || a.Slot != nil && (a.Slot.DistDelay != 0 || a.Slot.DistJitter != 0):
		return nil, tckind.NoKeywords("netem's distribution table, which the kernel does not dump and words give only by a file's name")
	}
	lossModel := a.Loss != nil && (a.Loss.Gi != nil || a.Loss.Ge != nil)
	var (
		cor      attrs.TCNetemCorr
		reorder  attrs.TCNetemReorder
		corrupt  attrs.TCNetemCorrupt
		latency  int64
		jitter   int64
		ecn      = a.ECN != nil && *a.ECN != 0
		corrSent bool // a correlation written makes tc send cor
		err      error
	)
	if a.Latency64 != nil {
		latency = *a.Latency64
	}
	if a.Jitter64 != nil {
		jitter = *a.Jitter64
	}
	if a.Corr != nil {
		cor = *a.Corr
	}
	if a.Reorder != nil {
		reorder = *a.Reorder
	}
	if a.Corrupt != nil {
		corrupt = *a.Corrupt
	}
	switch {
	case latency < 0 || jitter < 0 || a.Slot != nil && (a.Slot.MinDelay < 0 || a.Slot.MaxDelay < 0):
		return nil, tckind.NoKeywords("netem's negative times")
	case q.Loss != 0 && lossModel:
		return nil, tckind.NoKeywords("netem's random loss beside a loss model")
	case ecn && q.Loss == 0 && !lossModel:
		return nil, tckind.NoKeywords("netem's ecn without loss")
	case reorder.Probability != 0 && (latency == 0 || q.Gap == 0), reorder.Probability == 0 && q.Gap != 0:
		return nil, tckind.NoKeywords("netem's reordering without a delay or a gap, or a gap without reordering")
	}
	// percent writes a probability; the first failure is kept in err.
	percent := func(v uint32) string {
		s, ok := tcword.ShortestFloatWord([]float64{100 * netemFraction(v)}, "%", func(s string) bool {
			p, ok := netemPercent(s)
			return ok && p == v
		})
		if !ok && err == nil {
			err = tckind.NoKeywords(fmt.Sprintf("netem's probability %d", v))
		}
		return s
	}
	// withCorr appends a probability and, when not zero or forced, its
	// correlation.
	withCorr := func(w []string, p, c uint32, force bool) []string {
		w = append(w, percent(p))
		if c != 0 || force {
			w = append(w, percent(c))
		}
		return w
	}
	w := []string{"limit", tcword.UintWord(q.Limit)}
	if latency != 0 || jitter != 0 || cor.DelayCorr != 0 {
		w = append(w, "delay", tcword.Time64Word(latency))
		if jitter != 0 || cor.DelayCorr != 0 {
			w = append(w, tcword.Time64Word(jitter))
		}
		if cor.DelayCorr != 0 {
			w, corrSent = append(w, percent(cor.DelayCorr)), true
		}
	}
	if q.Loss != 0 || cor.LossCorr != 0 {
		w = withCorr(append(w, "loss", "random"), q.Loss, cor.LossCorr, false)
		corrSent = corrSent || cor.LossCorr != 0
	}
	if lossModel && a.Loss.Gi != nil {
		g := a.Loss.Gi
		w = append(w, "loss", "state", percent(g.P13), percent(g.P31), percent(g.P32), percent(g.P23), percent(g.P14))
	}
	if lossModel && a.Loss.Ge != nil {
		g := a.Loss.Ge
		w = append(w, "loss", "gemodel", percent(g.P), percent(g.R), percent(math.MaxUint32-g.H), percent(g.K1))
	}
	if ecn {
		w = append(w, "ecn")
	}
	if q.Duplicate != 0 || cor.DupCorr != 0 {
		w = withCorr(append(w, "duplicate"), q.Duplicate, cor.DupCorr, false)
	}
	if reorder != (attrs.TCNetemReorder{}) {
		w = withCorr(append(w, "reorder"), reorder.Probability, reorder.Correlation, false)
		corrSent = corrSent || reorder.Correlation != 0
	}
	if q.Gap != 0 {
		w = append(w, "gap", tcword.UintWord(q.Gap))
	}
	if carry := !corrSent && cor != (attrs.TCNetemCorr{}); carry || corrupt != (attrs.TCNetemCorrupt{}) {
		w = withCorr(append(w, "corrupt"), corrupt.Probability, corrupt.Correlation, carry)
	}
	if w, err = netemRateWords(w, a); err != nil {
		return nil, err
	}
	if s := a.Slot; s != nil {
		w = append(w, "slot", tcword.Time64Word(s.MinDelay), tcword.Time64Word(s.MaxDelay))
		if s.MaxPackets != 0 {
			w = append(w, "packets", strconv.Itoa(int(s.MaxPackets)))
		}
		if s.MaxBytes != 0 {
			w = append(w, "bytes", tcword.UintWord(uint32(s.MaxBytes)))
		}
	}
	if a.PrngSeed != nil {
		w = append(w, "seed", tcword.UintWord(*a.PrngSeed))
	}
	return w, err
}

// netemRateWords appends "rate RATE [PACKETOVERHEAD [CELLSIZE
// [CELLOVERHEAD]]]" to w, each optional value written when it or one
// after it is not zero (tc reads them by position).
func netemRateWords(w []string, a *attrs.NetemAttrs) ([]string, error) {
	r := a.Rate
	if r == nil || *r == (attrs.TCNetemRate{}) {
		return w, nil
	}
	rate := uint64(r.Rate)
	if a.Rate64 != nil {
		rate = max(rate, *a.Rate64)
	}
	if rate == 0 {
		return nil, tckind.NoKeywords("netem's rate overheads without a rate")
	}
	w = append(w, "rate", tcword.RateWord(rate))
	opt := []string{strconv.Itoa(int(r.PacketOverhead)), tcword.UintWord(r.CellSize), strconv.Itoa(int(r.CellOverhead))}
	for n := len(opt); n > 0; n-- {
		if opt[n-1] != "0" {
			return append(w, opt[:n]...), nil
		}
	}
	return w, nil
}

// netemPschedShift is the kernel's PSCHED_SHIFT: netem dumps its times in
// tc_netem_qopt as psched ticks of 64 ns.
const netemPschedShift = 6

// netemDumped is Kind.Dumped for a new netem: the kernel keeps delay and
// jitter in ns (from the 64-bit attributes, else the struct's ticks) and
// dumps them both ways, the struct's as ticks saturated at 2^32-1; it
// dumps the correlations, reordering, corruption and rate whether given
// or not (zero when not, reordering always with a gap: netem_change's
// compatibility), but not the distribution tables (netem_dump).
func netemDumped(opts attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	o, ok := opts.(*attrs.TCOptionsMsgNetem)
	if !ok {
		return opts
	}
	c := *o
	a := &c.Attrs
	ns := func(field *uint32, ns *int64) *int64 {
		v := int64(*field) << netemPschedShift
		if ns != nil {
			v = *ns
		}
		*field = uint32(min(uint64(v)>>netemPschedShift, math.MaxUint32))
		return &v
	}
	a.Latency64 = ns(&c.Header.Latency, o.Attrs.Latency64)
	a.Jitter64 = ns(&c.Header.Jitter, o.Attrs.Jitter64)
	if a.Corr == nil {
		a.Corr = &attrs.TCNetemCorr{}
	}
	if a.Reorder == nil {
		a.Reorder = &attrs.TCNetemReorder{}
		if c.Header.Gap != 0 {
			a.Reorder.Probability = math.MaxUint32
		}
	}
	if a.Corrupt == nil {
		a.Corrupt = &attrs.TCNetemCorrupt{}
	}
	if a.Rate == nil {
		a.Rate = &attrs.TCNetemRate{}
	}
	a.DelayDist, a.SlotDist = nil, nil
	return &c
}

// netemKept is Kind.KeptOnChange for netem. netem_change takes its
// struct's delay, jitter, loss, gap and duplicate from each request, but
// keeps reordering, corruption and rate when the request leaves their
// attributes out (tc sends them only when asked): each left out is sent
// as its default, none ("reorder 0%", "corrupt 0%", "rate 0bit"), so a
// setting a file stops naming goes. Reordering is left out with a gap,
// which makes the kernel reorder every gap-th packet itself.
func netemKept(opts attrs.TCOptionsMsg) (attrs.TCOptionsMsg, []string) {
	o := attrs.TCOptionsMsgNetem{Header: attrs.TCNetemQopt{Limit: netemDefaultLimit}}
	if opts != nil {
		given, ok := opts.(*attrs.TCOptionsMsgNetem)
		if !ok {
			return opts, nil
		}
		o = *given
	}
	a := &o.Attrs
	var words []string
	if a.Reorder == nil && o.Header.Gap == 0 {
		a.Reorder = &attrs.TCNetemReorder{}
		words = append(words, "reorder", "0%")
	}
	if a.Corrupt == nil {
		a.Corrupt = &attrs.TCNetemCorrupt{}
		words = append(words, "corrupt", "0%")
	}
	if a.Rate == nil && a.Rate64 == nil {
		a.Rate = &attrs.TCNetemRate{}
		words = append(words, "rate", "0bit")
	}
	return &o, words
}

// netemRestoring is Kind.Restoring for netem: the struct's times left 0,
// as tc sends them (the 64-bit attributes carry them).
func netemRestoring(dumped attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	o, ok := dumped.(*attrs.TCOptionsMsgNetem)
	if !ok {
		return dumped
	}
	c := *o
	c.Header.Latency, c.Header.Jitter = 0, 0
	return &c
}
