// SPDX-License-Identifier: Apache-2.0

package apply

import (
	"maps"
	"strings"
	"testing"
)

func TestNames(t *testing.T) {
	f, err := Load("names.yaml", strings.NewReader(`
devices:
  eth0:
    root:
      qdisc: htb default 10
      handle: "1:"
      name: uplink
      classes:
        "1:1":
          class: htb rate 1gbit
          classes:
            "1:10": {class: htb rate 10mbit, name: alice, leaf: {qdisc: fq_codel, handle: "10:", name: alice queue}}
            "1:20": {class: htb rate 20mbit}
  eth1:
    root: {qdisc: cake, name: "bad handle"}
`))
	if err != nil {
		t.Fatal(err)
	}
	got := f.Names()
	want := map[uint32]string{0x10000: "uplink", 0x10010: "alice", 0x100000: "alice queue"}
	if !maps.Equal(got["eth0"], want) || len(got) != 1 {
		t.Errorf("Names() = %v, want eth0: %v", got, want)
	}
	if _, err := Load("bad.yaml", strings.NewReader("devices: {eth0: {root: {qdisc: htb, name: [a, b]}}}")); err == nil {
		t.Error("a name that is a list loaded")
	}
}
