// SPDX-License-Identifier: Apache-2.0

package main

// Shell completion. The scripts in completion/ (bash, zsh, fish) hand the
// words typed so far to "gotc __complete WORD... CURRENT" and offer what
// it prints, one word a line, that starts with CURRENT: the objects and
// commands, their verbs and tc's grammar words, the kinds of the registry
// and each kind's keywords, and the devices of the kernel (of -netns's
// namespace when the line names one). A line ":file" asks the shell for
// file names. Knowing the grammar here, not in three shells' languages,
// keeps the three alike and a new kind completed without editing them.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gotc/gotc/internal/manual"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// completeCommand is the hidden command the completion scripts run.
const completeCommand = "__complete"

// fileWord asks the completion script for file names.
const fileWord = ":file"

// tc's objects, which it knows by a prefix, and gotc's commands, which
// it knows by their names, as the top level names them.
var (
	tcObjects    = []string{"qdisc", "class", "filter", "chain", "actions", "monitor"}
	gotcCommands = []string{"apply", "stats", "model", "exporter", "help"}
)

// verbs are what each object takes first, as its usage names them.
var verbs = map[string][]string{
	"qdisc":    {"add", "del", "change", "replace", "link", "show", "help"},
	"class":    {"add", "del", "change", "replace", "show", "help"},
	"filter":   {"add", "del", "change", "replace", "get", "show", "help"},
	"chain":    {"add", "del", "get", "show", "help"},
	"actions":  {"add", "change", "replace", "get", "delete", "list", "flush", "help"},
	"monitor":  {"help"},
	"apply":    {"--check", "--diff", "-v", "--try", "--confirm", "--from-kernel", "--example", "help", fileWord},
	"stats":    {"dev", "interval", "count", "deltas", "rates", "help"},
	"exporter": {"listen", "dev", "include", "exclude", "aggregate", "names", "help"},
}

// The words of tc's grammar before a kind, by object. The kinds that are
// also places (ingress, clsact) come with the registry's kinds.
var (
	qdiscWords     = []string{"dev", "handle", "root", "parent", "estimator", "stab", "ingress_block", "egress_block"}
	qdiscShowWords = []string{"dev", "root", "ingress", "clsact", "parent", "handle", "invisible"}
	classWords     = []string{"dev", "classid", "root", "parent", "estimator"}
	filterWords    = []string{"dev", "block", "parent", "root", "ingress", "egress", "handle", "pref", "protocol", "chain", "estimator"}
	modelOwnWords  = []string{"trace", "plan", "pcap", "truesize", "handle", "mtu", "enqueue", "start", "at", "seed",
		"rate", "nic", "bql", "sweep", "plot", "metric", "vs"}
)

// valueWords take the word after them as their value (estimator two),
// which is not completed. Not "prio", the filters' other word for pref:
// it is a qdisc kind too.
var valueWords = map[string]int{
	"handle": 1, "parent": 1, "classid": 1, "estimator": 2, "pref": 1, "protocol": 1, "chain": 1,
	"block": 1, "ingress_block": 1, "egress_block": 1, "index": 1, "interval": 1, "count": 1, "listen": 1,
	"truesize": 1, "mtu": 1, "start": 1, "at": 1, "seed": 1, "enqueue": 1, "nic": 1, "bql": 1,
	"include": 1, "exclude": 1, "aggregate": 1, "names": 1,
}

// complete prints the words that may stand where the last of args is being
// typed, those of them that start with what is typed of it.
func (t *tc) complete(args []string) error {
	if len(args) == 0 {
		args = []string{""}
	}
	words, cur := args[:len(args)-1], args[len(args)-1]
	for _, w := range t.candidates(words) {
		if strings.HasPrefix(w, cur) || w == fileWord {
			fmt.Fprintln(t.stdout, w)
		}
	}
	return nil
}

// candidates are the words that may follow words.
func (t *tc) candidates(words []string) []string {
	// gotc's options first: -netns names the namespace of the devices.
	for len(words) > 0 && strings.HasPrefix(words[0], "-") {
		name, takesValue, _ := resolveFlag(strings.TrimLeft(words[0], "-"))
		if !takesValue {
			words = words[1:]
			continue
		}
		if len(words) == 1 {
			return nil // its value is being typed
		}
		if name == "netns" {
			t.netns = words[1]
		}
		words = words[2:]
	}
	if len(words) == 0 {
		return slices.Concat(optionNames(), tcObjects, gotcCommands)
	}
	obj := objectOf(words[0])
	rest := words[1:]
	switch {
	case len(rest) > 0 && rest[len(rest)-1] == "dev", obj == "apply" && slices.Contains(rest, "--from-kernel"):
		return t.deviceNames()
	case obj == "model":
		return modelCandidates(rest)
	case valueExpected(rest):
		return nil
	case len(rest) == 0 || obj == "apply" || obj == "stats" || obj == "exporter":
		return verbs[obj]
	}
	verb := rest[0]
	switch obj {
	case "qdisc", "class":
		if tcfmt.Matches(verb, "show") || tcfmt.Matches(verb, "list") {
			if obj == "class" {
				return []string{"dev", "root", "parent", "classid"}
			}
			return qdiscShowWords
		}
		return qdiscCandidates(obj == "class", rest[1:])
	case "filter", "chain":
		return filterCandidates(rest[1:])
	case "actions":
		return actionCandidates(rest[1:])
	}
	return nil
}

// objectOf is the object or command a word names, as tc matches its
// objects by a prefix; "" for none.
func objectOf(word string) string {
	for _, o := range tcObjects {
		if tcfmt.Matches(word, o) {
			return o
		}
	}
	if slices.Contains(gotcCommands, word) {
		return word
	}
	return ""
}

// optionNames are gotc's options as completion offers them.
func optionNames() []string {
	var names []string
	for _, f := range globalFlags {
		names = append(names, "-"+f.names[0])
	}
	return names
}

// valueExpected reports whether the last word typed takes a value, so
// that the word being typed is one.
func valueExpected(words []string) bool {
	for i := 1; i <= 2 && i <= len(words); i++ {
		if n := valueWords[words[len(words)-i]]; n >= i {
			return true
		}
	}
	return false
}

// deviceNames are the kernel's devices, sorted.
func (t *tc) deviceNames() []string {
	k, err := t.kernel()
	if err != nil {
		return nil
	}
	names, err := k.LinkNames(t.ctx)
	if err != nil {
		return nil
	}
	var out []string
	for _, n := range names {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// qdiscCandidates completes the words of a qdisc or class request: tc's
// words and the kinds until a kind is named, then its keywords.
func qdiscCandidates(class bool, words []string) []string {
	for _, w := range words {
		k := tckind.LookupQdisc(w)
		if k == nil {
			continue
		}
		parse := k.ParseQdisc
		if class {
			parse = k.ParseClass
		}
		return kindKeywords(k.Usage, func(args []string) (string, error) {
			if parse == nil {
				return "", nil
			}
			_, err := parse(args, tckind.ParseEnv{})
			return "", err
		}, words)
	}
	out := qdiscWords
	if class {
		out = classWords
	}
	out = slices.Clone(out)
	for _, k := range tckind.Qdiscs() {
		if !class || k.ParseClass != nil {
			out = append(out, k.Name)
		}
	}
	return out
}

// filterCandidates completes a filter or chain request: tc's words and
// the filter kinds, then the kind's keywords, and after "action" the
// action kinds and theirs.
func filterCandidates(words []string) []string {
	for i := len(words) - 1; i >= 0; i-- {
		if isActionWord(words[i]) {
			return actionCandidates(words[i:])
		}
		if k := tckind.LookupFilter(words[i]); k != nil {
			return kindKeywords(k.Usage, func(args []string) (string, error) {
				_, _, err := k.Parse(args, tckind.FilterEnv{})
				return "", err
			}, words[i+1:], "action")
		}
	}
	return append(slices.Clone(filterWords), tckind.FilterNames()...)
}

// isActionWord is the word that starts an action in a list.
func isActionWord(w string) bool { return w == "action" || w == "actions" }

// actionCandidates completes an action list: "action", then an action
// kind, then its keywords.
func actionCandidates(words []string) []string {
	if len(words) == 0 {
		return []string{"action"}
	}
	last := len(words) - 1
	if isActionWord(words[last]) {
		return tckind.ActionNames()
	}
	for i := last; i >= 0; i-- {
		if k := tckind.LookupAction(words[i]); k != nil && i > 0 && isActionWord(words[i-1]) {
			name := words[i]
			return kindKeywords(k.Usage, func(args []string) (string, error) {
				_, rest, err := k.Parse(append([]string{name}, args...), tckind.ActionEnv{})
				return fmt.Sprint(len(rest)), err
			}, words[i+1:], "action", "index")
		}
	}
	return []string{"action"}
}

// The kinds gotc model has models of (predict.Kinds) and its metrics
// (report.Metrics), written out so that gotc does not link the models and
// the plotting; a test holds them equal.
var (
	modelKinds   = []string{"cake", "dualpi2", "fq_codel"}
	modelMetrics = []string{"p50", "p95", "p99", "max", "drops", "marks", "throughput"}
)

// modelCandidates completes "gotc model": the kinds it has models of (or
// dev), the kind's keywords, and its own words, a file after trace, plan,
// pcap and plot, a kind again after vs (whose words are then completed).
func modelCandidates(words []string) []string {
	if i := slices.Index(words, "vs"); i >= 0 {
		return slices.DeleteFunc(modelCandidates(words[i+1:]), func(w string) bool { return w == "help" || w == "compare" })
	}
	if len(words) > 0 && words[0] == "compare" {
		if len(words) == 1 {
			return append(slices.Clone(modelKinds), "dev")
		}
		words = words[1:]
	}
	if len(words) == 0 {
		return append(slices.Clone(modelKinds), "dev", "compare", "help")
	}
	switch words[len(words)-1] {
	case "trace", "plan", "pcap", "plot":
		return []string{fileWord}
	case "metric":
		return slices.Clone(modelMetrics)
	}
	if valueExpected(words) {
		return nil
	}
	if k := tckind.LookupQdisc(words[0]); k != nil && k.ParseQdisc != nil {
		return kindKeywords(k.Usage, func(args []string) (string, error) {
			_, err := k.ParseQdisc(args, tckind.ParseEnv{})
			return "", err
		}, words[1:], modelOwnWords...)
	}
	return modelOwnWords
}

// kindKeywords are a kind's keywords, and none while the word typed is the
// value of the last one. The registry holds each kind's usage and parser:
// the usage's lower-case words are the candidates, and a word is a
// keyword when the parser answers it otherwise than a word it does not
// know, with the word in its place (prose such as "of" is answered as any
// unknown word is). One the parser answers "Command line is not complete"
// takes a value. tc's parsers take a keyword's prefix for it, so a prose
// word that is one ("of" for offload) is offered too. more are the words
// of the grammar around the kind that may follow as well.
func kindKeywords(usage string, parse func(args []string) (string, error), typed []string, more ...string) []string {
	// answer is parse's result for w alone.
	answer := func(w string) (a string, incomplete bool) {
		defer func() {
			if recover() != nil { // a parser's panic makes the word no keyword
				a, incomplete = "panic", false
			}
		}()
		res, err := parse([]string{w})
		if err != nil {
			return res + "|" + err.Error(), err.Error() == tcword.IncompleteCommand().Error()
		}
		return res, false
	}
	const unknown = "gotcnosuchword"
	notKnown, _ := answer(unknown)
	var words []string
	takesValue := map[string]bool{}
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(usage, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-')
	}) {
		// Upper case is a placeholder (RATE) or prose (Usage).
		if seen[w] || w[0] < 'a' || w[0] > 'z' || strings.ToLower(w) != w || manual.IsHelp(w) {
			continue
		}
		seen[w] = true
		if a, incomplete := answer(w); a != strings.ReplaceAll(notKnown, unknown, w) {
			words = append(words, w)
			takesValue[w] = incomplete
		}
	}
	if len(typed) > 0 && takesValue[typed[len(typed)-1]] {
		return nil
	}
	return append(append(words, "help"), more...)
}
