package qdisc

import "github.com/gotc/gotc/attrs"

// Some kinds keep an option in other units than a request gives it and
// dump it converted back, rounded: fq_codel's and codel's times (kept in
// units of 1.024 µs), dualpi2's alpha and beta (kept in units of 64 ns
// scaled to the probability range). A dump then never equals the request,
// and sending a dumped value back does not restore the state it came
// from. Dumped and Restoring undo that rounding.

// Dumped returns the options as the kernel will dump them after a request
// of opts (a copy; opts is not changed). Options of other kinds come back
// as they are.
func Dumped(opts attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	return convert(opts, codelDumped, dualpi2GainDumped)
}

// Restoring returns the request that brings a qdisc back to the state a
// dump of it shows: for each rounded value, the smallest request value
// the kernel dumps as it. Where the kernel's rounding maps two states to
// one dumped value, it gives the lower.
func Restoring(dumped attrs.TCOptionsMsg) attrs.TCOptionsMsg {
	return convert(dumped, smallestDumpedAs(codelDumped), smallestDumpedAs(dualpi2GainDumped))
}

// convert copies the options of the kinds that round, converting their
// times with codel and their gains with gain.
func convert(opts attrs.TCOptionsMsg, codel, gain func(uint32) uint32) attrs.TCOptionsMsg {
	conv := func(p *uint32, f func(uint32) uint32) *uint32 {
		if p == nil {
			return nil
		}
		v := f(*p)
		return &v
	}
	switch o := opts.(type) {
	case *attrs.FQCodelAttrs:
		c := *o
		c.Target, c.Interval, c.CEThreshold = conv(o.Target, codel), conv(o.Interval, codel), conv(o.CEThreshold, codel)
		return &c
	case *attrs.CodelAttrs:
		c := *o
		c.Target, c.Interval, c.CEThreshold = conv(o.Target, codel), conv(o.Interval, codel), conv(o.CEThreshold, codel)
		return &c
	case *attrs.DualPI2Attrs:
		c := *o
		c.Alpha, c.Beta = conv(o.Alpha, gain), conv(o.Beta, gain)
		return &c
	}
	return opts
}

// codelDumped is a codel time in µs as the kernel keeps it (ns >> 10) and
// dumps it (back to µs, truncated).
func codelDumped(us uint32) uint32 {
	kept := uint64(us) * 1000 >> 10
	return uint32(kept << 10 / 1000)
}

// dualpi2GainDumped is alpha or beta (Hz*256) as dualpi2 keeps it (scaled
// to its probability range in 64 ns units) and dumps it.
func dualpi2GainDumped(v uint32) uint32 {
	const maxProb, nsPerSec, scaling = 1<<32 - 1, 1e9, 2
	kept := uint64(v) * maxProb >> scaling / nsPerSec
	return uint32(kept * nsPerSec << scaling / maxProb)
}

// smallestDumpedAs inverts a rounding that loses less than a unit each
// way: the smallest request value next to the dumped one that the kernel
// dumps as it (the dumped value itself when none is).
func smallestDumpedAs(dumpedAs func(uint32) uint32) func(uint32) uint32 {
	return func(d uint32) uint32 {
		for v := uint64(max(d, 1) - 1); v <= uint64(d)+3 && v <= 1<<32-1; v++ {
			if dumpedAs(uint32(v)) == d {
				return uint32(v)
			}
		}
		return d
	}
}
