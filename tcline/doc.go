// SPDX-License-Identifier: Apache-2.0

// Package tcline is tc's command lines as requests, and dumped messages
// and announcements as tc's lines:
//   - the grammar of the words tc reads before a kind, with tc's messages
//     and exit statuses (PrintError prints them): which device, block,
//     parent, priority, protocol, chain and handle a filter command names
//     (ParseFilterWhere); the verb, device, parent, handle or class ID,
//     estimator, size table, shared blocks, kind and options of a qdisc
//     or class change command, as the request it makes (ChangeVerb,
//     ParseQdiscRequest); the words of their listings (ParseQdiscShow,
//     ParseClassShow);
//   - the usage texts that list the registered kinds (QdiscUsage,
//     FilterUsage);
//   - the splitting of a line into words as tc's batch files are split,
//     quotes included, and its inverse (SplitWords, JoinWords);
//   - the printing of dumped qdiscs, classes, filters and chains as tc's
//     print_qdisc, print_class and print_filter do (PrintQdisc,
//     PrintClass, PrintFilter), of "tc actions" answers (PrintActionMsg),
//     and of the kernel's announcements as tc monitor does (PrintEvent).
//
// Devices are named by netlink.Links, as tc's ll_index_to_name does it.
//
// cmd/gotc speaks tc's command line with it; package apply reads the
// filter lines of its files with the same grammar, so a line means there
// what it means to tc, and the benchmark's kernel floor sends the
// requests gotc reads from its batch lines. cmd/gotc's listings, -echo
// answers and monitor print with it.
package tcline
