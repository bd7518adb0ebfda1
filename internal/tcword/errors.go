// SPDX-License-Identifier: Apache-2.0

// Package tcword holds what every family of kinds shares to read tc's words
// and write them back: the parse error and tc's messages, keyword loops,
// numbers, rates and rate tables, times, sizes, addresses, clock ids, and
// shares of a device's speed. Package tckind exports ParseError.
package tcword

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
	// Code is the status tc exits with; 0 means tc's usual 1. tc exits 255
	// where a shared helper gives up (a keyword missing its value, a
	// duplicate keyword).
	Code int
}

// Error is the message tc prints, without its usage.
func (e *ParseError) Error() string { return e.Msg }

// ExitCode is the status tc exits with after this error.
func (e *ParseError) ExitCode() int {
	if e.Code == 0 {
		return 1
	}
	return e.Code
}

// IncompleteCommand is tc's NEXT_ARG failure: a keyword that needs a value
// ended the line. tc prints this and exits 255, without the kind's usage.
func IncompleteCommand() *ParseError {
	return &ParseError{Msg: `Command line is not complete. Try option "help"`, Code: 255}
}

// Errorf builds a ParseError with tc's message.
func Errorf(format string, args ...any) *ParseError {
	return &ParseError{Msg: fmt.Sprintf(format, args...)}
}

// UsageErrorf builds a ParseError after which tc prints the kind's usage.
func UsageErrorf(format string, args ...any) *ParseError {
	return &ParseError{Msg: fmt.Sprintf(format, args...), ShowUsage: true}
}

// DuplicateArgument is tc's duparg, for a keyword given twice: the message
// names the keyword and the value after its second use, and tc exits 255.
func DuplicateArgument(key, arg string) *ParseError {
	return &ParseError{Msg: fmt.Sprintf(`Error: duplicate "%s": "%s" is the second value.`, key, arg), Code: 255}
}

// InvalidArgument is tc's invarg: the message and exit status 255.
func InvalidArgument(arg, msg string) *ParseError {
	return &ParseError{Msg: fmt.Sprintf("Error: argument %q is wrong: %s", arg, msg), Code: 255}
}
