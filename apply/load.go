// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Load reads a desired state in YAML or JSON (which YAML includes); name
// is the file's name in the messages about it.
//
// The file is read strictly, at every level: an unknown key, a value of
// the wrong shape (a list where a mapping is expected, say) and a key
// given twice are faults, for a misspelt "clases" must not silently mean
// "no classes": on a device the file owns, that deletes the tree. The
// error is then a *BadFile with every fault found, each at its line and
// column. The meaning of the words (kinds, options, handles) is checked
// by Compute, before it reads the kernel's state.
func Load(name string, r io.Reader) (*File, error) {
	return load(name, r, nil)
}

// load is Load and, for a node, LoadFleet.
func load(name string, r io.Reader, node *Node) (*File, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &BadFile{Name: name, Faults: []Fault{{Msg: "the file is empty: it names no devices"}}}
		}
		return nil, &BadFile{Name: name, Faults: []Fault{syntaxFault(data, err)}}
	}
	var d fileDecoder
	var f *File
	if node != nil && isFleet(doc.Content[0]) {
		f = d.fleet(doc.Content[0], *node)
	} else {
		f = d.file(doc.Content[0])
	}
	f.name = name
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		d.add(placeOf(next.Content[0]), `a second YAML document: the file is one document (remove the "---" before this line)`)
	case !errors.Is(err, io.EOF):
		d.list = append(d.list, syntaxFault(data, err))
	}
	if err := d.err(name); err != nil {
		return nil, err
	}
	return f, nil
}

// syntaxFault is a YAML syntax error of data as a fault at its line.
// yaml.v3 gives no column, and for some errors not the fault's line but
// the one where the enclosing block starts (a line indented wrongly is
// "line 1: did not find expected key"): the fault's line is the first at
// which data's lines stop parsing with the same message, found by
// bisecting.
func syntaxFault(data []byte, err error) Fault {
	_, msg := yamlMessage(err)
	lines := bytes.SplitAfter(data, []byte("\n"))
	sameFault := func(n int) bool {
		err := syntaxError(bytes.Join(lines[:n], nil))
		if err == nil {
			return false
		}
		_, m := yamlMessage(err)
		return m == msg
	}
	good, bad := 0, len(lines) // the first good lines parse; the first bad do not
	if !sameFault(bad) {
		line, _ := yamlMessage(err)
		return Fault{Line: line, Msg: "YAML: " + msg}
	}
	for bad-good > 1 {
		if mid := (good + bad) / 2; sameFault(mid) {
			bad = mid
		} else {
			good = mid
		}
	}
	return Fault{Line: bad, Msg: "YAML: " + msg}
}

// syntaxError is the first syntax error of the YAML documents in data.
func syntaxError(data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// yamlMessage splits a yaml.v3 error ("yaml: line 3: did not find
// expected key") into its line (0 for none) and its message.
func yamlMessage(err error) (line int, msg string) {
	msg = strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, text, ok := strings.Cut(rest, ": "); ok {
			if n, err := strconv.Atoi(num); err == nil {
				return n, text
			}
		}
	}
	return 0, msg
}

// The keys of each mapping of the file, in the order the messages list
// them; the fields of File, Device, Qdisc and Class.
var (
	fileKeys   = []string{"devices", "blocks", "actions"}
	deviceKeys = []string{"root", "ingress"}
	qdiscKeys  = []string{"qdisc", "handle", "classes", "filters", "egress_filters", "chains", "egress_chains", "name"}
	blockKeys  = []string{"filters", "chains"}
	classKeys  = []string{"class", "leaf", "classes", "filters", "chains", "name"}
)

// fileDecoder walks the YAML nodes of a file into a File, collecting a
// fault for every key, shape and duplicate that is wrong and going on
// past it, so that one run shows them all.
type fileDecoder struct{ faults }

func (d *fileDecoder) file(n *yaml.Node) *File {
	f := &File{Devices: map[string]*Device{}}
	n = deref(n)
	if isNull(n) {
		d.add(placeOf(n), "the file names no devices: it must be a mapping with \"devices\"")
		return f
	}
	if !d.expect(n, yaml.MappingNode, `the file must be a mapping with "devices"`) {
		return f
	}
	devicesSeen := false
	d.mapping(n, "the file", fileKeys, func(key, value *yaml.Node) {
		switch key.Value {
		case "blocks":
			f.Blocks = d.blocks(value)
			return
		case "actions":
			f.Actions, f.actionsAt = d.lines(value, key.Value, "action")
			return
		}
		devicesSeen = true
		d.devices(value, f)
	})
	switch {
	case len(d.list) > 0:
		// The faults say why: a misspelt "devices", say.
	case !devicesSeen:
		d.add(placeOf(n), `the file names no devices: "devices" is missing`)
	case len(f.Devices) == 0:
		d.add(placeOf(n), "the file names no devices")
	}
	return f
}

func (d *fileDecoder) devices(n *yaml.Node, f *File) {
	n = deref(n)
	if isNull(n) || !d.expect(n, yaml.MappingNode, `"devices" must be a mapping of device names to their trees`) {
		return
	}
	d.mapping(n, "", nil, func(key, value *yaml.Node) {
		dev := &Device{at: placeOf(key)}
		f.Devices[key.Value] = dev
		value = deref(value)
		if isNull(value) || !d.expect(value, yaml.MappingNode, fmt.Sprintf("device %q must be a mapping with %s", key.Value, keyList(deviceKeys))) {
			return
		}
		d.mapping(value, "a device", deviceKeys, func(key, value *yaml.Node) {
			q := d.qdisc(value, key.Value)
			if key.Value == "root" {
				dev.Root = q
			} else {
				dev.Ingress = q
			}
		})
	})
}

// qdisc reads a qdisc, what its key names ("root", "leaf"): its tc words
// alone or the mapping; nil for none.
func (d *fileDecoder) qdisc(n *yaml.Node, what string) *Qdisc {
	n = deref(n)
	switch {
	case isNull(n):
		return nil
	case n.Kind == yaml.ScalarNode:
		return &Qdisc{Spec: n.Value, at: placeOf(n), specAt: placeOf(n)}
	case !d.expect(n, yaml.MappingNode, fmt.Sprintf(`%q must be a qdisc: its tc words ("fq_codel") or a mapping with %s`, what, keyList(qdiscKeys))):
		return nil
	}
	q := &Qdisc{at: placeOf(n), specAt: placeOf(n)}
	d.mapping(n, "a qdisc", qdiscKeys, func(key, value *yaml.Node) {
		switch key.Value {
		case "qdisc":
			q.Spec, q.specAt = d.words(value, `"qdisc" must be the kind and its options in tc's words`)
		case "handle":
			q.Handle, q.handleAt = d.words(value, `"handle" must be a qdisc handle ("1:")`)
		case "classes":
			q.Classes = d.classes(value)
		case "filters":
			q.Filters, q.filtersAt = d.filters(value, key.Value)
		case "egress_filters":
			q.EgressFilters, q.egressFiltersAt = d.filters(value, key.Value)
		case "chains":
			q.Chains, q.chainsAt = d.lines(value, key.Value, "chain")
		case "egress_chains":
			q.EgressChains, q.egressChainsAt = d.lines(value, key.Value, "chain")
		case "name":
			q.Name, _ = d.words(value, `"name" must be a name on one line`)
		}
	})
	return q
}

func (d *fileDecoder) classes(n *yaml.Node) map[string]*Class {
	n = deref(n)
	if isNull(n) || !d.expect(n, yaml.MappingNode, `"classes" must be a mapping of class IDs ("1:10") to classes`) {
		return nil
	}
	out := map[string]*Class{}
	d.mapping(n, "", nil, func(key, value *yaml.Node) {
		c := &Class{idAt: placeOf(key), specAt: placeOf(key)}
		out[key.Value] = c
		value = deref(value)
		if isNull(value) || !d.expect(value, yaml.MappingNode, fmt.Sprintf("class %q must be a mapping with %s", key.Value, keyList(classKeys))) {
			return
		}
		d.mapping(value, "a class", classKeys, func(key, value *yaml.Node) {
			switch key.Value {
			case "class":
				c.Spec, c.specAt = d.words(value, `"class" must be the kind and its options in tc's words`)
			case "leaf":
				c.Leaf = d.qdisc(value, key.Value)
			case "classes":
				c.Classes = d.classes(value)
			case "filters":
				c.Filters, c.filtersAt = d.filters(value, key.Value)
			case "chains":
				c.Chains, c.chainsAt = d.lines(value, key.Value, "chain")
			case "name":
				c.Name, _ = d.words(value, `"name" must be a name on one line`)
			}
		})
	})
	return out
}

// blocks reads the shared blocks, by index.
func (d *fileDecoder) blocks(n *yaml.Node) map[uint32]*Block {
	n = deref(n)
	if isNull(n) || !d.expect(n, yaml.MappingNode, `"blocks" must be a mapping of block indexes to their filters and chains`) {
		return nil
	}
	out := map[uint32]*Block{}
	d.mapping(n, "", nil, func(key, value *yaml.Node) {
		index, err := strconv.ParseUint(key.Value, 10, 32)
		if err != nil || index == 0 {
			d.add(placeOf(key), "%q is not a block index: a number from 1 to 4294967295", key.Value)
			return
		}
		b := &Block{at: placeOf(key)}
		out[uint32(index)] = b
		value = deref(value)
		if isNull(value) || !d.expect(value, yaml.MappingNode, fmt.Sprintf("block %s must be a mapping with %s", key.Value, keyList(blockKeys))) {
			return
		}
		d.mapping(value, "a block", blockKeys, func(key, value *yaml.Node) {
			if key.Value == "filters" {
				b.Filters, b.filtersAt = d.filters(value, key.Value)
			} else {
				b.Chains, b.chainsAt = d.lines(value, key.Value, "chain")
			}
		})
	})
	return out
}

// filters reads a list of filter lines and where each stands.
func (d *fileDecoder) filters(n *yaml.Node, what string) ([]string, []place) {
	return d.lines(n, what, "filter")
}

// lines reads a list of one-line tc word lines (what a "filter" or a
// "chain" is) and where each stands.
func (d *fileDecoder) lines(n *yaml.Node, what, each string) ([]string, []place) {
	n = deref(n)
	if isNull(n) || !d.expect(n, yaml.SequenceNode, fmt.Sprintf("%q must be a list of %ss, each its tc words on one line", what, each)) {
		return nil, nil
	}
	var lines []string
	var at []place
	for _, item := range n.Content {
		item = deref(item)
		if isNull(item) {
			d.add(placeOf(item), "an empty %s: a %s is its tc words on one line", each, each)
			continue
		}
		if d.expect(item, yaml.ScalarNode, fmt.Sprintf("a %s must be its tc words on one line", each)) {
			lines = append(lines, item.Value)
			at = append(at, placeOf(item))
		}
	}
	return lines, at
}

// words reads a value written as words on one line; "" for none.
func (d *fileDecoder) words(n *yaml.Node, must string) (string, place) {
	n = deref(n)
	if isNull(n) || !d.expect(n, yaml.ScalarNode, must) {
		return "", placeOf(n)
	}
	return n.Value, placeOf(n)
}

// mapping calls field with each key of a mapping node and its value, in
// the file's order, after checking the key: a key must be a word, not
// given twice, and, when known is not nil, one of known (what names the
// mapping for the message, "a qdisc").
func (d *fileDecoder) mapping(n *yaml.Node, what string, known []string, field func(key, value *yaml.Node)) {
	seen := map[string]place{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, value := deref(n.Content[i]), n.Content[i+1]
		at := placeOf(key)
		switch first, dup := seen[key.Value]; {
		case key.Kind != yaml.ScalarNode:
			d.add(at, "a key must be a word, not %s", shape(key))
		case dup:
			d.add(at, "%q is given twice (first at line %d)", key.Value, first.line)
		case known != nil && !slices.Contains(known, key.Value):
			d.add(at, "unknown key %q in %s: %s", key.Value, what, suggest(key.Value, known))
		default:
			seen[key.Value] = at
			field(key, value)
		}
	}
}

// expect reports whether n is of kind; if not, it adds the fault "MUST,
// not SHAPE".
func (d *fileDecoder) expect(n *yaml.Node, kind yaml.Kind, must string) bool {
	if n.Kind == kind {
		return true
	}
	d.add(placeOf(n), "%s, not %s", must, shape(n))
	return false
}

// shape names what a node is, for "must be ..., not SHAPE".
func shape(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return fmt.Sprintf("%q", n.Value)
}

// deref is the node an alias ("*name") stands for.
func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// isNull reports a value left empty ("root:", "~", "null"): none.
func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// keyList writes keys for a message: "a", "b" and "c".
func keyList(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = strconv.Quote(k)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}
