// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gotc/gotc/tckind"
)

// htbTree is a small tree whose parts the malformed files below misspell,
// reshape and repeat, one at a time; its lines are numbered for the
// expected messages.
const htbTree = `devices:
  eth0:
    root:
      qdisc: htb default 10
      handle: "1:"
      classes:
        "1:1":
          class: htb rate 100mbit
          classes:
            "1:10":
              class: htb rate 10mbit
              leaf: { qdisc: fq_codel, handle: "10:" }
      filters:
        - protocol ip pref 1 u32 match ip dst 192.0.2.1/32 classid 1:10
    ingress:
      qdisc: ingress
      filters:
        - pref 10 matchall action mirred egress redirect dev ifb0
`

// badFiles are files of every shape of fault, each with the exact message
// it must be refused with.
var badFiles = []struct {
	name, file, want string
}{
	// Unknown keys, at each level of the file.
	{"typo in the file's key", strings.Replace(htbTree, "devices:", "device:", 1),
		`tc.yaml:1:1: unknown key "device" in the file: did you mean "devices"?`},
	{"typo in a device's key", strings.Replace(htbTree, "    ingress:", "    ingres:", 1),
		`tc.yaml:15:5: unknown key "ingres" in a device: did you mean "ingress"?`},
	{"typo in a qdisc's key", strings.Replace(htbTree, "      classes:", "      clases:", 1),
		`tc.yaml:6:7: unknown key "clases" in a qdisc: did you mean "classes"?`},
	{"typo in a class's key", strings.Replace(htbTree, "              leaf:", "              lef:", 1),
		`tc.yaml:12:15: unknown key "lef" in a class: did you mean "leaf"?`},
	{"typo in a child class's key", strings.Replace(htbTree, "          classes:", "          clasess:", 1),
		`tc.yaml:9:11: unknown key "clasess" in a class: did you mean "classes"?`},
	{"typo in a leaf's key", strings.Replace(htbTree, `handle: "10:"`, `hanlde: "10:"`, 1),
		`tc.yaml:12:40: unknown key "hanlde" in a qdisc: did you mean "handle"?`},
	{"typo in the ingress qdisc's key", strings.Replace(htbTree, "      filters:\n        - pref", "      filter:\n        - pref", 1),
		`tc.yaml:17:7: unknown key "filter" in a qdisc: did you mean "filters"?`},
	{"key like none", strings.Replace(htbTree, `      handle: "1:"`, `      rate: 1mbit`, 1),
		`tc.yaml:5:7: unknown key "rate" in a qdisc: known: qdisc, handle, classes, filters, egress_filters, chains, egress_chains, name`},

	// Values of the wrong shape, at each level.
	{"the file a list", "- devices\n",
		`tc.yaml:1:1: the file must be a mapping with "devices", not a list`},
	{"devices a list", "devices: [eth0]\n",
		`tc.yaml:1:10: "devices" must be a mapping of device names to their trees, not a list`},
	{"a device a word", "devices:\n  eth0: fq_codel\n",
		`tc.yaml:2:9: device "eth0" must be a mapping with "root" and "ingress", not "fq_codel"`},
	{"root a list", "devices:\n  eth0:\n    root: [fq_codel]\n",
		`tc.yaml:3:11: "root" must be a qdisc: its tc words ("fq_codel") or a mapping with "qdisc", "handle", "classes", "filters", "egress_filters", "chains", "egress_chains" and "name", not a list`},
	{"qdisc words a list", strings.Replace(htbTree, "qdisc: htb default 10", "qdisc: [htb, default, 10]", 1),
		`tc.yaml:4:14: "qdisc" must be the kind and its options in tc's words, not a list`},
	{"handle a mapping", strings.Replace(htbTree, `handle: "1:"`, `handle: {major: 1}`, 1),
		`tc.yaml:5:15: "handle" must be a qdisc handle ("1:"), not a mapping`},
	{"classes a list", "devices:\n  eth0:\n    root:\n      qdisc: htb\n      handle: \"1:\"\n      classes:\n        - \"1:1\"\n",
		`tc.yaml:7:9: "classes" must be a mapping of class IDs ("1:10") to classes, not a list`},
	{"a class its words alone", "devices:\n  eth0:\n    root:\n      qdisc: htb\n      handle: \"1:\"\n      classes:\n        \"1:1\": htb rate 100mbit\n",
		`tc.yaml:7:16: class "1:1" must be a mapping with "class", "leaf", "classes", "filters", "chains" and "name", not "htb rate 100mbit"`},
	{"class words a mapping", strings.Replace(htbTree, "class: htb rate 10mbit", "class: {htb: rate 10mbit}", 1),
		`tc.yaml:11:22: "class" must be the kind and its options in tc's words, not a mapping`},
	{"leaf a list", strings.Replace(htbTree, `leaf: { qdisc: fq_codel, handle: "10:" }`, "leaf: [fq_codel]", 1),
		`tc.yaml:12:21: "leaf" must be a qdisc: its tc words ("fq_codel") or a mapping with "qdisc", "handle", "classes", "filters", "egress_filters", "chains", "egress_chains" and "name", not a list`},
	{"filters a mapping", strings.Replace(htbTree, "        - pref 10", "          pref: 10", 1),
		`tc.yaml:18:11: "filters" must be a list of filters, each its tc words on one line, not a mapping`},
	{"a filter a mapping", strings.Replace(htbTree, "        - pref 10 matchall", "        - pref: 10 matchall", 1),
		`tc.yaml:18:11: a filter must be its tc words on one line, not a mapping`},
	{"an empty filter", strings.Replace(htbTree, "        - pref 10 matchall action mirred egress redirect dev ifb0", "        -", 1),
		`tc.yaml:18:10: an empty filter: a filter is its tc words on one line`},
	{"a key a list", "devices:\n  ? [eth0]\n  : {root: fq_codel}\n",
		`tc.yaml:2:5: a key must be a word, not a list`},

	// Keys given twice.
	{"a device twice", "devices:\n  eth0:\n    root: fq_codel\n  eth0:\n    root: cake\n",
		`tc.yaml:4:3: "eth0" is given twice (first at line 2)`},
	{"root twice", "devices:\n  eth0:\n    root: fq_codel\n    root: cake\n",
		`tc.yaml:4:5: "root" is given twice (first at line 3)`},
	{"a qdisc's words twice", strings.Replace(htbTree, `      handle: "1:"`, "      qdisc: hfsc", 1),
		`tc.yaml:5:7: "qdisc" is given twice (first at line 4)`},
	{"a class ID twice in one mapping", strings.Replace(htbTree, `            "1:10":`, "            \"1:10\": {class: htb rate 1mbit}\n            \"1:10\":", 1),
		`tc.yaml:11:13: "1:10" is given twice (first at line 10)`},
	{"a class ID twice in the tree", strings.Replace(htbTree, "      filters:\n        - protocol", "        \"1:2\":\n          class: htb rate 1mbit\n          classes: {\"1:10\": {class: htb rate 1mbit}}\n      filters:\n        - protocol", 1),
		`tc.yaml:15:21: class 1:10 is given twice (first at line 10)`},
	{"a qdisc handle twice", strings.Replace(htbTree, `handle: "10:"`, `handle: "1:"`, 1),
		`tc.yaml:12:48: qdisc handle 1: is given twice (first at line 5)`},

	// YAML that does not parse: the line of the fault, not of its block.
	{"a line indented wrongly", strings.Replace(htbTree, "    ingress:", "   ingress:", 1),
		`tc.yaml:15: YAML: did not find expected key`},
	{"a tab", strings.Replace(htbTree, "    ingress:", "\tingress:", 1),
		`tc.yaml:15: YAML: found a tab character that violates indentation`},
	{"a handle unquoted", strings.Replace(htbTree, `handle: "1:"`, `handle: 1:`, 1),
		`tc.yaml:5: YAML: mapping values are not allowed in this context`},
	{"a second document", "devices:\n  eth0:\n    root: fq_codel\n---\ndevices:\n  eth1:\n    root: fq_codel\n",
		`tc.yaml:5:1: a second YAML document: the file is one document (remove the "---" before this line)`},
	{"an empty file", "# nothing yet\n",
		`tc.yaml: the file is empty: it names no devices`},
	{"no devices", "devices:\n",
		`tc.yaml:1:1: the file names no devices`},

	// Kinds and their words, read by the kinds' parsers.
	{"an unknown kind", "devices:\n  eth0:\n    root: htbx default 20\n",
		`tc.yaml:3:11: unknown qdisc kind "htbx": did you mean "htb"?`},
	{"a number for a kind", "devices:\n  eth0:\n    root: 42\n",
		`tc.yaml:3:11: unknown qdisc kind "42": known: ` + strings.Join(tckind.QdiscNames(), ", ")},
	{"an unknown kind of leaf", strings.Replace(htbTree, "qdisc: fq_codel,", "qdisc: fq_codle,", 1),
		`tc.yaml:12:30: unknown qdisc kind "fq_codle": did you mean "fq_codel"?`},
	{"no kind", strings.Replace(htbTree, "      qdisc: ingress\n", "", 1),
		`tc.yaml:16:7: a qdisc needs its kind, the first of its tc words`},
	{"a misspelt option", "devices:\n  eth0:\n    root: cake bandwith 1mbit\n",
		`tc.yaml:3:11: qdisc "cake bandwith 1mbit": What is "bandwith"?`},
	{"a bad value", "devices:\n  eth0:\n    root: fq_codel limit lots\n",
		`tc.yaml:3:11: qdisc "fq_codel limit lots": Illegal "limit"`},
	{"a value missing", "devices:\n  eth0:\n    root: fq_codel limit\n",
		`tc.yaml:3:11: qdisc "fq_codel limit": the last word needs a value after it`},
	{"options missing", "devices:\n  eth0:\n    root: tbf rate 1mbit\n",
		`tc.yaml:3:11: qdisc "tbf rate 1mbit": tbf: the "burst" parameter is mandatory; tbf: either "limit" or "latency" is required.`},
	{"options of a kind without", "devices:\n  eth0:\n    root: mq limit 10\n",
		`tc.yaml:3:11: qdisc "mq limit 10": mq takes no options`},
	{"a bad class option", strings.Replace(htbTree, "class: htb rate 10mbit", "class: htb rate 10mbit ceil", 1),
		`tc.yaml:11:22: class 1:10 "htb rate 10mbit ceil": the last word needs a value after it`},
	{"a class of another kind", strings.Replace(htbTree, "class: htb rate 10mbit", "class: hfsc sc rate 10mbit", 1),
		`tc.yaml:11:22: class 1:10 is a class of qdisc htb, so its words start with "htb", not "hfsc"`},
	{"a class without words", strings.Replace(htbTree, "              class: htb rate 10mbit\n", "", 1),
		`tc.yaml:10:13: class 1:10 needs its "class" words: htb and its options`},
	{"class words for a class its qdisc makes", "devices:\n  eth0:\n    root:\n      qdisc: mq\n      handle: \"1:\"\n      classes:\n        \"1:1\": {class: htb rate 1mbit}\n",
		`tc.yaml:7:24: class 1:1: qdisc mq makes its classes itself, so "class" takes no words here`},
	{"children of a class its qdisc makes", "devices:\n  eth0:\n    root:\n      qdisc: prio\n      handle: \"1:\"\n      classes:\n        \"1:1\": {classes: {\"1:5\": {leaf: pfifo}}}\n",
		`tc.yaml:7:9: class 1:1: qdisc prio makes its classes itself, without child classes`},
	{"a class under a classless qdisc", "devices:\n  eth0:\n    root:\n      qdisc: fq_codel\n      handle: \"1:\"\n      classes:\n        \"1:1\": {leaf: pfifo}\n",
		`tc.yaml:7:9: qdisc fq_codel is classless: it has no classes`},
	{"a class ID of another qdisc", strings.Replace(htbTree, `"1:10":`, `"2:10":`, 1),
		`tc.yaml:10:13: "2:10" is not a class of qdisc 1:: its class IDs are 1:N, N a hex number from 1`},
	{"a class ID that is none", strings.Replace(htbTree, `"1:10":`, `"ten":`, 1),
		`tc.yaml:10:13: "ten" is not a class of qdisc 1:: its class IDs are 1:N, N a hex number from 1`},
	{"classes without a handle", strings.Replace(htbTree, "      handle: \"1:\"\n", "", 1),
		`tc.yaml:4:7: qdisc htb has classes, filters or chains, so it needs its handle ("1:")`},
	{"a bad handle", strings.Replace(htbTree, `handle: "1:"`, `handle: "x:"`, 1),
		`tc.yaml:5:15: handle "x:" is not a qdisc handle: a hex major number and a colon, from "1:" to "ffff:"`},
	{"handle 0:", strings.Replace(htbTree, `handle: "10:"`, `handle: "0:"`, 1),
		`tc.yaml:12:48: handle "0:" is not a qdisc handle: a hex major number and a colon, from "1:" to "ffff:"`},
	{"an ingress handle", strings.Replace(htbTree, "      qdisc: ingress\n", "      qdisc: ingress\n      handle: \"2:\"\n", 1),
		`tc.yaml:17:15: the ingress qdisc's handle is ffff:, not 2:`},
	{"a tree qdisc at ingress", strings.Replace(htbTree, "qdisc: ingress", "qdisc: fq_codel", 1),
		`tc.yaml:16:14: "ingress" holds an ingress or clsact qdisc, not fq_codel`},
	{"clsact at the root", "devices:\n  eth0:\n    root: clsact\n",
		`tc.yaml:3:11: clsact goes under "ingress", not in the root tree`},
	{"egress filters of ingress", strings.Replace(htbTree, "      filters:\n        - pref 10", "      egress_filters:\n        - pref 10", 1),
		`tc.yaml:18:11: egress_filters are clsact's, not ingress's`},
	{"a device this machine lacks", strings.Replace(htbTree, "  eth0:", "  eth9:", 1),
		`tc.yaml:2:3: no device "eth9" on this machine`},

	// Filter lines, read with tc's grammar and the kinds' parsers.
	{"a filter without pref", strings.Replace(htbTree, "- pref 10 matchall", "- matchall", 1),
		`tc.yaml:18:11: filter "matchall action mirred egress redirect dev ifb0": pref is required`},
	{"an unknown filter kind", strings.Replace(htbTree, "pref 10 matchall", "pref 10 matchal", 1),
		`tc.yaml:18:11: filter "pref 10 matchal action mirred egress redirect dev ifb0": unknown filter kind "matchal": did you mean "matchall"?`},
	{"a bad protocol", strings.Replace(htbTree, "protocol ip pref 1", "protocol bogus pref 1", 1),
		`tc.yaml:14:11: filter "protocol bogus pref 1 u32 match ip dst 192.0.2.1/32 classid 1:10": Error: argument "bogus" is wrong: invalid protocol`},
	{"a bad priority", strings.Replace(htbTree, "pref 10 matchall", "pref 70000 matchall", 1),
		`tc.yaml:18:11: filter "pref 70000 matchall action mirred egress redirect dev ifb0": Error: argument "70000" is wrong: invalid priority value`},
	{"a priority twice", strings.Replace(htbTree, "pref 10 matchall", "pref 1 pref 2 matchall", 1),
		`tc.yaml:18:11: filter "pref 1 pref 2 matchall action mirred egress redirect dev ifb0": Error: duplicate "priority": "2" is the second value.`},
	{"a bad chain", strings.Replace(htbTree, "pref 10 matchall", "pref 10 chain x matchall", 1),
		`tc.yaml:18:11: filter "pref 10 chain x matchall action mirred egress redirect dev ifb0": Error: argument "x" is wrong: invalid chain index value`},
	{"a handle without its value", strings.Replace(htbTree, "- pref 10 matchall action mirred egress redirect dev ifb0", "- pref 10 handle", 1),
		`tc.yaml:18:11: filter "pref 10 handle": the last word needs a value after it`},
	{"no filter kind", strings.Replace(htbTree, "- pref 10 matchall action mirred egress redirect dev ifb0", "- protocol ip pref 10", 1),
		`tc.yaml:18:11: filter "protocol ip pref 10": no filter kind`},
	{"a filter naming its device", strings.Replace(htbTree, "pref 10 matchall", "pref 10 dev eth0 matchall", 1),
		`tc.yaml:18:11: filter "pref 10 dev eth0 matchall action mirred egress redirect dev ifb0": the device, block and parent are where the filter stands in the file`},
	{"a filter naming its hook", strings.Replace(htbTree, "- pref 10 matchall", "- egress pref 10 matchall", 1),
		`tc.yaml:18:11: filter "egress pref 10 matchall action mirred egress redirect dev ifb0": the device, block and parent are where the filter stands in the file`},
	{"a qdisc's estimator", strings.Replace(htbTree, "qdisc: htb default 10", "qdisc: estimator 1s 8s htb default 10", 1),
		`tc.yaml:4:14: qdisc "estimator 1s 8s htb default 10": estimator: gotc apply keeps no rate estimators: the kernel dumps an estimator's rates but not its interval or time constant, so apply could neither write one back nor see it change; leave it out of the file`},
	{"a class's estimator", strings.Replace(htbTree, "class: htb rate 10mbit", "class: est 1s 8s htb rate 10mbit", 1),
		`tc.yaml:11:22: class 1:10 "est 1s 8s htb rate 10mbit": estimator: gotc apply keeps no rate estimators: the kernel dumps an estimator's rates but not its interval or time constant, so apply could neither write one back nor see it change; leave it out of the file`},
	{"a filter's estimator", strings.Replace(htbTree, "pref 10 matchall", "pref 10 estimator 1s 8s matchall", 1),
		`tc.yaml:18:11: filter "pref 10 estimator 1s 8s matchall action mirred egress redirect dev ifb0": estimator: the kernel keeps no estimator of a filter`},
	{"a bad filter option", strings.Replace(htbTree, "match ip dst 192.0.2.1/32", "match ip dst 192.0.2.300/32", 1),
		`tc.yaml:14:11: filter "protocol ip pref 1 u32 match ip dst 192.0.2.300/32 classid 1:10": Illegal "match"`},
	{"a redirect to a device this machine lacks", strings.Replace(htbTree, "dev ifb0", "dev ifb9", 1),
		`tc.yaml:18:11: filter "pref 10 matchall action mirred egress redirect dev ifb9": Cannot find device "ifb9"; bad action parsing; parse_action: bad value (5:mirred)!; Illegal "action"`},
	{"two kinds at one pref", strings.Replace(htbTree, "        - pref 10 matchall action mirred egress redirect dev ifb0\n", "        - pref 10 matchall action mirred egress redirect dev ifb0\n        - pref 10 basic action drop\n", 1),
		`tc.yaml:19:11: filter "pref 10 basic action drop": pref 10 holds matchall filters of protocol all (line 18): the filters of one pref share their kind and protocol`},

	// Every fault of a file at once, in the file's order: those of its
	// form first (Load's), then, in a file of the right form, those of its
	// words (Compute's).
	{"faults of form everywhere", strings.NewReplacer("    ingress:", "    ingres:", "              leaf:", "              lef:", `handle: "1:"`, `handle: ["1:"]`).Replace(htbTree),
		`tc.yaml:5:15: "handle" must be a qdisc handle ("1:"), not a list` + "\n" +
			`tc.yaml:12:15: unknown key "lef" in a class: did you mean "leaf"?` + "\n" +
			`tc.yaml:15:5: unknown key "ingres" in a device: did you mean "ingress"?`},
	{"faults of words everywhere", strings.NewReplacer("htb default 10", "htb defualt 10", "class: htb rate 10mbit", "class: htbx rate 10mbit", "qdisc: fq_codel,", "qdisc: fq_codle,", "pref 10 matchall", "pref 10 matchal").Replace(htbTree),
		`tc.yaml:4:14: qdisc "htb defualt 10": What is "defualt"?` + "\n" +
			`tc.yaml:11:22: class 1:10 is a class of qdisc htb, so its words start with "htb", not "htbx"` + "\n" +
			`tc.yaml:12:30: unknown qdisc kind "fq_codle": did you mean "fq_codel"?` + "\n" +
			`tc.yaml:18:11: filter "pref 10 matchal action mirred egress redirect dev ifb0": unknown filter kind "matchal": did you mean "matchall"?`},
}

// TestBadFiles refuses malformed files of every shape, each with its
// place and what was expected, and sends the kernel nothing.
func TestBadFiles(t *testing.T) {
	for _, tt := range badFiles {
		t.Run(tt.name, func(t *testing.T) {
			k := newFake("eth0", "ifb0")
			err := loadAndApply(k, tt.file)
			var bad *BadFile
			if !errors.As(err, &bad) {
				t.Fatalf("error %v (%T), want a *BadFile", err, err)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("error\n%s\nwant\n%s", got, tt.want)
			}
			if len(k.log) != 0 {
				t.Errorf("requests sent: %q", k.log)
			}
		})
	}
}

// loadAndApply is "gotc apply" on a file's text.
func loadAndApply(k Kernel, text string) error {
	f, err := Load("tc.yaml", strings.NewReader(text))
	if err != nil {
		return err
	}
	p, err := Compute(context.Background(), k, f)
	if err != nil {
		return err
	}
	_, err = p.Run(context.Background(), k, nil)
	return err
}

// TestGoodTreeApplies is the file the cases of TestBadFiles break: it must
// apply as it is.
func TestGoodTreeApplies(t *testing.T) {
	if err := loadAndApply(newFake("eth0", "ifb0"), htbTree); err != nil {
		t.Fatal(err)
	}
}
