// SPDX-License-Identifier: Apache-2.0

package filter

// The route filter (net/sched/cls_route.c): packets are classified by the
// realms of the route they took (its "to" and "from" realms, or the device
// they came in on), which the kernel keeps in the route's dst. Keywords,
// the handle tc derives from them and the output follow tc 7.3's
// f_route.c. Realms are numbers or names from iproute2's rt_realms table.

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/gotc/gotc/action"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/internal/tcword"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
)

const routeUsage = `Usage: ... route [ from REALM | fromif TAG ] [ to REALM ]
                [ classid CLASSID ] [ action ACTION_SPEC ]
       ACTION_SPEC := ... look at individual actions
       CLASSID := X:Y

NOTE: CLASSID is parsed as hexadecimal input.`

func init() {
	tckind.LazilyFilters(func() {
		tckind.MustRegisterFilter(&tckind.Filter{
			Name:         "route",
			Usage:        routeUsage,
			Parse:        parseRoute,
			PrintOptions: printRoute,
			Keywords:     routeKeywords,
		})
	}, "route")
}

// The handle tc derives from the options when the command gives none:
// bits 0-7 the "to" realm, bit 15 set when there is none; bits 16-31 the
// "from" realm, or 0x8000|ifindex for "fromif", 0xffff for neither; bits
// 8-14 the "order".
const (
	routeHandleNone  = 0xffff8000
	routeNoTo        = 0x8000
	routeOrderMask   = 0x7f00
	routeFromIfFlag  = 0x8000
	routeToClearMask = 0x80ff
)

// parseRoute is f_route.c's route_parse_opt.
func parseRoute(args []string, env tckind.FilterEnv) (attrs.TCOptionsMsg, uint32, error) {
	handle, err := numericFilterHandle(env.Handle)
	if err != nil {
		return nil, 0, err
	}
	if len(args) == 0 {
		return nil, handle, nil
	}
	o := &attrs.RouteAttrs{}
	fh := uint32(routeHandleNone)
	var order uint32
	for len(args) > 0 {
		w := args[0]
		args = args[1:]
		value := func() (string, error) { return nextWord(&args) }
		switch {
		case tcfmt.Matches(w, "to"):
			id, err := realmArg("to", value)
			if err != nil {
				return nil, 0, err
			}
			o.To = &id
			fh = fh&^routeToClearMask | id&0xff
		case tcfmt.Matches(w, "from"):
			id, err := realmArg("from", value)
			if err != nil {
				return nil, 0, err
			}
			o.From = &id
			fh = fh&0xffff | id<<16
		case tcfmt.Matches(w, "fromif"):
			v, err := value()
			if err != nil {
				return nil, 0, err
			}
			var idx int32
			if env.Links != nil {
				idx, _ = env.Links.Index(v)
			}
			if idx <= 0 {
				return nil, 0, tcword.Errorf(`Illegal "fromif"`)
			}
			id := uint32(idx)
			o.Iif = &id
			fh = fh&0xffff | (routeFromIfFlag|id)<<16
		case tcfmt.Matches(w, "classid"), w == "flowid":
			id, err := classIDArg(value)
			if err != nil {
				return nil, 0, err
			}
			o.Classid = &id
		case tcfmt.Matches(w, "police"), tcfmt.Matches(w, "action"):
			if err := policeOrActions(w, &args, env, &o.Police, &o.Act); err != nil {
				return nil, 0, err
			}
		case tcfmt.Matches(w, "order"):
			v, err := tcword.UintArg("order", value)
			if err != nil {
				return nil, 0, err
			}
			order = v
		case w == "help":
			return nil, 0, &tcword.ParseError{Msg: routeUsage}
		default:
			return nil, 0, tcword.Errorf("What is \"%s\"?\n%s", w, routeUsage)
		}
	}
	if order != 0 {
		fh = fh&^routeOrderMask | order<<8&routeOrderMask
	}
	if handle == 0 {
		handle = fh
	}
	return o, handle, nil
}

// printRoute is f_route.c's route_print_opt. Both realms are printed under
// the JSON key "name", as tc does.
func printRoute(p *tcfmt.Printer, opts attrs.TCOptionsMsg, f tckind.FilterPrint) {
	o, ok := opts.(*attrs.RouteAttrs)
	if !ok {
		return
	}
	if f.Handle != 0 {
		p.Hex0x(tcfmt.Any, "fh", "fh 0x%08x ", uint64(f.Handle))
	}
	if f.Handle&routeOrderMask != 0 {
		p.Uint(tcfmt.Any, "order", "order %d ", uint64(f.Handle>>8&0x7f))
	}
	if o.Classid != nil {
		p.String(tcfmt.Any, "flowid", "flowid %s ", tcfmt.FormatClassID(*o.Classid))
	}
	if o.To != nil {
		p.String(tcfmt.Any, "name", "to %s ", realmName(*o.To))
	}
	if o.From != nil {
		p.String(tcfmt.Any, "name", "from %s ", realmName(*o.From))
	}
	if o.Iif != nil {
		name := "if" + strconv.FormatUint(uint64(*o.Iif), 10)
		if f.Links != nil {
			name = f.Links.Name(int32(*o.Iif))
		}
		p.String(tcfmt.Any, "fromif", "fromif %s", name)
	}
	if o.Police != nil {
		action.PrintFilterPolice(p, o.Police, f.Stats)
	}
	if o.Act != nil {
		action.PrintActions(p, o.Act, action.ActionPrint{Stats: f.Stats, Bind: true, FirstOrder: 1, Links: f.Links})
	}
}

// Where iproute2 keeps its table of realm names: the first file that
// exists is read.
var realmFiles = []string{"/etc/iproute2/rt_realms", "/usr/share/iproute2/rt_realms"}

// realmTable is the realm names by number: "unknown" for 0, as tc has
// built in, then what the first rt_realms file there is says.
var realmTable = sync.OnceValue(func() *[256]string {
	t := &[256]string{0: "unknown"}
	for _, path := range realmFiles {
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err == nil {
			readRealms(bufio.NewScanner(f), t)
			f.Close()
		}
		break
	}
	return t
})

// readRealms reads lines "ID NAME" (ID decimal or 0x hex; "#" starts a
// comment line) into t, as rtnl_tab_initialize does; like it, it stops at
// a line it cannot read and skips numbers outside the table.
func readRealms(sc *bufio.Scanner, t *[256]string) {
	for sc.Scan() {
		line := strings.TrimLeft(sc.Text(), " \t")
		if line == "" || line[0] == '#' {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 2 {
			return
		}
		var id int64
		var err error
		if hex, ok := strings.CutPrefix(fields[0], "0x"); ok {
			id, err = strconv.ParseInt(hex, 16, 64)
		} else {
			id, err = strconv.ParseInt(fields[0], 10, 64)
		}
		if err != nil {
			return
		}
		if id >= 0 && id < int64(len(t)) {
			t[id] = fields[1]
		}
	}
}

// realmArg reads kw's value as a realm; otherwise `Illegal "KW"`.
func realmArg(kw string, value tcword.ValueFunc) (uint32, error) {
	v, err := value()
	if err != nil {
		return 0, err
	}
	id, ok := realmID(v)
	if !ok {
		return 0, tcword.Errorf("Illegal %q", kw)
	}
	return id, nil
}

// realmID is rtnl_rtrealm_a2n: a name from the table, or a number of any
// base up to 255.
func realmID(s string) (uint32, bool) {
	for id, name := range realmTable() {
		if name != "" && name == s {
			return uint32(id), true
		}
	}
	v, n, _ := tcfmt.Strtoul(s, 0)
	if n == 0 || n != len(s) || v > 255 {
		return 0, false
	}
	return uint32(v), true
}

// realmName is rtnl_rtrealm_n2a: the table's name, else the number.
func realmName(id uint32) string {
	// tc 7.3 prints realm 0 by its built-in name, whatever rt_realms calls
	// it (Debian's file says "cosmos", which tc reads only as a name to
	// parse).
	if id == 0 {
		return "unknown"
	}
	if id < 256 {
		if name := realmTable()[id]; name != "" {
			return name
		}
	}
	return strconv.FormatUint(uint64(id), 10)
}

// routeKeywords is FilterKind.Keywords for route. Realms are written as
// numbers, which read the same whatever rt_realms names them; the order
// is in the handle.
func routeKeywords(opts attrs.TCOptionsMsg, links tckind.Links) ([]string, error) {
	o, ok := opts.(*attrs.RouteAttrs)
	if !ok {
		return nil, tckind.NoKeywords(fmt.Sprintf("route options of type %T", opts))
	}
	var w []string
	if o.To != nil {
		w = append(w, "to", tcword.UintWord(*o.To))
	}
	if o.From != nil {
		w = append(w, "from", tcword.UintWord(*o.From))
	}
	if o.Iif != nil {
		w = append(w, "fromif", links.Name(int32(*o.Iif)))
	}
	return policeActionWords(classidWords(w, o.Classid), o.Police, o.Act, links)
}
