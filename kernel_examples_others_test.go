//go:build !gotckernel

package gotc_test

// kernelExamples: this test binary leaves the examples out (see TestMain).
const kernelExamples = false
