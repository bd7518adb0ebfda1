// SPDX-License-Identifier: Apache-2.0

// Package action holds gotc's action kinds, one file per kind (net/sched's
// act_*, tc's m_*.c), and tc's action list (action.go): ParseActions and
// PrintActions, which filters and "tc actions" share.
package action
