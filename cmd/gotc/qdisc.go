// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
	"github.com/gotc/gotc/tcline"
)

// qdiscUsage lists the kinds the registry holds, so that a new kind's file
// is all it takes to appear here.
var qdiscUsage = `Usage: tc qdisc [ add | del | replace | change | link | show ] dev STRING
       [ handle QHANDLE ] [ root | ingress | clsact | parent CLASSID ]
       [ ingress_block BLOCK_INDEX ] [ egress_block BLOCK_INDEX ]
       [ [ QDISC_KIND ] [ help | OPTIONS ] ]

       tc qdisc { show | list } [ dev STRING ] [ root | ingress | clsact | parent CLASSID | handle QHANDLE ] [ invisible ]
Where:
QDISC_KIND := ` + tcline.KindList(qdiscKindNames()) + `
OPTIONS := ... try tc qdisc add <desired QDISC_KIND> help
`

func qdiscKindNames() []string {
	var names []string
	for _, k := range tckind.Qdiscs() {
		names = append(names, k.Name)
	}
	return names
}

func (t *tc) qdiscCmd(args []string) error {
	if len(args) == 0 {
		return t.qdiscList(nil)
	}
	cmd, rest := args[0], args[1:]
	switch {
	case tcfmt.Matches(cmd, "add"):
		return t.modify(netlink.Qdisc, netlink.Add, rest)
	case tcfmt.Matches(cmd, "change"):
		return t.modify(netlink.Qdisc, netlink.Change, rest)
	case tcfmt.Matches(cmd, "replace"):
		return t.modify(netlink.Qdisc, netlink.Replace, rest)
	case tcfmt.Matches(cmd, "link"):
		return t.modify(netlink.Qdisc, netlink.Link, rest)
	case tcfmt.Matches(cmd, "delete"):
		return t.modify(netlink.Qdisc, netlink.Delete, rest)
	case tcfmt.Matches(cmd, "list"), tcfmt.Matches(cmd, "show"), tcfmt.Matches(cmd, "lst"):
		return t.qdiscList(rest)
	case tcfmt.Matches(cmd, "help"):
		fmt.Fprint(t.stderr, qdiscUsage)
		return nil
	}
	fmt.Fprintf(t.stderr, "Command %q is unknown, try \"tc qdisc help\".\n", cmd)
	return errStatus(exitUsage)
}

// target is where a request or a listing points: device, parent and handle.
type target struct {
	dev            string
	parent, handle uint32
	parentSet      bool
	handleSet      bool
	// kind is "ingress" or "clsact" when that word stood for the parent:
	// it names the kind too, and the words after it are the kind's
	// options.
	kind string
}

// parseTarget consumes the device and placement keywords shared by qdisc and
// class commands. It returns the words it did not consume, starting at the
// first it does not know.
func (t *tc) parseTarget(args []string, classIDs bool) (target, []string, error) {
	return t.moreTarget(target{}, args, classIDs)
}

// moreTarget goes on parsing placement keywords into tg, as tc's single
// loop does when they follow a block index.
func (t *tc) moreTarget(tg target, args []string, classIDs bool) (target, []string, error) {
	for len(args) > 0 {
		switch word := args[0]; {
		case word == "dev":
			if err := t.needArg(args); err != nil {
				return tg, nil, err
			}
			if tg.dev != "" {
				return tg, nil, t.duparg("dev", args[1])
			}
			tg.dev = args[1]
			args = args[1:]
		case word == "handle" || (classIDs && word == "classid"):
			if tg.handleSet && !classIDs {
				// tc's qdisc parser checks before it moves to the value.
				return tg, nil, t.duparg(word, word)
			}
			if err := t.needArg(args); err != nil {
				return tg, nil, err
			}
			if tg.handleSet {
				return tg, nil, t.duparg(word, args[1])
			}
			var h uint32
			var err error
			if classIDs {
				h, err = tcfmt.ParseClassID(args[1])
			} else {
				h, err = tcfmt.ParseQdiscHandle(args[1])
			}
			if err != nil {
				if classIDs {
					return tg, nil, t.invarg("invalid class ID", args[1])
				}
				return tg, nil, t.invarg("invalid qdisc ID", args[1])
			}
			tg.handle, tg.handleSet = h, true
			args = args[1:]
		case word == "root":
			if tg.parentSet {
				fmt.Fprintln(t.stderr, `Error: "root" is duplicate parent ID`)
				return tg, nil, errStatus(exitUsage)
			}
			tg.parent, tg.parentSet = netlink.HandleRoot, true
		case !classIDs && (word == "ingress" || word == "clsact"):
			if tg.parentSet {
				fmt.Fprintf(t.stderr, "Error: %q is a duplicate parent ID\n", word)
				return tg, nil, errStatus(exitUsage)
			}
			// As in tc, the word also fixes the handle (over one given
			// before it) and ends the placement: what follows is the
			// kind's.
			tg.parent, tg.parentSet = netlink.HandleIngress, true
			tg.handle = netlink.MakeHandle(0xffff, 0)
			tg.kind = word
			return tg, args[1:], nil
		case word == "parent":
			if err := t.needArg(args); err != nil {
				return tg, nil, err
			}
			if tg.parentSet {
				return tg, nil, t.duparg("parent", args[1])
			}
			p, err := tcfmt.ParseClassID(args[1])
			if err != nil {
				return tg, nil, t.invarg("invalid parent ID", args[1])
			}
			tg.parent, tg.parentSet = p, true
			args = args[1:]
		default:
			return tg, args, nil
		}
		args = args[1:]
	}
	return tg, nil, nil
}

// modify sends a qdisc or class change request built from tc's grammar.
func (t *tc) modify(obj netlink.Object, op netlink.Op, args []string) error {
	tg, rest, err := t.parseTarget(args, obj == netlink.Class)
	if err != nil {
		return err
	}
	m := &netlink.Msg{}
	var stab *attrs.TCSizespec
	if tg, rest, stab, err = t.moreKeywords(obj, tg, rest, m); err != nil {
		return err
	}
	if tg.kind != "" {
		m.Attrs.Kind = &tg.kind
		if err := t.parseKindOptions(obj, tg.kind, tg.dev, rest, m); err != nil {
			return err
		}
	} else if len(rest) > 0 {
		kindName, opts := rest[0], rest[1:]
		m.Attrs.Kind = &kindName
		if err := t.parseKindOptions(obj, kindName, tg.dev, opts, m); err != nil {
			return err
		}
	}
	if kind := tckind.LookupQdisc(m.Kind()); obj == netlink.Qdisc && kind != nil && kind.Creates != nil && kind.Creates(m.Attrs.Options) {
		// tc adds NLM_F_CREATE to whatever flags the command has.
		switch op {
		case netlink.Change:
			op = netlink.ChangeCreate
		case netlink.Link:
			op = netlink.Replace
		}
	}
	if stab != nil {
		t.addSizeTable(m, *stab)
	}
	m.Header.Handle = tg.handle
	m.Header.Parent = tg.parent
	if tg.dev != "" {
		idx, err := t.ifindex(tg.dev)
		if err != nil {
			return err
		}
		m.Header.Ifindex = idx
	}
	c, err := t.kernel()
	if err != nil {
		return err
	}
	if wc, ok := c.(warningDoer); ok {
		warning, err := wc.DoWarning(t.ctx, obj, op, m)
		if err != nil {
			return t.kernelRefused(err)
		}
		t.printWarning(warning)
		return nil
	}
	if err := c.Do(t.ctx, obj, op, m); err != nil {
		return t.kernelRefused(err)
	}
	return nil
}

// moreKeywords reads the keywords tc takes among the placement ones before
// the kind: an estimator (qdiscs and classes), and a size table and block
// indexes (qdiscs), each followed by more placement keywords. It stops at
// the first word that is none of them, the kind, as tc's loop does (which
// tries these by prefix, in this order, after the exact placement words).
func (t *tc) moreKeywords(obj netlink.Object, tg target, rest []string, m *netlink.Msg) (target, []string, *attrs.TCSizespec, error) {
	var stab *attrs.TCSizespec
	qdiscOnly := obj == netlink.Qdisc
	for tg.kind == "" && len(rest) > 0 {
		var err error
		switch word := rest[0]; {
		case tcfmt.Matches(word, "estimator"):
			var est *attrs.GnetEstimator
			if est, rest, err = tckind.ParseEstimator(rest[1:], m.Attrs.Rate, t.stderr); err != nil {
				return tg, nil, nil, t.parseFailed(err, "")
			}
			if t.raw {
				fmt.Fprintf(t.stderr, "[estimator i=%d e=%d]\n", est.Interval, est.EwmaLog)
			}
			m.Attrs.Rate = est
		case qdiscOnly && tcfmt.Matches(word, "stab"):
			var s attrs.TCSizespec
			if s, rest, err = tckind.ParseSizeTable(rest[1:]); err != nil {
				return tg, nil, nil, t.parseFailed(err, "")
			}
			stab = &s
		case qdiscOnly && (tcfmt.Matches(word, "ingress_block") || tcfmt.Matches(word, "egress_block")):
			if err := t.needArg(rest); err != nil {
				return tg, nil, nil, err
			}
			name := "ingress"
			if tcfmt.Matches(word, "egress_block") {
				name = "egress"
			}
			v, perr := tcfmt.ParseUint(rest[1], 0, 32)
			if perr != nil || v == 0 {
				return tg, nil, nil, t.invarg("invalid "+name+" block index value", rest[1])
			}
			block := uint32(v)
			if name == "ingress" {
				m.Attrs.IngressBlock = &block
			} else {
				m.Attrs.EgressBlock = &block
			}
			rest = rest[2:]
		case tcfmt.Matches(word, "help"):
			// tc prints its usage and reads on.
			if obj == netlink.Class {
				fmt.Fprint(t.stderr, classUsage)
			} else {
				fmt.Fprint(t.stderr, qdiscUsage)
			}
			rest = rest[1:]
		default:
			return tg, rest, stab, nil
		}
		if tg, rest, err = t.moreTarget(tg, rest, obj == netlink.Class); err != nil {
			return tg, nil, nil, err
		}
	}
	return tg, rest, stab, nil
}

// tcaBufMax is the size of tc's request buffer past the headers, which no
// attribute may overflow.
const tcaBufMax = 64 * 1024

// addSizeTable adds TCA_STAB for spec, after the options as tc does. The
// slots must fit tc's request buffer: when they do not, tc prints its
// netlink library's error and sends the nest without them (which the kernel
// then refuses), and so does gotc.
func (t *tc) addSizeTable(m *netlink.Msg, spec attrs.TCSizespec) {
	const nlmsghdrLen, attrHdrLen = 16, 4
	limit := nlmsghdrLen + attrs.TCMsgLen + tcaBufMax
	m.Attrs.Stab, _ = tckind.SizeTable(spec, 0)
	b, _ := m.MarshalBinary()
	room := limit - nlmsghdrLen - len(b) - attrHdrLen
	var fits bool
	if m.Attrs.Stab, fits = tckind.SizeTable(spec, room); !fits {
		fmt.Fprintf(t.stderr, "addattr_l ERROR: message exceeded bound of %d\n", limit)
	}
}

// printWarning prints the warning of an accepted request, if any, as tc
// does: ended with a full stop when the kernel did not end it so.
func (t *tc) printWarning(warning string) {
	if warning == "" {
		return
	}
	if !strings.HasSuffix(warning, ".") {
		warning += "."
	}
	fmt.Fprintf(t.stderr, "Warning: %s\n", warning)
}

// warningDoer is a connection that reports the warnings of accepted
// requests (htb's "quantum of class ... is big", for one).
type warningDoer interface {
	DoWarning(ctx context.Context, o netlink.Object, op netlink.Op, m *netlink.Msg) (string, error)
}

// parseKindOptions fills m's options from a kind's keywords, printing tc's
// message (and the kind's usage where tc prints it) for bad input. dev is
// the device named so far, whose speed percentages refer to.
func (t *tc) parseKindOptions(obj netlink.Object, kindName, dev string, opts []string, m *netlink.Msg) error {
	kind := tckind.LookupQdisc(kindName)
	var parse func([]string, tckind.ParseEnv) (attrs.TCOptionsMsg, error)
	if kind != nil {
		if obj == netlink.Class {
			parse = kind.ParseClass
		} else {
			parse = kind.ParseQdisc
		}
	}
	if parse == nil && obj == netlink.Class {
		// tc's module of the kind has no class parser (and the stand-in
		// for a kind tc has no module for has none either).
		fmt.Fprintf(t.stderr, "Error: Qdisc \"%s\" is classless.\n", kindName)
		return errStatus(exitBadOption)
	}
	if parse == nil {
		if len(opts) > 0 {
			fmt.Fprintf(t.stderr, "Unknown qdisc \"%s\", hence option \"%s\" is unparsable\n", kindName, opts[0])
			return errStatus(exitBadOption)
		}
		return nil
	}
	options, err := parse(opts, tckind.ParseEnv{Dev: dev, Stderr: t.stderr})
	if err != nil {
		return t.parseFailed(err, kind.Usage)
	}
	m.Attrs.Options = options
	return nil
}

// parseFailed prints a kind's ParseError as tc does and returns tc's status.
func (t *tc) parseFailed(err error, usage string) error {
	var perr *tckind.ParseError
	if errors.As(err, &perr) {
		fmt.Fprint(t.stderr, perr.Msg)
		if perr.Msg != "" && !perr.NoNewline {
			fmt.Fprintln(t.stderr)
		}
		if perr.ShowUsage && usage != "" {
			fmt.Fprintln(t.stderr, usage)
		}
	} else {
		fmt.Fprintln(t.stderr, err)
	}
	return errStatus(exitCodeOf(err, exitBadOption))
}

// qdiscList is "tc qdisc show": a filtered dump printed as tc prints it.
func (t *tc) qdiscList(args []string) error {
	var tg target
	invisible := false
	for {
		part, rest, err := t.parseTarget(args, false)
		if err != nil {
			return err
		}
		mergeTarget(&tg, part)
		if len(rest) == 0 {
			break
		}
		if part.kind != "" {
			// "ingress" and "clsact" only filter on the parent here.
			args = rest
			continue
		}
		switch rest[0] {
		case "invisible":
			invisible = true
			args = rest[1:]
			continue
		case "help":
			fmt.Fprint(t.stderr, qdiscUsage)
			return errStatus(exitUsage)
		}
		fmt.Fprintf(t.stderr, "What is %q? Try \"tc qdisc help\".\n", rest[0])
		return errStatus(exitUsage)
	}
	filter := netlink.DumpFilter{Invisible: invisible}
	if tg.dev != "" {
		idx, err := t.ifindex(tg.dev)
		if err != nil {
			return err
		}
		filter.Ifindex = idx
	}
	keep := func(m *netlink.Msg) bool {
		return (!tg.parentSet || m.Header.Parent == tg.parent) && (!tg.handleSet || m.Header.Handle == tg.handle)
	}
	if tg.dev == "" {
		t.links().Load()
	}
	print := func(p *tcfmt.Printer, m *netlink.Msg) {
		tcline.PrintQdisc(p, m, t.printEnv(), tg.dev == "", tcline.Verb{})
	}
	if m := t.qdiscAt(tg, filter, keep); m != nil {
		return t.printEach(func(fn func(*netlink.Msg, error) error) error { return fn(m, nil) }, keep, print)
	}
	return t.list(netlink.Qdisc, filter, keep, print)
}

// qdiscAt asks the kernel for the one qdisc "show dev D parent M:N" can
// print, when N names a class: a class holds one qdisc, and the kernel
// answers a get of it (tc_get_qdisc) without walking the device's qdiscs,
// where tc dumps them all and keeps those whose parent matches, which costs
// the kernel time in proportion to the qdiscs (an ISP's 40,000 for each poll
// of one subscriber). The kernel refuses the get of a qdisc that a dump would
// not show (a class's invisible default); nil then, and for every other
// refusal or doubt, sends the caller to the dump, which is the authority.
func (t *tc) qdiscAt(tg target, filter netlink.DumpFilter, keep func(*netlink.Msg) bool) *netlink.Msg {
	major := tg.parent >> 16
	if filter.Ifindex == 0 || !tg.parentSet || tg.handleSet || filter.Invisible || tg.parent&0xffff == 0 || major == 0 || major == 0xffff {
		return nil
	}
	c, err := t.kernel()
	if err != nil {
		return nil
	}
	req := &netlink.Msg{}
	req.Header.Ifindex = filter.Ifindex
	req.Header.Parent = tg.parent
	m, err := c.Get(t.ctx, netlink.Qdisc, req)
	if err != nil || m.Header.Ifindex != filter.Ifindex || !keep(m) {
		return nil
	}
	return m
}

func mergeTarget(into *target, part target) {
	if part.dev != "" {
		into.dev = part.dev
	}
	if part.parentSet {
		into.parent, into.parentSet = part.parent, true
	}
	if part.handleSet {
		into.handle, into.handleSet = part.handle, true
	}
}
