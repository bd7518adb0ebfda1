// SPDX-License-Identifier: Apache-2.0

package apply

// Example is a commented desired state, what "gotc apply --example" prints.
const Example = `# gotc apply FILE: the desired traffic control of the devices named here.
# Each device the file names is owned: what the file does not describe on it
# is deleted (the kernel's default qdiscs, handle 0:, are left alone).
# Devices the file does not name are never touched.
devices:
  # A router's upload: one CAKE at the root, in tc's own words.
  eth0:
    root: cake bandwidth 20mbit diffserv4 nat
    # Download through an ifb: the ingress qdisc and its redirect filter.
    # Filters are the words after "tc filter add dev D parent P":
    # [protocol P] pref N [handle H] [chain C] KIND OPTIONS (pref required).
    ingress:
      qdisc: ingress
      filters:
        - protocol all pref 10 matchall action mirred egress redirect dev ifb0
  ifb0:
    root: cake bandwidth 100mbit besteffort ingress

  # An ISP shaper: mq at the root, htb per tx queue, fq_codel leaves.
  eth1:
    root:
      qdisc: mq
      handle: "1:"          # needed by a qdisc with classes or filters
      classes:
        # mq makes its per-queue classes itself: no "class" words, only
        # the qdisc grafted onto each ("leaf").
        "1:1":
          leaf:
            qdisc: htb default 2
            handle: "10:"
            classes:
              "10:1":
                class: htb rate 1gbit
                # An htb class's own filters pick among its children
                # for what the qdisc's filters sent to it.
                filters:
                  - protocol ip pref 1 u32 match ip dport 22 0xffff classid 10:3
                classes:     # htb's classes nest as their parents do
                  "10:2": { class: htb rate 100mbit ceil 1gbit, leaf: fq_codel }
                  "10:3":
                    class: htb rate 12500kbit ceil 100mbit prio 3
                    leaf: cake diffserv4 rtt 180ms
            filters:
              - protocol ip pref 1 u32 match ip dst 192.0.2.3/32 classid 10:3
        "1:2":
          leaf: fq_codel limit 1001 target 5ms interval 100ms ecn

  # An L4S bed: DualPI2 with its handle.
  eth2:
    root:
      qdisc: dualpi2 target 15ms
      handle: "1:"

  # clsact: "filters" are its ingress hook's, "egress_filters" its egress's.
  eth3:
    ingress:
      qdisc: clsact
      filters:
        - protocol all pref 1 matchall action ctinfo dscp 0xfc000000 0x1000000 action mirred egress redirect dev ifb1
      egress_filters:
        - protocol all pref 1 basic action skbedit priority 1:2
  ifb1:
    root: fq_codel

  # Two devices whose ingress hooks share block 10: its filters are
  # written once, under "blocks". "chains" are the chains there without
  # filters or with a template, the words after "tc chain add".
  eth4:
    ingress: ingress_block 10 clsact
  eth5:
    ingress: ingress_block 10 ingress
blocks:
  10:
    chains:
      # A template: every filter of chain 1 is flower on dst_ip/16.
      - chain 1 protocol ip flower dst_ip 0.0.0.0/16
    filters:
      - protocol ip pref 1 flower dst_ip 192.0.2.0/24 action goto chain 1
      - protocol ip pref 2 chain 1 flower dst_ip 10.1.0.0/16 action drop
      # Bound by its index: the policer under "actions" below.
      - protocol ip pref 3 flower dst_ip 198.51.100.0/24 action police index 1

# Standalone actions, the words after "tc actions add action", each with its
# index: filters bind them by kind and index alone ("action police index
# 1"), so that traffic of several filters or devices shares one policer.
actions:
  - police rate 50mbit burst 64k conform-exceed drop index 1
`
