// SPDX-License-Identifier: Apache-2.0

package tcword

// The option loop most of tc's qdisc parsers share, and the readers of the
// values their keywords take, each with tc's message for a bad value.

import "github.com/gotc/gotc/tcfmt"

// ValueFunc is tc's NEXT_ARG for one keyword: the word after it, or the
// error tc exits 255 with when the keyword ended the line.
type ValueFunc func() (string, error)

// ParseWords runs tc's option loop over args: word gets each keyword and a
// valueFunc reading the word after it, and reports false for a keyword it
// does not know. Such a word ends the parse as tc's parsers end it: "help"
// with the usage alone, anything else with `What is "WORD"?` and the usage.
func ParseWords(args []string, word func(kw string, value ValueFunc) (bool, error)) error {
	for i := 0; i < len(args); i++ {
		kw := args[i]
		value := func() (string, error) {
			if i+1 >= len(args) {
				return "", IncompleteCommand()
			}
			i++
			return args[i], nil
		}
		ok, err := word(kw, value)
		if err != nil {
			return err
		}
		if ok {
			continue
		}
		if kw == "help" {
			return &ParseError{ShowUsage: true}
		}
		// tc quotes the word as is, without escaping.
		return UsageErrorf("What is \"%s\"?", kw)
	}
	return nil
}

// UintArg reads kw's value as tc's get_unsigned(base 0) does: a 32-bit
// number in decimal, hex or octal; otherwise `Illegal "KW"`.
func UintArg(kw string, value ValueFunc) (uint32, error) {
	v, err := value()
	if err != nil {
		return 0, err
	}
	n, perr := tcfmt.ParseUint(v, 0, 32)
	if perr != nil {
		return 0, Errorf("Illegal %q", kw)
	}
	return uint32(n), nil
}

// TimeArg reads kw's value as tc's get_time does, in microseconds;
// otherwise `Illegal "KW"`.
func TimeArg(kw string, value ValueFunc) (uint32, error) {
	v, err := value()
	if err != nil {
		return 0, err
	}
	t, perr := tcfmt.ParseTime(v)
	if perr != nil {
		return 0, Errorf("Illegal %q", kw)
	}
	return t, nil
}

// SizeArg reads kw's value as tc's get_size does, in bytes; otherwise
// `Illegal "KW"`.
func SizeArg(kw string, value ValueFunc) (uint32, error) {
	v, err := value()
	if err != nil {
		return 0, err
	}
	n, perr := tcfmt.ParseSize(v)
	if perr != nil {
		return 0, Errorf("Illegal %q", kw)
	}
	return n, nil
}

// SwitchArg is one of tc's on/off keyword pairs ("ecn"/"noecn"): -1 until
// either is given, then 1 or 0, the last one winning.
type SwitchArg int

// SwitchUnset is a pair neither of whose words was given.
const SwitchUnset SwitchArg = -1

// Attr is the u32 attribute tc sends for the pair: none unless one was
// given.
func (s SwitchArg) Attr() *uint32 {
	if s == SwitchUnset {
		return nil
	}
	v := uint32(s)
	return &v
}

// PtrTo returns a pointer to a copy of v.
func PtrTo[T any](v T) *T { return &v }

// NonZero is a u32 attribute that tc sends only when it is not 0, its
// "not given": nil for 0.
func NonZero(v uint32) *uint32 {
	if v == 0 {
		return nil
	}
	return &v
}

// DevName is the device name tc looks up for the word after "dev": tc
// copies it into a buffer of IFNAMSIZ bytes, so a longer word is cut to
// its first 15 characters, as the kernel's names are.
func DevName(word string) string {
	const maxLen = 15 // IFNAMSIZ less the NUL
	if len(word) > maxLen {
		return word[:maxLen]
	}
	return word
}
