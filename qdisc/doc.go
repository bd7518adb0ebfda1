// SPDX-License-Identifier: Apache-2.0

// Package qdisc holds gotc's qdisc kinds, one file per kind (net/sched's sch_*,
// tc's q_*.c), with the classes of those that have them: each file registers
// its kind with package tckind, and holds its keywords, its printing of
// options and statistics, its statistics table, the keywords that ask for a
// dumped qdisc again, and how the kernel rounds what it is given.
package qdisc
