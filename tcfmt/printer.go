// SPDX-License-Identifier: Apache-2.0

package tcfmt

import (
	"io"
	"strconv"
	"unicode/utf8"
)

// Target selects the output a Printer call is meant for, like iproute2's
// enum output_type: a call marked FP only prints in text mode, JSON only in
// JSON mode, and Any in both (the text through its format, the JSON as a
// key and a typed value).
type Target uint8

// The targets of a print call.
const (
	FP   Target = 1 // text ("file pointer") output only
	JSON Target = 2 // JSON output only
	Any  Target = 4 // both, each in its own form
)

// Options are the global tc flags that change how output looks.
type Options struct {
	JSON    bool // -json: JSON instead of text
	Pretty  bool // -pretty: indented JSON; in text only some kinds read it (u32's keys)
	Oneline bool // -oneline: text line separator "\" instead of "\n"
	IEC     bool // -iec: rates in powers of 1024 ("Kibit")
	Details bool // -details: the kinds print more of their options
	Raw     bool // -raw: the kinds print some values also in tc's raw form
	Stats   bool // -stats: some kinds print statistics among their options (gred, sfq)
}

// flushAt is the buffered size past which a Printer writes to its writer.
const flushAt = 32 << 10

// Printer produces tc's text or JSON output from a single sequence of
// calls, after iproute2's json_print.c (the print_* family) and
// json_writer.c (the streaming JSON writer). In JSON mode it reproduces
// json_writer's bytes exactly:
//
//   - compact: no blanks at all, ',' between members, "key":value;
//   - pretty: every member on its own line, indented 4 spaces per level,
//     "key": value, a closing '}' on its own line at the parent's depth
//     (an empty object stays "{}"), arrays open with "[ " and close with
//     " ]" (an empty one is "[ ]"), scalar array items stay on one line
//     separated by a bare ",", and consecutive objects in an array are
//     joined as "},{";
//   - strings escape \t \n \r \f \b \\ \" and other control bytes and DEL
//     as \u00XX; bytes >= 0x80 pass through unchanged;
//   - integers print in decimal, floats with C's "%g" (so 6 significant
//     digits, and inf/nan as the bare words C prints), booleans as
//     true/false, and null;
//   - Finish closes the outer array and ends the output with "\n".
//
// Output is buffered; call Finish (or Flush) at the end. A Printer is not
// safe for concurrent use. Write errors are sticky and reported by Flush,
// Finish and Err.
type Printer struct {
	w      io.Writer
	buf    []byte
	err    error
	json   bool // a JSON writer is open (is_json_context)
	jsonOn bool // -json was given
	pretty bool
	iec    bool
	detail bool   // -details
	raw    bool   // -raw
	stats  bool   // -stats
	sl     string // _SL_
	depth  int
	sep    byte // pending separator: 0 or ','
	array  bool // Start opened the outer array
}

// NewPrinter returns a Printer writing to w with the given flags. In JSON
// mode nothing is written before Start (or StartPlain) is called.
func NewPrinter(w io.Writer, o Options) *Printer {
	p := &Printer{w: w, jsonOn: o.JSON, pretty: o.Pretty, iec: o.IEC, detail: o.Details, raw: o.Raw, stats: o.Stats, sl: "\n"}
	if o.Oneline {
		p.sl = "\\"
	}
	p.buf = make([]byte, 0, 4096)
	return p
}

// Reset makes p write to w with the flags of o, dropping buffered output
// and any error, and keeping its buffer.
func (p *Printer) Reset(w io.Writer, o Options) {
	buf := p.buf[:0]
	*p = Printer{w: w, jsonOn: o.JSON, pretty: o.Pretty, iec: o.IEC, detail: o.Details, raw: o.Raw, stats: o.Stats, sl: "\n", buf: buf}
	if o.Oneline {
		p.sl = "\\"
	}
}

// Start begins a listing as new_json_obj does: in JSON mode it opens the
// JSON writer and the outer array "[" ("[ " when pretty); in text mode it
// does nothing.
func (p *Printer) Start() {
	if p.jsonOn {
		p.json = true
		p.depth, p.sep = 0, 0
		p.array = true
		p.beginContainer('[')
		if p.pretty {
			p.buf = append(p.buf, ' ')
		}
	}
}

// StartPlain begins JSON output without the outer array, as
// new_json_obj_plain does.
func (p *Printer) StartPlain() {
	if p.jsonOn {
		p.json = true
		p.depth, p.sep = 0, 0
		p.array = false
	}
}

// Finish ends a listing as delete_json_obj does (closing the outer array
// if Start opened one and ending the JSON output with a newline), then
// flushes. In text mode it only flushes.
func (p *Printer) Finish() error {
	if p.json {
		if p.array {
			p.endArray()
		}
		p.buf = append(p.buf, '\n')
		p.json = false
		p.array = false
	}
	return p.Flush()
}

// Flush writes the buffered output and returns the first write error.
func (p *Printer) Flush() error {
	if p.err == nil && len(p.buf) > 0 {
		_, p.err = p.w.Write(p.buf)
	}
	p.buf = p.buf[:0]
	return p.err
}

// Err returns the first write error seen.
func (p *Printer) Err() error { return p.err }

// IsJSON reports whether JSON output is in progress (is_json_context).
func (p *Printer) IsJSON() bool { return p.json }

// IEC reports whether -iec was given.
func (p *Printer) IEC() bool { return p.iec }

// Details reports whether -details was given (tc's show_details).
func (p *Printer) Details() bool { return p.detail }

// Pretty reports whether -pretty was given. Beside indenting JSON it
// changes some kinds' text: u32 prints its keys by field.
func (p *Printer) Pretty() bool { return p.pretty }

// Raw reports whether -raw was given (tc's show_raw).
func (p *Printer) Raw() bool { return p.raw }

// ShowStats reports whether -stats was given (tc's show_stats), which
// some kinds' option printers read.
func (p *Printer) ShowStats() bool { return p.stats }

// SL returns the text line separator (_SL_): "\n", or "\" with -oneline.
func (p *Printer) SL() string { return p.sl }

func (p *Printer) maybeFlush() {
	if len(p.buf) >= flushAt {
		p.Flush()
	}
}

// fp reports whether a call for t prints text now (_IS_FP_CONTEXT).
func (p *Printer) fp(t Target) bool { return !p.json && t&(FP|Any) != 0 }

// js reports whether a call for t prints JSON now (_IS_JSON_CONTEXT).
func (p *Printer) js(t Target) bool { return p.json && t&(JSON|Any) != 0 }

// --- JSON writer -----------------------------------------------------------

// eor writes the pending separator and arms the next one.
func (p *Printer) eor() {
	if p.sep != 0 {
		p.buf = append(p.buf, p.sep)
	}
	p.sep = ','
}

// eol starts a new indented line when pretty printing.
func (p *Printer) eol() {
	if !p.pretty {
		return
	}
	p.buf = append(p.buf, '\n')
	for i := 0; i < p.depth; i++ {
		p.buf = append(p.buf, "    "...)
	}
}

func (p *Printer) beginContainer(c byte) {
	p.eor()
	p.buf = append(p.buf, c)
	p.depth++
	p.sep = 0
}

func (p *Printer) endContainer(c byte) {
	if p.depth > 0 {
		p.depth--
	}
	if p.sep != 0 {
		p.eol()
	}
	p.buf = append(p.buf, c)
	p.sep = ','
	if p.depth <= 1 {
		// A record of the top-level array is complete: a long listing
		// goes out as it is built instead of piling up in memory.
		p.maybeFlush()
	}
}

func (p *Printer) endArray() {
	if p.pretty && p.sep != 0 {
		p.buf = append(p.buf, ' ')
	}
	p.sep = 0
	p.endContainer(']')
}

// name writes a member name and the colon.
func (p *Printer) name(key Name) {
	p.eor()
	p.eol()
	p.sep = 0
	p.buf = append(p.buf, '"')
	p.buf = append(p.buf, key...)
	p.buf = append(p.buf, '"', ':')
	if p.pretty {
		p.buf = append(p.buf, ' ')
	}
}

// value prepares for a value: the member name when key is not empty, or
// the array separator.
func (p *Printer) value(key Name) {
	if key != "" {
		p.name(key)
	}
	p.eor()
}

const hexDigits = "0123456789abcdef"

// JSONEscaping selects how AppendJSONString writes the bytes it escapes.
type JSONEscaping uint8

const (
	// EscapeAsTc escapes as iproute2's json_writer: \t \n \r \f \b \\ \"
	// in short form, other control bytes and DEL as \u00XX, bytes >= 0x80
	// unchanged (invalid UTF-8 passes through, as tc's does).
	EscapeAsTc JSONEscaping = iota
	// EscapeValidUTF8 writes valid JSON whatever bytes the string holds
	// (device names are bytes), for consumers of gotc's own JSON: \\ and \"
	// in short form, every other control byte as \u00XX, DEL unchanged, and
	// each byte of invalid UTF-8 as \ufffd.
	EscapeValidUTF8
)

// needsEscape reports whether AppendJSONString must escape a byte of s
// with escaping e.
func needsEscape(s string, e JSONEscaping) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' || (c == 0x7f && e == EscapeAsTc) || (c >= utf8.RuneSelf && e == EscapeValidUTF8) {
			return true
		}
	}
	return false
}

// appendJSONString appends s quoted and escaped as json_writer does.
func appendJSONString(dst []byte, s string) []byte {
	return AppendJSONString(dst, s, EscapeAsTc)
}

// AppendJSONString appends s to dst as a quoted JSON string, escaped as e
// says. It is the one JSON string escaper of gotc: the Printer's (tc's
// escaping) and package watch's (valid UTF-8).
func AppendJSONString(dst []byte, s string, e JSONEscaping) []byte {
	dst = append(dst, '"')
	if !needsEscape(s, e) { // member names and most values
		dst = append(dst, s...)
		return append(dst, '"')
	}
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		var esc string
		switch {
		case c == '\\':
			esc = `\\`
		case c == '"':
			esc = `\"`
		case c >= utf8.RuneSelf && e == EscapeValidUTF8:
			if r, size := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || size != 1 {
				i += size - 1 // valid: copied as it is
				continue
			}
			esc = `\ufffd`
		case c < 0x20 && e == EscapeAsTc:
			esc = tcShortEscapes[c]
		case c >= 0x20 && (c != 0x7f || e == EscapeValidUTF8):
			continue
		}
		dst = append(dst, s[start:i]...)
		if esc != "" {
			dst = append(dst, esc...)
		} else {
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// tcShortEscapes are the control bytes json_writer writes in short form.
var tcShortEscapes = [0x20]string{'\t': `\t`, '\n': `\n`, '\r': `\r`, '\f': `\f`, '\b': `\b`}

// --- print_* family ----------------------------------------------------------

// OpenObject opens a JSON object, as the member key when key is not empty
// (open_json_object). Text output is unaffected.
func (p *Printer) OpenObject(key Name) {
	if p.json {
		if key != "" {
			p.name(key)
		}
		p.beginContainer('{')
	}
}

// CloseObject closes the innermost JSON object (close_json_object).
func (p *Printer) CloseObject() {
	if p.json {
		p.endContainer('}')
	}
}

// OpenArray opens a JSON array, as the member key when key is not empty;
// in text mode, for FP or Any, it prints key as a delimiter instead
// (open_json_array).
func (p *Printer) OpenArray(t Target, key Name) {
	if p.js(t) {
		if key != "" {
			p.name(key)
		}
		p.beginContainer('[')
		if p.pretty {
			p.buf = append(p.buf, ' ')
		}
	} else if p.fp(t) {
		p.buf = append(p.buf, key...)
	}
}

// CloseArray closes the innermost JSON array; in text mode, for FP or
// Any, it prints delim (close_json_array).
func (p *Printer) CloseArray(t Target, delim string) {
	if p.js(t) {
		p.endArray()
	} else if p.fp(t) {
		p.buf = append(p.buf, delim...)
	}
}

// NL prints the line separator in text mode (print_nl): "\n", or "\"
// with -oneline. It prints nothing in JSON mode.
func (p *Printer) NL() {
	if !p.json {
		p.buf = append(p.buf, p.sl...)
		p.maybeFlush()
	}
}

// Text prints s verbatim in text mode and nothing in JSON mode (the
// print_string(PRINT_FP, NULL, "%s", s) idiom).
func (p *Printer) Text(s string) {
	if !p.json {
		p.buf = append(p.buf, s...)
	}
}

// Verbatim writes s into the output as it stands, in JSON mode too, as tc
// does where it prints with fprintf beside its JSON writer (an unknown
// kind's "[Unknown qdisc, optlen=N] ", inside the JSON of its options).
func (p *Printer) Verbatim(s string) {
	p.buf = append(p.buf, s...)
}

// Key writes a bare JSON member name with no value yet, as print_string
// does for a key with a NULL value. Text output is unaffected.
func (p *Printer) Key(t Target, key Name) {
	if p.js(t) {
		p.name(key)
	}
}

// String prints a string: in JSON as "key":"value" (or a bare array item
// when key is empty), in text as format applied to value
// (print_string).
func (p *Printer) String(t Target, key Name, format, value string) {
	if p.js(t) {
		p.value(key)
		p.buf = appendJSONString(p.buf, value)
	} else if p.fp(t) {
		p.buf = appendCFormat(p.buf, format, arg{kind: argString, s: value})
	}
}

// Uint prints an unsigned integer, in JSON as a decimal number and in
// text through format (print_uint, print_u64, print_luint, print_lluint,
// print_hu, print_hhu: pass the value in its C width; the format's length
// modifier truncates as C would).
func (p *Printer) Uint(t Target, key Name, format string, v uint64) {
	if p.js(t) {
		p.value(key)
		p.buf = strconv.AppendUint(p.buf, v, 10)
	} else if p.fp(t) {
		p.buf = appendCFormat(p.buf, format, arg{kind: argUint, u: v})
	}
}

// Int prints a signed integer, in JSON as a decimal number and in text
// through format (print_int, print_s64).
func (p *Printer) Int(t Target, key Name, format string, v int64) {
	if p.js(t) {
		p.value(key)
		p.buf = strconv.AppendInt(p.buf, v, 10)
	} else if p.fp(t) {
		p.buf = appendCFormat(p.buf, format, arg{kind: argInt, i: v})
	}
}

// Float prints a double, in JSON with "%g" (6 significant digits; inf and
// nan come out as the bare words, as in tc) and in text through format
// (print_float).
func (p *Printer) Float(t Target, key Name, format string, v float64) {
	if p.js(t) {
		p.value(key)
		p.buf = appendG(p.buf, v, 6)
	} else if p.fp(t) {
		p.buf = appendCFormat(p.buf, format, arg{kind: argFloat, f: v})
	}
}

// Bool prints a boolean, in JSON as true/false and in text as format
// applied to the string "true" or "false" (print_bool; tc's formats such
// as "root " usually have no conversion at all).
func (p *Printer) Bool(t Target, key Name, format string, v bool) {
	s := "false"
	if v {
		s = "true"
	}
	p.boolAs(t, key, format, v, s)
}

// OnOff is Bool with "on"/"off" as the text (print_on_off).
func (p *Printer) OnOff(t Target, key Name, format string, v bool) {
	s := "off"
	if v {
		s = "on"
	}
	p.boolAs(t, key, format, v, s)
}

func (p *Printer) boolAs(t Target, key Name, format string, v bool, s string) {
	if p.js(t) {
		p.value(key)
		if v {
			p.buf = append(p.buf, "true"...)
		} else {
			p.buf = append(p.buf, "false"...)
		}
	} else if p.fp(t) {
		p.buf = appendCFormat(p.buf, format, arg{kind: argString, s: s})
	}
}

// BoolOpt prints "key": v in JSON; in text, only when show, "key " or
// "nokey " (print_bool_opt).
func (p *Printer) BoolOpt(t Target, key Name, v, show bool) {
	if p.js(t) {
		p.value(key)
		if v {
			p.buf = append(p.buf, "true"...)
		} else {
			p.buf = append(p.buf, "false"...)
		}
	} else if p.fp(t) && show {
		if !v {
			p.buf = append(p.buf, "no"...)
		}
		p.buf = append(p.buf, key...)
		p.buf = append(p.buf, ' ')
	}
}

// Null prints "key": null in JSON and format applied to text in text mode
// (print_null).
func (p *Printer) Null(t Target, key Name, format, text string) {
	if p.js(t) {
		p.value(key)
		p.buf = append(p.buf, "null"...)
	} else if p.fp(t) {
		p.buf = appendCFormat(p.buf, format, arg{kind: argString, s: text})
	}
}

// Hex prints a 32-bit value, in JSON as a string of "%x" (no "0x") and in
// text through format (print_hex).
func (p *Printer) Hex(t Target, key Name, format string, v uint32) {
	if p.js(t) {
		p.value(key)
		p.buf = append(p.buf, '"')
		p.buf = strconv.AppendUint(p.buf, uint64(v), 16)
		p.buf = append(p.buf, '"')
	} else if p.fp(t) {
		p.buf = appendCFormat(p.buf, format, arg{kind: argUint, u: uint64(v)})
	}
}

// Hex0x prints a value, in JSON as a string of C's "%#llx" and in text
// through format (print_0xhex). "%#llx" of 0 is "0", without "0x"; cake's
// fwmark is printed this way.
func (p *Printer) Hex0x(t Target, key Name, format string, v uint64) {
	if p.js(t) {
		p.value(key)
		p.buf = append(p.buf, '"')
		if v != 0 {
			p.buf = append(p.buf, "0x"...)
		}
		p.buf = strconv.AppendUint(p.buf, v, 16)
		p.buf = append(p.buf, '"')
	} else if p.fp(t) {
		p.buf = appendCFormat(p.buf, format, arg{kind: argUint, u: v})
	}
}

// Size prints a byte count, in text as format applied to AppendSize's
// text ("%s" conversions) and in JSON as a number (print_size). tc passes
// the 64-bit count to its 32-bit print_uint for JSON, so the JSON number
// is the count modulo 2^32.
func (p *Printer) Size(t Target, key Name, format string, v uint64) {
	if p.js(t) {
		p.value(key)
		p.buf = strconv.AppendUint(p.buf, uint64(uint32(v)), 10)
	} else if p.fp(t) {
		var b [32]byte
		p.buf = appendCFormatBytes(p.buf, format, AppendSize(b[:0], v))
	}
}

// Rate prints a rate in bytes per second, in text as format applied to
// AppendRate's text (bits, honouring -iec) and in JSON as the raw bytes per
// second (print_rate / tc_print_rate).
func (p *Printer) Rate(t Target, key Name, format string, bytesPerSec uint64) {
	if p.js(t) {
		p.value(key)
		p.buf = strconv.AppendUint(p.buf, bytesPerSec, 10)
	} else if p.fp(t) {
		var b [32]byte
		p.buf = appendCFormatBytes(p.buf, format, AppendRate(b[:0], bytesPerSec, p.iec))
	}
}

// Time is the idiom tc's qdiscs use for 32-bit times (cake's rtt,
// dualpi2's target and tupdate): in JSON the raw microseconds as a number
// under key, in text format applied to AppendTime's text.
func (p *Printer) Time(t Target, key Name, format string, us uint32) {
	if p.js(t) {
		p.value(key)
		p.buf = strconv.AppendUint(p.buf, uint64(us), 10)
	} else if p.fp(t) {
		var b [32]byte
		p.buf = appendCFormatBytes(p.buf, format, AppendTime(b[:0], us))
	}
}

// appendCFormatBytes applies format to a string held in a byte slice
// without converting it (the common "%s" case is done inline).
func appendCFormatBytes(dst []byte, format string, s []byte) []byte {
	// Fast path: exactly one plain "%s" conversion.
	for i := 0; i+1 < len(format); i++ {
		if format[i] == '%' {
			if format[i+1] == 's' && onlyConv(format, i) {
				dst = append(dst, format[:i]...)
				dst = append(dst, s...)
				return append(dst, format[i+2:]...)
			}
			break
		}
	}
	return appendCFormat(dst, format, arg{kind: argString, s: string(s)})
}

// onlyConv reports whether the '%' at i is the only one in format.
func onlyConv(format string, i int) bool {
	for j := i + 2; j < len(format); j++ {
		if format[j] == '%' {
			return false
		}
	}
	return true
}

// Name is a JSON member name. It is written without escaping, so it must
// need none: names are the string constants in the code that prints (an
// untyped constant converts to Name implicitly, a string variable does
// not, so a name made at run time stands out where it is converted).
type Name string
