// SPDX-License-Identifier: Apache-2.0

package cmdline

import (
	"fmt"
	"io"

	"github.com/gotc/gotc/internal/manual"
	"github.com/gotc/gotc/internal/tcword"
)

// DefaultListen is the address "gotc exporter" serves on unless told another.
const DefaultListen = "localhost:9978"

// ExporterArgs are the arguments of "gotc exporter".
type ExporterArgs struct {
	// Listen is the address to serve on: DefaultListen unless given.
	Listen string
	// Dev names the device whose qdiscs to export; "" exports every qdisc.
	Dev string
	// Help is set when the arguments asked for the usage, which
	// ParseExporterArgs has then printed: the command does nothing else.
	Help bool
}

// ParseExporterArgs parses the words after "gotc exporter": "listen ADDR"
// (or "--listen ADDR"), "dev DEV" and "help" (or -h, -help, --help), in
// any order, a later word overriding an earlier one. On help it prints
// manual.Exporter's help to stderr and returns with Help set, ignoring the
// words after it; on a usage error it prints tc's message to stderr and
// returns Status(ExitUsage).
func ParseExporterArgs(args []string, stderr io.Writer) (ExporterArgs, error) {
	a := ExporterArgs{Listen: DefaultListen}
	for len(args) > 0 {
		switch word := args[0]; {
		case word == "listen" || word == "--listen" || word == "dev":
			if err := NeedArg(args, stderr); err != nil {
				return a, err
			}
			if word == "dev" {
				a.Dev = tcword.DevName(args[1])
			} else {
				a.Listen = args[1]
			}
			args = args[2:]
		case manual.IsHelp(word):
			fmt.Fprint(stderr, manual.Exporter.Help())
			a.Help = true
			return a, nil
		default:
			fmt.Fprintf(stderr, "What is %q? Try \"gotc exporter help\".\n", word)
			return a, Status(ExitUsage)
		}
	}
	return a, nil
}
