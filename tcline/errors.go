// SPDX-License-Identifier: Apache-2.0

package tcline

import (
	"errors"
	"fmt"
	"io"

	"github.com/gotc/gotc/tckind"
)

// KindError is a kind's refusal of its options, with the kind's usage,
// which tc prints after the message when the refusal asks for it (a
// *tckind.ParseError with ShowUsage).
type KindError struct {
	Err   error
	Usage string
}

// Error is the kind's message; the usage is printed apart.
func (e *KindError) Error() string { return e.Err.Error() }

// Unwrap is the kind's refusal itself.
func (e *KindError) Unwrap() error { return e.Err }

// PrintError prints a refused command line as tc does and returns the
// status tc exits with: a *tckind.ParseError's message (and the kind's
// usage after it, for a KindError that asks for it) and status, or any
// other error's text and the status it carries (an ExitCode method), else
// 1.
func PrintError(w io.Writer, err error) (status int) {
	var perr *tckind.ParseError
	if errors.As(err, &perr) {
		io.WriteString(w, perr.Msg)
		if perr.Msg != "" && !perr.NoNewline {
			fmt.Fprintln(w)
		}
		var kerr *KindError
		if perr.ShowUsage && errors.As(err, &kerr) && kerr.Usage != "" {
			fmt.Fprintln(w, kerr.Usage)
		}
	} else {
		fmt.Fprintln(w, err)
	}
	var coder interface{ ExitCode() int }
	if errors.As(err, &coder) {
		return coder.ExitCode()
	}
	return 1
}
