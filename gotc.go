// SPDX-License-Identifier: Apache-2.0

// Package gotc is the kernel's traffic control as a Go library: what a tc
// user does, one call each. Add, change, replace and delete qdiscs, classes,
// filters and standalone actions, with typed options (*attrs.CakeAttrs,
// *attrs.HTBAttrs, ...) or with tc's own words, and read any kind's
// statistics as typed values:
//
//	c, err := gotc.Dial(nil)
//	opts, err := gotc.QdiscOptions("cake", "bandwidth 100mbit diffserv4")
//	err = c.AddQdisc(ctx, gotc.Qdisc{Dev: "eth0", Parent: gotc.Root, Kind: "cake", Options: opts})
//	err = c.ChangeQdisc(ctx, gotc.Qdisc{Dev: "eth0", Parent: gotc.Root, Kind: "cake",
//		Options: &attrs.CakeAttrs{BaseRate64: &rate}}) // only the bandwidth; queues and counters kept
//	st, err := c.QdiscStats(ctx, "eth0", gotc.Root)
//
// Every kind gotc speaks is registered (package allkinds); package tckind
// holds their contract and parsers, package netlink the connection
// underneath (dumps, events, pipelines), which Conn returns.
package gotc

import (
	"context"
	"fmt"
	"strings"

	"github.com/gotc/gotc/action"
	_ "github.com/gotc/gotc/allkinds"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tckind"
)

// The places a qdisc sits at besides a class: a device's root and its
// ingress (or clsact) hook.
const (
	Root    = netlink.HandleRoot
	Ingress = netlink.HandleIngress
)

// Handle makes a qdisc handle or class ID, as tc writes "major:minor".
func Handle(major, minor uint16) uint32 { return netlink.MakeHandle(major, minor) }

// Client is a connection to the kernel's traffic control, in one network
// namespace. It is not safe for concurrent use.
type Client struct {
	conn *netlink.Conn
}

// Dial connects to the traffic control of the network namespace ns, or of
// the caller's own when ns is nil.
func Dial(ns *netlink.NetNS) (*Client, error) {
	var conn *netlink.Conn
	var err error
	if ns != nil {
		conn, err = ns.Dial(nil)
	} else {
		conn, err = netlink.Dial(nil)
	}
	if err != nil {
		return nil, err
	}
	return &Client{conn: conn}, nil
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// Conn is the rtnetlink connection underneath, for what this package has
// no call of its own for: dumps (Msgs), events, pipelined requests.
func (c *Client) Conn() *netlink.Conn { return c.conn }

// Qdisc is a qdisc as a request names it.
type Qdisc struct {
	// Dev is the device's name, looked up at each request; Ifindex, when
	// not 0, names it instead without a lookup (what a daemon that
	// changes a rate many times a second wants).
	Dev     string
	Ifindex int32
	// Parent is Root, Ingress or the class the qdisc hangs from.
	Parent uint32
	// Handle is the qdisc's handle (Handle(1, 0) for "1:"); 0 lets the
	// kernel choose one when adding, and matches the qdisc at Parent
	// otherwise.
	Handle uint32
	// Kind is the qdisc's kind ("cake", "htb", ...).
	Kind string
	// Options are the kind's options: typed (*attrs.CakeAttrs), from
	// QdiscOptions, or nil for the kind's defaults. A change sets only
	// the options named.
	Options attrs.TCOptionsMsg
}

// Class is a class as a request names it.
type Class struct {
	// Dev is the device's name, looked up at each request; Ifindex, when
	// not 0, names it instead without a lookup (what a daemon that
	// changes a rate many times a second wants).
	Dev     string
	Ifindex int32
	// Parent is the qdisc or class the class hangs from.
	Parent uint32
	// ClassID is the class's ID (Handle(1, 10) for "1:10").
	ClassID uint32
	// Kind is the kind of the qdisc the class belongs to ("htb").
	Kind string
	// Options are the class's options: typed, or from ClassOptions.
	Options attrs.TCOptionsMsg
}

// Filter is a filter as a request names it.
type Filter struct {
	// Dev is the device's name, looked up at each request; Ifindex, when
	// not 0, names it instead without a lookup (what a daemon that
	// changes a rate many times a second wants).
	Dev     string
	Ifindex int32
	// Parent is the qdisc or class the filter classifies for.
	Parent uint32
	// Protocol is the protocol matched (an ETH_P_* number, host order);
	// 0 means every protocol (ETH_P_ALL), tc's default.
	Protocol uint16
	// Pref is the filter's preference (tc's "pref" or "prio"); 0 lets
	// the kernel choose when adding.
	Pref uint16
	// Handle is the filter's handle, in the kind's numbering.
	Handle uint32
	// Chain is the chain the filter is in (0, the first, by default).
	Chain uint32
	// Kind is the filter's kind ("u32", "flower", "matchall", ...).
	Kind string
	// Options are the kind's options, its actions among them: typed, or
	// from FilterOptions.
	Options attrs.TCOptionsMsg
}

// Operations on a qdisc, class or filter.

// AddQdisc adds a qdisc (tc qdisc add): refused if one is there.
func (c *Client) AddQdisc(ctx context.Context, q Qdisc) error {
	return c.qdisc(ctx, netlink.Qdisc, netlink.Add, q)
}

// ReplaceQdisc adds a qdisc, or replaces the one at its place (tc qdisc
// replace).
func (c *Client) ReplaceQdisc(ctx context.Context, q Qdisc) error {
	return c.qdisc(ctx, netlink.Qdisc, netlink.Replace, q)
}

// ChangeQdisc changes a qdisc's options in place (tc qdisc change): only
// those q names, its queues and counters kept. Changing the rate of a
// CAKE shaper many times a second is one call:
//
//	c.ChangeQdisc(ctx, gotc.Qdisc{Dev: "eth0", Parent: gotc.Root, Kind: "cake", Options: &attrs.CakeAttrs{BaseRate64: &bytesPerSecond}})
func (c *Client) ChangeQdisc(ctx context.Context, q Qdisc) error {
	return c.qdisc(ctx, netlink.Qdisc, netlink.Change, q)
}

// DeleteQdisc deletes a qdisc (tc qdisc delete), and everything below it.
func (c *Client) DeleteQdisc(ctx context.Context, q Qdisc) error {
	return c.qdisc(ctx, netlink.Qdisc, netlink.Delete, q)
}

// AddClass adds a class (tc class add).
func (c *Client) AddClass(ctx context.Context, cl Class) error {
	return c.qdisc(ctx, netlink.Class, netlink.Add, cl.asQdisc())
}

// ReplaceClass adds a class or replaces its options (tc class replace).
func (c *Client) ReplaceClass(ctx context.Context, cl Class) error {
	return c.qdisc(ctx, netlink.Class, netlink.Replace, cl.asQdisc())
}

// ChangeClass changes a class's options (tc class change).
func (c *Client) ChangeClass(ctx context.Context, cl Class) error {
	return c.qdisc(ctx, netlink.Class, netlink.Change, cl.asQdisc())
}

// DeleteClass deletes a class (tc class delete).
func (c *Client) DeleteClass(ctx context.Context, cl Class) error {
	return c.qdisc(ctx, netlink.Class, netlink.Delete, cl.asQdisc())
}

// asQdisc is a class's request, which has a qdisc's fields.
func (cl Class) asQdisc() Qdisc {
	return Qdisc{Dev: cl.Dev, Ifindex: cl.Ifindex, Parent: cl.Parent, Handle: cl.ClassID, Kind: cl.Kind, Options: cl.Options}
}

// qdisc sends a qdisc's or class's request.
func (c *Client) qdisc(ctx context.Context, o netlink.Object, op netlink.Op, q Qdisc) error {
	ifindex, err := c.ifindex(ctx, q.Ifindex, q.Dev)
	if err != nil {
		return err
	}
	m := qdiscMsg(ifindex, q)
	return c.conn.Do(ctx, o, op, &m)
}

// ifindex is the device a request names: ifindex, or else dev's.
func (c *Client) ifindex(ctx context.Context, ifindex int32, dev string) (int32, error) {
	if ifindex != 0 {
		return ifindex, nil
	}
	return c.conn.LinkIndex(ctx, dev)
}

// qdiscMsg is the request for a qdisc or class on device ifindex.
func qdiscMsg(ifindex int32, q Qdisc) netlink.Msg {
	var m netlink.Msg
	m.Header.Ifindex, m.Header.Parent, m.Header.Handle = ifindex, q.Parent, q.Handle
	if q.Kind != "" {
		m.Attrs.Kind = &q.Kind
	}
	m.Attrs.Options = q.Options
	return m
}

// AddFilter adds a filter (tc filter add).
func (c *Client) AddFilter(ctx context.Context, f Filter) error {
	return c.filter(ctx, netlink.Add, f)
}

// ReplaceFilter adds a filter or replaces the one with its handle (tc
// filter replace).
func (c *Client) ReplaceFilter(ctx context.Context, f Filter) error {
	return c.filter(ctx, netlink.Replace, f)
}

// ChangeFilter changes a filter's options (tc filter change).
func (c *Client) ChangeFilter(ctx context.Context, f Filter) error {
	return c.filter(ctx, netlink.Change, f)
}

// DeleteFilter deletes a filter (tc filter delete): by handle, or every
// filter of its pref and protocol when the handle is 0.
func (c *Client) DeleteFilter(ctx context.Context, f Filter) error {
	return c.filter(ctx, netlink.Delete, f)
}

// filter sends a filter's request.
func (c *Client) filter(ctx context.Context, op netlink.Op, f Filter) error {
	ifindex, err := c.ifindex(ctx, f.Ifindex, f.Dev)
	if err != nil {
		return err
	}
	m := filterMsg(ifindex, f)
	return c.conn.Do(ctx, netlink.Filter, op, &m)
}

// filterMsg is the request for a filter on device ifindex: tcm_info holds
// the pref above the protocol in network order, as tc sends them.
func filterMsg(ifindex int32, f Filter) netlink.Msg {
	proto := f.Protocol
	if proto == 0 {
		proto = tckind.EthPAll
	}
	var m netlink.Msg
	m.Header.Ifindex, m.Header.Parent, m.Header.Handle = ifindex, f.Parent, f.Handle
	m.Header.Info = uint32(f.Pref)<<16 | uint32(proto>>8|proto<<8)
	if f.Kind != "" {
		m.Attrs.Kind = &f.Kind
	}
	if f.Chain != 0 {
		m.Attrs.Chain = &f.Chain
	}
	m.Attrs.Options = f.Options
	return m
}

// AddActions adds standalone actions (tc actions add), for filters to
// share by index: acts as ActionOptions returns them.
func (c *Client) AddActions(ctx context.Context, acts []attrs.ActAttrs) error {
	return c.conn.DoAction(ctx, netlink.ActionAdd, &netlink.ActionMsg{Attrs: attrs.ActRootAttrs{Tab: acts}})
}

// ReplaceActions adds standalone actions or replaces those of the same
// kind and index (tc actions replace).
func (c *Client) ReplaceActions(ctx context.Context, acts []attrs.ActAttrs) error {
	return c.conn.DoAction(ctx, netlink.ActionReplace, &netlink.ActionMsg{Attrs: attrs.ActRootAttrs{Tab: acts}})
}

// DeleteAction deletes the standalone action of a kind and index (tc
// actions delete action KIND index N).
func (c *Client) DeleteAction(ctx context.Context, kind string, index uint32) error {
	a := attrs.ActAttrs{Kind: &kind, Index: &index}
	return c.conn.DoAction(ctx, netlink.ActionDelete, &netlink.ActionMsg{Attrs: attrs.ActRootAttrs{Tab: []attrs.ActAttrs{a}}})
}

// Options from tc's words.

// QdiscOptions parses tc's words after a qdisc's kind ("bandwidth 100mbit
// diffserv4" for cake) into the kind's typed options, with tc's messages
// for bad words (a *tckind.ParseError).
func QdiscOptions(kind, words string) (attrs.TCOptionsMsg, error) {
	k := tckind.LookupQdisc(kind)
	if k == nil {
		return nil, fmt.Errorf("gotc: unknown qdisc kind %q", kind)
	}
	if k.ParseQdisc == nil {
		if words != "" {
			return nil, fmt.Errorf("gotc: qdisc kind %q takes no options", kind)
		}
		return nil, nil
	}
	return k.ParseQdisc(strings.Fields(words), tckind.ParseEnv{})
}

// ClassOptions parses tc's words after a class's kind ("rate 10mbit ceil
// 20mbit" for htb) into the kind's typed class options.
func ClassOptions(kind, words string) (attrs.TCOptionsMsg, error) {
	k := tckind.LookupQdisc(kind)
	if k == nil || k.ParseClass == nil {
		return nil, fmt.Errorf("gotc: qdisc kind %q has no classes with options", kind)
	}
	return k.ParseClass(strings.Fields(words), tckind.ParseEnv{})
}

// FilterOptions parses tc's words after a filter's kind ("match ip dst
// 10.0.0.0/8 classid 1:10" for u32; actions included) into the kind's
// typed options. protocol is the filter's (0: every protocol), which
// some kinds' keys depend on; devices that actions name are looked up
// through c.
func (c *Client) FilterOptions(ctx context.Context, kind string, protocol uint16, words string) (attrs.TCOptionsMsg, error) {
	k := tckind.LookupFilter(kind)
	if k == nil {
		return nil, fmt.Errorf("gotc: unknown filter kind %q", kind)
	}
	if protocol == 0 {
		protocol = tckind.EthPAll
	}
	env := tckind.FilterEnv{Protocol: protocol}
	env.Links = netlink.NewLinks(ctx, c.conn)
	opts, _, err := k.Parse(strings.Fields(words), env)
	return opts, err
}

// ActionOptions parses tc's words of an action list ("gact drop", "mirred
// egress redirect dev ifb0", several one after another) into actions for
// AddActions, looking the devices they name up through c.
func (c *Client) ActionOptions(ctx context.Context, words string) ([]attrs.ActAttrs, error) {
	acts, rest, err := action.ParseActions(strings.Fields(words), tckind.ActionEnv{Links: netlink.NewLinks(ctx, c.conn)})
	if err == nil && len(rest) > 0 {
		err = fmt.Errorf("gotc: %q after the actions", strings.Join(rest, " "))
	}
	return acts, err
}
