// SPDX-License-Identifier: Apache-2.0

package qdisc

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// prioRequest is the TCA_OPTIONS tc's addattr_nest_compat builds: the
// struct, then an inner TCA_OPTIONS holding inner, the outer length
// covering both.
func prioRequest(bands int32, priomap [16]byte, inner []byte) []byte {
	hdr := binary.NativeEndian.AppendUint32(nil, uint32(bands))
	hdr = append(hdr, priomap[:]...)
	return tcAttr(attrs.TCAOptions, append(hdr, tcAttr(attrs.TCAOptions, inner)...))
}

// TestParsePrioBytes checks the request against tc's prio_parse_opt.
func TestParsePrioBytes(t *testing.T) {
	def := prioDefault.Priomap
	mq := tcAttr(attrs.TCAPrioMQ, nil)
	for _, c := range []struct {
		args string
		want []byte
	}{
		{"", prioRequest(3, def, nil)},
		{"multiqueue", prioRequest(3, def, mq)},
		{"bands 4 priomap 1 1 2 2 3 3 0 0 1 2 3 0 0 0 0 0",
			prioRequest(4, [16]byte{1, 1, 2, 2, 3, 3, 0, 0, 1, 2, 3}, nil)},
		// A short map keeps the defaults after it.
		{"priomap 0 0 bands 5 multiqueue", prioRequest(5, [16]byte{0, 0, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1}, mq)},
		// bands is read with strtol base 10: "0x3" would not parse, "010" is 10.
		{"bands 010 priomap 9", prioRequest(10, [16]byte{9, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1}, nil)},
		// tc sends what the kernel refuses (bands 1 with the default map).
		{"bands 1", prioRequest(1, def, nil)},
		// Map entries are bytes: 300 of 1024 bands goes out as 44.
		{"bands 1024 priomap 300", prioRequest(1024, [16]byte{44, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1}, nil)},
	} {
		o, err := parsePrio(strings.Fields(c.args), tckind.ParseEnv{})
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		a := attrs.TCAttrs{Options: o}
		e := attrs.NewEncoder(nil)
		a.Encode(e)
		if got := e.Bytes(); !bytes.Equal(got, c.want) {
			t.Errorf("%q:\n got %s\nwant %s", c.args, hex.EncodeToString(got), hex.EncodeToString(c.want))
		}
	}
}

// TestParsePrioNotes: "bands" after "priomap" prints the usage and goes on.
func TestParsePrioNotes(t *testing.T) {
	var notes bytes.Buffer
	o, err := parsePrio(strings.Fields("priomap 1 bands 4 3"), tckind.ParseEnv{Stderr: &notes})
	if err != nil {
		t.Fatal(err)
	}
	if notes.String() != prioUsage+"\n" || o.Header.Bands != 4 || o.Header.Priomap[0] != 1 || o.Header.Priomap[1] != 3 {
		t.Errorf("notes %q, options %+v", notes.String(), o.Header)
	}
}

func TestParsePrioErrors(t *testing.T) {
	for _, c := range []struct {
		args  string
		msg   string
		usage bool
		code  int
	}{
		{"bands", `Command line is not complete. Try option "help"`, false, 255},
		{"bands x", `Illegal "bands"`, false, 1},
		{"bands 0x3", `Illegal "bands"`, false, 1},
		{"bands 99999999999", `Illegal "bands"`, false, 1},
		{"priomap 3", `"priomap" element is out of bands`, false, 1},
		{"bands 2 priomap 2", `"priomap" element is out of bands`, false, 1},
		// Negative bands compare as a huge unsigned number, so the element
		// passes; it is the 17th that fails.
		{"bands -1 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 5", `"priomap" index > TC_PRIO_MAX=15`, false, 1},
		{"priomap 1 x", `Illegal "priomap" element`, false, 1},
		{"priomap -1", `Illegal "priomap" element`, false, 1},
		{"priomap 1 priomap", `Error: duplicate priomap`, false, 1},
		{"foorbar", `What is "foorbar"?`, true, 1},
		{"2", `What is "2"?`, true, 1},
		{"band 3", `What is "band"?`, true, 1},
		{"help", ``, true, 1},
	} {
		_, err := parsePrio(strings.Fields(c.args), tckind.ParseEnv{})
		var pe *tcword.ParseError
		if !errors.As(err, &pe) || pe.Msg != c.msg || pe.ShowUsage != c.usage || pe.ExitCode() != c.code {
			t.Errorf("%q: %#v, want %q usage %v exit %d", c.args, err, c.msg, c.usage, c.code)
		}
	}
}

func TestPrintPrioOptions(t *testing.T) {
	o := attrs.TCPrioQopt{Bands: 3, Priomap: prioDefault.Priomap}
	for _, c := range []struct {
		name       string
		extra      *attrs.PrioAttrs
		text, json string
	}{
		{"as the kernel dumps it", nil,
			"bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1",
			`{"bands":3,"priomap":[1,2,2,2,1,2,0,0,1,1,1,1,1,1,1,1],"multiqueue":false}` + "\n"},
		{"with TCA_PRIO_MQ", &attrs.PrioAttrs{MQ: true},
			"bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1 multiqueue: on ",
			`{"bands":3,"priomap":[1,2,2,2,1,2,0,0,1,1,1,1,1,1,1,1],"multiqueue":true}` + "\n"},
	} {
		print := func(p *tcfmt.Printer) { printPrioOptions(p, &o, c.extra) }
		if got := printWith(tcfmt.Options{}, print); got != c.text {
			t.Errorf("%s: text\n got %q\nwant %q", c.name, got, c.text)
		}
		if got := printWith(tcfmt.Options{JSON: true}, print); got != c.json {
			t.Errorf("%s: JSON\n got %q\nwant %q", c.name, got, c.json)
		}
	}
}

// TestPrioDecodesKernelDump: the kernel dumps the struct alone, which
// decodes as prio's options without attributes.
func TestPrioDecodesKernelDump(t *testing.T) {
	b := binary.NativeEndian.AppendUint32(nil, 4)
	b = append(b, 1, 1, 2, 2, 3, 3, 0, 0, 1, 2, 3, 0, 0, 0, 0, 0)
	o, ok := attrs.DecodeTCOptionsMsg("prio", b).(*attrs.TCOptionsMsgPrio)
	if !ok || o.Header.Bands != 4 || o.Header.Priomap[4] != 3 || o.Attrs.Options != nil {
		t.Errorf("decoded %#v", o)
	}
}

func TestMultiq(t *testing.T) {
	o, err := parseMultiq(nil, tckind.ParseEnv{})
	a := attrs.TCAttrs{Options: o}
	e := attrs.NewEncoder(nil)
	a.Encode(e)
	if want := tcAttr(attrs.TCAOptions, make([]byte, 4)); err != nil || !bytes.Equal(e.Bytes(), want) {
		t.Errorf("request %x (%v), want %x", e.Bytes(), err, want)
	}
	for _, c := range []struct {
		args  string
		msg   string
		usage bool
	}{
		{"help", "", true},
		{"bands 4", `What is "bands"?`, true},
	} {
		_, err := parseMultiq(strings.Fields(c.args), tckind.ParseEnv{})
		var pe *tcword.ParseError
		if !errors.As(err, &pe) || pe.Msg != c.msg || pe.ShowUsage != c.usage || pe.ExitCode() != 1 {
			t.Errorf("%q: %#v", c.args, err)
		}
	}
	dump := &attrs.TCMultiqQopt{Bands: 4, MaxBands: 4}
	print := func(p *tcfmt.Printer) { printMultiq(p, dump) }
	if got := printWith(tcfmt.Options{}, print); got != "bands 4/4 " {
		t.Errorf("text %q", got)
	}
	if got := printWith(tcfmt.Options{JSON: true}, print); got != `{"bands":4,"max_bands":4}`+"\n" {
		t.Errorf("JSON %q", got)
	}
}
