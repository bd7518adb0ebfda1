// SPDX-License-Identifier: Apache-2.0

// Package tcfmt holds what gotc and its importers need to read and write numbers and output
// exactly as iproute2's tc 7.x does, with no dependency on the rest of gotc.
//
// Parsers (parse.go) follow tc's get_rate64, get_rate, get_time,
// get_time64, get_size64, get_size, get_u8..get_u64, get_s32/get_s64,
// get_float_min_max, get_qdisc_handle and get_tc_classid, including the
// glibc strtod/strtoul rules they inherit (cnum.go: leading blanks, signs,
// hex floats, "inf"/"nan", C23 "0b" prefixes, overflow) and the x86-64
// results of the double-to-integer conversions tc leaves unchecked.
//
// Formatters (format.go) follow tc's rate, time and size texts
// (print_rate, sprint_time, sprint_time64, sprint_size) and handle texts
// (print_tc_classid, print_qdisc's "%x:"). cfmt.go is a small printf(3)
// engine so tc's C format strings can be used unchanged.
//
// Printer (printer.go) mirrors iproute2's print_* family over its
// streaming JSON writer: each call names a Target (FP, JSON or Any), a
// JSON key and a printf-style text format, so a kind's printing code is
// written once for "tc", "tc -j" and "tc -j -p". qdisc.go adds the parts
// of print_qdisc and print_tcstats2_attr that every qdisc kind shares.
package tcfmt
