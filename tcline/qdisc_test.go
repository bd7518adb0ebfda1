// SPDX-License-Identifier: Apache-2.0

package tcline

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// The grammar's tests register kinds of their own, which show each part
// a kind plays in it; this package's tests register no real kind.
var (
	// testq takes "limit N" (qdisc and class), "note", which prints what
	// the kind knows of the device, "help" and no other word; a limit of
	// 1000 or more asks the kernel to create the qdisc, as gred's setup
	// does.
	testq = &tckind.Qdisc{
		Name:       "testq",
		Usage:      "Usage: ... testq [ limit N ]",
		ParseQdisc: parseTestq,
		ParseClass: parseTestq,
		Creates: func(opts attrs.TCOptionsMsg) bool {
			o, ok := opts.(*attrs.TCFifoQopt)
			return ok && o.Limit >= 1000
		},
		// A limit of 2000 or more takes two requests, as gred's table
		// with its queues does: no one command sends it.
		Requests: func(opts, _ attrs.TCOptionsMsg) ([]attrs.TCOptionsMsg, bool) {
			if o, ok := opts.(*attrs.TCFifoQopt); ok && o.Limit >= 2000 {
				return []attrs.TCOptionsMsg{opts, opts}, true
			}
			return []attrs.TCOptionsMsg{opts}, true
		},
	}
	// testclassless has no class options, nor a parser of its qdisc's.
	testclassless = &tckind.Qdisc{Name: "testclassless"}
)

func init() {
	tckind.MustRegisterQdisc(testq)
	tckind.MustRegisterQdisc(testclassless)
}

func parseTestq(args []string, env tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
	o := &attrs.TCFifoQopt{}
	for ; len(args) > 0; args = args[1:] {
		switch args[0] {
		case "limit":
			if len(args) < 2 {
				return nil, tcword.IncompleteCommand()
			}
			args = args[1:]
			n, err := tcfmt.ParseUint(args[0], 0, 32)
			if err != nil {
				return nil, tcword.Errorf(`testq: Illegal value for "limit": "%s"`, args[0])
			}
			o.Limit = uint32(n)
		case "note":
			fmt.Fprintf(env.Notes(), "testq on %q\n", env.Dev)
		case "help":
			return nil, &tcword.ParseError{ShowUsage: true}
		default:
			return nil, tcword.UsageErrorf(`testq: unknown parameter "%s"`, args[0])
		}
	}
	return o, nil
}

func TestChangeVerb(t *testing.T) {
	for _, tt := range []struct {
		obj  netlink.Object
		word string
		op   netlink.Op
		ok   bool
	}{
		{netlink.Qdisc, "add", netlink.Add, true},
		{netlink.Qdisc, "a", netlink.Add, true},
		// A prefix of two verbs is the first's, as tc tries them.
		{netlink.Qdisc, "c", netlink.Change, true},
		{netlink.Qdisc, "replace", netlink.Replace, true},
		{netlink.Qdisc, "link", netlink.Link, true},
		{netlink.Qdisc, "l", netlink.Link, true},
		{netlink.Qdisc, "del", netlink.Delete, true},
		{netlink.Class, "change", netlink.Change, true},
		{netlink.Class, "d", netlink.Delete, true},
		// Classes have no "link": "l" is then the listing's.
		{netlink.Class, "link", 0, false},
		{netlink.Class, "l", 0, false},
		{netlink.Qdisc, "show", 0, false},
		{netlink.Qdisc, "help", 0, false},
		{netlink.Qdisc, "", 0, false},
		{netlink.Qdisc, "adds", 0, false},
	} {
		op, ok := ChangeVerb(tt.obj, tt.word)
		if ok != tt.ok || ok && op != tt.op {
			t.Errorf("%v %q: %v %v, want %v %v", tt.obj, tt.word, op, ok, tt.op, tt.ok)
		}
	}
}

// parsed is a qdisc or class command read, with what was printed while
// reading it; the request's device and options are left out.
func parsed(t *testing.T, obj netlink.Object, op netlink.Op, line string, raw bool) (QdiscRequest, string) {
	t.Helper()
	var stderr strings.Builder
	r, err := ParseQdiscRequest(obj, op, strings.Fields(line), QdiscEnv{Stderr: &stderr, Raw: raw})
	if err != nil {
		t.Fatalf("%v %q: %v", obj, line, err)
	}
	return r, stderr.String()
}

func TestParseQdiscRequest(t *testing.T) {
	u32 := func(v uint32) *uint32 { return &v }
	for _, tt := range []struct {
		obj                       netlink.Object
		line                      string
		target                    Target
		kind                      string // "" for none
		rate                      *attrs.GnetEstimator
		ingressBlock, egressBlock *uint32
	}{
		{netlink.Qdisc, "dev eth0 root handle 1: testq limit 2",
			Target{Dev: "eth0", Parent: netlink.HandleRoot, ParentSet: true, Handle: 0x10000, HandleSet: true}, "testq", nil, nil, nil},
		{netlink.Qdisc, "handle 7FFF: dev eth0 parent 7FFF:0x3 testq limit 10",
			Target{Dev: "eth0", Parent: 0x7fff0003, ParentSet: true, Handle: 0x7fff0000, HandleSet: true}, "testq", nil, nil, nil},
		{netlink.Class, "dev eth0 parent 0x2:0x3 classid 0x2:0x9 testq limit 15",
			Target{Dev: "eth0", Parent: 0x20003, ParentSet: true, Handle: 0x20009, HandleSet: true}, "testq", nil, nil, nil},
		// A class's "handle" is a class ID too.
		{netlink.Class, "dev eth0 handle 1:1", Target{Dev: "eth0", Handle: 0x10001, HandleSet: true}, "", nil, nil, nil},
		{netlink.Qdisc, "dev eth0 root", Target{Dev: "eth0", Parent: netlink.HandleRoot, ParentSet: true}, "", nil, nil, nil},
		// "ingress" and "clsact" name the parent, the handle (over one
		// given before) and the kind, and end the placement.
		{netlink.Qdisc, "dev eth0 ingress", Target{Dev: "eth0", Parent: netlink.HandleIngress, ParentSet: true, Handle: 0xffff0000}, "ingress", nil, nil, nil},
		{netlink.Qdisc, "handle 5: dev eth0 clsact", Target{Dev: "eth0", Parent: netlink.HandleIngress, ParentSet: true, Handle: 0xffff0000, HandleSet: true}, "clsact", nil, nil, nil},
		// The keywords among the placement words, by prefix.
		{netlink.Qdisc, "dev eth0 estimator 1s 8s root testq",
			Target{Dev: "eth0", Parent: netlink.HandleRoot, ParentSet: true}, "testq", &attrs.GnetEstimator{EwmaLog: 3}, nil, nil},
		{netlink.Class, "est 250ms 1s dev eth0 classid 1:1 testq",
			Target{Dev: "eth0", Handle: 0x10001, HandleSet: true}, "testq", &attrs.GnetEstimator{Interval: -2, EwmaLog: 2}, nil, nil},
		{netlink.Qdisc, "dev eth0 ingress_block 3 egress_block 4 clsact",
			Target{Dev: "eth0", Parent: netlink.HandleIngress, ParentSet: true, Handle: 0xffff0000}, "clsact", nil, u32(3), u32(4)},
		{netlink.Qdisc, "dev eth0 ingress_b 0x10 ingress",
			Target{Dev: "eth0", Parent: netlink.HandleIngress, ParentSet: true, Handle: 0xffff0000}, "ingress", nil, u32(16), nil},
		{netlink.Qdisc, "dev eth0 egr 7 root testclassless",
			Target{Dev: "eth0", Parent: netlink.HandleRoot, ParentSet: true}, "testclassless", nil, nil, u32(7)},
		// A word that is none of them is the kind, known or not.
		{netlink.Qdisc, "dev eth0 root foo", Target{Dev: "eth0", Parent: netlink.HandleRoot, ParentSet: true}, "foo", nil, nil, nil},
	} {
		r, stderr := parsed(t, tt.obj, netlink.Add, tt.line, false)
		m := r.Msg
		if r.Target != tt.target || m.Kind() != tt.kind || (m.Attrs.Kind != nil) != (tt.kind != "") || stderr != "" {
			t.Errorf("%v %q: %+v kind %q, printed %q; want %+v kind %q", tt.obj, tt.line, r.Target, m.Kind(), stderr, tt.target, tt.kind)
		}
		if m.Header.Parent != tt.target.Parent || m.Header.Handle != tt.target.Handle || m.Header.Ifindex != 0 {
			t.Errorf("%v %q: header %+v", tt.obj, tt.line, m.Header)
		}
		if fmt.Sprint(m.Attrs.Rate) != fmt.Sprint(tt.rate) {
			t.Errorf("%v %q: estimator %+v, want %+v", tt.obj, tt.line, m.Attrs.Rate, tt.rate)
		}
		if fmt.Sprint(deref(m.Attrs.IngressBlock), deref(m.Attrs.EgressBlock)) != fmt.Sprint(deref(tt.ingressBlock), deref(tt.egressBlock)) {
			t.Errorf("%v %q: blocks %v %v", tt.obj, tt.line, deref(m.Attrs.IngressBlock), deref(m.Attrs.EgressBlock))
		}
		if (tt.kind == "testq") != (m.Attrs.Options != nil) {
			t.Errorf("%v %q: options %+v", tt.obj, tt.line, m.Attrs.Options)
		}
		if r.Op != netlink.Add {
			t.Errorf("%v %q: op %v", tt.obj, tt.line, r.Op)
		}
	}
}

func deref(p *uint32) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestParseQdiscRequestPrints: what tc prints while it reads on.
func TestParseQdiscRequestPrints(t *testing.T) {
	// "help" prints the usage of the object's commands and reads on.
	r, stderr := parsed(t, netlink.Qdisc, netlink.Add, "dev eth0 help root testq", false)
	if stderr != QdiscUsage(netlink.Qdisc) || r.Msg.Kind() != "testq" || !r.ParentSet {
		t.Errorf("qdisc help: %+v %q, printed %q", r.Target, r.Msg.Kind(), stderr)
	}
	r, stderr = parsed(t, netlink.Class, netlink.Add, "dev eth0 he classid 1:1 testq", false)
	if stderr != QdiscUsage(netlink.Class) || r.Msg.Kind() != "testq" || !r.HandleSet {
		t.Errorf("class help: %+v %q, printed %q", r.Target, r.Msg.Kind(), stderr)
	}
	// -raw traces the estimator.
	if _, stderr = parsed(t, netlink.Qdisc, netlink.Add, "dev eth0 root estimator 1s 8s testclassless", true); stderr != "[estimator i=0 e=3]\n" {
		t.Errorf("-raw estimator: printed %q", stderr)
	}
	// The estimator's "help" prints its usage before the refusal.
	var buf strings.Builder
	_, err := ParseQdiscRequest(netlink.Qdisc, netlink.Add, strings.Fields("dev eth0 estimator help"), QdiscEnv{Stderr: &buf})
	if !strings.HasPrefix(buf.String(), "Usage: ... estimator") || err == nil {
		t.Errorf("estimator help: printed %q, %v", buf.String(), err)
	}
	// Slots beyond tc's request buffer: tc's message, and the table sent
	// without them.
	r, stderr = parsed(t, netlink.Qdisc, netlink.Add, "dev eth0 root stab linklayer atm tsize 40000 testclassless", false)
	if stderr != "addattr_l ERROR: message exceeded bound of 65572\n" || r.Msg.Attrs.Stab == nil || r.Msg.Attrs.Stab.Data != nil {
		t.Errorf("stab beyond the buffer: printed %q, %+v", stderr, r.Msg.Attrs.Stab)
	}
	r, stderr = parsed(t, netlink.Qdisc, netlink.Add, "dev eth0 root stab overhead 18 testq limit 10", false)
	if stderr != "" || r.Msg.Attrs.Stab == nil || r.Msg.Attrs.Stab.Base.Overhead != 18 {
		t.Errorf("stab overhead: printed %q, %+v", stderr, r.Msg.Attrs.Stab)
	}
}

// TestParseQdiscRequestCreates: a qdisc whose options ask the kernel to
// create it turns change into a create and link into replace, as tc adds
// NLM_F_CREATE; a class never does.
func TestParseQdiscRequestCreates(t *testing.T) {
	for _, tt := range []struct {
		obj    netlink.Object
		op     netlink.Op
		line   string
		wantOp netlink.Op
	}{
		{netlink.Qdisc, netlink.Change, "dev eth0 root testq limit 1000", netlink.ChangeCreate},
		{netlink.Qdisc, netlink.Link, "dev eth0 root testq limit 1000", netlink.Replace},
		{netlink.Qdisc, netlink.Add, "dev eth0 root testq limit 1000", netlink.Add},
		{netlink.Qdisc, netlink.Replace, "dev eth0 root testq limit 1000", netlink.Replace},
		{netlink.Qdisc, netlink.Delete, "dev eth0 root testq limit 1000", netlink.Delete},
		{netlink.Qdisc, netlink.Change, "dev eth0 root testq limit 10", netlink.Change},
		{netlink.Qdisc, netlink.Link, "dev eth0 root testq", netlink.Link},
		{netlink.Class, netlink.Change, "dev eth0 classid 1:1 testq limit 1000", netlink.Change},
	} {
		if r, _ := parsed(t, tt.obj, tt.op, tt.line, false); r.Op != tt.wantOp {
			t.Errorf("%v %v %q: op %v, want %v", tt.obj, tt.op, tt.line, r.Op, tt.wantOp)
		}
	}
}

// TestParseQdiscRequestKindEnv: the kind reads its words knowing the
// device named before it, and prints its notes where the command prints.
func TestParseQdiscRequestKindEnv(t *testing.T) {
	r, stderr := parsed(t, netlink.Qdisc, netlink.Add, "root dev eth0 testq note limit 5", false)
	if stderr != "testq on \"eth0\"\n" || r.Msg.Attrs.Options.(*attrs.TCFifoQopt).Limit != 5 {
		t.Errorf("printed %q, options %+v", stderr, r.Msg.Attrs.Options)
	}
}

// refusal is the message and status PrintError gives for err.
func refusal(err error) (string, int) {
	var out strings.Builder
	status := PrintError(&out, err)
	return out.String(), status
}

func TestParseQdiscRequestErrors(t *testing.T) {
	const incomplete = "Command line is not complete. Try option \"help\"\n"
	for _, tt := range []struct {
		obj  netlink.Object
		line string
		msg  string
		code int
	}{
		{netlink.Qdisc, "dev", incomplete, 255},
		{netlink.Qdisc, "dev eth0 dev eth1", "Error: duplicate \"dev\": \"eth1\" is the second value.\n", 255},
		{netlink.Qdisc, "parent", incomplete, 255},
		{netlink.Qdisc, "parent 1: parent 2:", "Error: duplicate \"parent\": \"2:\" is the second value.\n", 255},
		{netlink.Qdisc, "parent x", "Error: argument \"x\" is wrong: invalid parent ID\n", 255},
		{netlink.Qdisc, "root root", "Error: \"root\" is duplicate parent ID\n", 255},
		{netlink.Qdisc, "parent 1:1 root", "Error: \"root\" is duplicate parent ID\n", 255},
		{netlink.Qdisc, "root ingress", "Error: \"ingress\" is a duplicate parent ID\n", 255},
		{netlink.Qdisc, "parent 1: clsact", "Error: \"clsact\" is a duplicate parent ID\n", 255},
		{netlink.Qdisc, "handle", incomplete, 255},
		{netlink.Qdisc, "handle 1x", "Error: argument \"1x\" is wrong: invalid qdisc ID\n", 255},
		{netlink.Qdisc, "handle 10000:", "Error: argument \"10000:\" is wrong: invalid qdisc ID\n", 255},
		// tc's qdisc parser finds a second handle before its value.
		{netlink.Qdisc, "handle 1: handle 2:", "Error: duplicate \"handle\": \"handle\" is the second value.\n", 255},
		{netlink.Qdisc, "handle 1: handle", "Error: duplicate \"handle\": \"handle\" is the second value.\n", 255},
		// A qdisc has no "classid": it is the kind.
		{netlink.Qdisc, "classid 1:1", "Unknown qdisc \"classid\", hence option \"1:1\" is unparsable\n", 1},
		{netlink.Class, "classid", incomplete, 255},
		{netlink.Class, "classid 1:1 classid 1:2", "Error: duplicate \"classid\": \"1:2\" is the second value.\n", 255},
		{netlink.Class, "classid 1:1 handle", incomplete, 255},
		{netlink.Class, "classid 1:1 handle 1:2", "Error: duplicate \"handle\": \"1:2\" is the second value.\n", 255},
		{netlink.Class, "classid x", "Error: argument \"x\" is wrong: invalid class ID\n", 255},
		{netlink.Qdisc, "estimator", incomplete, 255},
		{netlink.Qdisc, "estimator 1s", incomplete, 255},
		{netlink.Qdisc, "est 1s 8s root est 1s 8s", "Error: duplicate \"estimator\": \"1s\" is the second value.\n", 255},
		{netlink.Class, "estimator x 8s", "Error: argument \"invalid estimator interval\" is wrong: estimator\n", 255},
		{netlink.Qdisc, "stab", incomplete, 255},
		// A table that changes nothing: tc says nothing.
		{netlink.Qdisc, "root stab mtu 1500 testq", "", 255},
		{netlink.Qdisc, "ingress_block", incomplete, 255},
		{netlink.Qdisc, "ingress_block 0 ingress", "Error: argument \"0\" is wrong: invalid ingress block index value\n", 255},
		{netlink.Qdisc, "egress_block x clsact", "Error: argument \"x\" is wrong: invalid egress block index value\n", 255},
		// A class has none of a qdisc's keywords: they are kinds.
		{netlink.Class, "stab overhead 1", "Error: Qdisc \"stab\" is classless.\n", 1},
		{netlink.Class, "ingress_block 1", "Error: Qdisc \"ingress_block\" is classless.\n", 1},
		{netlink.Class, "dev eth0 ingress", "Error: Qdisc \"ingress\" is classless.\n", 1},
		{netlink.Class, "classid 1:1 testclassless", "Error: Qdisc \"testclassless\" is classless.\n", 1},
		{netlink.Class, "classid 1:1 foo", "Error: Qdisc \"foo\" is classless.\n", 1},
		{netlink.Qdisc, "root foo limit 1", "Unknown qdisc \"foo\", hence option \"limit\" is unparsable\n", 1},
		// A kind without a parser takes no options either.
		{netlink.Qdisc, "root testclassless limit 1", "Unknown qdisc \"testclassless\", hence option \"limit\" is unparsable\n", 1},
		// The kind's refusals, with its usage where tc prints it.
		{netlink.Qdisc, "root testq limit", incomplete, 255},
		{netlink.Qdisc, "root testq limit x", "testq: Illegal value for \"limit\": \"x\"\n", 1},
		{netlink.Class, "classid 1:1 testq bogus", "testq: unknown parameter \"bogus\"\n" + testq.Usage + "\n", 1},
		{netlink.Qdisc, "root testq help", testq.Usage + "\n", 1},
		// The kind's words start after it: a placement word is the kind's.
		{netlink.Qdisc, "testq dev eth0", "testq: unknown parameter \"dev\"\n" + testq.Usage + "\n", 1},
	} {
		_, err := ParseQdiscRequest(tt.obj, netlink.Add, strings.Fields(tt.line), QdiscEnv{})
		if err == nil {
			t.Errorf("%v %q: no error", tt.obj, tt.line)
			continue
		}
		if msg, code := refusal(err); msg != tt.msg || code != tt.code {
			t.Errorf("%v %q: %q, status %d; want %q, %d", tt.obj, tt.line, msg, code, tt.msg, tt.code)
		}
	}
}

func TestParseKindOptions(t *testing.T) {
	opts, err := ParseKindOptions(netlink.Qdisc, "testq", []string{"limit", "10"}, tckind.ParseEnv{})
	if o, ok := opts.(*attrs.TCFifoQopt); err != nil || !ok || o.Limit != 10 {
		t.Errorf("testq limit 10: %+v, %v", opts, err)
	}
	// A kind gotc does not know, without options: the kernel decides.
	if opts, err := ParseKindOptions(netlink.Qdisc, "foo", nil, tckind.ParseEnv{}); opts != nil || err != nil {
		t.Errorf("foo: %+v, %v", opts, err)
	}
	// A kind's refusal comes with its usage.
	_, err = ParseKindOptions(netlink.Class, "testq", []string{"bogus"}, tckind.ParseEnv{})
	var kerr *KindError
	if !errors.As(err, &kerr) || kerr.Usage != testq.Usage {
		t.Errorf("testq class bogus: %v", err)
	}
}

// statusError is an error that carries its exit status, as a command's
// failures do.
type statusError int

func (statusError) Error() string   { return "failed" }
func (e statusError) ExitCode() int { return int(e) }

func TestPrintError(t *testing.T) {
	for _, tt := range []struct {
		err  error
		msg  string
		code int
	}{
		{&tckind.ParseError{Msg: "bad"}, "bad\n", 1},
		{&tckind.ParseError{Msg: "bad", NoNewline: true, Code: 2}, "bad", 2},
		{&tckind.ParseError{Code: 255}, "", 255},
		// The usage only where the refusal asks for it, and only a kind's.
		{&tckind.ParseError{Msg: "bad", ShowUsage: true}, "bad\n", 1},
		{&KindError{Err: &tckind.ParseError{Msg: "bad", ShowUsage: true}, Usage: "Usage: x"}, "bad\nUsage: x\n", 1},
		{&KindError{Err: &tckind.ParseError{Msg: "bad"}, Usage: "Usage: x"}, "bad\n", 1},
		{&KindError{Err: &tckind.ParseError{ShowUsage: true}, Usage: "Usage: x"}, "Usage: x\n", 1},
		{errors.New("other"), "other\n", 1},
		{fmt.Errorf("wrapped: %w", statusError(2)), "wrapped: failed\n", 2},
		{&KindError{Err: statusError(255)}, "failed\n", 255},
	} {
		if msg, code := refusal(tt.err); msg != tt.msg || code != tt.code {
			t.Errorf("%#v: %q, status %d; want %q, %d", tt.err, msg, code, tt.msg, tt.code)
		}
	}
}

func TestTargetKeeps(t *testing.T) {
	m := &netlink.Msg{}
	m.Header.Parent, m.Header.Handle = 0x10000, 0x20000
	for _, tt := range []struct {
		tg   Target
		want bool
	}{
		{Target{}, true},
		{Target{Dev: "eth0"}, true},
		{Target{Parent: 0x10000, ParentSet: true}, true},
		{Target{Parent: netlink.HandleRoot, ParentSet: true}, false},
		{Target{Handle: 0x20000, HandleSet: true}, true},
		{Target{Handle: 0x30000, HandleSet: true}, false},
		// A handle not named is no filter: "ingress" sets one without.
		{Target{Handle: 0x30000}, true},
	} {
		if got := tt.tg.Keeps(m); got != tt.want {
			t.Errorf("%+v: %v", tt.tg, got)
		}
	}
}

func TestParseQdiscShow(t *testing.T) {
	for _, tt := range []struct {
		line    string
		want    QdiscShow
		atClass bool
	}{
		{"", QdiscShow{}, false},
		{"dev eth0", QdiscShow{Target: Target{Dev: "eth0"}}, false},
		{"dev eth0 parent 1:2", QdiscShow{Target: Target{Dev: "eth0", Parent: 0x10002, ParentSet: true}}, true},
		{"parent 1:2", QdiscShow{Target: Target{Parent: 0x10002, ParentSet: true}}, false},
		{"dev eth0 parent 1:2 invisible", QdiscShow{Target: Target{Dev: "eth0", Parent: 0x10002, ParentSet: true}, Invisible: true}, false},
		{"dev eth0 parent 1:2 handle 3:", QdiscShow{Target: Target{Dev: "eth0", Parent: 0x10002, ParentSet: true, Handle: 0x30000, HandleSet: true}}, false},
		// Not a class: a qdisc, the root's and the ingress hook's.
		{"dev eth0 parent 1:", QdiscShow{Target: Target{Dev: "eth0", Parent: 0x10000, ParentSet: true}}, false},
		{"dev eth0 parent :2", QdiscShow{Target: Target{Dev: "eth0", Parent: 0x2, ParentSet: true}}, false},
		{"dev eth0 parent ffff:fff1", QdiscShow{Target: Target{Dev: "eth0", Parent: netlink.HandleIngress, ParentSet: true}}, false},
		// "ingress" and "clsact" name only the parent, and reading goes
		// on after them, afresh: a word again overrides.
		{"ingress dev eth0", QdiscShow{Target: Target{Dev: "eth0", Parent: netlink.HandleIngress, ParentSet: true}}, false},
		{"dev eth0 clsact dev eth1 handle 1:", QdiscShow{Target: Target{Dev: "eth1", Parent: netlink.HandleIngress, ParentSet: true, Handle: 0x10000, HandleSet: true}}, false},
		{"invisible dev eth0 invisible", QdiscShow{Target: Target{Dev: "eth0"}, Invisible: true}, false},
	} {
		got, err := ParseQdiscShow(strings.Fields(tt.line))
		if err != nil || got != tt.want || got.AtClass() != tt.atClass {
			t.Errorf("%q: %+v (at a class %v), %v; want %+v (%v)", tt.line, got, got.AtClass(), err, tt.want, tt.atClass)
		}
	}
	for _, tt := range []struct{ line, msg string }{
		{"dev", "Command line is not complete. Try option \"help\"\n"},
		{"dev eth0 dev eth1", "Error: duplicate \"dev\": \"eth1\" is the second value.\n"},
		{"dev eth0 foo", "What is \"foo\"? Try \"tc qdisc help\".\n"},
		{"dev eth0 help", QdiscUsage(netlink.Qdisc)},
	} {
		_, err := ParseQdiscShow(strings.Fields(tt.line))
		if msg, code := refusal(err); err == nil || msg != tt.msg || code != 255 {
			t.Errorf("%q: %q, status %d; want %q, 255", tt.line, msg, code, tt.msg)
		}
	}
}

func TestParseClassShow(t *testing.T) {
	got, err := ParseClassShow(strings.Fields("dev eth0 parent 1: classid 1:1"))
	if want := (Target{Dev: "eth0", Parent: 0x10000, ParentSet: true, Handle: 0x10001, HandleSet: true}); err != nil || got != want {
		t.Errorf("%+v, %v; want %+v", got, err, want)
	}
	for _, tt := range []struct {
		line, msg string
		code      int
	}{
		{"", "Error: must specify device\n", 1},
		{"root", "Error: must specify device\n", 1},
		{"dev eth0 root root", "Error: \"root\" is duplicate parent ID\n", 255},
		{"dev eth0 ingress", "What is \"ingress\"? Try \"tc class help\".\n", 255},
		{"dev eth0 help", QdiscUsage(netlink.Class), 255},
	} {
		_, err := ParseClassShow(strings.Fields(tt.line))
		if msg, code := refusal(err); err == nil || msg != tt.msg || code != tt.code {
			t.Errorf("%q: %q, status %d; want %q, %d", tt.line, msg, code, tt.msg, tt.code)
		}
	}
}

// TestParseQdiscOneRequest: options that take more than one request (a
// file's gred table with its queues) are refused by a command, which
// sends one.
func TestParseQdiscOneRequest(t *testing.T) {
	if _, err := ParseQdiscRequest(netlink.Qdisc, netlink.Add, strings.Fields("dev eth0 root testq limit 2000"), QdiscEnv{}); err == nil ||
		!strings.Contains(err.Error(), "take 2 requests") {
		t.Errorf("options of two requests: %v", err)
	}
	if _, err := ParseQdiscRequest(netlink.Qdisc, netlink.Add, strings.Fields("dev eth0 root testq limit 1999"), QdiscEnv{}); err != nil {
		t.Errorf("options of one request: %v", err)
	}
}
