// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/containernetworking/cni/pkg/types"
	current "github.com/containernetworking/cni/pkg/types/100"
	"github.com/containernetworking/cni/pkg/version"

	"github.com/gotc/gotc/apply"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
)

// latencyMs is the bandwidth plugin's fixed TBF latency, from which the
// queue's limit follows: the bytes the rate sends in 25 ms, plus the burst.
const latencyMs = 25

// BandwidthEntry is one set of rates, as the bandwidth plugin reads it: rates
// in bits per second, bursts in bits, 0 for no limit.
type BandwidthEntry struct {
	IngressRate  uint64 `json:"ingressRate"`
	IngressBurst uint64 `json:"ingressBurst"`
	EgressRate   uint64 `json:"egressRate"`
	EgressBurst  uint64 `json:"egressBurst"`
}

func (b *BandwidthEntry) isZero() bool {
	return b.IngressRate == 0 && b.IngressBurst == 0 && b.EgressRate == 0 && b.EgressBurst == 0
}

// PluginConf is the plugin's configuration: the bandwidth plugin's keys,
// and gotc-cni's own (aqm, tree).
type PluginConf struct {
	types.NetConf
	RuntimeConfig struct {
		Bandwidth *BandwidthEntry `json:"bandwidth,omitempty"`
	} `json:"runtimeConfig,omitempty"`
	*BandwidthEntry
	// ShapedSubnets and UnshapedSubnets are read so that they are refused
	// rather than ignored (see parseConf).
	ShapedSubnets   []string `json:"shapedSubnets,omitempty"`
	UnshapedSubnets []string `json:"unshapedSubnets,omitempty"`
	// AQM is the queue in place of TBF's fifo: cake (its own shaper),
	// fq_codel or fq (leaves of the TBF).
	AQM string `json:"aqm,omitempty"`
	// Tree is the host interface's trees in apply's schema (root and
	// ingress, as a device of a gotc apply file).
	Tree json.RawMessage `json:"tree,omitempty"`
}

// parseConf reads the configuration from stdin and checks it; its
// messages for the bandwidth plugin's keys are that plugin's.
func parseConf(stdin []byte) (*PluginConf, error) {
	conf := &PluginConf{}
	if err := json.Unmarshal(stdin, conf); err != nil {
		return nil, fmt.Errorf("failed to parse network configuration: %v", err)
	}
	if bw := conf.limits(); bw != nil {
		if err := checkRateBurst(bw.IngressRate, bw.IngressBurst); err != nil {
			return nil, err
		}
		if err := checkRateBurst(bw.EgressRate, bw.EgressBurst); err != nil {
			return nil, err
		}
	}
	if conf.RawPrevResult != nil {
		if err := version.ParsePrevResult(&conf.NetConf); err != nil {
			return nil, fmt.Errorf("could not parse prevResult: %v", err)
		}
		if _, err := current.NewResultFromResult(conf.PrevResult); err != nil {
			return nil, fmt.Errorf("could not convert result to current version: %v", err)
		}
	}
	if len(conf.ShapedSubnets) > 0 || len(conf.UnshapedSubnets) > 0 {
		// The pinned bandwidth plugin (v1.10.0) has no such keys (they
		// came and went with its PR #921) and would shape all traffic:
		// refusing says so instead of shaping what the user excluded.
		return nil, errors.New("shapedSubnets and unshapedSubnets are not supported: gotc-cni would shape all traffic; use tree for per-subnet shaping")
	}
	if _, ok := aqms[conf.AQM]; !ok {
		return nil, fmt.Errorf("aqm %q: want cake, fq_codel or fq", conf.AQM)
	}
	if len(conf.Tree) > 0 && !bytes.Equal(bytes.TrimSpace(conf.Tree), []byte("null")) {
		if bw := conf.limits(); (bw != nil && !bw.isZero()) || conf.AQM != "" {
			return nil, errors.New("tree is the host interface's whole state: it goes without ingressRate, egressRate, runtimeConfig.bandwidth and aqm")
		}
	} else {
		conf.Tree = nil
	}
	return conf, nil
}

// limits is the bandwidth the configuration asks for: the top-level keys
// when there are any, else runtimeConfig's (nil for none), as in the
// bandwidth plugin.
func (c *PluginConf) limits() *BandwidthEntry {
	if c.BandwidthEntry == nil && c.RuntimeConfig.Bandwidth != nil {
		return c.RuntimeConfig.Bandwidth
	}
	return c.BandwidthEntry
}

// shapes reports whether the configuration asks for any kernel state.
func (c *PluginConf) shapes() bool {
	bw := c.limits()
	return c.Tree != nil || (bw != nil && !bw.isZero())
}

func checkRateBurst(rate, burst uint64) error {
	switch {
	case burst == 0 && rate != 0:
		return errors.New("if rate is set, burst must also be set")
	case rate == 0 && burst != 0:
		return errors.New("if burst is set, rate must also be set")
	case burst/8 >= math.MaxUint32:
		return errors.New("burst cannot be more than 4GB")
	}
	return nil
}

// tbf is the bandwidth plugin's TBF for a rate in bits/s and a burst in
// bits: its buffer and limit in the plugin's arithmetic (the time a burst
// takes at the rate, truncated to whole microseconds, then ticks; the limit
// the bytes of 25 ms plus the burst) and its rate spec as the plugin sends
// it, without tc's link layer or rate table.
func tbf(rateBits, burstBits uint64, tickInUsec float64) *attrs.TBFAttrs {
	rate, burst := rateBits/8, uint32(burstBits/8)
	usec := uint32(float64(burst) * 1e6 / float64(rate))
	buffer := uint32(float64(usec) * tickInUsec)
	limit := uint32(float64(rate)*(1e6*latencyMs/1000)/1e6) + burst
	o := &attrs.TBFAttrs{Parms: &attrs.TCTBFQopt{Rate: attrs.TCRatespec{Rate: uint32(rate)}, Limit: limit, Buffer: buffer}}
	if rate >= 1<<32 {
		// The 64-bit rate goes apart. The plugin's library sends the
		// 32 bits truncated, tc saturated; the kernel takes the larger
		// of the two rates, so the state is the same, and it dumps the
		// rate saturated: sent so, it compares in sync.
		o.Parms.Rate.Rate = math.MaxUint32
		o.Rate64 = &rate
	}
	return o
}

// shaper is the root qdisc that shapes one direction at rate and burst
// (bits), with the configuration's AQM.
func shaper(rateBits, burstBits uint64, aqm string, tickInUsec float64) *apply.Qdisc {
	return aqms[aqm](rateBits, &apply.Qdisc{Spec: "tbf", Handle: "1:", Options: tbf(rateBits, burstBits, tickInUsec)})
}

// aqms are the configuration's "aqm" choices, each making a direction's
// root from its rate (bits/s) and the bandwidth plugin's TBF: the TBF
// alone (no aqm), cake's own shaper in its place, or a leaf below it.
var aqms = map[string]func(rateBits uint64, tbf *apply.Qdisc) *apply.Qdisc{
	"": func(_ uint64, tbf *apply.Qdisc) *apply.Qdisc { return tbf },
	"cake": func(rateBits uint64, _ *apply.Qdisc) *apply.Qdisc {
		return &apply.Qdisc{Spec: "cake bandwidth " + strconv.FormatUint(rateBits, 10) + "bit", Handle: "1:"}
	},
	"fq_codel": leafUnderTBF("fq_codel"),
	"fq":       leafUnderTBF("fq"),
}

// leafUnderTBF is an aqm choice that hangs a qdisc of kind below the TBF.
func leafUnderTBF(kind string) func(uint64, *apply.Qdisc) *apply.Qdisc {
	return func(_ uint64, tbf *apply.Qdisc) *apply.Qdisc {
		tbf.Classes = map[string]*apply.Class{"1:1": {Leaf: &apply.Qdisc{Spec: kind}}}
		return tbf
	}
}

// redirectFilter is the bandwidth plugin's filter on the host interface's
// ingress: u32 matching every packet, class 1:1, and two mirred redirects
// to the ifb. The first steals the packet (the plugin's library adds it
// for the filter's redirect index); the second, the plugin's own, has the
// verdict pass (TC_ACT_OK), which tc's words cannot give a redirect:
// passVerdict sets it.
func redirectFilter(ifb string) string {
	return "protocol all pref 1 u32 match u32 0 0 classid 1:1" +
		" action mirred egress redirect dev " + ifb +
		" action mirred egress redirect dev " + ifb
}

// passVerdict is the ingress qdisc's EditFilter: the second action of the
// redirect filter passes.
func passVerdict(_ int, opts attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	u, ok := opts.(*attrs.U32Attrs)
	if !ok || len(u.Act) != 2 {
		return opts
	}
	m, ok := u.Act[1].Options.(*attrs.ActMirredAttrs)
	if !ok || m.Parms == nil {
		return opts
	}
	c, act, mc, parms := *u, slices.Clone(u.Act), *m, *m.Parms
	parms.Action = 0 // TC_ACT_OK, "pass"
	mc.Parms = &parms
	act[1].Options = &mc
	c.Act = act
	return &c
}

// desired is the state the configuration asks of the host interface and,
// when it shapes egress, of the ifb (named ifb).
func (c *PluginConf) desired(host, ifb string, tickInUsec float64) (*apply.File, error) {
	if c.Tree != nil {
		doc, err := json.Marshal(map[string]any{"devices": map[string]json.RawMessage{host: c.Tree}})
		if err != nil {
			return nil, err
		}
		f, err := apply.Load("tree", bytes.NewReader(doc))
		if err != nil {
			return nil, fmt.Errorf("tree: %w", err)
		}
		return f, nil
	}
	f := &apply.File{Devices: map[string]*apply.Device{host: {}}}
	bw := c.limits()
	if bw == nil {
		return f, nil
	}
	if bw.IngressRate > 0 && bw.IngressBurst > 0 {
		f.Devices[host].Root = shaper(bw.IngressRate, bw.IngressBurst, c.AQM, tickInUsec)
	}
	if c.shapesEgress() {
		f.Devices[host].Ingress = &apply.Qdisc{Spec: "ingress", Handle: "ffff:", Filters: []string{redirectFilter(ifb)}, EditFilter: passVerdict}
		f.Devices[ifb] = &apply.Device{Root: shaper(bw.EgressRate, bw.EgressBurst, c.AQM, tickInUsec)}
	}
	return f, nil
}

// shapesEgress reports whether the configuration shapes the container's
// egress, which needs the ifb.
func (c *PluginConf) shapesEgress() bool {
	bw := c.limits()
	return c.Tree == nil && bw != nil && bw.EgressRate > 0 && bw.EgressBurst > 0
}

// tickInUsec is the kernel's psched ticks per microsecond, as tc and the
// bandwidth plugin read it.
func tickInUsec() float64 { return tcword.Psched().TickInUsec }
