// SPDX-License-Identifier: Apache-2.0

package gotc_test

import (
	"flag"
	"fmt"
	"os"
	"testing"
)

// TestMain runs the examples only in a test binary built for the test
// bed's kernel (tag gotckernel): they change the traffic control of the
// namespace "example", which selftests/lib-examples.sh makes there.
// Elsewhere they are compiled and vetted, and the tests run.
func TestMain(m *testing.M) {
	flag.Parse()
	if !kernelExamples {
		if err := flag.Set("test.run", "^Test"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	os.Exit(m.Run())
}
