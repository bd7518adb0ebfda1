// Package tcline is tc's command lines as requests, and dumped messages as
// tc's lines: the grammar of the words tc reads before a kind (which
// device, block, parent, priority, protocol, chain and handle a filter
// command names), with tc's messages and exit statuses, and the usage texts
// that list the registered kinds. Devices are named by netlink.Links, as
// tc's ll_index_to_name does it.
//
// cmd/gotc speaks tc's command line with it; package apply reads the
// filter lines of its files with the same grammar, so a line means there
// what it means to tc.
package tcline
