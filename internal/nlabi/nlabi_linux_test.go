//go:build linux

package nlabi

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestABI checks the constants against x/sys/unix's.
func TestABI(t *testing.T) {
	for _, c := range []struct {
		name      string
		our, unix int
	}{
		{"NETLINK_ROUTE", NETLINK_ROUTE, unix.NETLINK_ROUTE},
		{"NLMSG_HDRLEN", NLMSG_HDRLEN, unix.NLMSG_HDRLEN},
		{"NLMSG_ERROR", NLMSG_ERROR, unix.NLMSG_ERROR},
		{"NLMSG_DONE", NLMSG_DONE, unix.NLMSG_DONE},
		{"NLM_F_REQUEST", NLM_F_REQUEST, unix.NLM_F_REQUEST},
		{"NLM_F_MULTI", NLM_F_MULTI, unix.NLM_F_MULTI},
		{"NLM_F_ACK", NLM_F_ACK, unix.NLM_F_ACK},
		{"NLM_F_DUMP", NLM_F_DUMP, unix.NLM_F_DUMP},
		{"NLM_F_REPLACE", NLM_F_REPLACE, unix.NLM_F_REPLACE},
		{"NLM_F_EXCL", NLM_F_EXCL, unix.NLM_F_EXCL},
		{"NLM_F_CREATE", NLM_F_CREATE, unix.NLM_F_CREATE},
		{"NLM_F_CAPPED", NLM_F_CAPPED, unix.NLM_F_CAPPED},
		{"NLM_F_ACK_TLVS", NLM_F_ACK_TLVS, unix.NLM_F_ACK_TLVS},
		{"NLMSGERR_ATTR_MSG", NLMSGERR_ATTR_MSG, unix.NLMSGERR_ATTR_MSG},
		{"RTM_NEWLINK", RTM_NEWLINK, unix.RTM_NEWLINK},
		{"RTM_GETLINK", RTM_GETLINK, unix.RTM_GETLINK},
		{"RTM_NEWQDISC", RTM_NEWQDISC, unix.RTM_NEWQDISC},
		{"RTM_DELQDISC", RTM_DELQDISC, unix.RTM_DELQDISC},
		{"RTM_GETQDISC", RTM_GETQDISC, unix.RTM_GETQDISC},
		{"RTM_NEWTCLASS", RTM_NEWTCLASS, unix.RTM_NEWTCLASS},
		{"RTM_DELTCLASS", RTM_DELTCLASS, unix.RTM_DELTCLASS},
		{"RTM_GETTCLASS", RTM_GETTCLASS, unix.RTM_GETTCLASS},
		{"RTM_NEWTFILTER", RTM_NEWTFILTER, unix.RTM_NEWTFILTER},
		{"RTM_DELTFILTER", RTM_DELTFILTER, unix.RTM_DELTFILTER},
		{"RTM_GETTFILTER", RTM_GETTFILTER, unix.RTM_GETTFILTER},
		{"IFLA_IFNAME", IFLA_IFNAME, unix.IFLA_IFNAME},
		{"IFLA_EXT_MASK", IFLA_EXT_MASK, unix.IFLA_EXT_MASK},
		{"TCA_KIND", TCA_KIND, unix.TCA_KIND},
	} {
		if c.our != c.unix {
			t.Errorf("%s = %#x, x/sys/unix has %#x", c.name, c.our, c.unix)
		}
	}
}
