// SPDX-License-Identifier: Apache-2.0

package bpfprog

// The bpf filter (net/sched/cls_bpf.c) and the bpf action
// (net/sched/act_bpf.c): a classic BPF program given as tc's bytecode
// string (or a file of it), or an eBPF program from an ELF object or
// pinned in the BPF file system, as tc 7.3's f_bpf.c, m_bpf.c and
// lib/bpf_legacy.c read and print them.
//
// gotc loads an object's program with cilium/ebpf, where tc has a loader
// of its own; both give the kernel the program's function name, so what
// the kernel knows of the program (its name, its tag, a hash of the
// instructions) is the same but for its id. tc's map pinning (its struct bpf_elf_map's
// pinning field, /sys/fs/bpf/tc/globals) and "export" of the maps to an
// agent are not done: the maps are created for the program alone.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
)

// bpfMaxInsns is BPF_MAXINSNS: the longest classic program.
const bpfMaxInsns = 4096

// Program is a program as tc's bpf_do_parse reads it: classic
// instructions, or an eBPF program's fd and the name tc gives it.
type Program struct {
	Ops  []attrs.SockFilter
	FD   int
	Name string
	EBPF bool
	// Object is set for a program from an ELF object, which tc loads
	// after it has read the command line (a pinned one it opens while
	// it reads).
	Object bool
}

// Parse is bpf_do_parse and bpf_load_common for a filter or
// action, whose default section and program type are section and typ:
// args[0] names the mode
// (bytecode, bytecode-file, object-file, object-pinned). It returns the
// program and the words after those it read. Errors carry what tc prints
// before it gives up (perhaps nothing).
func Parse(args []string, section string, typ bpfProgType) (Program, []string, error) {
	var prog Program
	w := args[0]
	mode := ""
	switch {
	case tcfmt.Matches(w, "bytecode"), w == "bc":
		mode = "bytecode"
	case tcfmt.Matches(w, "bytecode-file"), w == "bcf":
		mode = "bytecode-file"
	case tcfmt.Matches(w, "object-file"):
		mode = "object-file"
	case tcfmt.Matches(w, "object-pinned"), tcfmt.Matches(w, "pinned"), tcfmt.Matches(w, "fd"):
		mode = "object-pinned"
	default:
		return prog, args, tcword.Errorf("What mode is \"%s\"?", w)
	}
	if len(args) < 2 {
		return prog, args, tcword.IncompleteCommand()
	}
	args = args[1:]
	if mode == "bytecode" || mode == "bytecode-file" {
		s := args[0]
		if mode == "bytecode-file" {
			b, err := readBPFBytecodeFile(s)
			if err != nil {
				return prog, args, err
			}
			s = b
		}
		ops, err := ParseBytecode(s)
		if err != nil {
			return prog, args, err
		}
		prog.Ops = ops
		return prog, args[1:], nil
	}
	file := args[0]
	args = args[1:]
	if len(args) > 0 && tcfmt.Matches(args[0], "section") {
		if len(args) < 2 {
			return prog, args, tcword.IncompleteCommand()
		}
		section = args[1]
		args = args[2:]
	}
	progName := ""
	if len(args) > 0 && args[0] == "program" {
		if len(args) < 2 {
			return prog, args, tcword.IncompleteCommand()
		}
		progName = args[1]
		args = args[2:]
	}
	if len(args) > 0 && os.Getenv("TC_BPF_UDS") == "" && tcfmt.Matches(args[0], "export") {
		if len(args) < 2 {
			return prog, args, tcword.IncompleteCommand()
		}
		args = args[2:]
	}
	if len(args) > 0 && tcfmt.Matches(args[0], "verbose") {
		args = args[1:]
	}
	prog.EBPF = true
	if mode == "object-file" {
		prog.Object = true
		fd, err := LoadObject(file, section, progName, typ)
		if err != nil {
			return prog, args, err
		}
		prog.FD = fd
		prog.Name = filepath.Base(file) + ":[" + section + "]"
		return prog, args, nil
	}
	fd, err := bpfObjPinned(bpfPinnedPath(file))
	if err != nil {
		return prog, args, tcword.Errorf("Couldn't retrieve pinned program '%s': %s", file, errnoText(err))
	}
	prog.FD = fd
	prog.Name = filepath.Base(file) + ":[*fsobj]"
	return prog, args, nil
}

// bpfPinnedPath is bpf_obj_get's reading of "m:NAME": NAME under tc's
// BPF file system directory for the kind's programs. gotc takes the
// directory tc's default mount gives (/sys/fs/bpf/tc).
func bpfPinnedPath(file string) string {
	if len(file) > 2 && strings.HasPrefix(file, "m:") {
		return "/sys/fs/bpf/tc/" + file[2:]
	}
	return file
}

// LoadObject loads an ELF object's program; an object that cannot be
// opened is refused as tc refuses it.
func LoadObject(file, section, progName string, typ bpfProgType) (int, error) {
	f, err := os.Open(file)
	if err != nil {
		return -1, tcword.Errorf("Error opening object %s: %s\nCannot initialize ELF context!", file, errnoText(err))
	}
	f.Close()
	if objectLoader == nil {
		return -1, tcword.Errorf("No ELF library support compiled in.")
	}
	fd, err := objectLoader(file, section, progName, typ == ProgSchedACT)
	if err != nil {
		return -1, tcword.Errorf("%s", err)
	}
	return fd, nil
}

// ObjectLoader loads the program of an eBPF ELF object for "bpf obj FILE"
// (the filter's and the action's): the program named prog if prog is not
// empty, else the one in section, as a SCHED_ACT program for the action
// (forAction) or SCHED_CLS for the filter. It returns a descriptor of the
// loaded program, which the request then names; the text of its error is
// what tc prints for the same failure. bpfobj.Load is one.
type ObjectLoader func(file, section, prog string, forAction bool) (fd int, err error)

// objectLoader loads ELF objects; nil refuses them as a tc built without
// ELF support does.
var objectLoader ObjectLoader

// SetObjectLoader sets how ELF objects are loaded; nil, the default,
// refuses them with tc's "No ELF library support compiled in.". The
// parser stays free of an ELF loader, whose initialisation every start of
// a short command would pay for: a program installs the loader it wants
// (bpfobj.Load in its own process; gotc runs gotc-bpf). Not safe while
// lines are parsed.
func SetObjectLoader(l ObjectLoader) { objectLoader = l }

// bpfProgType is the program type a kind's programs are loaded as.
type bpfProgType int

const (
	ProgSchedCLS bpfProgType = iota // BPF_PROG_TYPE_SCHED_CLS, for the filter
	ProgSchedACT                    // BPF_PROG_TYPE_SCHED_ACT, for the action
)

// errnoText is strerror of the errno under err.
func errnoText(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		s := errno.Error()
		if s != "" {
			return strings.ToUpper(s[:1]) + s[1:]
		}
	}
	return err.Error()
}

// bpfBytecodeFileMax is the longest text tc reads from a bytecode file:
// "4096," and BPF_MAXINSNS instructions of the longest form.
const bpfBytecodeFileMax = len("4096,") + 1 + bpfMaxInsns*(len("65535 255 255 4294967295,")+1)

// readBPFBytecodeFile reads a bytecode file as bpf_parse_string does: a
// line end becomes a comma (one for a run of them), a run of blanks one
// blank.
func readBPFBytecodeFile(name string) (string, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return "", tcword.Errorf("Cannot fopen: %s", errnoText(err))
	}
	var b strings.Builder
	prev := byte(' ')
	for _, c := range data {
		switch c {
		case '\n':
			if prev != ',' {
				b.WriteByte(',')
			}
			prev = ','
		case ' ', '\t':
			if prev != ' ' {
				b.WriteByte(c)
			}
			prev = ' '
		default:
			b.WriteByte(c)
			prev = c
		}
		if b.Len() == bpfBytecodeFileMax {
			// tc stops short of the end and refuses the file.
			return "", tcword.Errorf("")
		}
	}
	return b.String(), nil
}

// scanUint is C's sscanf %u family on s (strtoul's reading, the value
// cut to bits); rest is what follows. ok is false without digits.
func scanUint(s string, bits int) (v uint64, rest string, ok bool) {
	v, n, _ := tcfmt.Strtoul(s, 10)
	if n == 0 {
		return 0, s, false
	}
	if bits < 64 {
		v &= 1<<bits - 1
	}
	return v, s[n:], true
}

// ParseBytecode is bpf_ops_parse: "N,c t f k,c t f k,..." with N the
// number of instructions.
func ParseBytecode(s string) ([]attrs.SockFilter, error) {
	n, rest, ok := scanUint(s, 16)
	if !ok || rest == "" || rest[0] != ',' {
		return nil, tcword.Errorf("")
	}
	if n == 0 || n > bpfMaxInsns {
		return nil, tcword.Errorf("")
	}
	var ops []attrs.SockFilter
	tok := s
	for {
		i := strings.IndexByte(tok, ',')
		if i < 0 || i+1 == len(tok) {
			break
		}
		tok = tok[i+1:]
		if len(ops) >= int(n) {
			return nil, tcword.Errorf("Real program length exceeds encoded length parameter!")
		}
		var f [4]uint64
		r, good := tok, true
		for j, bits := range []int{16, 8, 8, 32} {
			f[j], r, ok = scanUint(r, bits)
			good = good && ok
			if !good {
				break
			}
		}
		if !good {
			return nil, tcword.Errorf("Error at instruction %d!", len(ops))
		}
		ops = append(ops, attrs.SockFilter{Code: uint16(f[0]), Jt: uint8(f[1]), Jf: uint8(f[2]), K: uint32(f[3])})
	}
	if len(ops) != int(n) {
		return nil, tcword.Errorf("Parsed program length is less than encoded length parameter!")
	}
	return ops, nil
}

// OpsBytes is a program's instructions as the kernel takes them.
func OpsBytes(ops []attrs.SockFilter) []byte {
	b := make([]byte, 0, 8*len(ops))
	for _, op := range ops {
		b = binary.NativeEndian.AppendUint16(b, op.Code)
		b = append(b, op.Jt, op.Jf)
		b = binary.NativeEndian.AppendUint32(b, op.K)
	}
	return b
}

// BytecodeWord writes a dumped classic program (n instructions of ops)
// as the bytecode string ParseBytecode reads; false when ops does not
// hold them or there are none or more than a program may have.
func BytecodeWord(ops []byte, n uint16) (string, bool) {
	if n == 0 || n > bpfMaxInsns || len(ops) != 8*int(n) {
		return "", false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d", n)
	for i := 0; i < len(ops); i += 8 {
		op := ops[i:]
		fmt.Fprintf(&b, ",%d %d %d %d", binary.NativeEndian.Uint16(op), op[2], op[3], binary.NativeEndian.Uint32(op[4:]))
	}
	return b.String(), true
}

// PrintOps is bpf_print_ops: the instructions as tc's bytecode string
// (in JSON an object of the length and the instructions).
func PrintOps(p *tcfmt.Printer, ops []byte, n uint16) {
	if n == 0 || len(ops) < 8*int(n) {
		return
	}
	p.OpenObject("bytecode")
	p.Uint(tcfmt.Any, "length", "bytecode '%u,", uint64(n))
	p.OpenArray(tcfmt.JSON, "insns")
	for i := range int(n) {
		op := ops[8*i:]
		p.OpenObject("")
		p.Uint(tcfmt.Any, "code", "%u ", uint64(binary.NativeEndian.Uint16(op)))
		p.Uint(tcfmt.Any, "jt", "%u ", uint64(op[2]))
		p.Uint(tcfmt.Any, "jf", "%u ", uint64(op[3]))
		end := "%u,"
		if i == int(n)-1 {
			end = "%u'"
		}
		p.Uint(tcfmt.Any, "k", end, uint64(binary.NativeEndian.Uint32(op[4:])))
		p.CloseObject()
	}
	p.CloseArray(tcfmt.JSON, "")
	p.CloseObject()
}

// bpfProgInfo is what tc prints of struct bpf_prog_info.
type bpfProgInfo struct {
	name     string
	tag      [8]byte
	jited    bool
	loadTime uint64
	uid      uint32
	btfID    uint32
}

// PrintProg is bpf_dump_prog_info, and the tag the kernel dumped when
// the program cannot be read (gotc and tc alike need the rights to open
// it by its id).
func PrintProg(p *tcfmt.Printer, id *uint32, tag []byte) {
	ok := false
	if id != nil {
		p.OpenObject("prog")
		p.Uint(tcfmt.Any, "id", "id %u ", uint64(*id))
		var info bpfProgInfo
		if info, ok = bpfProgInfoByID(*id); ok {
			p.String(tcfmt.Any, "name", "name %s ", info.name)
			p.String(tcfmt.Any, "tag", "tag %s ", fmt.Sprintf("%x", info.tag))
			jited := uint64(0)
			if info.jited {
				jited = 1
			}
			p.Uint(tcfmt.JSON, "jited", "", jited)
			if info.jited {
				p.Text("jited ")
			}
			if p.Details() {
				if info.loadTime != 0 {
					p.Uint(tcfmt.Any, "load_time", "load_time %u ", info.loadTime)
					p.Uint(tcfmt.Any, "created_by_uid", "created_by_uid %u ", uint64(info.uid))
				}
				if info.btfID != 0 {
					p.Uint(tcfmt.Any, "btf_id", "btf_id %u ", uint64(info.btfID))
				}
			}
		}
		p.CloseObject()
	}
	if !ok && tag != nil {
		p.String(tcfmt.Any, "tag", "tag %s ", fmt.Sprintf("%x", tag))
	}
}
