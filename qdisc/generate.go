// SPDX-License-Identifier: Apache-2.0

package qdisc

//go:generate go run ../codegen -spec ../specs/tc.yaml -stats -package qdisc -out stats_gen.go
