// SPDX-License-Identifier: Apache-2.0

package tcline

import (
	"fmt"
	"io"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// changeVerbs are the verbs of qdisc and class change commands, in the
// order tc tries them: a prefix of two ("c") is the first's.
var changeVerbs = []struct {
	word string
	op   netlink.Op
}{
	{"add", netlink.Add},
	{"change", netlink.Change},
	{"replace", netlink.Replace},
	{"link", netlink.Link},
	{"delete", netlink.Delete},
}

// ChangeVerb is the operation a qdisc's (obj netlink.Qdisc) or class's
// (netlink.Class) change command names by its verb: "add", "change",
// "replace", "link" (qdiscs only) or "delete", or a prefix of one, tried
// in that order as tc tries them. ok is false for any other word, a
// listing's or "help", which tc tries after these.
func ChangeVerb(obj netlink.Object, word string) (op netlink.Op, ok bool) {
	for _, v := range changeVerbs {
		if v.op == netlink.Link && obj != netlink.Qdisc {
			continue
		}
		if tcfmt.Matches(word, v.word) {
			return v.op, true
		}
	}
	return netlink.Add, false
}

// Target is where a qdisc or class command points: its words "dev",
// "root", "parent", and "handle" (a qdisc's) or "classid" (a class's).
type Target struct {
	// Dev is the device after "dev", "" when none was named.
	Dev string
	// Parent is tcm_parent: "root", "parent CLASSID", or a qdisc's
	// "ingress" or "clsact" (ffff:fff1); ParentSet says one was named.
	Parent    uint32
	ParentSet bool
	// Handle is tcm_handle: "handle QHANDLE" or "classid CLASSID";
	// HandleSet says one was named. "ingress" and "clsact" make it ffff:
	// without naming it, as tc does, so HandleSet stays clear.
	Handle    uint32
	HandleSet bool
}

// Keeps reports whether a dumped qdisc or class is at the parent and
// handle the target names (any, for those it does not): what tc's
// listings keep of a device's dump.
func (tg Target) Keeps(m *netlink.Msg) bool {
	return (!tg.ParentSet || m.Header.Parent == tg.Parent) && (!tg.HandleSet || m.Header.Handle == tg.Handle)
}

// readTarget goes on reading placement words into tg as tc's single loop
// of a qdisc or class command does, up to the first word that is none of
// them, and returns the words from it on. classIDs reads a class's words:
// "classid" besides "handle", both class IDs, and no "ingress" or "clsact".
// Those two, a qdisc's, name the parent, the handle and the kind at once,
// and end the placement: hook is that word, and rest the kind's options.
func readTarget(tg *Target, args []string, classIDs bool) (rest []string, hook string, err error) {
	for len(args) > 0 {
		switch word := args[0]; {
		case word == "dev":
			v, err := keywordValue(args, tg.Dev != "", "dev")
			if err != nil {
				return nil, "", err
			}
			tg.Dev = v
			args = args[1:]
		case word == "handle" || (classIDs && word == "classid"):
			if tg.HandleSet && !classIDs {
				// tc's qdisc parser checks before it moves to the value.
				return nil, "", tcword.DuplicateArgument(word, word)
			}
			v, err := keywordValue(args, tg.HandleSet, word)
			if err != nil {
				return nil, "", err
			}
			parse, invalid := tcfmt.ParseQdiscHandle, "invalid qdisc ID"
			if classIDs {
				parse, invalid = tcfmt.ParseClassID, "invalid class ID"
			}
			h, err := parse(v)
			if err != nil {
				return nil, "", tcword.InvalidArgument(v, invalid)
			}
			tg.Handle, tg.HandleSet = h, true
			args = args[1:]
		case word == "root":
			if tg.ParentSet {
				return nil, "", &tckind.ParseError{Msg: `Error: "root" is duplicate parent ID`, Code: 255}
			}
			tg.Parent, tg.ParentSet = netlink.HandleRoot, true
		case !classIDs && (word == "ingress" || word == "clsact"):
			if tg.ParentSet {
				return nil, "", &tckind.ParseError{Msg: fmt.Sprintf("Error: %q is a duplicate parent ID", word), Code: 255}
			}
			// As in tc, the word also fixes the handle (over one given
			// before it).
			tg.Parent, tg.ParentSet = netlink.HandleIngress, true
			tg.Handle = netlink.MakeHandle(0xffff, 0)
			return args[1:], word, nil
		case word == "parent":
			v, err := keywordValue(args, tg.ParentSet, "parent")
			if err != nil {
				return nil, "", err
			}
			p, err := tcfmt.ParseClassID(v)
			if err != nil {
				return nil, "", tcword.InvalidArgument(v, "invalid parent ID")
			}
			tg.Parent, tg.ParentSet = p, true
			args = args[1:]
		default:
			return args, "", nil
		}
		args = args[1:]
	}
	return nil, "", nil
}

// QdiscEnv is what reading a qdisc or class change command needs besides
// its words.
type QdiscEnv struct {
	// Stderr receives what tc prints while it reads on: the usage for
	// "help", the estimator's and the size table's notes, the kind's.
	// nil discards it.
	Stderr io.Writer
	// Raw is tc's -raw, under which tc traces the estimator it read.
	Raw bool
}

func (env QdiscEnv) stderr() io.Writer {
	if env.Stderr == nil {
		return io.Discard
	}
	return env.Stderr
}

// QdiscRequest is a qdisc or class change command read: where it points
// and the request it makes.
type QdiscRequest struct {
	Target
	// Op is the verb's operation, turned into a create where the qdisc's
	// options ask for one (tc adds NLM_F_CREATE for them: taprio's, for
	// one).
	Op netlink.Op
	// Msg is the request: placement, estimator (TCA_RATE), size table
	// (TCA_STAB), shared blocks, kind and options. Its ifindex is left 0:
	// the caller looks Dev up once the words are read, as tc does, so
	// that a bad option is reported before an unknown device.
	Msg *netlink.Msg
}

// ParseQdiscRequest reads the words after a qdisc's (obj netlink.Qdisc)
// or class's (netlink.Class) change verb as tc_qdisc_modify and
// tc_class_modify do, for op (see ChangeVerb). The placement words
// (Target) mix with "estimator INTERVAL TIME_CONSTANT", a qdisc's "stab
// ...", "ingress_block INDEX" and "egress_block INDEX", and "help" (tc
// prints the usage and reads on); the first other word is the kind, the
// words after it its options (ParseKindOptions). A qdisc's "ingress" or
// "clsact" names the kind itself. A failure is a *tckind.ParseError (or a
// *KindError) holding tc's message and exit status; PrintError prints it.
func ParseQdiscRequest(obj netlink.Object, op netlink.Op, args []string, env QdiscEnv) (QdiscRequest, error) {
	r := QdiscRequest{Op: op, Msg: &netlink.Msg{}}
	m := r.Msg
	classIDs, qdiscOnly := obj == netlink.Class, obj == netlink.Qdisc
	var stab *attrs.TCSizespec
	rest, hook, err := readTarget(&r.Target, args, classIDs)
	// The keywords among the placement ones, each followed by more of
	// them, as tc's loop tries them (by prefix, in this order, after the
	// exact placement words).
keywords:
	for err == nil && hook == "" && len(rest) > 0 {
		switch word := rest[0]; {
		case tcfmt.Matches(word, "estimator"):
			if m.Attrs.Rate, rest, err = tckind.ParseEstimator(rest[1:], m.Attrs.Rate, env.stderr()); err != nil {
				return r, err
			}
			if env.Raw {
				fmt.Fprintf(env.stderr(), "[estimator i=%d e=%d]\n", m.Attrs.Rate.Interval, m.Attrs.Rate.EwmaLog)
			}
		case qdiscOnly && tcfmt.Matches(word, "stab"):
			var s attrs.TCSizespec
			if s, rest, err = tckind.ParseSizeTable(rest[1:]); err != nil {
				return r, err
			}
			stab = &s
		case qdiscOnly && tcfmt.Matches(word, "ingress_block"):
			if m.Attrs.IngressBlock, err = BlockIndex(rest, "ingress"); err != nil {
				return r, err
			}
			rest = rest[2:]
		case qdiscOnly && tcfmt.Matches(word, "egress_block"):
			if m.Attrs.EgressBlock, err = BlockIndex(rest, "egress"); err != nil {
				return r, err
			}
			rest = rest[2:]
		case tcfmt.Matches(word, "help"):
			io.WriteString(env.stderr(), QdiscUsage(obj))
			rest = rest[1:]
		default:
			break keywords
		}
		rest, hook, err = readTarget(&r.Target, rest, classIDs)
	}
	if err != nil {
		return r, err
	}
	kind, opts, named := hook, rest, hook != ""
	if !named && len(rest) > 0 {
		kind, opts, named = rest[0], rest[1:], true
	}
	if named {
		m.Attrs.Kind = &kind
		if m.Attrs.Options, err = ParseKindOptions(obj, kind, opts, tckind.ParseEnv{Dev: r.Dev, Stderr: env.Stderr}); err != nil {
			return r, err
		}
	}
	if k := tckind.LookupQdisc(m.Kind()); qdiscOnly && k != nil && k.Requests != nil {
		// What a file of "gotc apply" takes (gred's table with its
		// queues) but no tc command does: one command is one request.
		if parts, _ := k.Requests(m.Attrs.Options, nil); len(parts) > 1 {
			return r, tcword.Errorf("%s options that take %d requests: a command sends one (a file of \"gotc apply\" takes them)", kind, len(parts))
		}
	}
	if k := tckind.LookupQdisc(m.Kind()); qdiscOnly && k != nil && k.Creates != nil && k.Creates(m.Attrs.Options) {
		// tc adds NLM_F_CREATE to whatever flags the command has.
		switch r.Op {
		case netlink.Change:
			r.Op = netlink.ChangeCreate
		case netlink.Link:
			r.Op = netlink.Replace
		}
	}
	if stab != nil {
		addSizeTable(m, *stab, env.stderr())
	}
	m.Header.Handle, m.Header.Parent = r.Handle, r.Parent
	return r, nil
}

// BlockIndex reads the shared block's index after "ingress_block" or
// "egress_block" (args[0]), hook naming which in tc's message.
func BlockIndex(args []string, hook string) (*uint32, error) {
	if err := needsValue(args); err != nil {
		return nil, err
	}
	v, err := tcfmt.ParseUint(args[1], 0, 32)
	if err != nil || v == 0 {
		return nil, tcword.InvalidArgument(args[1], "invalid "+hook+" block index value")
	}
	block := uint32(v)
	return &block, nil
}

// ParseKindOptions reads the words after a qdisc's or class's kind with
// the kind's parser, with tc's refusals where it has none: a class of a
// kind without class options ("classless", which also covers a kind gotc
// does not know), and options for a qdisc kind gotc does not know (without
// options the kernel decides on it). A refusal by the kind's parser comes
// as a *KindError, with the kind's usage that tc prints after some of its
// messages.
func ParseKindOptions(obj netlink.Object, kindName string, words []string, env tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
	kind := tckind.LookupQdisc(kindName)
	var parse func([]string, tckind.ParseEnv) (attrs.TCOptionsMsg, error)
	if kind != nil {
		if obj == netlink.Class {
			parse = kind.ParseClass
		} else {
			parse = kind.ParseQdisc
		}
	}
	switch {
	case parse == nil && obj == netlink.Class:
		return nil, &tckind.ParseError{Msg: fmt.Sprintf("Error: Qdisc \"%s\" is classless.", kindName)}
	case parse == nil && len(words) > 0:
		return nil, &tckind.ParseError{Msg: fmt.Sprintf("Unknown qdisc \"%s\", hence option \"%s\" is unparsable", kindName, words[0])}
	case parse == nil:
		return nil, nil
	}
	options, err := parse(words, env)
	if err != nil {
		return nil, &KindError{Err: err, Usage: kind.Usage}
	}
	return options, nil
}

// tcaBufMax is the size of tc's request buffer past the headers, which no
// attribute may overflow.
const tcaBufMax = 64 * 1024

// addSizeTable adds TCA_STAB for spec, after the options as tc does. The
// slots must fit tc's request buffer: when they do not, tc prints its
// netlink library's error and sends the nest without them (which the
// kernel then refuses), and so does gotc.
func addSizeTable(m *netlink.Msg, spec attrs.TCSizespec, stderr io.Writer) {
	const nlmsghdrLen, attrHdrLen = 16, 4
	limit := nlmsghdrLen + attrs.TCMsgLen + tcaBufMax
	m.Attrs.Stab, _ = tckind.SizeTable(spec, 0)
	b, _ := m.MarshalBinary()
	room := limit - nlmsghdrLen - len(b) - attrHdrLen
	var fits bool
	if m.Attrs.Stab, fits = tckind.SizeTable(spec, room); !fits {
		fmt.Fprintf(stderr, "addattr_l ERROR: message exceeded bound of %d\n", limit)
	}
}

// QdiscShow is what the words of "tc qdisc show" name: the qdiscs of Dev
// (of every device when "") that the target keeps, and the invisible ones
// too when Invisible.
type QdiscShow struct {
	Target
	Invisible bool
}

// ParseQdiscShow reads the words after "tc qdisc show": placement words,
// "invisible", and "ingress" or "clsact", which name only the parent here.
// A failure, "help" among them, is a *tckind.ParseError holding tc's
// message and exit status.
func ParseQdiscShow(args []string) (QdiscShow, error) {
	var s QdiscShow
	for {
		// Each run of placement words starts afresh, and its words
		// override the earlier runs'.
		var part Target
		rest, hook, err := readTarget(&part, args, false)
		if err != nil {
			return s, err
		}
		if part.Dev != "" {
			s.Dev = part.Dev
		}
		if part.ParentSet {
			s.Parent, s.ParentSet = part.Parent, true
		}
		if part.HandleSet {
			s.Handle, s.HandleSet = part.Handle, true
		}
		switch {
		case len(rest) == 0:
			return s, nil
		case hook != "":
			args = rest
		case rest[0] == "invisible":
			s.Invisible = true
			args = rest[1:]
		default:
			return s, listRefusal(netlink.Qdisc, rest[0])
		}
	}
}

// AtClass reports whether the listing names the one qdisc a class holds:
// a device, a parent M:N that is a class (N not 0, M neither 0 nor the
// ingress hook's ffff), no handle, and not the invisible qdiscs. The
// kernel answers a get of that qdisc (tc_get_qdisc) without walking the
// device's qdiscs, where tc dumps them all and keeps those whose parent
// matches, which costs the kernel time in proportion to the qdiscs (an
// ISP's 40,000 for each poll of one subscriber).
func (s QdiscShow) AtClass() bool {
	major := s.Parent >> 16
	return s.Dev != "" && s.ParentSet && !s.HandleSet && !s.Invisible && s.Parent&0xffff != 0 && major != 0 && major != 0xffff
}

// ParseClassShow reads the words after "tc class show": the placement
// words, of which the device is required. A failure, "help" among them,
// is a *tckind.ParseError holding tc's message and exit status.
func ParseClassShow(args []string) (Target, error) {
	var tg Target
	rest, _, err := readTarget(&tg, args, true)
	switch {
	case err != nil:
		return tg, err
	case len(rest) > 0:
		return tg, listRefusal(netlink.Class, rest[0])
	case tg.Dev == "":
		return tg, &tckind.ParseError{Msg: "Error: must specify device"}
	}
	return tg, nil
}

// listRefusal is what tc's qdisc and class listings say of a word they do
// not read: the usage for "help", else a question.
func listRefusal(obj netlink.Object, word string) error {
	if word == "help" {
		return &tckind.ParseError{Msg: QdiscUsage(obj), NoNewline: true, Code: 255}
	}
	return &tckind.ParseError{Msg: fmt.Sprintf("What is %q? Try \"tc %s help\".", word, obj), Code: 255}
}
