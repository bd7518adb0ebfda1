// SPDX-License-Identifier: Apache-2.0

package qdisc

// The traffic classes of struct tc_mqprio_qopt, which mqprio and taprio
// share (tc's q_mqprio.c and q_taprio.c read, print and, here, write them
// alike): "num_tc", "map", "queues" and the frame preemption of "fp".

import (
	"strconv"
	"strings"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// maxTC is TC_QOPT_MAX_QUEUE: the most traffic classes, and the length of
// every per-class list.
const maxTC = 16

// The frame preemption of a traffic class (TC_FP_*).
const (
	fpExpress     = 1
	fpPreemptible = 2
)

// tcLists reads the per-traffic-class lists of tc_mqprio_qopt that mqprio
// and taprio share. Each method is given the words and the index of its
// keyword, and returns the index of the last word it read, so that the
// caller's loop goes on with the next one.
type tcLists struct {
	// pairs counts the count@offset pairs read, over every "queues"
	// (each of which fills the list from its start again).
	pairs int
	// fp holds the values of "fp", nfp how many were read; entries is
	// set by any "fp" (and taprio's "max-sdu"), even one without values:
	// then tc sends a TC_ENTRY per traffic class that has a value.
	fp      [maxTC]uint32
	nfp     int
	entries bool
}

// numTC reads "num_tc N" (get_u8).
func numTC(args []string, i int, o *attrs.TCMQPrioQopt) (int, error) {
	if i+1 >= len(args) {
		return i, tcword.IncompleteCommand()
	}
	n, err := tcfmt.ParseUint(args[i+1], 10, 8)
	if err != nil {
		return i, tcword.Errorf(`Illegal "num_tc"`)
	}
	o.NumTC = uint8(n)
	return i + 1, nil
}

// priorityMap reads "map P0 P1 ...": up to 16 traffic classes, the rest
// of the map zeroed.
func priorityMap(args []string, i int, o *attrs.TCMQPrioQopt) int {
	n := 0
	for ; n < maxTC && i+1 < len(args); n++ {
		v, err := tcfmt.ParseUint(args[i+1], 10, 8)
		if err != nil {
			break
		}
		i++
		o.PrioTCMap[n] = byte(v)
	}
	clear(o.PrioTCMap[n:])
	return i
}

// queues reads "queues COUNT@OFFSET ...". Like tc's strtok, '@'s in a row
// count as one and what follows a second '@' is ignored. Entries beyond
// those given keep their values.
func (l *tcLists) queues(args []string, i int, o *attrs.TCMQPrioQopt) int {
	for n := 0; n < maxTC && i+1 < len(args); n++ {
		var fields []string
		for _, f := range strings.Split(args[i+1], "@") {
			if f != "" {
				fields = append(fields, f)
			}
		}
		if len(fields) == 0 {
			break
		}
		count, err := tcfmt.ParseUint(fields[0], 10, 16)
		if err != nil {
			break
		}
		// tc stores the count before it reads the offset.
		o.Count[n] = uint16(count)
		if len(fields) < 2 {
			break
		}
		offset, err := tcfmt.ParseUint(fields[1], 10, 16)
		if err != nil {
			break
		}
		o.Offset[n] = uint16(offset)
		i++
		l.pairs++
	}
	return i
}

// fpList reads "fp E|P ...".
func (l *tcLists) fpList(args []string, i int) int {
	l.entries = true
	for n := 0; n < maxTC && i+1 < len(args); n++ {
		switch args[i+1] {
		case "E":
			l.fp[n] = fpExpress
		case "P":
			l.fp[n] = fpPreemptible
		default:
			return i
		}
		i++
		l.nfp++
	}
	return i
}

// printFP prints the frame preemption of each traffic class as mqprio
// and taprio do, E or P (or ? for another value) each after a blank,
// then a line end; nothing when fp is empty.
func printFP(p *tcfmt.Printer, key tcfmt.Name, fp []uint32) {
	if len(fp) == 0 {
		return
	}
	p.OpenArray(tcfmt.Any, key)
	for _, v := range fp {
		s := "?"
		switch v {
		case fpPreemptible:
			s = "P"
		case fpExpress:
			s = "E"
		}
		p.String(tcfmt.Any, "", " %s", s)
	}
	p.CloseArray(tcfmt.Any, "")
	p.NL()
}

// qoptKeywords writes the traffic classes of a tc_mqprio_qopt as mqprio
// and taprio read them: num_tc, the whole map (which "map" zeroes past the
// values given) and each class's queues.
func qoptKeywords(q *attrs.TCMQPrioQopt) []string {
	w := []string{"num_tc", tcword.UintWord(q.NumTC), "map"}
	for _, tc := range q.PrioTCMap {
		w = append(w, tcword.UintWord(tc))
	}
	if q.NumTC > 0 {
		w = append(w, "queues")
		for i := 0; i < int(q.NumTC) && i < maxTC; i++ {
			w = append(w, tcword.UintWord(q.Count[i])+"@"+tcword.UintWord(q.Offset[i]))
		}
	}
	return w
}

// fpKeywords writes the frame preemption of traffic classes 0..len-1 as
// "fp" reads it; fp holds them in order.
func fpKeywords(w []string, fp []uint32) ([]string, error) {
	if len(fp) == 0 {
		return w, nil
	}
	w = append(w, "fp")
	for _, v := range fp {
		switch v {
		case fpExpress:
			w = append(w, "E")
		case fpPreemptible:
			w = append(w, "P")
		default:
			return nil, tckind.NoKeywords("fp value " + strconv.FormatUint(uint64(v), 10))
		}
	}
	return w, nil
}
