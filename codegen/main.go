// SPDX-License-Identifier: Apache-2.0

// Command codegen turns a YNL netlink-raw spec (specs/tc.yaml) into the Go types of
// package attrs: one struct per attribute set with presence for every optional
// attribute, named enums, fixed structs, indexed arrays of nests and sub-messages
// selected by kind, each with its encoder and a decoder that keeps what it does not
// know.
//
// With -stats it writes instead the tables of the spec's statistics section
// (a gotc extension), the fields of the kinds' tckind.StatsTable, for the
// package that registers the kinds.
//
// Usage (from package attrs and package qdisc, via go generate):
//
//	go run ../codegen -spec ../specs/tc.yaml -out tc_gen.go
//	go run ../codegen -spec ../specs/tc.yaml -stats -package qdisc -out stats_gen.go
package main

import (
	"flag"
	"fmt"
	"go/format"
	"os"
)

func main() {
	specPath := flag.String("spec", "", "YNL spec to read")
	outPath := flag.String("out", "", "Go file to write")
	pkg := flag.String("package", "attrs", "Go package name of the output")
	stats := flag.Bool("stats", false, "write the statistics tables instead of the attribute types")
	flag.Parse()
	if *specPath == "" || *outPath == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*specPath, *outPath, *pkg, *stats); err != nil {
		fmt.Fprintln(os.Stderr, "codegen:", err)
		os.Exit(1)
	}
}

func run(specPath, outPath, pkg string, stats bool) error {
	raw, err := os.ReadFile(specPath)
	if err != nil {
		return err
	}
	spec, err := parseSpec(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", specPath, err)
	}
	var src []byte
	if stats {
		src = generateStats(spec, pkg, specPath)
	} else if src, err = generate(spec, pkg, specPath); err != nil {
		return err
	}
	formatted, err := format.Source(src)
	if err != nil {
		return fmt.Errorf("generated code does not parse: %w\n%s", err, src)
	}
	return os.WriteFile(outPath, formatted, 0o644)
}
