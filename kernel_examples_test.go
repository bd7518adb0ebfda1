// SPDX-License-Identifier: Apache-2.0

//go:build gotckernel

package gotc_test

// kernelExamples: this test binary runs the examples (see TestMain).
const kernelExamples = true
