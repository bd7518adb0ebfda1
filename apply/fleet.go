// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"fmt"
	"io"
	"maps"
	"path"
	"slices"

	"gopkg.in/yaml.v3"
)

// Node is a machine as a fleet file selects its part: its host name and
// its labels.
type Node struct {
	Name   string
	Labels map[string]string
}

// LoadFleet reads a fleet file (see the package's doc) and returns the
// part of it that is node's: the devices of every part that selects node,
// a File that may name no devices at all. A file with "devices" at its
// top, as Load reads it, is every node's whole.
//
// The whole file is read as strictly as Load reads one, every part's
// shape included, not only node's: a fault anywhere is a *BadFile on
// every node, for the file is one. A device given by two parts that both
// select node is a fault too.
func LoadFleet(name string, r io.Reader, node Node) (*File, error) {
	return load(name, r, &node)
}

// isFleet reports whether a file's top node is a fleet's: a mapping with
// "fleet".
func isFleet(n *yaml.Node) bool {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i < len(n.Content); i += 2 {
		if deref(n.Content[i]).Value == "fleet" {
			return true
		}
	}
	return false
}

// The keys of a fleet file and of each of its parts.
var (
	fleetKeys = []string{"fleet"}
	partKeys  = []string{"hosts", "labels", "devices", "blocks", "actions"}
)

// fleet reads a fleet file into node's part of it.
func (d *fileDecoder) fleet(n *yaml.Node, node Node) *File {
	f := &File{Devices: map[string]*Device{}}
	from := map[string]place{} // where each device of node's part is given
	d.mapping(deref(n), "a fleet file", fleetKeys, func(_, value *yaml.Node) {
		value = deref(value)
		if isNull(value) || !d.expect(value, yaml.SequenceNode, `"fleet" must be a list of parts, each a mapping with `+keyList(partKeys)) {
			return
		}
		for _, item := range value.Content {
			d.part(item, node, f, from)
		}
	})
	return f
}

// part reads one part of a fleet and, when it selects node, adds its
// devices to f.
func (d *fileDecoder) part(n *yaml.Node, node Node, f *File, from map[string]place) {
	n = deref(n)
	if isNull(n) || !d.expect(n, yaml.MappingNode, "a part of the fleet must be a mapping with "+keyList(partKeys)) {
		return
	}
	part := &File{Devices: map[string]*Device{}}
	selected, devicesSeen := true, false
	d.mapping(n, "a part of the fleet", partKeys, func(key, value *yaml.Node) {
		switch key.Value {
		case "hosts":
			selected = d.hosts(value, node.Name) && selected
		case "labels":
			selected = d.labels(value, node.Labels) && selected
		case "devices":
			devicesSeen = true
			d.devices(value, part)
		case "blocks":
			part.Blocks = d.blocks(value)
		case "actions":
			part.Actions, part.actionsAt = d.lines(value, key.Value, "action")
		}
	})
	if !devicesSeen {
		d.add(placeOf(n), `a part of the fleet names no devices: "devices" is missing`)
	}
	if !selected {
		return
	}
	for _, name := range sortedKeys(part.Devices) {
		dev := part.Devices[name]
		if first, dup := from[name]; dup {
			d.add(dev.at, "device %q is given twice for host %q (first at line %d): a device is one part's", name, node.Name, first.line)
			continue
		}
		from[name] = dev.at
		f.Devices[name] = dev
	}
	// An action given by two parts is refused where the file is
	// resolved, at both lines.
	f.Actions, f.actionsAt = append(f.Actions, part.Actions...), append(f.actionsAt, part.actionsAt...)
	for _, index := range slices.Sorted(maps.Keys(part.Blocks)) {
		b := part.Blocks[index]
		key := fmt.Sprintf("block %d", index)
		if first, dup := from[key]; dup {
			d.add(b.at, "block %d is given twice for host %q (first at line %d): a block is one part's", index, node.Name, first.line)
			continue
		}
		from[key] = b.at
		if f.Blocks == nil {
			f.Blocks = map[uint32]*Block{}
		}
		f.Blocks[index] = b
	}
}

// hosts reads a part's host names, each a name or a shell pattern
// ("shaper-*"), and reports whether one of them is host.
func (d *fileDecoder) hosts(n *yaml.Node, host string) bool {
	n = deref(n)
	if isNull(n) || !d.expect(n, yaml.SequenceNode, `"hosts" must be a list of host names or patterns ("shaper-*")`) {
		return false
	}
	match := false
	for _, item := range n.Content {
		item = deref(item)
		if !d.expect(item, yaml.ScalarNode, "a host must be a name or a pattern") {
			continue
		}
		ok, err := path.Match(item.Value, host)
		if err != nil {
			d.add(placeOf(item), "bad host pattern %q: %v", item.Value, err)
		}
		match = match || ok
	}
	return match
}

// labels reads a part's labels and reports whether node has every one of
// them, with the same value.
func (d *fileDecoder) labels(n *yaml.Node, have map[string]string) bool {
	n = deref(n)
	if isNull(n) || !d.expect(n, yaml.MappingNode, `"labels" must be a mapping of label names to values`) {
		return false
	}
	match := true
	d.mapping(n, "", nil, func(key, value *yaml.Node) {
		value = deref(value)
		if !d.expect(value, yaml.ScalarNode, fmt.Sprintf("label %q must have a value", key.Value)) {
			return
		}
		v, ok := have[key.Value]
		match = match && ok && v == value.Value
	})
	return match
}
