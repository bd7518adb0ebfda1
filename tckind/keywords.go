// SPDX-License-Identifier: Apache-2.0

package tckind

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"

	"github.com/gotc/gotc/attrs"
)

// A dump written back as tc keywords: the words that, given to the kind's
// parser, ask for the same options. tc's own text output is not that for
// every kind (htb prints direct_packets_stat, rates rounded to three
// digits), so each kind's Keywords writes exact values in forms its parser
// reads. "gotc apply --from-kernel" uses them.

// ErrNoKeywords reports options that no tc words ask for (a kind, or an
// option of one, that the keyword writers do not cover).
var ErrNoKeywords = errors.New("no tc keywords for these options")

// NoKeywords is ErrNoKeywords for what (a kind, or an option of one).
func NoKeywords(what string) error { return fmt.Errorf("%w: %s", ErrNoKeywords, what) }

// TCNamed is an enum of the spec whose values tc names by words (the
// entries' tc-name), such as attrs.CakeFlowMode.
type TCNamed interface {
	TCName() (string, bool)
	String() string
}

// AppendTCName appends the word that asks for v, the one tc prints for
// it; an error wrapping ErrNoKeywords when tc has no word for v. what names
// the option for the error ("cake flow mode").
func AppendTCName(w []string, what string, v TCNamed) ([]string, error) {
	name, ok := v.TCName()
	if !ok {
		return nil, NoKeywords(what + " " + v.String())
	}
	return append(w, name), nil
}

// EmptyOptions reports options that hold nothing: none at all, or the
// empty nest that ingress and clsact dump.
func EmptyOptions(opts attrs.TCOptionsMsg) bool {
	switch o := opts.(type) {
	case nil:
		return true
	case attrs.TCOptionsMsgRaw:
		return len(o) == 0
	case attrs.TCOptionsMsgNest:
		return len(o) == 0
	}
	return false
}

// QdiscKeywords returns the words after the kind that ask for a qdisc's
// dumped options, from the kind's Keywords. A kind without options gives
// none.
func QdiscKeywords(kind string, opts attrs.TCOptionsMsg) ([]string, error) {
	if EmptyOptions(opts) {
		return nil, nil
	}
	k := LookupQdisc(kind)
	switch {
	case k == nil:
		return nil, NoKeywords("qdisc " + kind)
	case k.ParseQdisc == nil:
		return nil, nil // a kind that takes no options (mq, pfifo_fast)
	case k.Keywords == nil:
		return nil, NoKeywords("qdisc " + kind)
	}
	return k.Keywords(opts)
}

// ClassKeywords returns the words after the kind that ask for a class's
// dumped options, from the kind's ClassKeywords.
func ClassKeywords(kind string, opts attrs.TCOptionsMsg) ([]string, error) {
	if k := LookupQdisc(kind); k != nil && k.ClassKeywords != nil {
		return k.ClassKeywords(opts)
	}
	return nil, NoKeywords("class " + kind)
}

// FilterKeywords returns the words after the kind that ask for a filter's
// dumped options (its handle and place aside), naming devices with links,
// from the kind's Keywords.
func FilterKeywords(kind string, opts attrs.TCOptionsMsg, links Links) ([]string, error) {
	if k := LookupFilter(kind); k != nil && k.Keywords != nil {
		return k.Keywords(opts, links)
	}
	return nil, NoKeywords("filter " + kind)
}

// actionKeywords writes one action as the words after "action", from the
// kind's Keywords, "index N" when index is not 0 (which the kinds' parsers
// read among their own words), then the words of the action list that
// follow an action's own: its cookie, hw_stats and flags.
func actionKeywords(a attrs.ActAttrs, index uint32, links Links) ([]string, error) {
	kind := ""
	if a.Kind != nil {
		kind = *a.Kind
	}
	k := LookupAction(kind)
	if k == nil || k.Keywords == nil {
		return nil, NoKeywords("action " + kind)
	}
	w, err := k.Keywords(a.Options, links)
	if err != nil {
		return nil, err
	}
	w = append([]string{kind}, w...)
	if index != 0 {
		w = append(w, "index", strconv.FormatUint(uint64(index), 10))
	}
	if len(a.Cookie) > 0 {
		w = append(w, "cookie", hex.EncodeToString(a.Cookie))
	}
	if a.HWStats != nil {
		// The kernel dumps the kinds of statistics it keeps (its
		// selector is every kind); tc's words name one or none.
		name, ok := hwStatsWords[a.HWStats.Value]
		if !ok {
			return nil, NoKeywords(fmt.Sprintf("action hw_stats %#x", a.HWStats.Value))
		}
		w = append(w, "hw_stats", name)
	}
	if a.Flags != nil {
		f := a.Flags.Value & a.Flags.Selector
		if f&^(actFlagNoPercpu|actFlagSkipHW|actFlagSkipSW) != 0 {
			return nil, NoKeywords(fmt.Sprintf("action flags %#x", f))
		}
		// A filter's skip_hw or skip_sw comes back on each of its
		// actions; asking for it again there is asking for what the
		// kernel sets anyway.
		for _, fw := range []struct {
			bit  uint32
			word string
		}{{actFlagNoPercpu, "no_percpu"}, {actFlagSkipSW, "skip_sw"}, {actFlagSkipHW, "skip_hw"}} {
			if f&fw.bit != 0 {
				w = append(w, fw.word)
			}
		}
	}
	return w, nil
}

// TCA_ACT_FLAGS_* (linux/pkt_cls.h) that tc's action list has words for.
const (
	actFlagNoPercpu = 1 << 0
	actFlagSkipHW   = 1 << 1
	actFlagSkipSW   = 1 << 2
)

// hwStatsWords names the TCA_ACT_HW_STATS_* values tc's "hw_stats" takes.
var hwStatsWords = map[uint32]string{0: "disabled", 1: "immediate", 2: "delayed"}

// ActionListKeywords appends a list of actions to w, each after "action",
// as a filter's keywords or "tc actions add" take them. tc gives an
// action the cookie of the last one before it that named one, so an
// action without a cookie after one with a cookie has no words.
//
// An action that a "tc actions add" holds besides its filters (Held) is
// written as the reference that binds it ("gact index 7"): its settings
// are its own, not the filter's, and they are written where it is made
// (StandaloneActionKeywords).
func ActionListKeywords(w []string, acts []attrs.ActAttrs, links Links) ([]string, error) {
	cookie := false
	for _, a := range acts {
		if c, ok := ActionCountsOf(a.Options); ok && c.Held() && a.Kind != nil {
			w = append(append(w, "action"), ActionReferenceWords(*a.Kind, c.Index)...)
			continue
		}
		if cookie && len(a.Cookie) == 0 {
			return nil, NoKeywords("an action without a cookie after one with a cookie")
		}
		cookie = len(a.Cookie) > 0
		aw, err := actionKeywords(a, 0, links)
		if err != nil {
			return nil, err
		}
		w = append(append(w, "action"), aw...)
	}
	return w, nil
}

// KeywordsOf adapts a kind's writer of its own options' type to
// Kind.Keywords: options of another type have no words.
func KeywordsOf[T attrs.TCOptionsMsg](kind string, write func(T) ([]string, error)) func(attrs.TCOptionsMsg) ([]string, error) {
	return func(opts attrs.TCOptionsMsg) ([]string, error) {
		o, ok := opts.(T)
		if !ok {
			return nil, NoKeywords(fmt.Sprintf("%s options of type %T", kind, opts))
		}
		return write(o)
	}
}

// NoOptions is Kind.Keywords for a kind whose qdisc takes no options (drr,
// qfq): no words ask for the nothing it dumps, and none for options it
// should not have.
func NoOptions(kind string) func(attrs.TCOptionsMsg) ([]string, error) {
	return func(opts attrs.TCOptionsMsg) ([]string, error) {
		if EmptyOptions(opts) {
			return nil, nil
		}
		return nil, NoKeywords(kind + " options")
	}
}

// FilterHandleWord writes a filter's handle as the word after "handle"
// that its kind reads back: the kind's HandleWord, or tc's hex number.
func FilterHandleWord(kind string, handle uint32, opts attrs.TCOptionsMsg) string {
	if k := LookupFilter(kind); k != nil && k.HandleWord != nil {
		return k.HandleWord(handle, opts)
	}
	return fmt.Sprintf("0x%x", handle)
}
