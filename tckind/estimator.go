// SPDX-License-Identifier: Apache-2.0

package tckind

import (
	"io"
	"math"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
)

// estimatorUsage is tc's help, printed when "help" stands for either value.
const estimatorUsage = `Usage: ... estimator INTERVAL TIME-CONST
  INTERVAL is interval between measurements
  TIME-CONST is averaging time constant
Example: ... est 1sec 8sec
`

// ParseEstimator reads the two words after "estimator" (a qdisc's or a
// class's) as tc's parse_estimator does: the sampling interval and the
// averaging time constant, tc times. It returns the struct for TCA_RATE and
// the words after them. prev is the estimator given before, if any: a second
// one is a duplicate. stderr receives tc's usage when a value is "help"
// (tc prints it and goes on to refuse the value). Every error exits 255.
func ParseEstimator(args []string, prev *attrs.GnetEstimator, stderr io.Writer) (*attrs.GnetEstimator, []string, error) {
	if len(args) == 0 {
		return nil, nil, tcword.IncompleteCommand()
	}
	if prev != nil {
		return nil, nil, tcword.DuplicateArgument("estimator", args[0])
	}
	if tcfmt.Matches(args[0], "help") {
		io.WriteString(stderr, estimatorUsage)
	}
	interval, err := tcfmt.ParseTime(args[0])
	if err != nil {
		return nil, nil, tcword.InvalidArgument("invalid estimator interval", "estimator")
	}
	if len(args) < 2 {
		return nil, nil, tcword.IncompleteCommand()
	}
	if tcfmt.Matches(args[1], "help") {
		io.WriteString(stderr, estimatorUsage)
	}
	timeConst, err := tcfmt.ParseTime(args[1])
	if err != nil {
		return nil, nil, tcword.InvalidArgument("invalid estimator time constant", "estimator")
	}
	est, ok := setupEstimator(interval, timeConst)
	if !ok {
		return nil, nil, &tcword.ParseError{Msg: "Error: estimator parameters are out of range.", Code: 255}
	}
	return est, args[2:], nil
}

// setupEstimator is tc_setup_estimator: the kernel samples every
// 2^interval quarter seconds (interval -2 .. 3, the shortest that covers
// the given interval, in µs) and averages with weight 2^-ewma_log, the
// largest log whose time constant, interval / -ln(1 - 2^-log), stays at
// most timeConst. Out of range when the interval exceeds 8 s or no log in
// 1..30 fits.
func setupEstimator(interval, timeConst uint32) (*attrs.GnetEstimator, bool) {
	const quarterSecond = 1000000 / 4
	i := 0
	for ; i <= 5; i++ {
		if uint64(interval) <= uint64(1<<i)*quarterSecond {
			break
		}
	}
	if i > 5 {
		return nil, false
	}
	log := 1
	for ; log < 32; log++ {
		// tc shifts an int: at 31 the weight's divisor is negative, and
		// no time constant is ever reached.
		w := 1.0 - 1.0/float64(int32(uint32(1)<<log))
		if float64(interval)/(-math.Log(w)) > float64(timeConst) {
			break
		}
	}
	log--
	if log == 0 || log >= 31 {
		return nil, false
	}
	return &attrs.GnetEstimator{Interval: int8(i - 2), EwmaLog: uint8(log)}, true
}
