// SPDX-License-Identifier: Apache-2.0

package traffic

import (
	"errors"
	"fmt"
	"time"
)

// RunOptions tune Run.
type RunOptions struct {
	// Timeout bounds the capture after the last send (default 2 s).
	Timeout time.Duration
	// Linger is how long the capture keeps listening after the expected
	// number of frames arrived, to catch extras (default 50 ms).
	Linger time.Duration
	// TracePath and CapturePath, if set, receive the send trace and the
	// capture as JSONL.
	TracePath, CapturePath string
}

// Summary is what Run reports (the CLI prints it as JSON).
type Summary struct {
	*Report
	// Exact: the capture is the trace, in order, unchanged.
	Exact bool `json:"exact"`
	// DevTxPackets is how much Dev's tx_packets moved during the run: one
	// per skb (a GSO super-packet counts once), so it equals Sent when
	// nothing else left through the qdisc.
	DevTxPackets uint64 `json:"dev_tx_packets"`
	// CaptureDrops are frames the capture socket itself lost.
	CaptureDrops uint32 `json:"capture_drops"`
	SendErrors   int    `json:"send_errors"`
	// DurationNS is from the first send to the last.
	DurationNS int64  `json:"duration_ns"`
	Trace      string `json:"trace,omitempty"`
	Capture    string `json:"capture,omitempty"`
	// Sends and Captured are the records themselves (not in the JSON).
	Sends    []Record `json:"-"`
	Captured []Record `json:"-"`
}

// Run sends a plan from Dev while capturing on Peer, in one process: the
// capture socket is open before the first send, and its goroutine stops
// after as many packets as the plan sends (plus Linger) or the timeout. It needs a
// plan that names its peer.
func Run(p *Plan, o RunOptions) (*Summary, error) {
	if p.Peer == "" {
		return nil, errors.New("run needs a plan with a peer to capture on")
	}
	if o.Timeout == 0 {
		o.Timeout = 2 * time.Second
	}
	if o.Linger == 0 {
		o.Linger = 50 * time.Millisecond
	}
	rcv, err := NewReceiver(p.PeerNetns, p.Peer, p.SinkPorts())
	if err != nil {
		return nil, fmt.Errorf("receiver: %w", err)
	}
	defer rcv.Close()
	snd, err := NewSender(p)
	if err != nil {
		return nil, fmt.Errorf("sender: %w", err)
	}
	defer snd.Close()
	tx0, err := TxPackets(p.Netns, p.Dev)
	if err != nil {
		return nil, err
	}

	type capResult struct {
		recs []Record
		err  error
	}
	capc := make(chan capResult, 1)
	// The capture must outlive the whole send: its timeout starts now and
	// covers the plan's span too.
	span := time.Duration(snd.span())
	go func() {
		recs, err := rcv.Run(p.Segments(), span+o.Timeout, o.Linger)
		capc <- capResult{recs, err}
	}()
	sends, sendErr := snd.Run()
	cr := <-capc
	tx1, err := TxPackets(p.Netns, p.Dev)
	if err != nil {
		return nil, err
	}
	if cr.err != nil {
		return nil, fmt.Errorf("capture: %w", cr.err)
	}
	sum := &Summary{
		Report:       Compare(sends, cr.recs),
		DevTxPackets: tx1 - tx0,
		CaptureDrops: rcv.Drops,
		Sends:        sends,
		Captured:     cr.recs,
		Trace:        o.TracePath,
		Capture:      o.CapturePath,
	}
	sum.Exact = sum.Report.Exact()
	for i := range sends {
		if sends[i].Err != "" {
			sum.SendErrors++
		}
	}
	if n := len(sends); n > 0 {
		sum.DurationNS = sends[n-1].T - sends[0].T
	}
	if o.TracePath != "" {
		if err := WriteTraceFile(o.TracePath, sends); err != nil {
			return sum, err
		}
	}
	if o.CapturePath != "" {
		if err := WriteTraceFile(o.CapturePath, cr.recs); err != nil {
			return sum, err
		}
	}
	return sum, sendErr
}
