package bpfprog

import (
	"encoding/binary"
	"strconv"
	"strings"
)

// BytecodeWord writes a classic program's instructions as dumped (n of
// them in ops, as OpsBytes makes them) in the form ParseBytecode reads,
// the word after "bytecode"; ok is false when ops holds fewer or n is
// none or more than a program may have.
func BytecodeWord(ops []byte, n uint16) (word string, ok bool) {
	if n == 0 || n > bpfMaxInsns || len(ops) != 8*int(n) {
		return "", false
	}
	var b strings.Builder
	b.WriteString(strconv.Itoa(int(n)))
	for i := range int(n) {
		op := ops[8*i:]
		b.WriteString("," + strconv.Itoa(int(binary.NativeEndian.Uint16(op))) +
			" " + strconv.Itoa(int(op[2])) + " " + strconv.Itoa(int(op[3])) +
			" " + strconv.FormatUint(uint64(binary.NativeEndian.Uint32(op[4:])), 10))
	}
	return b.String(), true
}
