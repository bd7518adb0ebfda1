// SPDX-License-Identifier: Apache-2.0

package tcline

import (
	"errors"
	"strings"
)

// maxWords is one more than the most words tc (7.3, measured) takes in one
// command of a batch.
const maxWords = 512

// SplitWords splits a command line into words as tc's makeargs does for
// its batch files: blanks (space, tab, CR, LF) separate words; a word that
// starts with a double or single quote runs to the next such quote,
// blanks included, and ends there; quotes elsewhere are part of the word.
// It fails with tc's messages.
func SplitWords(line string) ([]string, error) {
	args := make([]string, 0, 16)
	for i := 0; ; {
		for i < len(line) && isBlank(line[i]) {
			i++
		}
		if i == len(line) {
			return args, nil
		}
		if len(args) >= maxWords-1 {
			return nil, errors.New("Too many arguments to command") //lint:ignore ST1005 tc's message, printed as it is
		}
		if q := line[i]; q == '"' || q == '\'' {
			end := strings.IndexByte(line[i+1:], q)
			if end < 0 {
				return nil, errors.New("Unterminated quoted string") //lint:ignore ST1005 tc's message, printed as it is
			}
			args = append(args, line[i+1:i+1+end])
			i += end + 2
			continue
		}
		start := i
		for i < len(line) && !isBlank(line[i]) {
			i++
		}
		args = append(args, line[start:i])
	}
}

// JoinWords writes words as one line that SplitWords reads back as them:
// a word that is empty, holds a blank or starts with a quote is quoted
// with a quote it does not hold (a classic BPF program's bytecode, an
// ematch expression). A word with blanks and both quotes has no such
// form; it is written as it is.
func JoinWords(words []string) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(quoteWord(w))
	}
	return b.String()
}

func quoteWord(w string) string {
	if w != "" && !strings.ContainsAny(w, " \t\r\n") && w[0] != '"' && w[0] != '\'' {
		return w
	}
	for _, q := range []string{"'", `"`} {
		if !strings.Contains(w, q) {
			return q + w + q
		}
	}
	return w
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
