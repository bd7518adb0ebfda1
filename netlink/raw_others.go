// SPDX-License-Identifier: Apache-2.0

//go:build !linux

package netlink

import (
	"context"
	"fmt"
	"runtime"

	mnl "github.com/mdlayher/netlink"
)

// rtnetlink is Linux's: elsewhere mdlayher/netlink's Dial fails, so a Conn
// only ever wraps a socket without a descriptor (nltest) and takes mdlayher's
// path. These stand in for raw_linux.go's system calls so that the package,
// with its message encoding and decoding, builds on every OS.

var errNotSupported = fmt.Errorf("netlink: rtnetlink is not supported on %s", runtime.GOOS)

// newRawSocket reports that there is no direct system-call path on this OS.
func newRawSocket(*mnl.Conn) *rawSocket { return nil }

func (s *rawSocket) watch(context.Context) func() { return func() {} }

func (s *rawSocket) send([]byte) error { return errNotSupported }

func (s *rawSocket) recv() ([]byte, error) { return nil, errNotSupported }

func (s *rawSocket) recvInto([]byte) ([]byte, error) { return nil, errNotSupported }

func (s *rawSocket) recvQueued() ([]byte, error) { return nil, errNotSupported }

type rawTransport struct{}

func newRawTransport(*rawSocket, int) *rawTransport { return &rawTransport{} }

func (*rawTransport) send([]byte, []uint32) error { return errNotSupported }

func (*rawTransport) acks([]uint32, []error) error { return errNotSupported }
