// SPDX-License-Identifier: Apache-2.0

//go:build !linux

package traffic

import (
	"fmt"
	"runtime"
	"time"
)

// Sending and capturing need Linux (packet sockets, network namespaces,
// rtnetlink); elsewhere they fail at once, so that plans, traces and their
// comparison still build and work.

var errNotSupported = fmt.Errorf("traffic: sending and capturing are not supported on %s", runtime.GOOS)

// Sender sends a plan's packets; not supported on this OS.
type Sender struct{}

// NewSender fails: not supported on this OS.
func NewSender(*Plan) (*Sender, error) { return nil, errNotSupported }

// Run fails: not supported on this OS.
func (*Sender) Run() ([]Record, error) { return nil, errNotSupported }

// Close does nothing.
func (*Sender) Close() error { return nil }

func (*Sender) span() int64 { return 0 }

// Receiver captures what arrives on a device; not supported on this OS.
type Receiver struct {
	// Drops is the count of frames the capture lost (always 0 here).
	Drops uint32
}

// NewReceiver fails: not supported on this OS.
func NewReceiver(string, string, []SinkPort) (*Receiver, error) { return nil, errNotSupported }

// Run fails: not supported on this OS.
func (*Receiver) Run(int, time.Duration, time.Duration) ([]Record, error) {
	return nil, errNotSupported
}

// Close does nothing.
func (*Receiver) Close() error { return nil }

// InNetns fails: network namespaces are Linux's.
func InNetns(string, func() error) error { return errNotSupported }

// TxPackets fails: not supported on this OS.
func TxPackets(string, string) (uint64, error) { return 0, errNotSupported }

// RecordSnap is the most of a frame RecordFrames keeps.
const RecordSnap = 262144

// RecordFrames fails: not supported on this OS.
func RecordFrames(string, string, int, time.Duration, func(time.Time, []byte) error) (uint32, error) {
	return 0, errNotSupported
}
