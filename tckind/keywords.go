package tckind

import (
	"errors"
	"fmt"

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

// emptyOptions reports options that hold nothing: none at all, or the
// empty nest that ingress and clsact dump.
func emptyOptions(opts attrs.TCOptionsMsg) bool {
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
	if emptyOptions(opts) {
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

// actionKeywords writes one action of a filter as the words after
// "action", from the kind's Keywords.
func actionKeywords(a attrs.ActAttrs, links Links) ([]string, error) {
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
	return append([]string{kind}, w...), nil
}

// ActionListKeywords appends a filter's actions to its words, each after
// "action".
func ActionListKeywords(w []string, acts []attrs.ActAttrs, links Links) ([]string, error) {
	for _, a := range acts {
		aw, err := actionKeywords(a, links)
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
		if emptyOptions(opts) {
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
