// SPDX-License-Identifier: Apache-2.0

// Package apply brings the traffic control of a set of devices to a desired
// state written in a file, with the fewest kernel requests: "gotc apply".
//
// The file (YAML, or JSON, which YAML includes) names devices; each device
// has up to two trees, root and ingress, of qdiscs, classes and filters,
// every one written in tc's own keywords:
//
//	devices:
//	  eth0:
//	    root: cake bandwidth 100mbit diffserv4 nat   # a qdisc alone: its tc words
//	    ingress:
//	      qdisc: ingress
//	      filters:
//	        - protocol all pref 10 matchall action mirred egress redirect dev ifb0
//	  ifb0:
//	    root: cake bandwidth 500mbit ingress
//
// A qdisc is either its tc words (kind and options, as after "tc qdisc add
// dev D root") or a mapping with:
//
//	qdisc:   the kind and its options
//	handle:  its handle ("1:"); needed when it has classes or filters
//	classes: its classes by class ID ("1:10"), see below
//	name:    a name for it, which the file's users may show for its
//	         handle (gotc exporter's "names FILE": a subscriber's name)
//	filters: its filters, each as the words after "tc filter add dev D
//	         parent HANDLE": [protocol P] pref N [handle H] [chain C] KIND OPTIONS
//	         (pref is required, protocol defaults to all); under ingress or
//	         clsact they are the ingress hook's
//	egress_filters: clsact's egress hook's filters
//	chains:  the chains of its filters that are there without filters,
//	         or with a template: each as the words after "tc chain add
//	         dev D parent HANDLE": chain N [protocol P KIND OPTIONS]
//	egress_chains: clsact's egress hook's chains
//
// An ingress or clsact qdisc may share its hooks' filters with other
// devices' as tc does, with "ingress_block N" and "egress_block N" before
// its kind ("ingress_block 5 egress_block 6 clsact"). A shared hook has no
// filters of its own: they are the block's, in the file's "blocks":
//
//	blocks:
//	  5:
//	    filters:
//	      - protocol ip pref 1 flower dst_ip 192.0.2.0/24 action drop
//	    chains:
//	      - chain 1 protocol ip flower dst_ip 0.0.0.0/16
//
// a mapping of block indexes to the block's filters and chains, written
// as after "tc filter add block N" and "tc chain add block N". The file
// owns the blocks its qdiscs share: a block that "blocks" does not
// describe has no filters or chains. A block the kernel makes for the
// first qdisc that shares it and deletes with the last, so "blocks" names
// only blocks that a qdisc of the file shares.
//
// Filters of several places may bind one action, as "tc actions add"
// makes it and "action KIND index N" binds it (a policer that two
// devices' traffic shares). The file makes such actions in its
// "actions", a list of the words after "tc actions add action", each
// with its index:
//
//	actions:
//	  - police rate 10mbit burst 100k conform-exceed drop index 1
//	devices:
//	  eth0:
//	    ingress:
//	      qdisc: ingress
//	      filters:
//	        - protocol all pref 1 matchall action police index 1
//
// A filter binds an action of "actions" by its kind and index alone, and
// binds no other action by index alone. The actions are added before
// the filters that bind them and changed in place ("tc actions replace":
// their filters stay bound). An action made by "tc actions add" that the
// file does not name is deleted after the filters, when the filters of
// the file's devices and blocks were all its binders and none of the
// file's binds it; an action that other devices' filters bind, or that
// no filter of the file's devices bound, is not the file's and is left
// alone. The actions are the network namespace's, not a device's, so an
// apply that may change them locks them.
//
// A class is a mapping with:
//
//	class:   the kind and its options, as after "tc class add dev D
//	         classid ID" ("htb rate 10mbit ceil 100mbit"); omitted for the
//	         classes a qdisc makes itself (mq's and mqprio's per-queue classes,
//	         prio's bands), which are then never created or deleted
//	leaf:    the qdisc attached to the class (a qdisc as above)
//	classes: its child classes by class ID
//	name:    a name for it, as for a qdisc
//	filters: its filters, for the kinds whose classes hold filters of
//	         their own (htb, hfsc): the words after "tc filter add dev D
//	         parent CLASSID", as a qdisc's
//	chains:  the chains of its filters, as a qdisc's
//
// The file owns every device it names, and the blocks they share, and
// nothing else: a qdisc, class, filter or chain of an owned device that the file does not describe is deleted
// (the default qdiscs the kernel makes, handle 0:, are left alone), and a
// device the file does not name is never touched.
//
// Because a file owns its devices, a file that says something else than
// its author meant would delete what it leaves out: nothing is sent for a
// file with a fault. Load refuses unknown keys (a misspelt "clases" at
// any level), values of the wrong shape and keys given twice; Compute
// then reads every kind's words with the kind's own parser and checks the
// tree (class IDs of their qdisc, leaves only where the qdisc takes them,
// every handle and class ID once) before it reads the kernel. Either
// returns a *BadFile naming each fault as FILE:LINE:COLUMN.
//
// A qdisc's words may begin with a size table ("stab overhead 18
// linklayer atm"), as tc's do; "estimator" is refused, on a qdisc, class
// or filter: the kernel dumps an estimator's rates but not its interval
// or time constant, so apply could neither write one back nor keep it in
// sync.
//
// What the kernel keeps of a qdisc but does not report is sent, not
// compared. A netem distribution table ("distribution normal", and a
// slot's) goes with every request of its qdisc, so a change to another
// of its options sends the file's table too; but a file whose only
// difference is the table is in sync, and --from-kernel refuses such a
// qdisc, whose table it cannot read. To change only the table, delete
// the qdisc (or let apply replace it by another kind's) and apply.
//
// # Fleet files
//
// gotc-agent(8), which keeps many machines in their states, reads a fleet
// file: one file for all of them (a ConfigMap, a CRM sync's output), a
// list of parts, each the devices of the machines it selects:
//
//	fleet:
//	  - devices:                      # no hosts, no labels: every machine
//	      ifb0:
//	        root: fq_codel
//	  - hosts: [shaper-1, "edge-*"]   # host names, or shell patterns
//	    devices:
//	      eth0:
//	        root: cake bandwidth 100mbit
//	  - labels: {gotc.io/role: edge}  # every label given, with its value
//	    devices:
//	      eth1:
//	        root: cake bandwidth 1gbit
//
// A part with "hosts" selects the machines whose host name is one of them
// or matches one of the patterns; a part with "labels" selects those that
// have each label with its value (in Kubernetes, the node's labels); a
// part with both selects the machines both select, and a part with
// neither selects every machine. A part may have "blocks" too, the
// shared blocks of its devices, and "actions", the standalone actions its
// filters bind. A machine's state is the devices, blocks and actions of
// every part that selects it, each given by one of them at most;
// a machine no part selects owns no device, and nothing is sent. Every
// part is read as strictly as a file, the parts of other machines too: a
// fault anywhere refuses the file on every machine. What depends on the
// machine (a kind's options, a device it lacks) is checked on the
// machines the part selects. A file with "devices" at its top is every
// machine's whole.
package apply

import (
	"github.com/gotc/gotc/tcfmt"
	"io"
	"maps"
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/gotc/gotc/attrs"
)

// File is a desired state: the trees of the devices it owns.
type File struct {
	Devices map[string]*Device `yaml:"devices" json:"devices"`
	// Blocks are the shared filter blocks of the devices' ingress and
	// clsact qdiscs, by block index.
	Blocks map[uint32]*Block `yaml:"blocks,omitempty" json:"blocks,omitempty"`
	// Actions are the standalone actions the devices' filters bind by
	// index, each as the words after "tc actions add action", with its
	// index ("police rate 1mbit burst 10k index 1").
	Actions []string `yaml:"actions,omitempty" json:"actions,omitempty"`
	// actionsAt is where each of Actions stands in the file.
	actionsAt []place
	// name is the file's name in the messages about it ("" for a File
	// made in Go).
	name string
}

// Block is a shared block's filters and chains.
type Block struct {
	// Filters are the block's filters, each as the words after "tc
	// filter add block N".
	Filters []string `yaml:"filters,omitempty" json:"filters,omitempty"`
	// Chains are the block's chains that are there without filters or
	// with a template, each as the words after "tc chain add block N".
	Chains []string `yaml:"chains,omitempty" json:"chains,omitempty"`
	// Where the block's index and its parts stand in the file.
	at                  place
	filtersAt, chainsAt []place
}

// Device is one device's desired trees; a nil tree is one the device must
// not have (beyond what the kernel makes by default).
type Device struct {
	Root    *Qdisc `yaml:"root,omitempty" json:"root,omitempty"`
	Ingress *Qdisc `yaml:"ingress,omitempty" json:"ingress,omitempty"`
	// at is where the device's name stands in the file.
	at place
}

// Qdisc is a desired qdisc and what hangs below it.
type Qdisc struct {
	// Spec is the kind and its options in tc's words ("cake bandwidth 10mbit").
	Spec string `yaml:"qdisc" json:"qdisc"`
	// Options, when not nil, are the qdisc's options as typed values
	// (*attrs.TBFAttrs, ...), sent as they are: Spec is then the kind
	// alone. A File made in Go uses them for options that tc's words
	// cannot say (a rate spec without tc's link layer, say); a file
	// read by Load has none.
	Options attrs.TCOptionsMsg `yaml:"-" json:"-"`
	// Handle is the qdisc's handle in tc's form ("1:"), "" to let the
	// kernel choose one (or keep the one it has).
	Handle string `yaml:"handle,omitempty" json:"handle,omitempty"`
	// Classes are the qdisc's top classes, by class ID.
	Classes map[string]*Class `yaml:"classes,omitempty" json:"classes,omitempty"`
	// Filters are the filters attached to the qdisc (to the ingress hook
	// for ingress and clsact), each as tc filter words.
	Filters []string `yaml:"filters,omitempty" json:"filters,omitempty"`
	// EditFilter, when not nil, is given the options parsed from each of
	// Filters' words (i its index) and returns those to send and compare
	// in their place, for what tc's words cannot say (a redirect whose
	// verdict is not tc's "stolen"). A File made in Go may have one; a
	// file read by Load has none.
	EditFilter func(i int, opts attrs.TCOptionsMsg) attrs.TCOptionsMsg `yaml:"-" json:"-"`
	// EgressFilters are clsact's egress hook's filters.
	EgressFilters []string `yaml:"egress_filters,omitempty" json:"egress_filters,omitempty"`
	// Chains are the chains of Filters' place that are there without
	// filters or with a template (a filter kind and options that its
	// filters must fit), each as the words after "tc chain add dev D
	// parent HANDLE"; EgressChains are clsact's egress hook's.
	Chains       []string `yaml:"chains,omitempty" json:"chains,omitempty"`
	EgressChains []string `yaml:"egress_chains,omitempty" json:"egress_chains,omitempty"`
	// Name names the qdisc for the file's users (see Names); apply sends
	// nothing of it.
	Name string `yaml:"name,omitempty" json:"name,omitempty"`
	// Where the qdisc and its parts stand in the file: the faults found
	// in them name these places.
	at, specAt, handleAt                                 place
	filtersAt, egressFiltersAt, chainsAt, egressChainsAt []place
}

// Class is a desired class, its leaf qdisc and its child classes.
type Class struct {
	// Spec is the class's kind and options in tc's words; "" for a class
	// its qdisc makes itself.
	Spec string `yaml:"class,omitempty" json:"class,omitempty"`
	// Leaf is the qdisc attached to the class, nil for none of the file's.
	Leaf *Qdisc `yaml:"leaf,omitempty" json:"leaf,omitempty"`
	// Classes are the class's children, by class ID.
	Classes map[string]*Class `yaml:"classes,omitempty" json:"classes,omitempty"`
	// Name names the class for the file's users (see Names): a
	// subscriber's name, say. apply sends nothing of it.
	Name string `yaml:"name,omitempty" json:"name,omitempty"`
	// Filters are the class's own filters (of a kind whose classes hold
	// some), each as tc filter words; Chains their chains, as a qdisc's.
	Filters []string `yaml:"filters,omitempty" json:"filters,omitempty"`
	Chains  []string `yaml:"chains,omitempty" json:"chains,omitempty"`
	// Where the class's ID (its key), its words and its lines stand in
	// the file.
	idAt, specAt        place
	filtersAt, chainsAt []place
}

// MarshalYAML writes a qdisc with nothing below it and no handle as its tc
// words alone, the short form a person writes.
func (q *Qdisc) MarshalYAML() (any, error) {
	if q.Handle == "" && q.Name == "" && q.Options == nil && q.EditFilter == nil && len(q.Classes) == 0 && len(q.Filters) == 0 && len(q.EgressFilters) == 0 && len(q.Chains) == 0 && len(q.EgressChains) == 0 {
		return q.Spec, nil
	}
	type plain Qdisc
	return (*plain)(q), nil
}

// Names returns the names the file gives its qdiscs and classes, by
// device and handle (a qdisc's major:0, a class's ID). A handle or class ID
// that does not parse is left out: Compute reports it.
func (f *File) Names() map[string]map[uint32]string {
	out := map[string]map[uint32]string{}
	var classes func(dev string, cs map[string]*Class)
	var qdisc func(dev string, q *Qdisc)
	add := func(dev string, h uint32, err error, name string) {
		if err != nil || name == "" {
			return
		}
		if out[dev] == nil {
			out[dev] = map[uint32]string{}
		}
		out[dev][h] = name
	}
	qdisc = func(dev string, q *Qdisc) {
		if q == nil {
			return
		}
		h, err := tcfmt.ParseQdiscHandle(q.Handle)
		add(dev, h, err, q.Name)
		classes(dev, q.Classes)
	}
	classes = func(dev string, cs map[string]*Class) {
		for id, c := range cs {
			h, err := tcfmt.ParseClassID(id)
			add(dev, h, err, c.Name)
			qdisc(dev, c.Leaf)
			classes(dev, c.Classes)
		}
	}
	for name, d := range f.Devices {
		qdisc(name, d.Root)
		qdisc(name, d.Ingress)
	}
	return out
}

// Write writes f as YAML.
func (f *File) Write(w io.Writer) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(f); err != nil {
		return err
	}
	return enc.Close()
}

// sortedKeys returns a map's keys in order, so that plans do not depend on
// Go's map order.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
