// SPDX-License-Identifier: Apache-2.0

package cmdline

import (
	"fmt"
	"io"
	"strings"

	"github.com/gotc/gotc/internal/manual"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
)

// defaultListen is the address "gotc exporter" serves on unless told another.
const defaultListen = "localhost:9978"

// ExporterArgs are the arguments of "gotc exporter".
type ExporterArgs struct {
	// Listen is the address to serve on: localhost:9978 (defaultListen)
	// unless given.
	Listen string
	// Dev names the device whose qdiscs to export; "" exports every qdisc.
	Dev string
	// Include, Exclude and Aggregate are the selectors of "include SEL",
	// "exclude SEL" and "aggregate SEL", in the order given.
	Include, Exclude, Aggregate []Selector
	// Names is the apply file of "names FILE", "" for none.
	Names string
	// Help is set when the arguments asked for the usage, which
	// ParseExporterArgs has then printed: the command does nothing else.
	Help bool
}

// Selector selects qdiscs and classes, as exporter.Match does (which it
// converts to): by device, kind, handle or class ID, and subtree (Under);
// a zero field selects any.
type Selector struct {
	Dev, Kind     string
	Handle, Under uint32
}

// parseSelector parses a selector as "gotc exporter" takes it: one word of
// comma-separated KEY=VALUE, the keys dev, kind, handle and under, the
// handles as tc writes them ("1:", "1:10").
func parseSelector(word string) (Selector, error) {
	var s Selector
	for _, part := range strings.Split(word, ",") {
		key, val, ok := strings.Cut(part, "=")
		if !ok || val == "" {
			return s, fmt.Errorf("%q is not KEY=VALUE", part)
		}
		var err error
		switch key {
		case "dev":
			s.Dev = tcword.DevName(val)
		case "kind":
			s.Kind = val
		case "handle", "under":
			var h uint32
			if h, err = tcfmt.ParseClassID(val); err == nil && (h == 0 || h == tcfmt.HandleRoot) {
				err = fmt.Errorf("%q is not a qdisc handle or class ID", val)
			}
			if key == "handle" {
				s.Handle = h
			} else {
				s.Under = h
			}
		default:
			err = fmt.Errorf("unknown key %q (dev, kind, handle, under)", key)
		}
		if err != nil {
			return s, err
		}
	}
	return s, nil
}

// ParseExporterArgs parses the words after "gotc exporter": "listen ADDR"
// (or "--listen ADDR"), "dev DEV", "include SEL", "exclude SEL",
// "aggregate SEL" (each as often as wanted), "names FILE" and "help" (or
// -h, -help, --help), in any order, a later word overriding an earlier one
// but for the selectors, which add up. On help it prints
// manual.Exporter's help to stderr and returns with Help set, ignoring the
// words after it; on a usage error it prints tc's message to stderr and
// returns Status(ExitUsage).
func ParseExporterArgs(args []string, stderr io.Writer) (ExporterArgs, error) {
	a := ExporterArgs{Listen: defaultListen}
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
		case word == "names":
			if err := NeedArg(args, stderr); err != nil {
				return a, err
			}
			a.Names, args = args[1], args[2:]
		case word == "include" || word == "exclude" || word == "aggregate":
			if err := NeedArg(args, stderr); err != nil {
				return a, err
			}
			sel, err := parseSelector(args[1])
			if err != nil {
				fmt.Fprintf(stderr, "Illegal \"%s\": %v\n", word, err)
				return a, Status(ExitUsage)
			}
			switch word {
			case "include":
				a.Include = append(a.Include, sel)
			case "exclude":
				a.Exclude = append(a.Exclude, sel)
			default:
				a.Aggregate = append(a.Aggregate, sel)
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
