// SPDX-License-Identifier: Apache-2.0

package attrs

//go:generate go run ../codegen -spec ../specs/tc.yaml -out tc_gen.go
