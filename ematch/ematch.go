// SPDX-License-Identifier: Apache-2.0

package ematch

// Extended matches (net/sched/ematch.c): the "match EXPR" of the basic and
// cgroup filters, as tc 7.3's m_ematch.c and its flex/bison parser read,
// send and print them. EXPR is a logical expression of matches,
//
//	EXPR  := TERM [ { and | or } EXPR ]
//	TERM  := [ not ] { KIND '(' ARGS ')' | '(' EXPR ')' }
//
// given as one word or as several (tc joins the words with blanks). The
// kernel takes the tree flattened into a list: each parenthesised
// sub-expression becomes a container match holding the index where its
// own sequence starts, and the sequences follow the top-level one in the
// order tc reaches them.
//
// tc's quirks are kept where they change what is sent or printed:
//   - The words are read one at a time, and the parser reads one token
//     ahead: after the expression, the filter goes on from the word that
//     held the token after it. An expression that ends the command line
//     leaves its own last word to the filter, which then refuses it.
//   - Every quoted string of one expression shares one buffer, which each
//     new string overwrites from its start: when the matches read their
//     arguments, after the whole expression was parsed, a quoted argument
//     holds the first bytes (as many as its own length) of what the
//     buffer holds by then.
//   - The numbers of the kinds come from iproute2's ematch_map file, read
//     as tc reads it. Without the file tc refuses every match, and prints
//     a dumped one as unknown; gotc then takes the map iproute2 ships.
//
// Left out: the ipset and ipt kinds (tc asks the kernel's ipset module for
// a set's index by name, and ipt loads iptables' match extensions), which
// gotc refuses, and prints as unknown when dumped; tc's own faults on
// input it mishandles (a word over the scanner's buffer, a newline inside
// a quoted string, which flex echoes to standard output, and meta's table
// read past its end, which prints garbage on standard error).

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// ematchMapFiles are where tc looks up the numbers of ematch kinds, in
// order: the second only when the first does not name the kind.
var ematchMapFiles = [2]string{"/etc/iproute2/ematch_map", "/usr/share/iproute2/ematch_map"}

// defaultEmatchMap is the map iproute2 ships, which gotc reads when
// neither file exists (tc would refuse every match), so that it needs no
// iproute2 installed.
const defaultEmatchMap = "1\tcmp\n2\tnbyte\n3\tu32\n4\tmeta\n7\tcanid\n8\tipset\n9\tipt\n"

// errMapMiss is a map that does not name the kind.
var errMapMiss = errors.New("not in the ematch map")

// scanEmatchMap reads one ematch map as tc does: blank and '#' lines are
// skipped, and every other line must be "NUMBER NAME"; it returns the
// first line found accepts. A line of another form stops the search
// (after tc's note on w).
func scanEmatchMap(file string, r *bufio.Reader, found func(id int64, name string) bool, w io.Writer) (int64, string, error) {
	for {
		line, err := r.ReadString('\n')
		if line == "" && err != nil {
			return 0, "", errMapMiss
		}
		p := strings.TrimLeft(line, " \t")
		if p == "" || p[0] == '#' || p[0] == '\n' {
			continue
		}
		id, name, ok := scanIDName(p)
		if !ok {
			fmt.Fprintf(w, "ematch map %s corrupted at %s\n", file, p)
			return 0, "", fmt.Errorf("ematch map %s corrupted", file)
		}
		if found(id, name) {
			return id, name, nil
		}
	}
}

// scanIDName is sscanf's "%d %s" on a map line.
func scanIDName(p string) (int64, string, bool) {
	v, n, _ := tcfmt.Strtol(p, 10)
	if n == 0 {
		return 0, "", false
	}
	fields := strings.Fields(p[n:])
	if len(fields) == 0 {
		return 0, "", false
	}
	return int64(int32(v)), fields[0], true
}

// lookupEmatchMap finds a line in the first map file that has one, then in
// the second (a file that cannot be read stops the search, as in tc).
func lookupEmatchMap(found func(int64, string) bool, w io.Writer) (int64, string, error) {
	missing := 0
	for _, file := range ematchMapFiles {
		f, err := os.Open(file)
		if os.IsNotExist(err) {
			missing++
			continue
		}
		if err != nil {
			return 0, "", err
		}
		id, name, err := scanEmatchMap(file, bufio.NewReader(f), found, w)
		f.Close()
		if !errors.Is(err, errMapMiss) {
			return id, name, err
		}
	}
	if missing == len(ematchMapFiles) {
		return scanEmatchMap("", bufio.NewReader(strings.NewReader(defaultEmatchMap)), found, w)
	}
	return 0, "", errMapMiss
}

// ematchKind is what gotc knows of one kind of extended match.
type ematchKind struct {
	name string
	// num is the kernel's number of the kind, which tc suggests for the
	// map when the map lacks the kind.
	num   uint16
	usage string
	// parse returns the match's data (after its struct tcf_ematch_hdr)
	// from its arguments; false after it printed its refusal with fail.
	parse func(p *emParser, args []*emArg) ([]byte, bool)
	// print writes a dumped match's data as tc does; false where tc gives
	// up on it.
	print func(b *strings.Builder, data []byte) bool
	// write writes a dumped match's data back as the arguments that
	// parse reads to the same data; false where it has none.
	write func(b *strings.Builder, data []byte) bool
}

// ematchKinds are the kinds tc 7.3 has, by name; nil parse: refused.
var ematchKinds = map[string]*ematchKind{}

func registerEmatch(k *ematchKind) {
	if ematchKinds[k.name] != nil {
		panic("ematch kind " + k.name + " registered twice")
	}
	ematchKinds[k.name] = k
}

// Flags of struct tcf_ematch_hdr (linux/pkt_cls.h).
const (
	emRelAnd  = 1
	emRelOr   = 2
	emRelMask = 3
	emInvert  = 4
)

// tcfLayerMax is the highest TCF_LAYER_* (link 0, network 1, transport 2).
const tcfLayerMax = 2

// emArg is one argument of a match (tc's struct bstr): a word, or a
// quoted string, which shares its parser's string buffer.
type emArg struct {
	word   string
	quoted bool
	n      int
	lx     *emLexer
}

// bytes is the argument's text as the matches read it.
func (a *emArg) bytes() []byte {
	if a.quoted {
		return a.lx.strbuf[:a.n]
	}
	return []byte(a.word)
}

// cstring is the argument as C reads it with its string functions: a
// quoted one runs to the first NUL of the shared buffer.
func (a *emArg) cstring() string {
	if !a.quoted {
		return a.word
	}
	b := a.lx.strbuf
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// is reports whether the argument is exactly s (tc's bstrcmp).
func (a *emArg) is(s string) bool { return string(a.bytes()) == s }

// emNoNumber is what bstrtoul returns for text that is not a number.
const emNoNumber = ^uint64(0)

// number is tc's bstrtoul: strtoul of any base, emNoNumber when nothing
// converts or the value saturates; what follows a number is ignored.
func (a *emArg) number() uint64 {
	v, n, _ := tcfmt.Strtoul(string(a.bytes()), 0)
	if n == 0 {
		return emNoNumber
	}
	return v
}

// layer is tc's parse_layer and the check after it: a name by its first
// letter, or a number up to TCF_LAYER_MAX.
func (a *emArg) layer(p *emParser, kind string, args []*emArg) (uint8, bool) {
	b := a.bytes()
	if len(b) > 0 {
		switch b[0] {
		case 'l':
			return 0, true
		case 'n':
			return 1, true
		case 't':
			return 2, true
		}
	}
	v := a.number()
	if v == emNoNumber {
		return 0, p.fail(args, a, "%s: invalid layer", kind)
	}
	if v > tcfLayerMax {
		return 0, p.fail(args, a, "%s: illegal layer, must be in 0..%d", kind, tcfLayerMax)
	}
	return uint8(v), true
}

// Tokens of tc's ematch scanner.
type emToken int

const (
	emEOF emToken = iota
	emAttribute
	emAnd
	emOr
	emNot
	emOpen
	emClose
	emError
)

// emLexer is tc's flex scanner: it reads the words one at a time, each
// followed by a blank, and counts the words it has taken.
type emLexer struct {
	words  []string
	taken  int
	buf    string
	pos    int
	strbuf []byte
	stderr io.Writer
}

// fill takes the next non-empty word; false at the end of the words.
func (lx *emLexer) fill() bool {
	for lx.taken < len(lx.words) {
		w := lx.words[lx.taken]
		lx.taken++
		if w != "" {
			lx.buf, lx.pos = w+" ", 0
			return true
		}
	}
	return false
}

func isEmBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// next returns the next token, and the argument of an emAttribute.
func (lx *emLexer) next() (emToken, *emArg) {
	for {
		if lx.pos >= len(lx.buf) {
			if !lx.fill() {
				return emEOF, nil
			}
			continue
		}
		c := lx.buf[lx.pos]
		switch {
		case isEmBlank(c):
			lx.pos++
			continue
		case c == '"':
			lx.pos++
			return lx.quoted()
		case c == '(':
			lx.pos++
			return emOpen, nil
		case c == ')':
			lx.pos++
			return emClose, nil
		}
		end := lx.pos + 1
		for end < len(lx.buf) && !isEmBlank(lx.buf[end]) && lx.buf[end] != '(' && lx.buf[end] != ')' {
			end++
		}
		w := lx.buf[lx.pos:end]
		lx.pos = end
		switch {
		case strings.EqualFold(w, "and"):
			return emAnd, nil
		case strings.EqualFold(w, "or"):
			return emOr, nil
		case strings.EqualFold(w, "not"):
			return emNot, nil
		}
		return emAttribute, &emArg{word: w}
	}
}

// put writes one byte of a quoted string into the shared buffer.
func (lx *emLexer) put(i *int, c byte) {
	if *i < len(lx.strbuf) {
		lx.strbuf[*i] = c
	} else {
		lx.strbuf = append(lx.strbuf, c)
	}
	*i++
}

// quoted reads a quoted string, which may go on over several words, with
// C's escapes (octal up to \377, \xHH, \n and the like, and \ before any
// other character for that character).
func (lx *emLexer) quoted() (emToken, *emArg) {
	n := 0
	for {
		if lx.pos >= len(lx.buf) {
			if !lx.fill() {
				return emEOF, nil
			}
			continue
		}
		c := lx.buf[lx.pos]
		switch c {
		case '"':
			lx.pos++
			return emAttribute, &emArg{quoted: true, n: n, lx: lx}
		case '\n':
			lx.pos++ // flex echoes it to standard output; gotc drops it
			continue
		case '\\':
		default:
			lx.put(&n, c)
			lx.pos++
			continue
		}
		// The blank after every word means a backslash has a character
		// after it.
		rest := lx.buf[lx.pos+1:]
		digits, octal := 0, 0
		for digits < len(rest) && rest[digits] >= '0' && rest[digits] <= '9' {
			digits++
		}
		for octal < len(rest) && octal < 3 && rest[octal] >= '0' && rest[octal] <= '7' {
			octal++
		}
		switch {
		case digits > octal:
			// A longer run of digits than an octal escape takes is
			// flex's catch-all for bad octal escapes.
			lx.pos += 1 + digits
			fmt.Fprint(lx.stderr, "error: invalid octale escape sequence\n")
			return emError, nil
		case octal > 0:
			v, _ := strconv.ParseUint(rest[:octal], 8, 16)
			lx.pos += 1 + octal
			if v > 0xff {
				fmt.Fprint(lx.stderr, "error: octal escape sequence out of range\n")
				return emError, nil
			}
			lx.put(&n, byte(v))
		case rest[0] == 'x' && len(rest) > 1 && isHexDigit(rest[1]):
			h := 1
			if len(rest) > 2 && isHexDigit(rest[2]) {
				h = 2
			}
			v, _ := strconv.ParseUint(rest[1:1+h], 16, 8)
			lx.put(&n, byte(v))
			lx.pos += 2 + h
		default:
			e := rest[0]
			if i := strings.IndexByte("nrtvbfa", e); i >= 0 {
				e = "\n\r\t\v\b\f\a"[i]
			}
			lx.put(&n, e)
			lx.pos += 2
		}
	}
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// emNode is one term of a parsed expression (tc's struct ematch): a match
// (args[0] names its kind) or a parenthesised sub-expression (child).
type emNode struct {
	args     []*emArg
	inverted bool
	relation uint16
	child    *emNode
	next     *emNode
	index    int
	childRef uint32
}

// emParser is one "match" of a command: the words, its scanner with one
// token of look-ahead, and where tc's messages go.
type emParser struct {
	lx     emLexer
	tok    emToken
	arg    *emArg
	peeked bool
	// printed is how many words a refusal lists.
	printed int
	// kind is the match whose arguments are being read.
	kind *ematchKind
}

func (p *emParser) peek() emToken {
	if !p.peeked {
		p.tok, p.arg = p.lx.next()
		p.peeked = true
	}
	return p.tok
}

func (p *emParser) take() (emToken, *emArg) {
	t := p.peek()
	p.peeked = false
	return t, p.arg
}

var errEmSyntax = errors.New("syntax error")

// expr is EXPR: terms joined by and/or, which the terms group to the right.
func (p *emParser) expr() (*emNode, error) {
	m, err := p.term()
	if err != nil {
		return nil, err
	}
	switch p.peek() {
	case emAnd, emOr:
		if t, _ := p.take(); t == emAnd {
			m.relation = emRelAnd
		} else {
			m.relation = emRelOr
		}
		if m.next, err = p.expr(); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// term is TERM.
func (p *emParser) term() (*emNode, error) {
	m := &emNode{}
	if p.peek() == emNot {
		p.take()
		m.inverted = true
	}
	t, a := p.take()
	switch t {
	case emAttribute:
		if t, _ := p.take(); t != emOpen {
			return nil, errEmSyntax
		}
		m.args = []*emArg{a}
		for {
			t, a := p.take()
			switch {
			case t == emAttribute:
				m.args = append(m.args, a)
				continue
			case t == emClose && len(m.args) > 1:
				return m, nil
			}
			return nil, errEmSyntax
		}
	case emOpen:
		child, err := p.expr()
		if err != nil {
			return nil, err
		}
		if t, _ := p.take(); t != emClose {
			return nil, errEmSyntax
		}
		m.child = child
		return m, nil
	}
	return nil, errEmSyntax
}

// listWords prints the words the expression took, the last marked.
func (p *emParser) listWords(b *strings.Builder) {
	for i, w := range p.lx.words[:p.printed] {
		if i == p.printed-1 {
			fmt.Fprintf(b, ">>%s<< ", w)
		} else {
			fmt.Fprintf(b, "%s ", w)
		}
	}
	b.WriteString("...\n")
}

const ematchUsage = `Usage: EXPR
where: EXPR  := TERM [ { and | or } EXPR ]
       TERM  := [ not ] { MATCH | '(' EXPR ')' }
       MATCH := module '(' ARGS ')'
       ARGS := ARG1 ARG2 ...

Example: a(x y) and not (b(x) or c(x y z))
`

// fail prints tc's refusal of a match's arguments (em_parse_error): the
// message, the words of the expression, the match's arguments from args
// on with carg marked, and the kind's usage. It returns false.
func (p *emParser) fail(args []*emArg, carg *emArg, format string, v ...any) bool {
	var b strings.Builder
	fmt.Fprintf(&b, format, v...)
	b.WriteString("\n... ")
	p.listWords(&b)
	if args != nil {
		fmt.Fprintf(&b, "... %s(", p.kind.name)
		for i, a := range args {
			if a == carg {
				b.WriteString(">>")
			}
			for _, c := range a.bytes() {
				if c >= 0x20 && c < 0x7f {
					b.WriteByte(c)
				} else {
					b.WriteByte('.')
				}
			}
			if a == carg {
				b.WriteString("<<")
			}
			if i < len(args)-1 {
				b.WriteByte(' ')
			}
		}
		b.WriteString(")...\n")
	}
	b.WriteString(p.kind.usage)
	io.WriteString(p.lx.stderr, b.String())
	return false
}

// illegalEmatch is the line the filter adds to every refused expression.
func illegalEmatch() *tcword.ParseError { return tcword.Errorf(`Illegal "ematch"`) }

// ParseEmatch reads the expression that starts at args[0] (tc's
// parse_ematch) and returns its tree, nil for an empty one, and the words
// the filter reads next; tc's messages go to w.
func ParseEmatch(args []string, w io.Writer) (*attrs.EmatchAttrs, []string, error) {
	if w == nil {
		w = io.Discard
	}
	p := &emParser{lx: emLexer{words: args, stderr: w}}
	var root *emNode
	if p.peek() != emEOF {
		var err error
		root, err = p.expr()
		if err != nil {
			// The words listed end at the one holding the token that
			// did not fit.
			p.printed = p.lx.taken
			var b strings.Builder
			fmt.Fprintf(&b, "Parse error: %s\n... ", err)
			p.listWords(&b)
			b.WriteString(ematchUsage)
			io.WriteString(w, b.String())
			return nil, nil, illegalEmatch()
		}
		// Whatever token follows the expression ends it; the filter
		// goes on from the word that holds it (or the last word).
	}
	rest := args[max(p.lx.taken-1, 0):]
	p.printed = max(p.lx.taken-1, 0)
	if root == nil {
		return nil, rest, nil
	}
	n := flattenEmatch(root, root)
	var list attrs.Encoder
	i := 0
	for t := root; t != nil; t = t.next {
		i++
		hdr := attrs.TCFEmatchHdr{Flags: t.relation}
		if t.inverted {
			hdr.Flags |= emInvert
		}
		var data []byte
		if t.child != nil {
			data = binary.NativeEndian.AppendUint32(hdr.Append(nil), t.childRef)
		} else {
			name := string(t.args[0].bytes())
			k := ematchKinds[name]
			if k == nil {
				fmt.Fprintf(w, "Unknown ematch \"%s\"\n", name)
				return nil, nil, illegalEmatch()
			}
			id, _, err := lookupEmatchMap(func(_ int64, n string) bool { return strings.EqualFold(n, name) }, w)
			if err != nil {
				if errors.Is(err, errMapMiss) {
					fmt.Fprintf(w, "Error: Unable to find ematch \"%s\" in %s or %s\n"+
						"Please assign a unique ID to the ematch kind the suggested entry is:\n\t%d\t%s\n",
						name, ematchMapFiles[0], ematchMapFiles[1], k.num, name)
				}
				return nil, nil, illegalEmatch()
			}
			hdr.Kind = uint16(id)
			if k.parse == nil {
				fmt.Fprintf(w, "gotc does not support the %s ematch\n", name)
				return nil, nil, illegalEmatch()
			}
			p.kind = k
			payload, ok := k.parse(p, t.args[1:])
			if !ok {
				return nil, nil, illegalEmatch()
			}
			data = append(hdr.Append(nil), payload...)
		}
		list.Attr(uint16(i), data)
	}
	tree := &attrs.EmatchAttrs{
		TreeHdr:  &attrs.TCFEmatchTreeHdr{Nmatches: uint16(n)},
		TreeList: list.Bytes(),
	}
	return tree, rest, nil
}

// flattenEmatch turns the tree into tc's list: the sequence of seq, then,
// as each container is reached, its sub-expression's sequence appended at
// the end of the list from head; it numbers the list and returns how many
// terms seq's sequence and its sub-expressions hold.
func flattenEmatch(head, seq *emNode) int {
	count := 0
	for t := seq; ; t = t.next {
		count++
		if t.child != nil {
			last := head
			for last.next != nil {
				last = last.next
			}
			last.next = t.child
			count += flattenEmatch(head, t.child)
		}
		if t.relation == 0 {
			break
		}
	}
	i := 0
	for t := head; t != nil; t = t.next {
		t.index = i
		i++
	}
	for t := head; t != nil; t = t.next {
		if t.child != nil {
			t.childRef = uint32(t.child.index)
		}
	}
	return count
}

// PrintEmatch prints a dumped tree as tc's print_ematch does, with fprintf
// beside its JSON writer: the same text in JSON mode, inside the JSON.
func PrintEmatch(p *tcfmt.Printer, t *attrs.EmatchAttrs) {
	if t == nil || t.TreeHdr == nil || t.TreeList == nil || t.TreeHdr.Nmatches == 0 {
		return
	}
	n := int(t.TreeHdr.Nmatches)
	matches := make([][]byte, n+1)
	_ = attrs.ForEach(t.TreeList, func(typ uint16, data []byte) {
		if int(typ) <= n {
			matches[typ] = data
		}
	})
	var b strings.Builder
	b.WriteString("\n  ")
	printEmatchSeq(&b, matches, 1, 1)
	p.Verbatim(b.String())
}

// printEmatchSeq prints the sequence that starts at match i, its
// sub-expressions indented by prefix; false where tc gives up.
func printEmatchSeq(b *strings.Builder, matches [][]byte, i, prefix int) bool {
	for ; i < len(matches); i++ {
		m := matches[i]
		if len(m) < attrs.TCFEmatchHdrLen {
			return false
		}
		var hdr attrs.TCFEmatchHdr
		_ = hdr.Decode(m)
		data := m[attrs.TCFEmatchHdrLen:]
		if hdr.Flags&emInvert != 0 {
			b.WriteString("NOT ")
		}
		if hdr.Kind == 0 {
			if len(data) < 4 {
				return false
			}
			// The kernel takes only references forward.
			ref := int(binary.NativeEndian.Uint32(data))
			if ref+1 <= i {
				return false
			}
			b.WriteString("(\n" + strings.Repeat("  ", prefix+1))
			if !printEmatchSeq(b, matches, ref+1, prefix+1) {
				return false
			}
			b.WriteString(strings.Repeat("  ", prefix) + ") ")
		} else {
			k := dumpedEmatchKind(hdr.Kind)
			if k == nil {
				fmt.Fprintf(b, "[unknown ematch %d]\n", hdr.Kind)
			} else {
				b.WriteString(k.name + "(")
				if !k.print(b, data) {
					return false
				}
				b.WriteString(")\n")
			}
			if hdr.Flags&emRelMask != 0 {
				b.WriteString(strings.Repeat("  ", prefix))
			}
		}
		switch hdr.Flags & emRelMask {
		case emRelAnd:
			b.WriteString("AND ")
		case emRelOr:
			b.WriteString("OR ")
		default:
			return true
		}
	}
	return false
}

// dumpedEmatchKind is the kind the map names for a dumped number, nil
// when gotc cannot print it.
func dumpedEmatchKind(num uint16) *ematchKind {
	_, name, err := lookupEmatchMap(func(id int64, _ string) bool { return id == int64(num) }, io.Discard)
	if err != nil {
		return nil
	}
	if k := ematchKinds[name]; k != nil && k.print != nil {
		return k
	}
	return nil
}

// Keywords writes a dumped tree back as the words "match EXPR" that ask
// for it again, EXPR in one word; none for an empty tree (what basic
// dumps without matches). The words are checked by reading them as
// ParseEmatch does: tc's parser gives some trees no words (the quoted
// strings of one expression share its buffer; sub-expressions are laid
// out in tc's order only), and those are refused. A filter must put
// another of its words after them: tc gives the word after the
// expression back to the filter, and the expression's own last one when
// it ends the command.
func Keywords(t *attrs.EmatchAttrs) ([]string, error) {
	if t == nil || (t.TreeHdr == nil || t.TreeHdr.Nmatches == 0) && len(t.TreeList) == 0 {
		return nil, nil
	}
	if t.TreeHdr == nil {
		return nil, tckind.NoKeywords("ematch list without its header")
	}
	n := int(t.TreeHdr.Nmatches)
	matches := make([][]byte, n+1)
	if attrs.ForEach(t.TreeList, func(typ uint16, data []byte) {
		if typ >= 1 && int(typ) <= n {
			matches[typ] = data
		}
	}) != nil {
		return nil, tckind.NoKeywords("ematch list that does not decode")
	}
	var b strings.Builder
	if err := writeEmatchSeq(&b, matches, 1); err != nil {
		return nil, err
	}
	expr := b.String()
	back, _, err := ParseEmatch([]string{expr}, io.Discard)
	if err != nil || back == nil || *back.TreeHdr != *t.TreeHdr || string(back.TreeList) != string(t.TreeList) {
		return nil, tckind.NoKeywords("ematch tree that tc's words do not give back: " + expr)
	}
	return []string{"match", expr}, nil
}

// writeEmatchSeq writes the sequence that starts at match i as tc's
// expression: each term, its relation to the next, and a container's
// sub-expression in parentheses.
func writeEmatchSeq(b *strings.Builder, matches [][]byte, i int) error {
	for ; i < len(matches); i++ {
		m := matches[i]
		if len(m) < attrs.TCFEmatchHdrLen {
			return tckind.NoKeywords(fmt.Sprintf("ematch %d missing", i))
		}
		var hdr attrs.TCFEmatchHdr
		_ = hdr.Decode(m)
		data := m[attrs.TCFEmatchHdrLen:]
		if hdr.Flags&^(emRelMask|emInvert) != 0 || hdr.Flags&emRelMask == emRelMask {
			return tckind.NoKeywords(fmt.Sprintf("ematch flags %#x", hdr.Flags))
		}
		if hdr.Flags&emInvert != 0 {
			b.WriteString("not ")
		}
		if hdr.Kind == 0 {
			// The kernel takes only references forward, which also
			// ends the recursion.
			if len(data) != 4 || int(binary.NativeEndian.Uint32(data))+1 <= i {
				return tckind.NoKeywords("ematch container without a reference forward")
			}
			b.WriteByte('(')
			if err := writeEmatchSeq(b, matches, int(binary.NativeEndian.Uint32(data))+1); err != nil {
				return err
			}
			b.WriteByte(')')
		} else {
			k := dumpedEmatchKind(hdr.Kind)
			if k == nil || k.write == nil {
				return tckind.NoKeywords(fmt.Sprintf("ematch kind %d", hdr.Kind))
			}
			b.WriteString(k.name + "(")
			if !k.write(b, data) {
				return tckind.NoKeywords(fmt.Sprintf("%s ematch data %x", k.name, data))
			}
			b.WriteByte(')')
		}
		switch hdr.Flags & emRelMask {
		case emRelAnd:
			b.WriteString(" and ")
		case emRelOr:
			b.WriteString(" or ")
		default:
			return nil
		}
	}
	return tckind.NoKeywords("ematch sequence that runs past the list")
}

// writeEmString writes an argument's bytes in the form the lexer reads
// them back: with plain, a plain word when it holds only what a word can
// (a quoted one shares the expression's buffer), else quoted, with C's
// escapes for the quote, the backslash and what is not printable.
func writeEmString(b *strings.Builder, s []byte, plain bool) {
	plain = plain && len(s) > 0 && !strings.EqualFold(string(s), "and") && !strings.EqualFold(string(s), "or") && !strings.EqualFold(string(s), "not")
	for _, c := range s {
		if c <= ' ' || c >= 0x7f || c == '(' || c == ')' || c == '"' {
			plain = false
		}
	}
	if plain {
		b.Write(s)
		return
	}
	b.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < ' ' || c >= 0x7f:
			fmt.Fprintf(b, "\\x%02x", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}

// Operands of cmp and meta (TCF_EM_OPND_*).
const (
	emOpndEq = 0
	emOpndGt = 1
	emOpndLt = 2
)

// emOperand reads eq, gt or lt.
func emOperand(a *emArg) (uint8, bool) {
	switch {
	case a.is("eq"):
		return emOpndEq, true
	case a.is("gt"):
		return emOpndGt, true
	case a.is("lt"):
		return emOpndLt, true
	}
	return 0, false
}

// emAlign reads u8, u16 or u32 as a size in bytes.
func emAlign(a *emArg) uint8 {
	switch {
	case a.is("u8"):
		return 1
	case a.is("u16"):
		return 2
	case a.is("u32"):
		return 4
	}
	return 0
}

// emAlignNames are the words of cmp's and u32's sizes, by size in bytes.
var emAlignNames = map[uint8]string{1: "u8", 2: "u16", 4: "u32"}

// emOperandNames are the words of the operands, by TCF_EM_OPND_*.
var emOperandNames = []string{emOpndEq: "eq", emOpndGt: "gt", emOpndLt: "lt"}
