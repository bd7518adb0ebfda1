//go:build gotckernel

package gotc_test

// kernelExamples: this test binary runs the examples (see TestMain).
const kernelExamples = true
