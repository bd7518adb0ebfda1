// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import (
	"context"
	"errors"
	"testing"

	"github.com/containernetworking/cni/pkg/types"

	"github.com/gotc/gotc/apply"
)

// TestIfbName: the bandwidth plugin's name for a network and container,
// the start of the SHA-512 of their concatenation.
func TestIfbName(t *testing.T) {
	// sha512sum of "net1c1" begins c2d892b58e87.
	if got := ifbName("net1", "c1"); got != "bwpc2d892b58e87" {
		t.Errorf("ifbName = %q, want bwpc2d892b58e87", got)
	}
	if ifbName("net1", "c1") == ifbName("net1", "c2") {
		t.Errorf("two containers, one name")
	}
}

// deadKernel is a kernel that answers nothing.
type deadKernel struct{ apply.Kernel }

func (deadKernel) LinkNames(context.Context) (map[int32]string, error) {
	return nil, errors.New("netlink: connection refused")
}

// TestStatusNotAvailable: STATUS on a kernel that does not answer fails
// with CNI 1.1's code 50 (the plugin cannot serve ADD) and says why.
func TestStatusNotAvailable(t *testing.T) {
	err := ready(deadKernel{})
	var e *types.Error
	if !errors.As(err, &e) || e.Code != types.ErrPluginNotAvailable ||
		e.Msg != "cannot read the kernel's devices" || e.Details != "netlink: connection refused" {
		t.Errorf("ready = %#v, want code %d with the cause", err, types.ErrPluginNotAvailable)
	}
}
