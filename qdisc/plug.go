// SPDX-License-Identifier: Apache-2.0

package qdisc

// plug (net/sched/sch_plug.c) holds packets until told to let them go: each
// "qdisc change" carries one command in a struct tc_plug_qopt, as tc's
// q_plug.c sends it.
//
// What tc does, and gotc with it:
//
//   - block, release and release_indefinite set the command; limit sets
//     TCQ_PLUG_LIMIT and the byte limit (tc's size units). Several may be
//     given: the last command wins, and a limit given earlier stays in the
//     struct.
//   - Without any keyword tc sends no TCA_OPTIONS; the kernel then takes
//     the device's txqueuelen times its MTU as the limit at creation and
//     refuses a change.
//   - The kernel has no dump for plug, so nothing of it is printed.

import (
	"fmt"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

// The plug commands (TCQ_PLUG_* of include/uapi/linux/pkt_sched.h).
const (
	plugBuffer            = 0
	plugReleaseOne        = 1
	plugReleaseIndefinite = 2
	plugLimit             = 3
)

// plugUsage is tc's explain for plug.
const plugUsage = `Usage: ... plug [block | release | release_indefinite | limit NUMBER]`

func init() {
	tckind.LazilyQdiscs(func() {
		tckind.MustRegisterQdisc(&tckind.Qdisc{
			Name:       "plug",
			Usage:      plugUsage,
			ParseQdisc: parsePlug,
			Keywords:   tckind.KeywordsOf("plug", plugKeywords),
			// The kernel keeps a plug's limit and command and dumps neither.
			Dumped: func(attrs.TCOptionsMsg) attrs.TCOptionsMsg { return nil },
		})
	}, "plug")
}

// plugKeywords writes a plug request back: its limit and its command. The
// kernel dumps nothing of plug, so only requests come here.
func plugKeywords(o *attrs.TCPlugQopt) ([]string, error) {
	var w []string
	if o.Action == plugLimit || o.Limit != 0 {
		w = append(w, "limit", tcword.UintWord(o.Limit))
	}
	switch o.Action {
	case plugBuffer:
		w = append(w, "block")
	case plugReleaseOne:
		w = append(w, "release")
	case plugReleaseIndefinite:
		w = append(w, "release_indefinite")
	case plugLimit:
	default:
		return nil, tckind.NoKeywords(fmt.Sprintf("plug command %d", o.Action))
	}
	return w, nil
}

// parsePlug reads plug's keywords into one command.
func parsePlug(args []string, _ tckind.ParseEnv) (attrs.TCOptionsMsg, error) {
	var opt attrs.TCPlugQopt
	given := false
	for ; len(args) > 0; args = args[1:] {
		switch args[0] {
		case "block":
			opt.Action = plugBuffer
		case "release":
			opt.Action = plugReleaseOne
		case "release_indefinite":
			opt.Action = plugReleaseIndefinite
		case "limit":
			opt.Action = plugLimit
			if len(args) < 2 {
				return nil, tcword.IncompleteCommand()
			}
			args = args[1:]
			n, err := tcfmt.ParseSize(args[0])
			if err != nil {
				// Unlike its other messages, tc's does not name the kind here.
				return nil, tcword.Errorf(`Illegal value for "limit": "%s"`, args[0])
			}
			opt.Limit = n
		case "help":
			return nil, &tcword.ParseError{ShowUsage: true}
		default:
			return nil, tcword.UsageErrorf(`plug: unknown parameter "%s"`, args[0])
		}
		given = true
	}
	if !given {
		return nil, nil
	}
	return &opt, nil
}
