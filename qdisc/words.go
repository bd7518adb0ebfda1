package qdisc

// The option loop most of tc's qdisc parsers share, and the readers of the
// values their keywords take, each with tc's message for a bad value.

import "github.com/gotc/gotc/tcfmt"

// valueFunc is tc's NEXT_ARG for one keyword: the word after it, or the
// error tc exits 255 with when the keyword ended the line.
type valueFunc func() (string, error)

// parseWords runs tc's option loop over args: word gets each keyword and a
// valueFunc reading the word after it, and reports false for a keyword it
// does not know. Such a word ends the parse as tc's parsers end it: "help"
// with the usage alone, anything else with `What is "WORD"?` and the usage.
func parseWords(args []string, word func(kw string, value valueFunc) (bool, error)) error {
	for i := 0; i < len(args); i++ {
		kw := args[i]
		value := func() (string, error) {
			if i+1 >= len(args) {
				return "", incompleteCommand()
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
		return usageErrorf("What is \"%s\"?", kw)
	}
	return nil
}

// uintArg reads kw's value as tc's get_unsigned(base 0) does: a 32-bit
// number in decimal, hex or octal; otherwise `Illegal "KW"`.
func uintArg(kw string, value valueFunc) (uint32, error) {
	v, err := value()
	if err != nil {
		return 0, err
	}
	n, perr := tcfmt.ParseUint(v, 0, 32)
	if perr != nil {
		return 0, errorf("Illegal %q", kw)
	}
	return uint32(n), nil
}

// timeArg reads kw's value as tc's get_time does, in microseconds;
// otherwise `Illegal "KW"`.
func timeArg(kw string, value valueFunc) (uint32, error) {
	v, err := value()
	if err != nil {
		return 0, err
	}
	t, perr := tcfmt.ParseTime(v)
	if perr != nil {
		return 0, errorf("Illegal %q", kw)
	}
	return t, nil
}

// sizeArg reads kw's value as tc's get_size does, in bytes; otherwise
// `Illegal "KW"`.
func sizeArg(kw string, value valueFunc) (uint32, error) {
	v, err := value()
	if err != nil {
		return 0, err
	}
	n, perr := tcfmt.ParseSize(v)
	if perr != nil {
		return 0, errorf("Illegal %q", kw)
	}
	return n, nil
}

// switchArg is one of tc's on/off keyword pairs ("ecn"/"noecn"): -1 until
// either is given, then 1 or 0, the last one winning.
type switchArg int

const switchUnset switchArg = -1

// attr is the u32 attribute tc sends for the pair: none unless one was
// given.
func (s switchArg) attr() *uint32 {
	if s == switchUnset {
		return nil
	}
	v := uint32(s)
	return &v
}

// ptrTo returns a pointer to a copy of v.
func ptrTo[T any](v T) *T { return &v }
