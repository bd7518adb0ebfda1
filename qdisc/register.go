package qdisc

import (
	"io"

	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/tcfmt"
)

func init() {
	register(CakeKind("cake"))
	register(CakeKind("cake_mq"))
	register(&Kind{
		Name:  "dualpi2",
		Usage: DualPI2Usage(),
		ParseQdisc: func(args []string, stderr io.Writer) (attrs.TCOptionsMsg, error) {
			o, err := ParseDualPI2(args, stderr)
			if err != nil {
				return nil, err
			}
			return o, nil
		},
		PrintOptions: func(p *tcfmt.Printer, opts attrs.TCOptionsMsg) {
			if o, ok := opts.(*attrs.DualPI2Attrs); ok {
				PrintDualPI2Options(p, o)
			}
		},
		PrintXstats: func(p *tcfmt.Printer, x Xstats) {
			if s, ok := x.DualPI2(); ok {
				PrintDualPI2Xstats(p, s)
			}
		},
		ChangeAccepted: dualpi2ChangeAccepted,
	})
}
