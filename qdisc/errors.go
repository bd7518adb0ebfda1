// Package qdisc holds what gotc knows about each qdisc kind, one file per kind:
// the tc keywords that build its options and the text and JSON that tc prints for
// its options and statistics.
package qdisc

import "fmt"

// ParseError is a bad keyword or value in a qdisc's options. tc prints such
// errors (and, for some of them, the kind's usage) and exits with status 1
// without sending anything to the kernel.
type ParseError struct {
	// Msg is the message exactly as tc prints it, without the trailing newline.
	Msg string
	// ShowUsage is set when tc follows the message with the kind's usage text.
	ShowUsage bool
	// NoNewline is set for the few messages tc prints without a line end.
	NoNewline bool
}

func (e *ParseError) Error() string { return e.Msg }

// errorf builds a ParseError with tc's message.
func errorf(format string, args ...any) *ParseError {
	return &ParseError{Msg: fmt.Sprintf(format, args...)}
}

// usageErrorf builds a ParseError after which tc prints the kind's usage.
func usageErrorf(format string, args ...any) *ParseError {
	return &ParseError{Msg: fmt.Sprintf(format, args...), ShowUsage: true}
}
