// SPDX-License-Identifier: Apache-2.0

package tcline

import (
	"context"
	"strings"
	"testing"

	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
)

// TestPrintFilterShown leaves out of a filter's line what the command
// named, and names the device and verb of an announcement.
func TestPrintFilterShown(t *testing.T) {
	m := &netlink.Msg{}
	m.Header.Ifindex, m.Header.Parent, m.Header.Info = 7, ParentIngress, 10<<16|0x0008 // pref 10, protocol ip
	env := PrintEnv{Links: netlink.NewLinks(context.Background(), eth0{})}
	for _, tt := range []struct {
		shown FilterShown
		want  string
	}{
		{FilterShown{Obj: netlink.Filter}, "filter ingress protocol ip pref 10 \n"},
		{FilterShown{Obj: netlink.Filter, Parent: ParentIngress, Prio: 10, Protocol: 0x0800}, "filter \n"},
		{FilterShown{Obj: netlink.Filter, Echo: true, Verb: Verb{Deleted: true}}, "deleted filter dev eth0 ingress protocol ip pref 10 \n"},
		{FilterShown{Obj: netlink.Chain, Echo: true, Verb: Verb{Added: true}}, "added chain dev eth0 ingress \n"},
	} {
		var out strings.Builder
		p := tcfmt.NewPrinter(&out, tcfmt.Options{})
		p.Start()
		PrintFilter(p, m, env, &tt.shown)
		if err := p.Finish(); err != nil {
			t.Fatal(err)
		}
		if out.String() != tt.want {
			t.Errorf("%+v: %q, want %q", tt.shown, out.String(), tt.want)
		}
	}
}

// eth0 is a kernel whose one device is eth0, at ifindex 7.
type eth0 struct{}

func (eth0) LinkIndex(context.Context, string) (int32, error) { return 7, nil }

func (eth0) LinkNames(context.Context) (map[int32]string, error) {
	return map[int32]string{7: "eth0"}, nil
}
