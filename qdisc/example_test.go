// SPDX-License-Identifier: Apache-2.0

package qdisc_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/qdisc"
	"github.com/gotc/gotc/tcfmt"
)

// ParseDualPI2 gives the typed options, which a caller may adjust before
// encoding them; tc's notices go to the writer given.
func ExampleParseDualPI2() {
	o, err := qdisc.ParseDualPI2(strings.Fields("max_rtt 100ms l4s_ect"), io.Discard)
	if err != nil {
		fmt.Println(err)
		return
	}
	limit := uint32(5000)
	o.Limit = &limit
	var e attrs.Encoder
	o.Encode(&e)
	fmt.Printf("TCA_OPTIONS (NLA_F_NESTED): %d bytes\n", len(e.Bytes()))

	back, _ := attrs.DecodeTCOptionsMsg("dualpi2", e.Bytes()).(*attrs.DualPI2Attrs)
	for _, opts := range []tcfmt.Options{{}, {JSON: true}} {
		var out bytes.Buffer
		p := tcfmt.NewPrinter(&out, opts)
		p.Start()
		p.OpenObject("")
		qdisc.PrintDualPI2Options(p, back)
		p.CloseObject()
		p.Finish()
		fmt.Printf("%q\n", out.String())
	}
	// Output:
	// TCA_OPTIONS (NLA_F_NESTED): 48 bytes
	// "limit 5000p target 16.7ms tupdate 16.7ms alpha 0.164062 beta 3.000000 l4s_ect "
	// "[{\"limit\":5000,\"target\":16666,\"tupdate\":16666,\"alpha\":0.164062,\"beta\":3,\"ecn-mask\":\"l4s-ect\"}]\n"
}
