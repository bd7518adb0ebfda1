// SPDX-License-Identifier: Apache-2.0

package tcfmt_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/gotc/gotc/tcfmt"
)

// One qdisc printed with the same calls in text and JSON form. (Lines are
// quoted here to show tc's trailing blanks.)
func ExamplePrinter() {
	for _, o := range []tcfmt.Options{{}, {JSON: true}} {
		var out bytes.Buffer
		p := tcfmt.NewPrinter(&out, o)
		p.Start()
		p.QdiscHead(&tcfmt.QdiscHeader{Kind: "cake", Handle: 0x80010000, Parent: tcfmt.HandleRoot, Info: 2, Dev: "d0", ShowDev: true})
		p.OpenObject("options")
		p.Rate(tcfmt.Any, "bandwidth", "bandwidth %s ", 12187500)
		p.Time(tcfmt.Any, "rtt", "rtt %s ", 100000)
		p.CloseObject()
		p.NL()
		p.Stats(&tcfmt.Stats2{HasBasic: true, HasQueue: true}, " ")
		p.NL()
		p.QdiscTail("", false)
		p.Finish()
		for _, line := range strings.SplitAfter(out.String(), "\n") {
			if line != "" {
				fmt.Printf("%q\n", line)
			}
		}
	}
	// Output:
	// "qdisc cake 8001: dev d0 root refcnt 2 bandwidth 97500Kbit rtt 100ms \n"
	// " Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0) \n"
	// " backlog 0b 0p requeues 0\n"
	// "[{\"kind\":\"cake\",\"handle\":\"8001:\",\"dev\":\"d0\",\"root\":true,\"refcnt\":2,\"options\":{\"bandwidth\":12187500,\"rtt\":100000},\"bytes\":0,\"packets\":0,\"drops\":0,\"overlimits\":0,\"requeues\":0,\"backlog\":0,\"qlen\":0}]\n"
}
