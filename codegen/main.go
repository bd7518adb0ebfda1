// SPDX-License-Identifier: Apache-2.0

// Command codegen turns a YNL netlink-raw spec (specs/tc.yaml) into the Go types of
// package attrs: one struct per attribute set with presence for every optional
// attribute, named enums, fixed structs, indexed arrays of nests and sub-messages
// selected by kind, each with its encoder and a decoder that keeps what it does not
// know.
//
// Usage (from package attrs, via go generate):
//
//	go run ../codegen -spec ../specs/tc.yaml -out tc_gen.go
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
	flag.Parse()
	if *specPath == "" || *outPath == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*specPath, *outPath, *pkg); err != nil {
		fmt.Fprintln(os.Stderr, "codegen:", err)
		os.Exit(1)
	}
}

func run(specPath, outPath, pkg string) error {
	raw, err := os.ReadFile(specPath)
	if err != nil {
		return err
	}
	spec, err := parseSpec(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", specPath, err)
	}
	src, err := generate(spec, pkg, specPath)
	if err != nil {
		return err
	}
	formatted, err := format.Source(src)
	if err != nil {
		return fmt.Errorf("generated code does not parse: %w\n%s", err, src)
	}
	return os.WriteFile(outPath, formatted, 0o644)
}
