// SPDX-License-Identifier: Apache-2.0

// Package nlabi holds the netlink and rtnetlink ABI constants gotc uses, with
// the kernel's names (include/uapi/linux/{netlink,rtnetlink,if_link,pkt_sched}.h).
// golang.org/x/sys/unix defines them only for Linux; from here, the message
// encoding and decoding (and the tests' fake kernels) build on every OS.
// nlabi_linux_test.go checks them against x/sys/unix.
package nlabi

// The kernel's names, not Go's, as x/sys/unix has them: they can be looked
// up in its headers, and code moving from unix.X to nlabi.X reads the same.
const (
	// netlink(7): the protocol, message types, header size, flags, extended ack
	NETLINK_ROUTE      = 0x0
	NLMSG_HDRLEN       = 0x10
	NLMSG_ERROR        = 0x2
	NLMSG_DONE         = 0x3
	NLM_F_REQUEST      = 0x1
	NLM_F_MULTI        = 0x2
	NLM_F_ROOT         = 0x100
	NLM_F_ACK          = 0x4
	NLM_F_ECHO         = 0x8
	NLM_F_DUMP         = 0x300
	NLM_F_REPLACE      = 0x100
	NLM_F_EXCL         = 0x200
	NLM_F_CREATE       = 0x400
	NLM_F_CAPPED       = 0x100
	NLM_F_ACK_TLVS     = 0x200
	NLMSGERR_ATTR_MSG  = 0x1
	NLMSGERR_ATTR_OFFS = 0x2
	NLM_F_DUMP_INTR    = 0x10
	RTNLGRP_TC         = 0x4

	// rtnetlink(7): message types and attributes
	RTM_NEWLINK    = 0x10
	RTM_GETLINK    = 0x12
	RTM_NEWQDISC   = 0x24
	RTM_DELQDISC   = 0x25
	RTM_GETQDISC   = 0x26
	RTM_NEWTCLASS  = 0x28
	RTM_DELTCLASS  = 0x29
	RTM_GETTCLASS  = 0x2a
	RTM_NEWTFILTER = 0x2c
	RTM_DELTFILTER = 0x2d
	RTM_GETTFILTER = 0x2e
	RTM_NEWACTION  = 0x30
	RTM_DELACTION  = 0x31
	RTM_GETACTION  = 0x32
	RTM_NEWCHAIN   = 0x64
	RTM_DELCHAIN   = 0x65
	RTM_GETCHAIN   = 0x66
	IFLA_MTU       = 0x4
	IFLA_IFNAME    = 0x3
	IFLA_TXQLEN    = 0xd
	IFLA_EXT_MASK  = 0x1d
	TCA_KIND       = 0x1
)
