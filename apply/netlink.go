package apply

import "github.com/gotc/gotc/netlink"

// KernelConn is the Kernel of a netlink connection: the one file that knows
// the connection's API.
type KernelConn struct{ Conn *netlink.Conn }

// LinkIndex implements Kernel.
func (k KernelConn) LinkIndex(name string) (int32, error) { return k.Conn.LinkIndex(name) }

// LinkNames implements Kernel.
func (k KernelConn) LinkNames() (map[int32]string, error) { return k.Conn.LinkNames() }

// Dump implements Kernel.
func (k KernelConn) Dump(obj netlink.Object, ifindex int32, parent uint32) ([]netlink.Msg, error) {
	var msgs []netlink.Msg
	err := k.Conn.Dump(obj, netlink.DumpFilter{Ifindex: ifindex, Parent: parent}, func(m *netlink.Msg, decodeErr error) error {
		if decodeErr != nil {
			return decodeErr // comparing with half an object would plan wrong changes
		}
		msgs = append(msgs, *m) // Dump reuses m itself, not what it points to
		return nil
	})
	return msgs, err
}

// Do implements Kernel.
func (k KernelConn) Do(obj netlink.Object, op netlink.Op, m *netlink.Msg) error {
	return k.Conn.Do(obj, op, m)
}
