package qdisc

// The matchall filter (net/sched/cls_matchall.c): it sends every packet to one
// class. gotc supports the keywords the kernel's DualPI2 tests use.

import (
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/tcfmt"
)

// Filter flags (TCA_CLS_FLAGS_*, linux/pkt_cls.h).
const (
	clsFlagSkipHW = 1 << 0
	clsFlagSkipSW = 1 << 1
	clsFlagInHW   = 1 << 2
	clsFlagNotHW  = 1 << 3
)

const matchallUsage = `Usage: ... matchall [ skip_sw | skip_hw ] [ classid CLASSID ]
       actions are not supported by gotc`

func init() {
	mustRegisterFilter(&FilterKind{
		Name:         "matchall",
		Usage:        matchallUsage,
		Parse:        parseMatchall,
		PrintOptions: printMatchall,
	})
}

func parseMatchall(args []string) (attrs.TCOptionsMsg, error) {
	o := &attrs.MatchallAttrs{}
	var flags uint32
	for len(args) > 0 {
		switch {
		case tcfmt.Matches(args[0], "classid"), tcfmt.Matches(args[0], "flowid"):
			if len(args) < 2 {
				return nil, incompleteCommand()
			}
			id, err := tcfmt.ParseClassID(args[1])
			if err != nil {
				return nil, errorf(`Illegal "classid"`)
			}
			o.Classid = &id
			args = args[2:]
			continue
		case args[0] == "skip_hw":
			flags |= clsFlagSkipHW
		case args[0] == "skip_sw":
			flags |= clsFlagSkipSW
		case args[0] == "help":
			return nil, &ParseError{Msg: matchallUsage}
		case tcfmt.Matches(args[0], "action"):
			return nil, errorf("gotc does not support matchall actions")
		default:
			return nil, usageErrorf("What is %q?", args[0])
		}
		args = args[1:]
	}
	if flags != 0 {
		o.Flags = &flags
	}
	return o, nil
}

func printMatchall(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
	o, ok := opts.(*attrs.MatchallAttrs)
	if !ok {
		return
	}
	if o.Classid != nil {
		p.String(tcfmt.Any, "flowid", "flowid %s ", tcfmt.FormatClassID(*o.Classid))
	}
	if o.Flags != nil {
		f := *o.Flags
		p.NL()
		for _, flag := range []struct {
			bit  uint32
			name tcfmt.Name
		}{{clsFlagSkipHW, "skip_hw"}, {clsFlagSkipSW, "skip_sw"}, {clsFlagInHW, "in_hw"}, {clsFlagNotHW, "not_in_hw"}} {
			if f&flag.bit != 0 {
				p.Bool(tcfmt.Any, flag.name, "  "+string(flag.name), true)
			}
		}
	}
}
