// SPDX-License-Identifier: Apache-2.0

// Package tcline is tc's command lines as requests, and dumped messages as
// tc's lines: the grammar of the words tc reads before a kind (which
// device, block, parent, priority, protocol, chain and handle a filter
// command names), with tc's messages and exit statuses, the usage texts
// that list the registered kinds, and the printing of dumped qdiscs,
// classes, filters and chains as tc's print_qdisc, print_class and
// print_filter do (PrintQdisc, PrintClass, PrintFilter). Devices are named
// by netlink.Links, as tc's ll_index_to_name does it.
//
// cmd/gotc speaks tc's command line with it; package apply reads the
// filter lines of its files with the same grammar, so a line means there
// what it means to tc. cmd/gotc's listings, -echo answers and monitor
// print with it.
package tcline
