// SPDX-License-Identifier: Apache-2.0

// Package ematch holds the extended matches of the basic, cgroup and flow
// filters (net/sched's em_*, tc's em_*.c and m_ematch.c): the "match EXPR"
// grammar, its kinds (cmp, u32, meta, nbyte, canid) and their printing.
package ematch
