// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	_ "github.com/gotc/gotc/allkinds"
	"github.com/gotc/gotc/internal/roundtrip"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tckind"
)

// keywordsCheck holds every kind to its contract on the kernel itself:
// after each case, what the kernel dumps of tc's device is written back as
// the kinds' keywords and read again by their parsers, and must ask for
// the options the kernel dumped (internal/roundtrip). It counts what each
// kind wrote back, and what it refused (with the kind's reason: a state no
// words ask for, such as a netem distribution the kernel does not dump).
type keywordsCheck struct {
	conn    *netlink.Conn
	checked map[string]int // "qdisc cake": objects written back and read again
	refused map[string]int // "qdisc netem: why": objects the kind refused
}

// newKeywordsCheck connects to the kernel the cases run on.
func newKeywordsCheck() (*keywordsCheck, error) {
	conn, err := netlink.Dial(nil)
	if err != nil {
		return nil, err
	}
	return &keywordsCheck{conn: conn, checked: map[string]int{}, refused: map[string]int{}}, nil
}

// check writes back the objects of dev: its qdiscs and classes, and its
// filters under each of parents. It returns the problems found.
func (k *keywordsCheck) check(dev string, parents ...uint32) []string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ifindex, err := k.conn.LinkIndex(ctx, dev)
	if errors.Is(err, netlink.ErrNotFound) {
		return nil // a case that deleted its device
	}
	if err != nil {
		return []string{fmt.Sprintf("keywords: %s: %v", dev, err)}
	}
	var problems []string
	// Names read afresh for each case: its devices are new.
	links := netlink.NewLinks(ctx, k.conn)
	dump := func(o netlink.Object, f netlink.DumpFilter) {
		for m, err := range k.conn.Msgs(ctx, o, f) {
			if err != nil {
				problems = append(problems, fmt.Sprintf("keywords: %s dump of %s: %v", o, dev, err))
				return
			}
			name := fmt.Sprintf("%s %s", o, m.Kind())
			words, err := roundtrip.Check(o, m, links)
			switch {
			case errors.Is(err, roundtrip.ErrNotMade):
			case errors.Is(err, tckind.ErrNoKeywords):
				k.refused[name+": "+strings.TrimPrefix(err.Error(), tckind.ErrNoKeywords.Error()+": ")]++
			case err != nil:
				problems = append(problems, fmt.Sprintf("keywords of the kernel's %s %s (%q): %v", name, tcfmtHandle(m), strings.Join(words, " "), err))
			default:
				k.checked[name]++
			}
		}
	}
	dump(netlink.Qdisc, netlink.DumpFilter{Ifindex: ifindex})
	dump(netlink.Class, netlink.DumpFilter{Ifindex: ifindex})
	for _, p := range parents {
		dump(netlink.Filter, netlink.DumpFilter{Ifindex: ifindex, Parent: p})
	}
	return problems
}

// tcfmtHandle names a dumped object by its handle and parent.
func tcfmtHandle(m *netlink.Msg) string {
	return fmt.Sprintf("handle %#x parent %#x", m.Header.Handle, m.Header.Parent)
}

// report prints what was written back and read again, kind by kind, and
// what the kinds refused (states no words ask for).
func (k *keywordsCheck) report() {
	total := 0
	for _, name := range slices.Sorted(mapKeys(k.checked)) {
		total += k.checked[name]
	}
	fmt.Printf("# keywords: %d objects of %d kinds written back as keywords and read again as the kernel dumped them: %s\n",
		total, len(k.checked), strings.Join(slices.Sorted(mapKeys(k.checked)), ", "))
	for _, why := range slices.Sorted(mapKeys(k.refused)) {
		fmt.Printf("# keywords refused (%d): %s\n", k.refused[why], why)
	}
}

func mapKeys(m map[string]int) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// asked checks the other half of the contract on the kernel: what the
// kind's parser makes of a case's words, with what the kernel fills in
// from the device (DeviceDefaults) and as its Dumped says the kernel keeps
// it, is what the kernel dumps for the qdisc of that kind on dev.
func (k *keywordsCheck) asked(dev, kind string, words []string) []string {
	q := tckind.LookupQdisc(kind)
	if q == nil || q.ParseQdisc == nil {
		return nil
	}
	opts, err := q.ParseQdisc(words, tckind.ParseEnv{Dev: dev})
	if err != nil {
		return []string{fmt.Sprintf("dumped: gotc's parser refuses %q, which tc took: %v", strings.Join(words, " "), err)}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ifindex, err := k.conn.LinkIndex(ctx, dev)
	if err != nil {
		return []string{fmt.Sprintf("dumped: %s: %v", dev, err)}
	}
	if q.DeviceDefaults != nil {
		// What the kernel fills in from the device, as apply asks for it.
		lq, err := k.conn.LinkQueue(ctx, ifindex)
		if err != nil {
			return []string{fmt.Sprintf("dumped: %s: %v", dev, err)}
		}
		if filled, _, ok := q.DeviceDefaults(tckind.Device(lq), opts); ok {
			opts = filled
		}
	}
	want := tckind.Dumped(kind, opts)
	var dumped []string
	for m, err := range k.conn.Msgs(ctx, netlink.Qdisc, netlink.DumpFilter{Ifindex: ifindex}) {
		if err != nil {
			return []string{fmt.Sprintf("dumped: qdisc dump of %s: %v", dev, err)}
		}
		if m.Kind() != kind {
			continue
		}
		if tckind.Covers(want, m.Attrs.Options) {
			k.checked["dumped as asked: qdisc "+kind]++
			return nil
		}
		dumped = append(dumped, roundtrip.Show(m.Attrs.Options))
	}
	if dumped == nil {
		return nil // the case put its qdisc where no dump of dev shows it
	}
	return []string{fmt.Sprintf("dumped: the kernel does not keep %q as the kind's Dumped says\n asked  %s\n dumped %s", strings.Join(words, " "), roundtrip.Show(want), strings.Join(dumped, "\n        "))}
}

// parentIngressHook is the parent "ingress" names for filters
// (TC_H_MIN_INGRESS under ffff:), where the filter lines put theirs.
const parentIngressHook = netlink.HandleIngress&0xffff0000 | 0xfff2
