// SPDX-License-Identifier: Apache-2.0

package qdisc

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/tckind"
)

// The keywords of the classful and multiqueue kinds: each option set,
// parsed, written back and parsed again, gives the same options.
func TestClassfulKeywordsRoundTrip(t *testing.T) {
	for _, tt := range []struct {
		kind  string
		class bool
		args  string
	}{
		{"drr", false, ""},
		{"drr", true, ""},
		{"drr", true, "quantum 1500"},
		{"drr", true, "quantum 64k"},
		{"qfq", false, ""},
		{"qfq", true, "weight 10 maxpkt 2048"},
		{"qfq", true, "weight 1"},
		{"qfq", true, "maxpkt 1514"},
		{"ets", false, "bands 8 strict 3 quanta 1500 1514 3000 priomap 0 1 2 3 4 5 6 7 7 7"},
		{"ets", false, "strict 3"},
		{"ets", false, "quanta 1000 2000"},
		{"ets", false, "bands 4 priomap 3 2 1 0 0 0 0 0 0 0 0 0 0 0 0 1"},
		{"ets", true, ""},
		{"ets", true, "quantum 1500"},
		{"hfsc", false, ""},
		{"hfsc", false, "default 10"},
		{"hfsc", false, "default ffff"},
		{"hfsc", true, "sc rate 10mbit ul rate 20mbit"},
		{"hfsc", true, "rt m1 2mbit d 10ms m2 1mbit ls m2 3mbit"},
		{"hfsc", true, "sc umax 1500 dmax 53ms rate 2mbit"},
		{"hfsc", true, "ls m2 1mbit ul m1 5mbit d 1s m2 2mbit"},
		{"hfsc", true, "rt d 44ms m2 2mbit"},
		{"hfsc", true, "rt umax 1500b dmax 10ms rate 100kbit ls rate 1000001bit"},
		{"prio", false, ""},
		{"prio", false, "bands 5 priomap 0 1 2 3 4 0 1 2 3 4 0 1 2 3 4 0"},
		{"prio", false, "bands 3 priomap 1 1 0 multiqueue"},
		{"multiq", false, ""},
		{"mqprio", false, ""},
		{"mqprio", false, "num_tc 2 map 0 1 1 1 queues 1@0 3@1 hw 0"},
		{"mqprio", false, "num_tc 4 map 0 1 2 3 queues 1@0 1@1 1@2 1@3 hw 1 mode channel shaper bw_rlimit min_rate 1mbit 2mbit 3mbit 4mbit max_rate 10mbit 20mbit 30mbit 40mbit fp E P E P"},
		{"mqprio", false, "fp P P"},
		{"taprio", false, ""},
		{"taprio", false, "num_tc 3 map 2 2 1 0 2 2 2 2 2 2 2 2 2 2 2 2 queues 1@0 1@1 2@2 base-time 1000000000 " +
			"sched-entry S 01 300000 sched-entry H 03 300000 sched-entry R 04 400000 clockid CLOCK_TAI flags 0x1 " +
			"txtime-delay 500000 cycle-time 1000000 cycle-time-extension 1000 max-sdu 0 1500 0 fp E P E"},
		{"taprio", false, "clockid BOOTTIME sched-entry S ff 20000000 base-time -1000 fp E E"},
		{"taprio", false, "num_tc 1 map 0 queues 4@0 sched-entry S 1 1000 max-sdu 9000 flags 0x2"},
	} {
		name := tt.kind + " " + tt.args
		if tt.class {
			name = "class " + name
		}
		t.Run(name, func(t *testing.T) {
			k := tckind.LookupQdisc(tt.kind)
			parse, write := k.ParseQdisc, k.Keywords
			if tt.class {
				parse, write = k.ParseClass, k.ClassKeywords
			}
			first, err := parse(strings.Fields(tt.args), tckind.ParseEnv{})
			if err != nil {
				t.Fatal(err)
			}
			words, err := write(first)
			if err != nil {
				t.Fatal(err)
			}
			again, err := parse(words, tckind.ParseEnv{})
			if err != nil {
				t.Fatalf("%q: %v", words, err)
			}
			if !reflect.DeepEqual(first, again) {
				t.Errorf("%q asks for other options:\n first %+v\n again %+v", words, first, again)
			}
		})
	}
}

// What no words ask for is an error wrapping ErrNoKeywords, not words
// that ask for something else.
func TestClassfulNoKeywords(t *testing.T) {
	u8 := func(v uint8) *uint8 { return &v }
	u32 := func(v uint32) *uint32 { return &v }
	channel := uint16(mqprioModeChannel)
	for _, tt := range []struct {
		name  string
		write func(attrs.TCOptionsMsg) ([]string, error)
		opts  attrs.TCOptionsMsg
	}{
		{"drr options", tckind.LookupQdisc("drr").Keywords, &attrs.DRRAttrs{Quantum: u32(1)}},
		{"hfsc root class", tckind.LookupQdisc("hfsc").ClassKeywords, &attrs.HFSCAttrs{}},
		{"hfsc zero curve", tckind.LookupQdisc("hfsc").ClassKeywords, &attrs.HFSCAttrs{Rsc: &attrs.TCServiceCurve{D: 5}}},
		{"hfsc short options", tckind.LookupQdisc("hfsc").Keywords, attrs.TCOptionsMsgRaw{1}},
		{"ets without bands", tckind.LookupQdisc("ets").Keywords, &attrs.ETSAttrs{}},
		{"mqprio fp 3", tckind.LookupQdisc("mqprio").Keywords, &attrs.TCOptionsMsgMQPrio{Attrs: attrs.MQPrioAttrs{
			TCEntry: []attrs.MQPrioTCEntryAttrs{{Index: u32(0), FP: u32(3)}}}}},
		{"mqprio mode without hw", tckind.LookupQdisc("mqprio").Keywords, &attrs.TCOptionsMsgMQPrio{Attrs: attrs.MQPrioAttrs{
			Mode: &channel}}},
		{"taprio admin schedule", tckind.LookupQdisc("taprio").Keywords, &attrs.TAPrioAttrs{AdminSched: &attrs.TAPrioAttrs{}}},
		{"taprio entry without mask", tckind.LookupQdisc("taprio").Keywords, &attrs.TAPrioAttrs{
			SchedEntryList: &attrs.TAPrioSchedEntryList{Entry: []attrs.TAPrioSchedEntry{{Cmd: u8(0), Interval: u32(1)}}}}},
		{"taprio entries out of order", tckind.LookupQdisc("taprio").Keywords, &attrs.TAPrioAttrs{
			TCEntry: []attrs.TAPrioTCEntryAttrs{{Index: u32(1), FP: u32(1)}}}},
	} {
		if w, err := tt.write(tt.opts); !errors.Is(err, tckind.ErrNoKeywords) {
			t.Errorf("%s: %q, %v", tt.name, w, err)
		}
	}
}
