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

// The parents that "ingress" and "egress" name: the minor numbers of the
// two hooks of clsact (and ingress, which has only the first) below ffff:,
// TC_H_MIN_INGRESS and TC_H_MIN_EGRESS.
const (
	ParentIngress = netlink.HandleIngress&0xffff0000 | 0xfff2
	ParentEgress  = netlink.HandleIngress&0xffff0000 | 0xfff3
)

// FilterVerb says which of tc's three readers of a filter command's words
// reads them: they differ in their messages and in what they take.
type FilterVerb int

const (
	// FilterModify is tc_filter_modify: add, change, replace, delete (of
	// filters and chains). It alone takes "estimator".
	FilterModify FilterVerb = iota
	// FilterGet is tc_filter_get: "filter get" and "chain get".
	FilterGet
	// FilterList is tc_filter_list: "filter show" and "chain show". It
	// takes no kind, and prints the usage for "help" and reads on.
	FilterList
)

// FilterWhere is what the words before a filter's kind name.
type FilterWhere struct {
	// Dev is the device after "dev", "" when none was named.
	Dev string
	// Block is the shared block after "block", 0 when none was named.
	Block uint32
	// Parent is tcm_parent: "root", "ingress", "egress" or "parent
	// CLASSID"; 0 when none was named.
	Parent uint32
	// Handle is the word after "handle", which the kind reads in its own
	// form; HandleSet says one was given.
	Handle    string
	HandleSet bool
	// Prio is the priority after "pref" or "prio", 0 when none was named
	// (the kernel then picks one).
	Prio uint32
	// Protocol is the ETH_P_* number (host order) after "protocol";
	// ProtocolSet says one was given, as "all" is no 0.
	Protocol    uint16
	ProtocolSet bool
	// Chain is the chain after "chain"; ChainSet says one was given.
	Chain    uint32
	ChainSet bool
	// Estimator is TCA_RATE from "estimator INTERVAL TIME_CONSTANT"
	// (FilterModify only), nil when none was named.
	Estimator *attrs.GnetEstimator
	// Kind is the filter kind, the first word no keyword of the selector;
	// Opts are the words after it, the kind's own.
	Kind string
	Opts []string
	// Help is set when "help" stood where the kind would (FilterModify
	// and FilterGet stop there; tc prints the filter usage).
	Help bool
}

// bareParents are the parents named by a word alone (no zero among them).
var bareParents = map[string]uint32{"root": netlink.HandleRoot, "ingress": ParentIngress, "egress": ParentEgress}

// needsValue is tc's NEXT_ARG: the keyword args begins with needs a value
// after it.
func needsValue(args []string) error {
	if len(args) < 2 {
		return tcword.IncompleteCommand()
	}
	return nil
}

// keywordValue is the value after the keyword args begins with, which tc
// takes once: NEXT_ARG, then duparg (as name) when set says the keyword
// came before.
func keywordValue(args []string, set bool, name string) (string, error) {
	if err := needsValue(args); err != nil {
		return "", err
	}
	if set {
		return "", tcword.DuplicateArgument(name, args[1])
	}
	return args[1], nil
}

// ParseFilterWhere reads the device, block, placement, priority,
// protocol, chain and handle words up to the kind as tc's reader for verb
// does. A failure is a *tckind.ParseError holding tc's message and exit
// status. stderr receives what tc prints while it reads on: the estimator's
// help and, for FilterList, the filter usage; nil discards it.
func ParseFilterWhere(verb FilterVerb, args []string, stderr io.Writer) (FilterWhere, error) {
	if stderr == nil {
		stderr = io.Discard
	}
	var w FilterWhere
	parentSet := false
	// tc names the mutual exclusion of dev and block in words of its
	// listing's own.
	exclusive := func(listMsg string) error {
		if verb == FilterList {
			return &tckind.ParseError{Msg: listMsg, Code: 255}
		}
		return &tckind.ParseError{Msg: `Error: "dev" and "block" are mutually exclusive`, Code: 255}
	}
	for len(args) > 0 {
		word := args[0]
		switch {
		case word == "dev":
			v, err := keywordValue(args, w.Dev != "", "dev")
			if err != nil {
				return w, err
			}
			if w.Block != 0 {
				return w, exclusive(`Error: "dev" cannot be used in the same time as "block"`)
			}
			w.Dev = v
			args = args[1:]
		case tcfmt.Matches(word, "block"):
			s, err := keywordValue(args, w.Block != 0, "block")
			if err != nil {
				return w, err
			}
			if w.Dev != "" {
				return w, exclusive(`Error: "block" cannot be used in the same time as "dev"`)
			}
			v, err := tcfmt.ParseUint(s, 0, 32)
			if err != nil || v == 0 {
				return w, tcword.InvalidArgument(s, "invalid block index value")
			}
			w.Block = uint32(v)
			args = args[1:]
		case bareParents[word] != 0:
			if parentSet {
				return w, &tckind.ParseError{Msg: fmt.Sprintf("Error: %q is duplicate parent ID", word), Code: 255}
			}
			w.Parent, parentSet = bareParents[word], true
		case word == "parent":
			s, err := keywordValue(args, parentSet, "parent")
			if err != nil {
				return w, err
			}
			p, err := tcfmt.ParseClassID(s)
			if err != nil {
				if verb == FilterList {
					return w, tcword.InvalidArgument(s, "invalid parent ID")
				}
				return w, tcword.InvalidArgument(s, "Invalid parent ID")
			}
			w.Parent, parentSet = p, true
			args = args[1:]
		case word == "handle":
			s, err := keywordValue(args, w.HandleSet, "handle")
			if err != nil {
				return w, err
			}
			w.Handle, w.HandleSet = s, true
			args = args[1:]
		case tcfmt.Matches(word, "preference"), tcfmt.Matches(word, "priority"):
			s, err := keywordValue(args, w.Prio != 0, "priority")
			if err != nil {
				return w, err
			}
			v, err := tcfmt.ParseUint(s, 0, 32)
			switch {
			case verb == FilterList && err != nil:
				return w, tcword.InvalidArgument(s, "invalid preference")
			case verb != FilterList && (err != nil || v > 0xffff):
				return w, tcword.InvalidArgument(s, "invalid priority value")
			}
			w.Prio = uint32(v)
			args = args[1:]
		case tcfmt.Matches(word, "protocol"):
			// tc's listing takes protocol 0 ("all" is not 0) as unset.
			s, err := keywordValue(args, w.ProtocolSet && (verb != FilterList || w.Protocol != 0), "protocol")
			if err != nil {
				return w, err
			}
			p, ok := tckind.ParseEthProtocol(s)
			if !ok {
				return w, tcword.InvalidArgument(s, "invalid protocol")
			}
			w.Protocol, w.ProtocolSet = p, true
			args = args[1:]
		case tcfmt.Matches(word, "chain"):
			s, err := keywordValue(args, w.ChainSet, "chain")
			if err != nil {
				return w, err
			}
			v, err := tcfmt.ParseUint(s, 0, 32)
			if err != nil {
				return w, tcword.InvalidArgument(s, "invalid chain index value")
			}
			w.Chain, w.ChainSet = uint32(v), true
			args = args[1:]
		case verb == FilterModify && tcfmt.Matches(word, "estimator"):
			var err error
			if w.Estimator, args, err = tckind.ParseEstimator(args[1:], w.Estimator, stderr); err != nil {
				return w, err
			}
			continue
		case tcfmt.Matches(word, "help"):
			if verb != FilterList {
				w.Help = true
				return w, nil
			}
			io.WriteString(stderr, FilterUsage())
		case verb == FilterList:
			return w, &tckind.ParseError{Msg: fmt.Sprintf(" What is %q? Try \"tc filter help\"", word), Code: 255}
		default:
			if verb == FilterGet && word == "" {
				return w, tcword.InvalidArgument(word, "invalid filter name")
			}
			w.Kind, w.Opts = word, args[1:]
			return w, nil
		}
		args = args[1:]
	}
	return w, nil
}
