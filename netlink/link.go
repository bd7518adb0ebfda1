package netlink

import (
	"encoding/binary"
	"fmt"

	"github.com/gotc/gotc/attrs"
	mnl "github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"
)

// ifinfomsgLen is the size of struct ifinfomsg, the header of link messages.
const ifinfomsgLen = 16

// ErrNoDevice reports a device name the kernel does not know.
type ErrNoDevice string

func (e ErrNoDevice) Error() string { return fmt.Sprintf("cannot find device %q", string(e)) }

// LinkIndex returns the ifindex of the named device in the connection's
// network namespace (which may differ from the process's).
func (c *Conn) LinkIndex(name string) (int32, error) {
	e := attrs.NewEncoder(make([]byte, ifinfomsgLen, 64))
	e.String(unix.IFLA_IFNAME, name)
	req := mnl.Message{
		Header: mnl.Header{Type: unix.RTM_GETLINK, Flags: mnl.Request},
		Data:   e.Bytes(),
	}
	replies, err := c.nl.Execute(req)
	if err != nil {
		if kerr, ok := kernelError(err).(*Error); ok && (kerr.Errno == unix.ENODEV || kerr.Errno == unix.EINVAL) {
			return 0, ErrNoDevice(name)
		}
		return 0, err
	}
	for _, r := range replies {
		if r.Header.Type == unix.RTM_NEWLINK && len(r.Data) >= ifinfomsgLen {
			return int32(binary.NativeEndian.Uint32(r.Data[4:])), nil
		}
	}
	return 0, ErrNoDevice(name)
}

// LinkNames returns the names of all devices by ifindex.
func (c *Conn) LinkNames() (map[int32]string, error) {
	req := mnl.Message{
		Header: mnl.Header{Type: unix.RTM_GETLINK, Flags: mnl.Request | mnl.Dump},
		Data:   make([]byte, ifinfomsgLen),
	}
	if _, err := c.nl.Send(req); err != nil {
		return nil, err
	}
	names := map[int32]string{}
	for r, err := range c.nl.ReceiveIter() {
		if err != nil {
			return nil, kernelError(err)
		}
		if r.Header.Type != unix.RTM_NEWLINK || len(r.Data) < ifinfomsgLen {
			continue
		}
		index := int32(binary.NativeEndian.Uint32(r.Data[4:]))
		_ = attrs.ForEach(r.Data[ifinfomsgLen:], func(typ uint16, data []byte) {
			if typ == unix.IFLA_IFNAME {
				names[index] = cString(data)
			}
		})
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
