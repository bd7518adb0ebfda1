// SPDX-License-Identifier: Apache-2.0

package qdisc

// ETS (net/sched/sch_ets.c): enhanced transmission selection (802.1Qaz).
// Of its bands the first "strict" ones are served in strict priority, the
// rest by deficit round robin with a quantum each; priomap sends each of
// the 16 priorities to a band. The kernel makes one class per band (X:1 ..
// X:N); a class takes only its quantum.
//
// What tc 7.x (tc/q_ets.c) does, and gotc with it:
//
//   - Keywords are whole words (no abbreviations). "quanta" and "priomap"
//     take every following word that is not a keyword, each a number.
//   - bands, strict, quanta and priomap may each be given once (a zero
//     "bands" or "strict" counts as not given); bands defaults to the
//     number of quanta plus strict (in a u8).
//   - A priomap entry is read as an unsigned int and sent as a u8, so 256
//     is band 0; tc checks the bands after the truncation.
//   - Every nest has NLA_F_NESTED; bands is always sent, strict when not
//     0, the quanta and priomap nests when given. A class command always
//     sends its (possibly empty) nest.
//   - Printing: "bands N ", "strict N " when dumped, "quanta Q1 Q2 " when
//     dumped, "priomap P0 ... P15 "; in JSON the two lists are arrays.

import (
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// etsUsage and etsClassUsage are tc's explain and cexplain of ets.
const (
	etsUsage      = "Usage: ... ets [bands NUMBER] [strict NUMBER] [quanta Q1 Q2...] [priomap P1 P2...]"
	etsClassUsage = "Usage: ... ets [quantum Q1]"
)

// etsMaxBands is TCQ_ETS_MAX_BANDS; etsMaxPrio is TC_PRIO_MAX.
const (
	etsMaxBands = 16
	etsMaxPrio  = 15
)

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:              "ets",
			Usage:             etsUsage,
			ParseQdisc:        func(args []string, _ tckind.ParseEnv) (attrs.TCOptionsMsg, error) { return parseETS(args) },
			ParseClass:        func(args []string, _ tckind.ParseEnv) (attrs.TCOptionsMsg, error) { return parseETSClass(args) },
			PrintOptions:      printETS,
			PrintClassOptions: printETSClass,
			Keywords:          tckind.KeywordsOf("ets", etsKeywords),
			ClassKeywords:     tckind.KeywordsOf("ets class", etsClassKeywords),
			Dumped:            etsDumped,
			DeviceDefaults:    etsDefaults,
			MakesClasses:      true,
		})
	}, "ets")
}

// etsQuantum reads one quantum as tc's parse_quantum does: an unsigned int,
// not 0.
func etsQuantum(arg string) (uint32, error) {
	v, err := tcfmt.ParseUint(arg, 10, 32)
	if err != nil {
		return 0, tcword.Errorf(`Illegal "quanta" element`)
	}
	if v == 0 {
		return 0, tcword.Errorf(`"quanta" must be > 0`)
	}
	return uint32(v), nil
}

// etsBands reads "bands" or "strict": an unsigned int of at most 16.
func etsBands(arg, what string) (uint8, error) {
	v, err := tcfmt.ParseUint(arg, 10, 32)
	if err != nil {
		return 0, tcword.Errorf(`Illegal "%s"`, what)
	}
	if v > etsMaxBands {
		return 0, tcword.Errorf(`The number of "%s" must be <= %d`, what, etsMaxBands)
	}
	return uint8(v), nil
}

// parseETS turns the words after "ets" in a qdisc command into its
// options, as tc's ets_parse_opt does.
func parseETS(args []string) (*attrs.ETSAttrs, error) {
	var (
		nbands, nstrict uint8
		quanta          []uint32
		priomap         []uint8
		// mode is the list that bare numbers go to: "quanta", "priomap"
		// or none.
		mode string
	)
	for i := 0; i < len(args); i++ {
		kw := args[i]
		switch kw {
		case "bands", "strict":
			field := &nbands
			if kw == "strict" {
				field = &nstrict
			}
			if *field != 0 {
				return nil, tcword.Errorf(`Duplicate "%s"`, kw)
			}
			if i+1 >= len(args) {
				return nil, tcword.IncompleteCommand()
			}
			i++
			v, err := etsBands(args[i], kw)
			if err != nil {
				return nil, err
			}
			*field = v
			mode = ""
			continue
		case "quanta", "priomap":
			if kw == "quanta" && len(quanta) > 0 || kw == "priomap" && len(priomap) > 0 {
				return nil, tcword.Errorf(`Duplicate "%s"`, kw)
			}
			if i+1 >= len(args) {
				return nil, tcword.IncompleteCommand()
			}
			i++
			mode = kw
		case "help":
			return nil, &tcword.ParseError{ShowUsage: true}
		default:
			if mode == "" {
				return nil, tcword.UsageErrorf(`What is "%s"?`, kw)
			}
		}
		// args[i] is the next element of the current list.
		if mode == "quanta" {
			q, err := etsQuantum(args[i])
			if err != nil {
				return nil, err
			}
			quanta = append(quanta, q)
			continue
		}
		band, err := tcfmt.ParseUint(args[i], 10, 32)
		if err != nil {
			return nil, tcword.Errorf(`Illegal "priomap" element`)
		}
		if len(priomap) > etsMaxPrio {
			return nil, tcword.Errorf(`"priomap" index cannot be higher than %d`, etsMaxPrio)
		}
		priomap = append(priomap, uint8(band))
	}
	if nbands == 0 {
		nbands = uint8(len(quanta)) + nstrict
	}
	if nbands == 0 {
		return nil, tcword.UsageErrorf(`One of "bands", "quanta" or "strict" needs to be specified`)
	}
	if int(nstrict)+len(quanta) > int(nbands) {
		return nil, tcword.UsageErrorf("Not enough total bands to cover all the strict bands and quanta")
	}
	for _, b := range priomap {
		if b >= nbands {
			return nil, tcword.Errorf(`"priomap" element is out of bounds`)
		}
	}
	o := &attrs.ETSAttrs{Nbands: &nbands}
	if nstrict != 0 {
		o.Nstrict = &nstrict
	}
	if len(quanta) > 0 {
		o.Quanta = &attrs.ETSAttrs{QuantaBand: quanta}
	}
	if len(priomap) > 0 {
		o.Priomap = &attrs.ETSAttrs{PriomapBand: priomap}
	}
	return o, nil
}

// parseETSClass reads a class's "quantum"; its usage is the class's own,
// so it goes into the message.
func parseETSClass(args []string) (*attrs.ETSAttrs, error) {
	o := &attrs.ETSAttrs{}
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "quantum":
			if len(o.QuantaBand) > 0 {
				return nil, tcword.Errorf(`Duplicate "quantum"`)
			}
			if i+1 >= len(args) {
				return nil, tcword.IncompleteCommand()
			}
			i++
			q, err := etsQuantum(args[i])
			if err != nil {
				return nil, err
			}
			o.QuantaBand = []uint32{q}
		case "help":
			return nil, tcword.Errorf("%s", etsClassUsage)
		default:
			return nil, tcword.Errorf("What is \"%s\"?\n%s", args[i], etsClassUsage)
		}
	}
	return o, nil
}

// printETS prints the qdisc's options; tc prints none unless both bands
// and the priomap were dumped (the kernel always dumps them).
func printETS(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
	o, ok := opts.(*attrs.ETSAttrs)
	if !ok || o.Nbands == nil || o.Priomap == nil {
		return
	}
	p.Uint(tcfmt.Any, "bands", "bands %u ", uint64(*o.Nbands))
	if o.Nstrict != nil {
		p.Uint(tcfmt.Any, "strict", "strict %u ", uint64(*o.Nstrict))
	}
	if o.Quanta != nil {
		p.OpenArray(tcfmt.Any, "quanta")
		for _, q := range o.Quanta.QuantaBand {
			p.Uint(tcfmt.Any, "", " %u", uint64(q))
		}
		p.CloseArray(tcfmt.Any, " ")
	}
	p.OpenArray(tcfmt.Any, "priomap")
	for _, b := range o.Priomap.PriomapBand {
		p.Uint(tcfmt.Any, "", " %u", uint64(b))
	}
	p.CloseArray(tcfmt.Any, " ")
}

// printETSClass prints a class's quantum (strict bands have none).
func printETSClass(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
	if o, ok := opts.(*attrs.ETSAttrs); ok && len(o.QuantaBand) > 0 {
		p.Uint(tcfmt.Any, "quantum", "quantum %u ", uint64(o.QuantaBand[0]))
	}
}

// etsKeywords writes the qdisc's bands, strict bands, quanta and priomap.
// The kernel dumps a quantum for every band that is not strict (its
// default where none was given) and the whole priomap, so the words ask
// for each explicitly.
func etsKeywords(o *attrs.ETSAttrs) ([]string, error) {
	if o.Nbands == nil || *o.Nbands == 0 {
		return nil, tckind.NoKeywords("ets without bands")
	}
	w := []string{"bands", tcword.UintWord(*o.Nbands)}
	if o.Nstrict != nil && *o.Nstrict != 0 {
		w = append(w, "strict", tcword.UintWord(*o.Nstrict))
	}
	if o.Quanta != nil && len(o.Quanta.QuantaBand) > 0 {
		w = append(w, "quanta")
		for _, q := range o.Quanta.QuantaBand {
			w = append(w, tcword.UintWord(q))
		}
	}
	if o.Priomap != nil && len(o.Priomap.PriomapBand) > 0 {
		w = append(w, "priomap")
		for _, b := range o.Priomap.PriomapBand {
			w = append(w, tcword.UintWord(b))
		}
	}
	return w, nil
}

// etsClassKeywords writes a class's quantum; a strict band's class dumps
// none and takes no words.
func etsClassKeywords(o *attrs.ETSAttrs) ([]string, error) {
	switch len(o.QuantaBand) {
	case 0:
		return nil, nil
	case 1:
		return []string{"quantum", tcword.UintWord(o.QuantaBand[0])}, nil
	}
	return nil, tckind.NoKeywords("ets class with more than one quantum")
}

// etsDumped is Kind.Dumped for ets (ets_qdisc_change and ets_qdisc_dump):
// quanta clamped to 256 bytes .. 1 MiB, a priomap of all 16 priorities
// whose entries the request leaves out go to the last band, and no strict
// count when it is 0. A sharing band the request gives no quantum gets the
// device's psched_mtu, which the options alone do not say: etsDefaults
// fills those in.
func etsDumped(opts attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	o, ok := opts.(*attrs.ETSAttrs)
	if !ok || o == nil || o.Nbands == nil {
		return opts
	}
	c := *o
	if c.Nstrict != nil && *c.Nstrict == 0 {
		c.Nstrict = nil
	}
	if o.Quanta != nil {
		q := *o.Quanta
		q.QuantaBand = make([]uint32, len(o.Quanta.QuantaBand))
		for i, v := range o.Quanta.QuantaBand {
			q.QuantaBand[i] = min(max(v, 256), 1<<20)
		}
		c.Quanta = &q
	}
	priomap := make([]uint8, etsMaxPrio+1)
	for i := range priomap {
		priomap[i] = *o.Nbands - 1
	}
	if o.Priomap != nil {
		copy(priomap, o.Priomap.PriomapBand)
	}
	c.Priomap = &attrs.ETSAttrs{PriomapBand: priomap}
	return &c
}

// etsDefaults is Kind.DeviceDefaults for ets: ets_qdisc_change gives each
// sharing band (those after the strict ones) that the request's quanta do
// not reach the device's psched_mtu as its quantum. False when every
// sharing band has one, or the device's link-layer header is unknown.
func etsDefaults(dev tckind.Device, opts attrs.TCOptionsMsg) (attrs.TCOptionsMsg, []string, bool) {
	o, ok := opts.(*attrs.ETSAttrs)
	if !ok || o == nil || o.Nbands == nil {
		return nil, nil, false
	}
	sharing := int(*o.Nbands)
	if o.Nstrict != nil {
		sharing -= int(*o.Nstrict)
	}
	var given []uint32
	if o.Quanta != nil {
		given = o.Quanta.QuantaBand
	}
	mtu, known := dev.PschedMTU()
	if len(given) >= sharing || !known {
		return nil, nil, false
	}
	c := *o
	q := attrs.ETSAttrs{QuantaBand: append([]uint32(nil), given...)}
	for len(q.QuantaBand) < sharing {
		q.QuantaBand = append(q.QuantaBand, mtu)
	}
	c.Quanta = &q
	w, err := etsKeywords(&c)
	if err != nil {
		return nil, nil, false
	}
	return &c, w, true
}
