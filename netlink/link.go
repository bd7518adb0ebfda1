// SPDX-License-Identifier: Apache-2.0

package netlink

import (
	"context"
	"encoding/binary"
	"errors"
	"maps"
	"strconv"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/nlabi"
	"golang.org/x/sys/unix"
)

// ifinfomsgLen is the size of struct ifinfomsg, the header of link messages.
const ifinfomsgLen = 16

// rtextFilterSkipStats is RTEXT_FILTER_SKIP_STATS (linux/rtnetlink.h, since
// Linux 4.8): link messages without IFLA_STATS and IFLA_STATS64.
const rtextFilterSkipStats = 1 << 3

// LinkIndex returns the ifindex of the named device in the connection's
// network namespace (which may differ from the process's); a name the
// kernel does not know is a *NoDeviceError (errors.Is ErrNotFound).
func (c *Conn) LinkIndex(ctx context.Context, name string) (int32, error) {
	e := attrs.NewEncoder(make([]byte, ifinfomsgLen, 64))
	e.String(nlabi.IFLA_IFNAME, name)
	typ, data, err := c.exchange(ctx, nlabi.RTM_GETLINK, 0, e.Bytes())
	if err != nil {
		var kerr *Error
		if errors.As(err, &kerr) && (kerr.Errno == unix.ENODEV || kerr.Errno == unix.EINVAL) {
			return 0, &NoDeviceError{Name: name}
		}
		return 0, err
	}
	if typ == nlabi.RTM_NEWLINK && len(data) >= ifinfomsgLen {
		return int32(binary.NativeEndian.Uint32(data[4:])), nil
	}
	return 0, &NoDeviceError{Name: name}
}

// LinkQueue is what the kernel derives a device's default queue limits
// from (a fifo qdisc's limit given none): its transmit queue length, its
// MTU and its hardware type (an ARPHRD_ number, ifinfomsg's ifi_type).
type LinkQueue struct {
	TxQueueLen, MTU uint32
	Type            uint16
}

// LinkQueue returns the queue settings of the device of ifindex; a device
// the kernel does not know is a *NoDeviceError.
func (c *Conn) LinkQueue(ctx context.Context, ifindex int32) (LinkQueue, error) {
	e := attrs.NewEncoder(make([]byte, ifinfomsgLen, 32))
	binary.NativeEndian.PutUint32(e.Bytes()[4:], uint32(ifindex))
	e.Uint32(nlabi.IFLA_EXT_MASK, rtextFilterSkipStats)
	typ, data, err := c.exchange(ctx, nlabi.RTM_GETLINK, 0, e.Bytes())
	name := "ifindex " + strconv.Itoa(int(ifindex))
	if err != nil {
		var kerr *Error
		if errors.As(err, &kerr) && kerr.Errno == unix.ENODEV {
			return LinkQueue{}, &NoDeviceError{Name: name}
		}
		return LinkQueue{}, err
	}
	if typ != nlabi.RTM_NEWLINK || len(data) < ifinfomsgLen {
		return LinkQueue{}, &NoDeviceError{Name: name}
	}
	q := LinkQueue{Type: binary.NativeEndian.Uint16(data[2:])}
	err = attrs.ForEach(data[ifinfomsgLen:], func(typ uint16, v []byte) {
		switch {
		case typ == nlabi.IFLA_TXQLEN && len(v) >= 4:
			q.TxQueueLen = binary.NativeEndian.Uint32(v)
		case typ == nlabi.IFLA_MTU && len(v) >= 4:
			q.MTU = binary.NativeEndian.Uint32(v)
		}
	})
	return q, err
}

// LinkNames returns the names of all devices by ifindex.
func (c *Conn) LinkNames(ctx context.Context) (map[int32]string, error) {
	names := map[int32]string{}
	// Only the names are needed: ask the kernel not to gather every
	// device's statistics (most of a link dump's cost).
	e := attrs.NewEncoder(make([]byte, ifinfomsgLen, 32))
	e.Uint32(nlabi.IFLA_EXT_MASK, rtextFilterSkipStats)
	err := c.dump(ctx, nlabi.RTM_GETLINK, nlabi.RTM_NEWLINK, e.Bytes(), func(data []byte) error {
		if len(data) < ifinfomsgLen {
			return nil
		}
		index := int32(binary.NativeEndian.Uint32(data[4:]))
		// A link message that does not parse still names no device.
		_ = attrs.ForEach(data[ifinfomsgLen:], func(typ uint16, data []byte) {
			if typ == nlabi.IFLA_IFNAME {
				names[index] = cString(data)
			}
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return names, nil
}

func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// Links names the devices of a connection's namespace, as tc does, for
// the kinds that refer to one by its ifindex (mirred's target) and for the
// lines that name a device; it is the tckind.Links of a program that talks
// to the kernel. An index is asked of the kernel by name, when asked. The
// names of ifindexes come from one link dump, read on first need or by
// Load, and kept (tc's ll_map cache).
type Links struct {
	ctx   context.Context
	conn  LinkLookup
	names map[int32]string // nil until read
}

// LinkLookup is what Links asks: a *Conn, a connection opened on first
// use, or a fake of the kernel.
type LinkLookup interface {
	// LinkIndex is the ifindex of the device called name.
	LinkIndex(ctx context.Context, name string) (int32, error)
	// LinkNames names every device by ifindex.
	LinkNames(ctx context.Context) (map[int32]string, error)
}

// NewLinks returns the Links of the namespace c talks to; ctx bounds its
// requests.
func NewLinks(ctx context.Context, c LinkLookup) *Links { return &Links{ctx: ctx, conn: c} }

// Index is the ifindex of the device called name; ok is false when the
// kernel knows none (or cannot be asked).
func (l *Links) Index(name string) (idx int32, ok bool) {
	idx, err := l.conn.LinkIndex(l.ctx, name)
	return idx, err == nil
}

// Name is what tc prints for an ifindex (ll_index_to_name): "*" for 0,
// the device's name, or "ifN" for one it cannot name.
func (l *Links) Name(idx int32) string {
	if idx == 0 {
		return "*"
	}
	_ = l.Load() // a failure leaves the index unnamed, as tc's cache does
	if name, ok := l.names[idx]; ok {
		return name
	}
	return "if" + strconv.Itoa(int(idx))
}

// Load reads every device's name unless they are read already. A listing
// calls it before its dump whenever what it prints may name devices:
// looking them up from inside the dump would wait forever for the socket
// the dump is reading. It returns the failure of the link dump, after
// which every index stays unnamed ("ifN", as tc prints it) without
// another try; a listing goes on regardless, as tc's does.
func (l *Links) Load() error {
	if l.names != nil {
		return nil
	}
	names, err := l.conn.LinkNames(l.ctx)
	if err != nil || names == nil {
		l.names = map[int32]string{}
		return err
	}
	l.names = names
	return nil
}

// Names returns every device's name by ifindex (a copy), read as Load
// reads them: one dump serves both a list of the devices and the names
// printed after.
func (l *Links) Names() map[int32]string {
	_ = l.Load() // a failure leaves no names, which is the answer
	return maps.Clone(l.names)
}

// Notice forgets the names read unless they name idx, so that the next
// Name reads them again: a monitor sees devices made after its start.
func (l *Links) Notice(idx int32) {
	if _, known := l.names[idx]; !known {
		l.names = nil
	}
}
