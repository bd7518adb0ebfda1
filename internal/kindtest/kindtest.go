// SPDX-License-Identifier: Apache-2.0

// Package kindtest holds what the tests of more than one family of kinds
// share.
package kindtest

import (
	"bytes"

	"github.com/gotc/gotc/tcfmt"
)

// Render runs fn against a Printer the way a qdisc listing does and
// returns what it wrote. In JSON mode fn runs inside one object of the
// outer array.
func Render(o tcfmt.Options, fn func(p *tcfmt.Printer)) string {
	var b bytes.Buffer
	p := tcfmt.NewPrinter(&b, o)
	p.Start()
	p.OpenObject("")
	fn(p)
	p.CloseObject()
	if err := p.Finish(); err != nil {
		panic(err)
	}
	return b.String()
}
