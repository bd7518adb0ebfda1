// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
)

// tbfTyped is a tbf whose rate spec has no link layer, which tc's words
// cannot say (tc always sends ethernet).
func tbfTyped(rate uint32) *attrs.TBFAttrs {
	return &attrs.TBFAttrs{Parms: &attrs.TCTBFQopt{Rate: attrs.TCRatespec{Rate: rate}, Limit: 40000, Buffer: 100000}}
}

// TestTypedOptions: a qdisc given typed options is sent with them, is in
// sync once applied, and a changed option is one change.
func TestTypedOptions(t *testing.T) {
	ctx := context.Background()
	k := newFake("eth0")
	file := func(rate uint32) *File {
		return &File{Devices: map[string]*Device{"eth0": {Root: &Qdisc{Spec: "tbf", Handle: "1:", Options: tbfTyped(rate)}}}}
	}
	p, err := Compute(ctx, k, file(125000))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := p.Run(ctx, k, nil); err != nil || n != 1 {
		t.Fatalf("first apply: %d requests, %v; want 1", n, err)
	}
	got := k.qdiscs[0].Attrs.Options.(*attrs.TBFAttrs)
	if got.Parms.Rate.Linklayer != 0 || got.Parms.Rate.Rate != 125000 || got.Rtab != nil {
		t.Fatalf("sent %+v, want the typed options as they were", *got.Parms)
	}
	if p, err = Compute(ctx, k, file(125000)); err != nil || len(p.Requests) != 0 {
		t.Fatalf("second apply: %v, %v; want in sync", p.Commands(), err)
	}
	if p, err = Compute(ctx, k, file(250000)); err != nil || len(p.Requests) != 1 || !strings.HasPrefix(p.Commands()[0], "qdisc change dev eth0 root handle 1: tbf") {
		t.Fatalf("changed rate: %v, %v; want one change", p.Commands(), err)
	}
	words := &File{Devices: map[string]*Device{"eth0": {Root: &Qdisc{Spec: "tbf rate 1mbit", Options: tbfTyped(1)}}}}
	var bad *BadFile
	if _, err := Compute(ctx, k, words); !errors.As(err, &bad) || !strings.Contains(err.Error(), "typed options and option words both") {
		t.Fatalf("words and typed options: %v, want a BadFile", err)
	}
}

// TestTypedOptionsWords: a typed qdisc's command shows tc's words for its
// options.
func TestTypedOptionsWords(t *testing.T) {
	k := newFake("eth0")
	f := &File{Devices: map[string]*Device{"eth0": {Root: &Qdisc{Spec: "tbf", Handle: "1:", Options: tbfTyped(125000)}}}}
	p, err := Compute(context.Background(), k, f)
	if err != nil {
		t.Fatal(err)
	}
	if cmds := p.Commands(); len(cmds) != 1 || !strings.HasPrefix(cmds[0], "qdisc replace dev eth0 root handle 1: tbf rate 1mbit burst 800 limit 40000") {
		t.Fatalf("plan %q, want tbf's words", cmds)
	}
}
