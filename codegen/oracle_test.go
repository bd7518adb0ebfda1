// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// uapiEnv names the include/uapi directory of the test bed's kernel source
// (test.sh sets it); the kernel's own tc.yaml is beside it.
const uapiEnv = "GOTC_KERNEL_UAPI"

// deviations are where our spec differs from the kernel's tc.yaml: "prefix
// attribute" or "struct layout", with the reason (mostly: it follows the C
// code). The test fails if one no longer differs, so the list stays true.
var deviations = map[string]string{
	"tca-cake- overhead": "the policy (sch_cake.c) is NLA_S32 and tc sends negative values; tc.yaml says u32",
	"tca-dualpi2- pad":   "TCA_DUALPI2_PAD is in pkt_sched.h (the kernel pads u64 statistics with it); tc.yaml omits it",
	"tc-u32-sel layout": "struct tc_u32_sel has an alignment gap before offmask, and keys[] is a flexible array; " +
		"tc.yaml has neither the gap nor the array (its own TODO)",
	"tc-u32-pcnt layout":            "kcnts is a flexible array of u64, one per key (pkt_cls.h); tc.yaml has one u64",
	"tca-cgroup- ematches":          "the extended-match tree, a nest of ematch-attrs as basic's (cls_cgroup.c hands it to tcf_em_tree_validate); tc.yaml says binary",
	"tca-flow- ematches":            "the extended-match tree, a nest of ematch-attrs as basic's (cls_flow.c hands it to tcf_em_tree_validate); tc.yaml says binary",
	"tca-flow- act":                 "the actions, an indexed array of nests as in every other filter (cls_flow.c's tcf_exts); tc.yaml says binary",
	"tca-mirred- parms":             "struct tc_mirred (tc_act/tc_mirred.h); tc.yaml gives parms no struct",
	"tca-mirred- blockid":           "a u32 in act_mirred.c's policy (NLA_U32); tc.yaml says binary",
	"tca-pedit- parms-ex":           "the same struct tc_pedit_sel as parms (act_pedit.c reads either); tc.yaml gives parms-ex no struct",
	"tca-pedit- keys-ex":            "a nest of one TCA_PEDIT_KEY_EX nest per key (act_pedit.c's tcf_pedit_keys_ex_parse); tc.yaml says binary",
	"tca-pedit- key-ex":             "inside keys-ex, a nest of the key's htype and cmd; tc.yaml says binary",
	"tca-pedit-key-ex- set":         "TCA_PEDIT_KEY_EX_HTYPE and _CMD (tc_act/tc_pedit.h); not in tc.yaml",
	"tca-skbmod- parms":             "struct tc_skbmod (tc_act/tc_skbmod.h); tc.yaml gives parms no struct",
	"tca-skbmod- etype":             "a u16 in act_skbmod.c's policy (NLA_U16); tc.yaml says binary",
	"tca-nat- parms":                "struct tc_nat (tc_act/tc_nat.h); tc.yaml gives parms no struct",
	"tc-pedit-key layout":           "mask and val are applied to the packet's bytes as they stand, so they are in network order; tc.yaml says host order",
	"tc-pedit-sel layout":           "keys[] is a flexible array of struct tc_pedit_key after an alignment gap; tc.yaml has one key (its own TODO) and no gap",
	"tca-ct- parms":                 "struct tc_ct (tc_act/tc_ct.h); tc.yaml gives parms no struct",
	"tca-ctinfo- act":               "struct tc_ctinfo (tc_act/tc_ctinfo.h); tc.yaml gives act no struct",
	"tca-connmark- parms":           "struct tc_connmark (tc_act/tc_connmark.h); tc.yaml gives parms no struct",
	"tca-vlan- push-vlan-protocol":  "an ethertype in network order (act_vlan.c reads it with nla_get_be16); tc.yaml gives no byte order",
	"tca-tunnel-key- parms":         "struct tc_tunnel_key (tc_act/tc_tunnel_key.h); tc.yaml gives parms no struct",
	"tca-tunnel-key- enc-ipv4-src":  "an IPv4 address as its 4 bytes in network order (act_tunnel_key.c reads nla_get_in_addr); tc.yaml says u32 in host order",
	"tca-tunnel-key- enc-ipv4-dst":  "as enc-ipv4-src",
	"tca-tunnel-key- enc-key-id":    "a be32 (act_tunnel_key.c: NLA_U32, read with nla_get_be32); tc.yaml says u64",
	"tca-def- parms":                "struct tc_defact (tc_act/tc_defact.h); tc.yaml gives parms no struct",
	"tca-skbedit- parms":            "struct tc_skbedit (tc_act/tc_skbedit.h); tc.yaml gives parms no struct",
	"tca-csum- parms":               "struct tc_csum (tc_act/tc_csum.h); tc.yaml gives parms no struct",
	"tca-act-bpf- parms":            "struct tc_act_bpf (tc_act/tc_bpf.h); tc.yaml gives parms no struct",
	"tca-act-bpf- id":               "a u32: act_bpf.c dumps it with nla_put_u32; tc.yaml says binary",
	"tca-gate- parms":               "struct tc_gate (tc_act/tc_gate.h); tc.yaml gives parms no struct",
	"tca-gate- entry-list":          "a nest of TCA_GATE_ONE_ENTRY nests (act_gate.c parses and dumps it so); tc.yaml says binary",
	"tca-ife- parms":                "struct tc_ife (tc_act/tc_ife.h); tc.yaml gives parms no struct",
	"tca-ife- metalst":              "a nest of IFE_META_* attributes (act_ife.c parses and dumps it so); tc.yaml says binary",
	"tca-gate-one- set":             "TCA_GATE_ONE_* (tc_act/tc_gate.h), the entry list's members; not in tc.yaml",
	"tca-gate-entry- set":           "TCA_GATE_ENTRY_* (tc_act/tc_gate.h), one entry of the schedule; not in tc.yaml",
	"ife-meta- set":                 "IFE_META_* (linux/ife.h), the metadata an ife action encodes; not in tc.yaml",
	"tca-sample- parms":             "struct tc_sample (tc_act/tc_sample.h), laid out as tc_gact; tc.yaml names tc-gact",
	"tca-stab- data":                "the size table's slots are u16 (qdisc_get_stab reads them so); tc.yaml says bytes",
	"tca-root- set":                 "tc.yaml has no message of standalone actions (RTM_*ACTION); the set is rtnetlink.h's TCA_ROOT_* enum",
	"tca-flower- key-enc-opts":      "tunnel options (geneve, vxlan, erspan, gtp); gotc keeps them as bytes until flower reads them",
	"tca-flower- key-enc-opts-mask": "as tca-flower- key-enc-opts",
	"tca-flower- key-mpls-opts":     "the MPLS label stack entries; gotc keeps them as bytes until flower reads them",
	"tca-flower- key-vlan-id":       "host order: cls_flower.c reads it with nla_get_u16 and dumps it with nla_put_u16, and tc sends it so; tc.yaml says big-endian",
	"tca-flower- key-cvlan-id":      "as tca-flower- key-vlan-id",
	"tca-flower- key-mpls-label":    "host order: cls_flower.c uses nla_get_u32/nla_put_u32, and tc sends it so; tc.yaml says big-endian",
	"tc-ratespec layout": "struct tc_ratespec (pkt_sched.h) has u16 overhead, s16 cell_align and u16 mpu, " +
		"12 bytes; tc.yaml lists them as u8 (9 bytes), which would misplace every member after them",
	"tc-htb-opt layout":  "its rate and ceil are struct tc_ratespec: see tc-ratespec",
	"tc-tbf-qopt layout": "its rate and peakrate are struct tc_ratespec: see tc-ratespec",
	"tc-police layout":   "its rate and peakrate are struct tc_ratespec: see tc-ratespec",
	"tc-fq-codel-xstats layout": "struct tc_fq_codel_xstats is a type and a union of the qdisc's and a " +
		"class's statistics (36 bytes); tc.yaml lists only the qdisc's member, 4 bytes short",
	"tca-sfb- set": "sch_sfb.c parses TCA_OPTIONS as a nest holding TCA_SFB_PARMS; tc.yaml describes sfb's " +
		"options as the bare struct tc_sfb_qopt",
	"tc-gred-sopt layout": "struct tc_gred_sopt (pkt_sched.h) ends in a member, __u16 pad1, which the " +
		"headers' check wants; tc.yaml calls the two bytes padding",
	"tc-prio-qopt layout": "tc_prio_qopt's bands is an int in pkt_sched.h; tc.yaml says u32",
	"tca-prio-compat- set": "tc's compat nest around prio's attributes (addattr_nest_compat), a second TCA_OPTIONS " +
		"after struct tc_prio_qopt; the kernel reads the struct alone, and tc.yaml describes no more",
	"tca-hfsc- set": "tc.yaml's hfsc-attrs has no name-prefix (nothing matches it to pkt_sched.h's TCA_HFSC_*) " +
		"and keeps its curves as bare binary; ours are struct tc_service_curve",
	"tca-prio- set":           "TCA_PRIO_MQ is tc's own (tc_util.h); the kernel neither reads nor dumps it",
	"tca-fq- offload-horizon": "TCA_FQ_OFFLOAD_HORIZON is in pkt_sched.h (and tc sends it); tc.yaml stops at weights",
	"tc-mqprio-qopt layout":   "count and offset are __u16[16] in pkt_sched.h; tc.yaml has them as 32 bytes each",
	"tc-etf-qopt layout":      "tc_etf_qopt's flags is a __u32 in pkt_sched.h; tc.yaml says s32",
	"tc-fq-qd-stats layout": "band_drops and band_pkt_count are __u64[FQ_BANDS] and __u32[FQ_BANDS] in pkt_sched.h; " +
		"tc.yaml has them as 24 and 12 bytes",
	"tca-mqprio- set": "mqprio's attributes after its struct (TCA_MQPRIO_*); tc.yaml describes the struct alone",
	"tca-mqprio-rates- set": "the u64 rates inside TCA_MQPRIO_MIN_RATE64/MAX_RATE64, each numbered as its nest " +
		"(sch_mqprio.c); not in tc.yaml",
	"tca-mqprio-tc-entry- set":      "TCA_MQPRIO_TC_ENTRY_* (pkt_sched.h); not in tc.yaml",
	"tca-taprio-offload-stats- set": "taprio's TCA_STATS_APP nest, TCA_TAPRIO_OFFLOAD_STATS_* (pkt_sched.h); not in tc.yaml",
	"tca-taprio-attr- admin-sched":  "a nest of taprio's attributes (sch_taprio.c's dump_schedule); tc.yaml says binary",
	"tca-taprio-attr- tc-entry": "the kernel dumps one TCA_TAPRIO_ATTR_TC_ENTRY per traffic class and tc sends " +
		"several; tc.yaml does not mark it multi-attr",
}

// kernelSpec reads and parses the kernel's tc.yaml with our parser, which
// must read all of it.
func kernelSpec(t *testing.T) *Spec {
	t.Helper()
	dir := os.Getenv(uapiEnv)
	if dir == "" {
		t.Skipf("%s is not set: the spec is not checked against the kernel's tc.yaml (test.sh sets it)", uapiEnv)
	}
	path := filepath.Join(dir, "..", "..", "Documentation", "netlink", "specs", "tc.yaml")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s=%s: %v", uapiEnv, dir, err)
	}
	spec, err := parseSpec(raw)
	if err != nil {
		t.Fatalf("the kernel's %s: %v", path, err)
	}
	return spec
}

// TestKernelSpecGenerates: the generator takes the kernel's whole tc.yaml.
func TestKernelSpecGenerates(t *testing.T) {
	spec := kernelSpec(t)
	if _, err := generate(spec, "attrs", "tc.yaml"); err != nil {
		t.Fatal(err)
	}
}

// TestSpecMatchesKernelSpec holds our spec against the kernel's tc.yaml: sets
// matched by their C name-prefix must agree on every attribute's number, type
// and the set or struct it refers to; structs of the same name on their
// members' types and layout.
func TestSpecMatchesKernelSpec(t *testing.T) {
	kernel := kernelSpec(t)
	raw, err := os.ReadFile("../specs/tc.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ours, err := parseSpec(raw)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	differ := func(key, format string, args ...any) {
		t.Helper()
		if _, ok := deviations[key]; ok {
			seen[key] = true
			return
		}
		t.Errorf("%s: %s", key, fmt.Sprintf(format, args...))
	}
	byPrefix := map[string]*AttributeSet{}
	for i := range kernel.AttributeSets {
		set := &kernel.AttributeSets[i]
		if byPrefix[set.NamePrefix] == nil {
			byPrefix[set.NamePrefix] = set
		}
	}
	prefixOf := func(s *Spec, set string) string { return s.setByName[set].NamePrefix }
	covered := map[string]bool{}
	checked := 0
	for _, set := range ours.AttributeSets {
		k := byPrefix[set.NamePrefix]
		// Where the kernel gives one prefix to several sets (gred's
		// TCA_GRED_VQ_* list and entry), the set of the same name.
		if ks := kernel.setByName[set.Name]; ks != nil && ks.NamePrefix == set.NamePrefix {
			k = ks
		}
		if k == nil {
			differ(set.NamePrefix+" set", "set %s (%s*): not in the kernel's tc.yaml", set.Name, cName(set.NamePrefix, ""))
			continue
		}
		covered[k.Name] = true
		for _, a := range set.Attributes {
			key := set.NamePrefix + " " + a.Name
			var ka *Attribute
			for i := range k.Attributes {
				if k.Attributes[i].number == a.number {
					ka = &k.Attributes[i]
				}
			}
			switch {
			case ka == nil && a.Type == "unused":
				continue // the kernel's sets leave *_UNSPEC out
			case ka == nil:
				differ(key, "number %d is not in the kernel's set %s", a.number, k.Name)
				continue
			case ka.Name != a.Name:
				differ(key, "number %d is %s in the kernel's set %s", a.number, ka.Name, k.Name)
			case ka.Type != a.Type:
				differ(key, "type %s, the kernel's tc.yaml says %s", a.Type, ka.Type)
			case a.NestedAttributes != "" && prefixOf(ours, a.NestedAttributes) != prefixOf(kernel, ka.NestedAttributes):
				differ(key, "nests %s, the kernel's tc.yaml %s", a.NestedAttributes, ka.NestedAttributes)
			case a.Struct != ka.Struct:
				differ(key, "struct %q, the kernel's tc.yaml %q", a.Struct, ka.Struct)
			case a.MultiAttr != ka.MultiAttr || a.ByteOrder != ka.ByteOrder || a.SubType != ka.SubType:
				differ(key, "multi-attr/byte-order/sub-type %v/%q/%q, the kernel's %v/%q/%q",
					a.MultiAttr, a.ByteOrder, a.SubType, ka.MultiAttr, ka.ByteOrder, ka.SubType)
			}
			checked++
		}
	}
	for _, d := range ours.Definitions {
		if d.Type != "struct" {
			continue
		}
		k := kernel.structDef(d.Name)
		if k == nil {
			t.Logf("struct %s: not in the kernel's tc.yaml", d.Name)
			continue
		}
		if a, b := layout(ours, &d), layout(kernel, k); a != b {
			differ(d.Name+" layout", "\n ours:   %s\n kernel: %s", a, b)
		}
		checked++
	}
	for key, why := range deviations {
		if !seen[key] {
			t.Errorf("deviation %q (%s) no longer differs: drop it from the list", key, why)
		}
	}
	var missing []string
	for _, set := range kernel.AttributeSets {
		if !covered[set.Name] {
			missing = append(missing, set.Name)
		}
	}
	sort.Strings(missing)
	t.Logf("checked %d attributes and structs; the kernel's sets we do not cover yet (%d): %s",
		checked, len(missing), strings.Join(missing, " "))
}

// layout describes a struct's members: types, sizes, byte order, nesting.
func layout(s *Spec, d *Definition) string {
	var parts []string
	for _, m := range d.Members {
		p := m.Type
		switch {
		case m.FlexibleArray && m.Struct != "":
			p = "[]struct{" + layout(s, s.structDef(m.Struct)) + "}"
		case m.FlexibleArray:
			p = "[]" + m.SubType
		case m.Struct != "":
			p = "struct{" + layout(s, s.structDef(m.Struct)) + "}"
		case m.Len != 0:
			p += fmt.Sprintf("[%d]", m.Len)
		}
		if m.ByteOrder != "" {
			p += " " + m.ByteOrder
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}
