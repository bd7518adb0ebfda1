// SPDX-License-Identifier: Apache-2.0

//go:build !gotckernel

package gotc_test

// kernelExamples: this test binary leaves the examples out (see TestMain).
const kernelExamples = false
