// SPDX-License-Identifier: Apache-2.0

//go:build !linux

package netlink

import "os"

// Network namespaces are Linux's.

func checkNetNS(*os.File) error { return errNotSupported }

func dupFile(int) (*os.File, error) { return nil, errNotSupported }
