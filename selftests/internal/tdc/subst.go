// SPDX-License-Identifier: Apache-2.0

package tdc

import "strings"

// Substitute expands $NAME and ${NAME} from vars the way Python's
// string.Template.safe_substitute does, which is what tdc.py applies to
// every command:
//   - "$$" becomes "$";
//   - a name is [_A-Za-z][_A-Za-z0-9]* (ASCII only), taken greedily, so
//     "$DEV0x" looks up "DEV0x";
//   - a name missing from vars is left as written, "$NAME" or "${NAME}",
//     for the shell to expand;
//   - a "$" not followed by a name, "{name}" or "$" is left alone.
func Substitute(s string, vars map[string]string) string {
	// tdc.py only substitutes when the command contains a "$"; without one
	// there is nothing to do either way.
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '$' {
			b.WriteByte(s[i])
			i++
			continue
		}
		rest := s[i+1:]
		switch {
		case strings.HasPrefix(rest, "$"):
			b.WriteByte('$')
			i += 2
		case strings.HasPrefix(rest, "{"):
			n := identLen(rest[1:])
			if n > 0 && len(rest) > 1+n && rest[1+n] == '}' {
				name := rest[1 : 1+n]
				if v, ok := vars[name]; ok {
					b.WriteString(v)
				} else {
					b.WriteString(s[i : i+3+n])
				}
				i += 3 + n
				continue
			}
			b.WriteByte('$')
			i++
		default:
			n := identLen(rest)
			if n == 0 {
				b.WriteByte('$')
				i++
				continue
			}
			name := rest[:n]
			if v, ok := vars[name]; ok {
				b.WriteString(v)
			} else {
				b.WriteString(s[i : i+1+n])
			}
			i += 1 + n
		}
	}
	return b.String()
}

// identLen returns the length of the Python Template identifier at the start
// of s, or 0.
func identLen(s string) int {
	n := 0
	for n < len(s) {
		c := s[n]
		letter := c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
		digit := '0' <= c && c <= '9'
		if !letter && !(digit && n > 0) {
			break
		}
		n++
	}
	return n
}

// Normalize collapses every run of whitespace to one space and trims both
// ends. nsPlugin does this to every command it wraps (command.split() then
// ' '.join(...)), so a test written for tdc.py sees, for example, a newline
// in a command turn into a space and "a  b" inside quotes become "a b".
func Normalize(cmd string) string {
	return strings.Join(strings.Fields(cmd), " ")
}
