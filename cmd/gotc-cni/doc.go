// SPDX-License-Identifier: Apache-2.0

// Command gotc-cni is a chained CNI plugin (CNI spec 1.1: ADD, DEL, CHECK,
// STATUS, GC) that shapes a pod's traffic on its host-side veth with
// gotc's apply engine.
//
// It reads the bandwidth plugin's configuration as it is (ingressRate,
// ingressBurst, egressRate, egressBurst in bits, runtimeConfig.bandwidth)
// and makes the same kernel state: a TBF (latency 25 ms) at the host
// veth's root for the pod's ingress; for its egress, an ingress qdisc
// with a u32 filter redirecting to an ifb ("bwp" and a hash of the
// network's name and the container ID) with its own TBF. Beyond it:
//
//	"aqm": "cake" | "fq_codel" | "fq"   cake in place of each TBF, or the
//	                                    AQM as the TBF's leaf
//	"tree": {"root": ..., "ingress": ...}  the host veth's whole state, as a
//	                                    device of a gotc apply file
//
// ADD applies the state (a second ADD sends nothing); CHECK fails when
// anything of the whole state differs, naming the changes that would
// repair it; DEL removes the ifb and the host veth's qdiscs, whatever
// a crashed ADD left; GC removes the ifbs of gotc-cni's attachments that
// are no longer valid. Its manual page is gotc-cni(8).
package main
