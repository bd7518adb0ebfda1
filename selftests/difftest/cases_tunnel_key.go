// SPDX-License-Identifier: Apache-2.0

package main

// tunnel_key actions, in filters and standalone: set with every keyword
// (IPv4 and IPv6, Geneve, VXLAN and ERSPAN options), unset; and what tc or
// the kernel refuses.
func init() {
	registerFilters(filterCases{kind: "tunnel_key", lines: []string{
		"filter add dev DEV ingress protocol ip flower action tunnel_key set src_ip 10.0.0.1 dst_ip 10.0.0.2 id 100 dst_port 4789 action mirred egress redirect dev IFB",
		"filter add dev DEV ingress protocol ip flower enc_key_id 100 action tunnel_key unset action mirred egress redirect dev IFB",
		"filter add dev DEV ingress protocol all matchall action tunnel_key set src_ip 2001:db8::1 dst_ip 2001:db8::2 id 42 tos 0x10 ttl 64 nofrag",
		"filter add dev DEV ingress protocol all matchall action tunnel_key set src_ip 1.1.1.1 dst_ip 2.2.2.2 id 42 dst_port 6081 geneve_opts 0102:80:00880022,0408:42:0040007611223344",
		"filter add dev DEV ingress protocol all matchall action tunnel_key set src_ip 1.1.1.1 dst_ip 2.2.2.2 id 42 dst_port 4789 vxlan_opts 0x10",
		"filter add dev DEV ingress protocol all matchall action tunnel_key set src_ip 1.1.1.1 dst_ip 2.2.2.2 id 42 erspan_opts 1:12:0:0",
		"filter add dev DEV ingress protocol all matchall action tunnel_key set src_ip 1.1.1.1 dst_ip 2.2.2.2 erspan_opts 2:0:1:7 nocsum",
		"filter add dev DEV parent 1: protocol all matchall classid 1:1 action tunnel_key set src_ip 1.1.1.1 dst_ip 2.2.2.2 tos ff ttl 0 csum continue",
		"filter add dev DEV ingress protocol all matchall action tunnel_key unset goto chain 2",
		"actions add action tunnel_key set src_ip 10.10.10.1 dst_ip 20.20.20.2 id 1",
		"actions add action tunnel_key set src_ip 192.168.100.1 dst_ip 192.168.200.1 id 789 dst_port 4000 index 10",
		"actions add action tunnel_key set src_ip 192.168.10.1 dst_ip 192.168.20.2 id 123 continue index 1 cookie aa11bb22cc33dd44ee55ff66aa11b1b2",
		"actions replace action tunnel_key set src_ip 11.11.11.1 dst_ip 21.21.21.2 dst_port 3129 id 11 csum reclassify index 1 cookie 123456",
		"actions add action tunnel_key unset continue index 1",
		// Refused by tc or by the kernel.
		"filter add dev DEV ingress matchall action tunnel_key",
		"filter add dev DEV ingress matchall action tunnel_key set dst_ip 20.20.20.2 id 100",
		"filter add dev DEV ingress matchall action tunnel_key set src_ip 300.168.100.1 dst_ip 192.168.200.1",
		"filter add dev DEV ingress matchall action tunnel_key set src_ip 1.1.1.1 dst_ip 2.2.2.2 id 112233445566778899",
		"filter add dev DEV ingress matchall action tunnel_key set src_ip 1.1.1.1 dst_ip 2.2.2.2 dst_port 998877",
		"filter add dev DEV ingress matchall action tunnel_key src_ip 10.10.10.1 dst_ip 20.20.20.2 id 1",
		"filter add dev DEV ingress matchall action tunnel_key set src_ip 10.10.10.1 dst_ip 10.10.10.2 id 7 foobar 999",
		"filter add dev DEV ingress matchall action tunnel_key set src_ip 1.1.1.1 dst_ip 2.2.2.2 geneve_opts 824212:80:00880022",
		"filter add dev DEV ingress matchall action tunnel_key set src_ip 1.1.1.1 dst_ip 2.2.2.2 geneve_opts 0102:80:4288428822",
		"filter add dev DEV ingress matchall action tunnel_key set src_ip 1.1.1.1 dst_ip 2.2.2.2 geneve_opts 0102:80:00880022,0408:42:",
		"filter add dev DEV ingress matchall action tunnel_key set src_ip 1.1.1.1 dst_ip 2.2.2.2 erspan_opts 2:0:1:7:8",
		"filter add dev DEV ingress matchall action tunnel_key set src_ip 1.1.1.1 dst_ip 2.2.2.2 tos 300",
		"filter add dev DEV ingress matchall action tunnel_key set src_ip any dst_ip 2.2.2.2",
		"filter add dev DEV ingress matchall action tunnel_key set set",
		"actions add action tunnel_key set src_ip 1.1.1.1 dst_ip 2.2.2.2 id 11 index 4294967295678",
	}})
}
