// SPDX-License-Identifier: Apache-2.0

package main

// "tc actions": standalone actions, as tc/m_action.c's do_action handles
// them, for the action kinds gotc knows.

import (
	"context"
	"errors"
	"fmt"

	"github.com/gotc/gotc/action"
	"github.com/gotc/gotc/attrs"
	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcfmt"
	"github.com/gotc/gotc/tckind"
	"github.com/gotc/gotc/tcline"
)

const actionsUsage = `usage: tc actions <ACTSPECOP>*
Where:		ACTSPECOP := ACR | GD | FL
	ACR := add | change | replace <ACTSPEC>*
	GD := get | delete | <ACTISPEC>*
	FL := ls | list | flush | <ACTNAMESPEC>
	ACTNAMESPEC :=  action <ACTNAME>
	ACTISPEC := <ACTNAMESPEC> <INDEXSPEC>
	ACTSPEC := action <ACTDETAIL> [INDEXSPEC] [HWSTATSSPEC] [SKIPSPEC]
	INDEXSPEC := index <32 bit indexvalue>
	HWSTATSSPEC := hw_stats [ immediate | delayed | disabled ]
	SKIPSPEC := [ skip_sw | skip_hw ]
	ACTDETAIL := <ACTNAME> <ACTPARAMS>
		Example ACTNAME is gact, mirred, bpf, etc
		Each action has its own parameters (ACTPARAMS)

`

// actionConn is what "tc actions" needs of the kernel; netlink.Conn has
// it, and the tests' fake kernel.
type actionConn interface {
	DoAction(ctx context.Context, op netlink.ActionOp, m *netlink.ActionMsg) error
	GetAction(ctx context.Context, m *netlink.ActionMsg) (*netlink.ActionMsg, error)
	DumpActions(ctx context.Context, m *netlink.ActionMsg, fn func(m *netlink.ActionMsg, decodeErr error) error) error
}

// actionWarningDoer is an action connection that reports the warnings of
// accepted requests.
type actionWarningDoer interface {
	DoActionWarning(ctx context.Context, op netlink.ActionOp, m *netlink.ActionMsg) (string, error)
}

// TCA_ACT_FLAG_* of TCA_ROOT_FLAGS (linux/rtnetlink.h).
const actFlagLargeDumpOn = 1 << 0

// actionsCmd runs the commands of one "tc actions" line in turn, as
// do_action does: each returns the words after its own.
func (t *tc) actionsCmd(args []string) error {
	for len(args) > 0 {
		cmd := args[0]
		var err error
		switch {
		case tcfmt.Matches(cmd, "add"):
			args, err = t.actionModify(netlink.ActionAdd, args[1:])
		case tcfmt.Matches(cmd, "change"), tcfmt.Matches(cmd, "replace"):
			args, err = t.actionModify(netlink.ActionReplace, args[1:])
		case tcfmt.Matches(cmd, "delete"):
			args, err = t.actionGetDelete(false, args[1:])
		case tcfmt.Matches(cmd, "get"):
			args, err = t.actionGetDelete(true, args[1:])
		case tcfmt.Matches(cmd, "list"), tcfmt.Matches(cmd, "show"), tcfmt.Matches(cmd, "lst"),
			tcfmt.Matches(cmd, "flush"):
			// tc skips the word after the verb ("action") unread.
			if len(args) <= 2 {
				fmt.Fprint(t.stderr, actionsUsage)
				return errStatus(exitUsage)
			}
			return t.actionListOrFlush(tcfmt.Matches(cmd, "flush"), args[2:])
		case tcfmt.Matches(cmd, "help"):
			fmt.Fprint(t.stderr, actionsUsage)
			return errStatus(exitUsage)
		default:
			fmt.Fprintf(t.stderr, "Command %q is unknown, try \"tc actions help\".\n", cmd)
			return errStatus(exitUsage)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// actionKernel returns the connection's action requests.
func (t *tc) actionKernel() (actionConn, error) {
	c, err := t.kernel()
	if err != nil {
		return nil, err
	}
	ac, ok := c.(actionConn)
	if !ok {
		return nil, errors.New("this connection cannot send action requests")
	}
	return ac, nil
}

// actionModify is tc_action_modify: "add|change|replace action KIND ...".
// Every failure ends tc with status 255.
func (t *tc) actionModify(op netlink.ActionOp, args []string) ([]string, error) {
	acts, rest, err := action.ParseActions(args, tckind.ActionEnv{Links: t.links(), Stderr: t.stderr})
	if err != nil {
		var pe *tckind.ParseError
		if errors.As(err, &pe) && pe.Code == 0 {
			pe = &tckind.ParseError{Msg: pe.Msg, Code: exitUsage}
			err = pe
		}
		return nil, t.parseFailed(err)
	}
	ac, err := t.actionKernel()
	if err != nil {
		return nil, err
	}
	m := &netlink.ActionMsg{Attrs: attrs.ActRootAttrs{Tab: acts}}
	var warning string
	if wc, ok := ac.(actionWarningDoer); ok {
		warning, err = wc.DoActionWarning(t.ctx, op, m)
	} else {
		err = ac.DoAction(t.ctx, op, m)
	}
	if err != nil {
		t.kernelRefused(err)
		fmt.Fprintln(t.stderr, "We have an error talking to the kernel")
		return nil, errStatus(exitUsage)
	}
	t.printWarning(warning)
	return rest, nil
}

// actionGetDelete is tc_action_gd: "get|delete action KIND index N
// [action KIND index N]...". When the kernel refuses, tc goes on reading
// the line from the word after the verb, as the next command.
func (t *tc) actionGetDelete(get bool, args []string) ([]string, error) {
	after := args
	// tc_action_gd skips one word (normally "action") before reading.
	if len(args) > 0 {
		args = args[1:]
	}
	var acts []attrs.ActAttrs
	for len(args) > 0 {
		if args[0] == "action" {
			args = args[1:]
			continue
		}
		if args[0] == "help" {
			return nil, errStatus(exitUsage)
		}
		name := args[0]
		if k := tckind.LookupAction(name); k == nil {
			fmt.Fprintf(t.stderr, "Error: non existent action: %s\n", name)
			return nil, errStatus(exitUsage)
		}
		args = args[1:]
		if len(args) == 0 || !tcfmt.Matches(args[0], "index") {
			fmt.Fprintf(t.stderr, "Error: no index specified action: %s\n", name)
			return nil, errStatus(exitUsage)
		}
		if err := t.needArg(args); err != nil {
			return nil, err
		}
		v, err := tcfmt.ParseUint(args[1], 10, 32)
		if err != nil {
			fmt.Fprintln(t.stderr, `Illegal "index"`)
			return nil, errStatus(exitUsage)
		}
		args = args[2:]
		act := attrs.ActAttrs{Kind: &name}
		if v > 0 {
			index := uint32(v)
			act.Index = &index
		}
		acts = append(acts, act)
	}
	ac, err := t.actionKernel()
	if err != nil {
		return nil, err
	}
	m := &netlink.ActionMsg{Attrs: attrs.ActRootAttrs{Tab: acts}}
	if m.Attrs.Tab == nil {
		m.Attrs.Tab = []attrs.ActAttrs{}
	}
	if !get {
		if err := ac.DoAction(t.ctx, netlink.ActionDelete, m); err != nil {
			t.kernelRefused(err)
			fmt.Fprintln(t.stderr, "We have an error talking to the kernel")
			return after, nil
		}
		return args, nil
	}
	answer, err := ac.GetAction(t.ctx, m)
	if err != nil {
		t.kernelRefused(err)
		fmt.Fprintln(t.stderr, "We have an error talking to the kernel")
		return after, nil
	}
	p := t.printer()
	p.Start()
	tcline.PrintActionMsg(p, answer, t.printEnv(), 1)
	if err := p.Finish(); err != nil {
		return nil, err
	}
	return args, nil
}

// actionListOrFlush is tc_act_list_or_flush: "list|flush action KIND
// [since MSEC]"; args start at KIND. Words after it are ignored, as tc
// ignores them.
func (t *tc) actionListOrFlush(flush bool, args []string) error {
	name := args[0]
	if tckind.LookupAction(name) == nil {
		// tc names the kind it does not know and ends with status 0.
		fmt.Fprintf(t.stderr, "bad action %s\n", name)
		return nil
	}
	m := &netlink.ActionMsg{Attrs: attrs.ActRootAttrs{
		Tab:   []attrs.ActAttrs{{Kind: &name}},
		Flags: &attrs.Bitfield32{Value: actFlagLargeDumpOn, Selector: actFlagLargeDumpOn},
	}}
	if args = args[1:]; len(args) > 0 && args[0] == "since" {
		if err := t.needArg(args); err != nil {
			return err
		}
		v, err := tcfmt.ParseUint(args[1], 0, 32)
		if err != nil {
			return t.invarg(`dump time "since" is invalid`, args[1])
		}
		if v != 0 {
			ms := uint32(v)
			m.Attrs.TimeDelta = &ms
		}
	}
	ac, err := t.actionKernel()
	if err != nil {
		return err
	}
	if flush {
		if err := ac.DoAction(t.ctx, netlink.ActionFlush, m); err != nil {
			t.kernelRefused(err)
			fmt.Fprintln(t.stderr, "We have an error flushing")
			return errStatus(exitBadOption)
		}
		return nil
	}
	// The actions may name devices (mirred's target).
	t.links().Load()
	p := t.printer()
	p.Start()
	err = ac.DumpActions(t.ctx, m, func(a *netlink.ActionMsg, decodeErr error) error {
		if decodeErr != nil {
			return decodeErr
		}
		tcline.PrintActionMsg(p, a, t.printEnv(), 0)
		return p.Err()
	})
	err = t.dumpEnded(err)
	if ferr := p.Finish(); err == nil {
		err = ferr
	}
	if err != nil {
		t.kernelRefused(err)
		return errStatus(exitUsage)
	}
	return nil
}
