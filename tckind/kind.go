// SPDX-License-Identifier: Apache-2.0

package tckind

import (
	"io"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/tcfmt"
)

// Qdisc is what gotc knows of one qdisc kind. Fields a kind has no use for are
// nil: a kind without ParseQdisc takes no options.
type Qdisc struct {
	// Name is the kind as TCA_KIND carries it.
	Name string
	// Usage is the kind's keyword summary, printed for "help" and after some
	// parse errors.
	Usage string
	// ParseQdisc builds the TCA_OPTIONS of a qdisc request from tc keywords,
	// holding only what the user named.
	ParseQdisc func(args []string, env ParseEnv) (attrs.TCOptionsMsg, error)
	// ParseClass builds the TCA_OPTIONS of a class request.
	ParseClass func(args []string, env ParseEnv) (attrs.TCOptionsMsg, error)
	// PrintOptions prints decoded qdisc options as tc does.
	PrintOptions func(p *tcfmt.Printer, opts attrs.TCOptionsMsg)
	// PrintClassOptions prints decoded class options as tc does.
	PrintClassOptions func(p *tcfmt.Printer, opts attrs.TCOptionsMsg)
	// PrintXstats prints the kind's statistics of a qdisc (-s), from
	// TCA_STATS_APP (preferred, as tc does) or TCA_XSTATS.
	PrintXstats func(p *tcfmt.Printer, x Xstats)
	// PrintClassXstats prints the kind's statistics of a class.
	PrintClassXstats func(p *tcfmt.Printer, x Xstats)
	// ChangeAccepted reports whether the kernel is sure to accept opts (as
	// ParseQdisc returns them) when they change an existing qdisc of this
	// kind in place, below a qdisc of kind parentKind ("" at the root):
	// every value within the kernel's policy for the kind and nothing whose
	// fate depends on how the kernel was built. A batch sends the lines after
	// such a change without waiting for its answer. Nil: never assumed.
	ChangeAccepted func(opts attrs.TCOptionsMsg, parentKind string) bool
	// Creates reports whether tc asks the kernel to create the qdisc with
	// these options (as ParseQdisc returns them) whatever the command, as
	// gred's setup does: "change" then creates one that is not there, and
	// "link" becomes "replace". Nil: never.
	Creates func(opts attrs.TCOptionsMsg) bool
	// Requests splits options (as ParseQdisc returns them) into the
	// requests the kernel takes them in, for a kind that takes some only
	// from a qdisc that exists (gred: its table, then each virtual queue
	// by a change of its own): the first creates the qdisc, the others
	// change it, in order. With the kernel's options as dumped (have not
	// nil) it returns only the changes that bring have to opts, none when
	// have covers them, and ok false when no change in place gets there
	// (a virtual queue to remove): the qdisc is then deleted and added
	// anew. Nil: the options are one request.
	Requests func(opts, have attrs.TCOptionsMsg) (reqs []attrs.TCOptionsMsg, ok bool)
	// Stats describes the kind's statistics for samplers and exporters; nil
	// for a kind without statistics of its own.
	Stats *StatsTable
	// Keywords writes a qdisc's dumped options back as the words after
	// the kind that ask for them (what "apply --from-kernel" prints), in
	// forms ParseQdisc reads; an error wraps ErrNoKeywords for options no
	// words ask for. Nil for a kind gotc cannot write back yet.
	Keywords func(opts attrs.TCOptionsMsg) ([]string, error)
	// ClassKeywords is Keywords for a class's options.
	ClassKeywords func(opts attrs.TCOptionsMsg) ([]string, error)
	// Dumped returns options (a copy) as the kernel dumps them after a
	// request of opts, for a kind that keeps a value in other units than
	// it is given and so dumps it rounded; nil for a kind that dumps what
	// it was given. opts is nil for a request without options.
	Dumped func(opts attrs.TCOptionsMsg) attrs.TCOptionsMsg
	// Restoring returns the request that brings a qdisc back to the state
	// a dump of it shows, inverting Dumped's rounding; nil when there is
	// none to invert (a kind without Dumped, or whose Dumped only drops
	// what the kernel does not keep).
	Restoring func(dumped attrs.TCOptionsMsg) attrs.TCOptionsMsg
	// KeptOnChange returns opts (a copy) with the kind's defaults set
	// for the options a change leaves as they were when the request omits
	// them, and the words that ask for the defaults it set: what apply
	// sends so that a setting removed from its file goes back to its
	// default. Nil for a kind whose change resets what it omits (one
	// struct sent whole: tbf, htb's classes).
	KeptOnChange func(opts attrs.TCOptionsMsg) (attrs.TCOptionsMsg, []string)
	// NoChange says the kernel has no change operation for the kind's
	// qdisc options (Linux 7.2: htb, sfq, ingress, clsact, mq, mqprio, etf, teql):
	// other options take a new qdisc, replacing this one.
	NoChange bool
	// FilterHooks is the number of filter hooks the qdisc opens in place
	// of classes, at ffff: (ingress 1, clsact 2: ingress and egress); 0
	// for a qdisc in the tree, which may hold classes and children.
	FilterHooks int
	// MakesClasses says the qdisc makes its classes itself, each
	// holding a leaf qdisc that can be grafted (prio's bands, mqprio's
	// queues, tbf's one child, ets's bands, whose quanta the qdisc's own
	// options say, though tc can change an ets class): a file names such
	// a class only for what is below it, and apply never adds, changes or
	// deletes one. A kind with neither this nor ParseClass is classless:
	// a file gives it no classes, though the kernel may dump some
	// (cake's tins).
	MakesClasses bool
	// MakesNestedClasses says the classes the qdisc makes stand in two
	// levels (mqprio's traffic classes over their queues), so that a file
	// names the queues below their traffic class.
	MakesNestedClasses bool
	// ClassFilters says the qdisc's classes hold filters of their own
	// ("tc filter add dev D parent CLASSID"): each has a filter block,
	// where the other kinds' classes have none (Linux 7.2: htb, hfsc).
	ClassFilters bool
	// DeviceDefaults returns the options the kernel keeps of a request
	// of opts (nil: none) for a qdisc of the kind on dev, where the
	// kernel fills some from the device (a fifo's limit when there are no
	// options, an ets band's quantum where the request gives none), with
	// the keywords that ask for them; false where it fills nothing from
	// the device, or where the device's settings do not say what. Nil for
	// a kind whose defaults are its own (Dumped says them where it knows).
	DeviceDefaults func(dev Device, opts attrs.TCOptionsMsg) (attrs.TCOptionsMsg, []string, bool)
}

// Device is what a kind's DeviceDefaults reads of the device a qdisc is
// on: its transmit queue length in packets, its MTU in bytes, and its
// hardware type (ARPHRD_*, which says its link-layer header).
type Device struct {
	TxQueueLen, MTU uint32
	Type            uint16
}

// linkHeaders is the link-layer header length (hard_header_len) of the
// hardware types whose length gotc knows: Ethernet's (ifb, veth, dummy,
// bridges and most NICs) and loopback's, 14 bytes; none for devices
// without one (tun, WireGuard).
var linkHeaders = map[uint16]uint32{1: 14, 772: 14, 0xfffe: 0}

// PschedMTU is the kernel's psched_mtu of the device: its MTU and its
// link-layer header, the frame size that qdiscs (bfifo, ets) take as their
// default unit; false for a hardware type whose header gotc does not know.
func (d Device) PschedMTU() (uint32, bool) {
	hh, known := linkHeaders[d.Type]
	return d.MTU + hh, known
}

// HasClasses reports whether the kind's qdisc has classes of a tree: it
// takes them (ParseClass) or makes them (MakesClasses). The classes that
// fq_codel, sfq and cake dump are their flows, and do not count.
func (k *Qdisc) HasClasses() bool { return k.ParseClass != nil || k.MakesClasses }

// ParseEnv is what a kind's parser knows of the command beyond its keywords.
type ParseEnv struct {
	// Dev is the device named by "dev" before the kind ("" when none was):
	// tc reads its speed for rates given as a percentage.
	Dev string
	// Stderr receives the notes tc prints while parsing, before any error
	// the parser returns; nil discards them.
	Stderr io.Writer
}

// Notes is where a parser prints the notes tc prints while parsing: Stderr,
// or io.Discard when that is nil.
func (env ParseEnv) Notes() io.Writer {
	if env.Stderr == nil {
		return io.Discard
	}
	return env.Stderr
}

// Xstats is a kind's own statistics as a dump carries them.
type Xstats struct {
	// App is TCA_STATS2's TCA_STATS_APP, nil when absent.
	App attrs.StatsAppMsg
	// Legacy is TCA_XSTATS, nil when absent.
	Legacy attrs.TCXstatsMsg
}

// XstatsOf picks a message's kind statistics.
func XstatsOf(a *attrs.TCAttrs) Xstats {
	var x Xstats
	if a.Stats2 != nil {
		x.App = a.Stats2.App
	}
	x.Legacy = a.Xstats
	return x
}

// Present reports whether the message carried kind statistics at all.
func (x Xstats) Present() bool { return x.App != nil || x.Legacy != nil }

// Filter is what gotc knows of one filter kind.
type Filter struct {
	// Name is the kind as TCA_KIND carries it.
	Name string
	// Usage is the kind's keyword summary.
	Usage string
	// Parse builds the filter's TCA_OPTIONS from tc keywords, and its
	// handle (tcm_handle): tc lets each kind read the word after "handle"
	// in its own form (u32's 800::1, basic's number), which it finds in
	// env.
	Parse func(args []string, env FilterEnv) (opts attrs.TCOptionsMsg, handle uint32, err error)
	// PrintOptions prints a decoded filter's options as tc does.
	PrintOptions func(p *tcfmt.Printer, opts attrs.TCOptionsMsg, f FilterPrint)
	// Keywords writes a filter's dumped options back as the words after
	// the kind that ask for them (its handle and place aside), its actions
	// included, naming devices with links; an error wraps ErrNoKeywords.
	// Nil for a kind gotc cannot write back yet.
	Keywords func(opts attrs.TCOptionsMsg, links Links) ([]string, error)
	// HandleWord writes a filter's handle as the word after "handle"
	// that Parse reads back (u32's htid:hash:node, fw's MARK/MASK, whose
	// mask is among opts); nil for a kind that reads tc's plain number.
	HandleWord func(handle uint32, opts attrs.TCOptionsMsg) string
	// Dumped returns options (a copy) as the kernel keeps them after a
	// request of opts, where it keeps them otherwise than sent (flower's
	// innermost ethertype); nil for a kind that keeps what it is sent.
	Dumped func(opts attrs.TCOptionsMsg) attrs.TCOptionsMsg
	// NoChange says the kernel changes no filter of the kind in place
	// (matchall answers EEXIST): other options take a new filter.
	NoChange bool
	// IsTable reports a dumped entry of the kind that holds filters
	// rather than being one (u32's hash tables: node 0); nil for a kind
	// without such entries. The kernel makes one table with each
	// priority, the last of the priority's tables in a dump (u32_walk
	// goes newest first); the others were asked for ("divisor"), and
	// their entries are written back as filters are.
	IsTable func(handle uint32) bool
	// TemplateProtocol is the protocol a chain template's options were
	// parsed for (flower's ethertype key), which the kernel's dump of a
	// chain does not carry; nil for a kind whose options do not say it.
	TemplateProtocol func(opts attrs.TCOptionsMsg) (protocol uint16, ok bool)
}

// FilterEnv is what a filter kind's parser reads besides its own words.
type FilterEnv struct {
	// Handle is the word after "handle", "" when the command gave none.
	Handle string
	// Protocol is the filter's protocol (an ETH_P_* number in host
	// order), which flower matches on and its keys depend on.
	Protocol uint16
	// Parent is the filter's parent (tcm_parent), whose major number
	// flower's hw_tc takes.
	Parent uint32
	// ActionEnv is what the filter's actions read.
	ActionEnv
}

// ActionEnv is what an action kind's parser reads besides its own words.
type ActionEnv struct {
	// Links resolves the devices that actions name (mirred's target); nil
	// when there are none to look up.
	Links Links
	// Stderr receives the warnings tc prints while it goes on (nil: none
	// are printed).
	Stderr io.Writer
}

// Links names the devices of the system a command talks to, for the kinds
// whose options refer to one by its ifindex.
type Links interface {
	// Index is the ifindex of the device called name; ok is false when
	// there is none.
	Index(name string) (idx int32, ok bool)
	// Name is what tc prints for an ifindex (ll_index_to_name: "*" for 0,
	// "ifN" for one it cannot name).
	Name(idx int32) string
}

// FilterPrint is what a filter kind's printer needs beyond its options.
type FilterPrint struct {
	// Handle is the filter's handle (tcm_handle), which tc's filter kinds
	// print among their options.
	Handle uint32
	// Protocol is the filter's protocol (an ETH_P_* number), which u32's
	// pretty printing of its keys depends on.
	Protocol uint16
	// Stats is tc's -s.
	Stats bool
	// Links names the devices the filter's actions refer to.
	Links Links
}

// FixedXstats returns a kind's statistics that are one fixed struct (T, of
// size bytes) from TCA_STATS_APP, which tc prefers, or else TCA_XSTATS; nil
// when the message has none of that kind. Like tc it takes a payload
// shorter than the struct, which the generated decoder keeps raw, and
// decodes it zero-filled to the struct's size.
func FixedXstats[T any, P interface {
	*T
	Decode([]byte) error
}](x Xstats, size int) P {
	var m any
	switch {
	case x.App != nil:
		m = x.App
	case x.Legacy != nil:
		m = x.Legacy
	}
	var raw []byte
	switch v := m.(type) {
	case P:
		return v
	case attrs.StatsAppMsgRaw:
		raw = v
	case attrs.TCXstatsMsgRaw:
		raw = v
	default:
		return nil
	}
	buf := make([]byte, max(size, len(raw)))
	copy(buf, raw)
	s := P(new(T))
	_ = s.Decode(buf) // cannot fail: buf holds at least the struct
	return s
}

// WholeXstats returns a kind's statistics that are one fixed struct T,
// from TCA_STATS_APP, which tc prefers, or else TCA_XSTATS; nil when there
// are none, or when the payload is shorter than T, which the tc printers
// of such kinds (pie, hhf) refuse to print, where FixedXstats's kinds
// print it zero-filled.
func WholeXstats[T any](x Xstats) *T {
	var m any
	switch {
	case x.App != nil:
		m = x.App
	case x.Legacy != nil:
		m = x.Legacy
	}
	s, _ := m.(*T)
	return s
}

// TypedParser adapts a kind's exported parser, which returns its options'
// own type, to Kind.ParseQdisc: a failed parse gives a nil interface, not a
// nil pointer inside one.
func TypedParser[T attrs.TCOptionsMsg](parse func([]string, ParseEnv) (T, error)) func([]string, ParseEnv) (attrs.TCOptionsMsg, error) {
	return func(args []string, env ParseEnv) (attrs.TCOptionsMsg, error) {
		o, err := parse(args, env)
		if err != nil {
			return nil, err
		}
		return o, nil
	}
}

// Action is what gotc knows of one action kind.
type Action struct {
	// Name is the kind as TCA_ACT_KIND carries it.
	Name string
	// Usage is the kind's keyword summary, printed for "help" and after
	// some parse errors.
	Usage string
	// Parse builds the action's TCA_ACT_OPTIONS from tc keywords. args
	// starts at the word that chose the kind (its name, or for gact a
	// verb such as "drop"); Parse returns the words after its own, since
	// an action list goes on after them.
	Parse func(args []string, env ActionEnv) (opts attrs.ActOptionsMsg, rest []string, err error)
	// Print prints decoded options as the kind's print_aopt does, up to
	// the end of its last line without the line end; opts may be nil.
	// links names the devices it refers to.
	Print func(p *tcfmt.Printer, opts attrs.ActOptionsMsg, links Links)
	// PrintStats prints what -s adds to that last line (the action's
	// times); nil when -s adds nothing of the kind's own.
	PrintStats func(p *tcfmt.Printer, opts attrs.ActOptionsMsg)
	// PrintAfterStats prints what the kind prints after the times of -s
	// (with or without -s), up to the end of its last line; nil for most
	// kinds, which print their times last.
	PrintAfterStats func(p *tcfmt.Printer, opts attrs.ActOptionsMsg)
	// LineEnd is the text that ends the kind's last line in place of the
	// line end, for the kind (bpf) whose printer ends it otherwise; ""
	// for the line end.
	LineEnd string
	// Keywords writes an action's dumped options back as the words after
	// its kind that ask for them, naming devices with links; an error
	// wraps ErrNoKeywords. Nil for a kind gotc cannot write back yet.
	Keywords func(opts attrs.ActOptionsMsg, links Links) ([]string, error)
	// Dumped returns options (a copy) as the kernel dumps them after a
	// request of opts, for a kind whose kernel drops what tc sends
	// (tunnel_key release's checksum flag) or fills in what it leaves out
	// (mpls modify's protocol); nil for a kind that dumps what it was
	// given.
	Dumped func(opts attrs.ActOptionsMsg) attrs.ActOptionsMsg
}
