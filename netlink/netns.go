// SPDX-License-Identifier: Apache-2.0

package netlink

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// NetNS is an open network namespace: a handle that keeps the namespace
// alive and dials connections in it. Opening one changes no thread's
// namespace; Dial enters it only on a locked thread of its own, for the
// socket(2) call, so the caller's goroutine and thread stay where they are.
type NetNS struct {
	f *os.File
}

// netnsRunDir is where ip netns keeps its named namespaces' bind mounts.
const netnsRunDir = "/run/netns"

// OpenNetNS opens the named network namespace of ip netns
// (/run/netns/NAME).
func OpenNetNS(name string) (*NetNS, error) {
	if name == "" || strings.Contains(name, "/") || name == "." || name == ".." {
		return nil, fmt.Errorf("netlink: %q is no network namespace name", name)
	}
	return OpenNetNSPath(filepath.Join(netnsRunDir, name))
}

// OpenNetNSPid opens the network namespace of process pid
// (/proc/PID/ns/net).
func OpenNetNSPid(pid int) (*NetNS, error) {
	return OpenNetNSPath(filepath.Join("/proc", strconv.Itoa(pid), "ns", "net"))
}

// OpenNetNSPath opens the network namespace at path: a bind mount such as
// /run/netns/NAME, or a /proc/PID/ns/net file.
func OpenNetNSPath(path string) (*NetNS, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("netlink: cannot open network namespace: %w", err)
	}
	if err := checkNetNS(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("netlink: %s: %w", path, err)
	}
	return &NetNS{f: f}, nil
}

// NetNSFromFD makes a handle of a network namespace descriptor the caller
// holds. The handle has its own duplicate: the caller may close fd.
func NetNSFromFD(fd int) (*NetNS, error) {
	f, err := dupFile(fd)
	if err != nil {
		return nil, fmt.Errorf("netlink: network namespace descriptor %d: %w", fd, err)
	}
	if err := checkNetNS(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("netlink: descriptor %d: %w", fd, err)
	}
	return &NetNS{f: f}, nil
}

// FD returns the namespace's descriptor, valid until Close.
func (ns *NetNS) FD() int { return int(ns.f.Fd()) }

// Close releases the handle; connections dialled in the namespace stay
// open and in it.
func (ns *NetNS) Close() error { return ns.f.Close() }

// Dial opens a Conn in the namespace, as Dial does; cfg's NetNS is
// ignored.
func (ns *NetNS) Dial(cfg *Config) (*Conn, error) {
	var c Config
	if cfg != nil {
		c = *cfg
	}
	c.NetNS = ns.FD()
	return Dial(&c)
}
