package netlink

import (
	"context"

	"github.com/gotc/gotc/attrs"
)

// SetCakeBandwidth changes the shaped rate of the CAKE qdisc at parent
// (HandleRoot for the root) of device ifindex in place: one RTM_NEWQDISC
// without NLM_F_CREATE, the request of "tc qdisc change dev DEV parent
// PARENT cake bandwidth RATE". The qdisc's other settings, its queues and
// its statistics stay as they are, so an autorate daemon can call it many
// times a second. bytesPerSecond 0 means unlimited. A device without a
// CAKE qdisc there is refused (ErrNotFound or ErrInvalid).
func (c *Conn) SetCakeBandwidth(ctx context.Context, ifindex int32, parent uint32, bytesPerSecond uint64) error {
	kind := "cake"
	m := Msg{}
	m.Header.Ifindex = ifindex
	m.Header.Parent = parent
	m.Attrs.Kind = &kind
	m.Attrs.Options = &attrs.CakeAttrs{BaseRate64: &bytesPerSecond}
	return c.Do(ctx, Qdisc, Change, &m)
}
