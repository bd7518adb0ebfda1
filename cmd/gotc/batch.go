// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"strings"

	"github.com/gotc/gotc/netlink"
	"github.com/gotc/gotc/tcline"
)

// Batches and the request pipeline.
//
// tc -batch runs one line at a time: parse, send, wait for the kernel's
// acknowledgement, next line; it stops at the first failing line (unless
// -force) and the lines after it are never sent. gotc runs every line through
// the same code as a command line, but a change request (Do) is not sent at
// once: it is handed to netlink.Conn.Pipeline, which sends requests in bursts
// of up to netlink.MaxWindow per sendmsg and reports the results in line
// order.
//
// Bursts keep tc's semantics exact (see the proof in netlink/pipeline.go):
//
//   - without -force a request ends its burst (WaitForResult) unless the
//     kernel is sure to accept it (batchaccept.go): nothing after a request
//     that may be refused is sent before its answer, so after a refusal
//     nothing later has reached the kernel, as with tc (what came before it
//     in its burst are requests the kernel accepts);
//   - with -force tc sends every line anyway, so bursts of
//     netlink.MaxWindow give the same kernel state and the same messages.
//
// Output stays in tc's order because a line parsed while requests are in
// flight runs with its standard error captured: the capture is written with
// the line's result, after the results of every earlier line. A line that fails in userspace, has nothing
// to send, or needs the kernel for anything but a change request (a device
// lookup that is not cached, a listing) while requests are still in flight is
// run again once they have been answered; running a line has no effect but its
// output and its request, both dropped on the first attempt, so running it
// again is safe.

// pipeliner is a connection that can pipeline change requests.
type pipeliner interface {
	Pipeline(ctx context.Context, reqs iter.Seq[netlink.PipelineRequest], window int, onResult func(i int, err error) bool) error
}

// placesLister is a connection that can list where every qdisc is.
type placesLister interface {
	QdiscPlaces(ctx context.Context, fn func(netlink.QdiscPlace)) error
}

// errInFlight refuses a kernel read while pipelined requests are unanswered;
// the batch then runs the line again after they are.
var errInFlight = errors.New("requests in flight")

// batchConn stands between a batch's commands and the kernel: it collects
// change requests instead of sending them, caches device indexes, and lets
// other kernel calls through only while no request is in flight.
type batchConn struct {
	conn
	collecting bool // Do collects instead of sending
	inFlight   bool // pipelined requests are unanswered
	blocked    bool // a call was refused with errInFlight
	requests   []netlink.PipelineRequest
	index      map[string]int32 // device indexes, as tc's ll_map caches them
	misses     int
	dumpAt     int // load all names at this miss
}

func (b *batchConn) Do(ctx context.Context, o netlink.Object, op netlink.Op, m *netlink.Msg) error {
	if !b.collecting {
		return b.conn.Do(ctx, o, op, m)
	}
	b.requests = append(b.requests, netlink.PipelineRequest{Object: o, Op: op, Msg: m})
	return nil
}

func (b *batchConn) Dump(ctx context.Context, o netlink.Object, f netlink.DumpFilter, fn func(*netlink.Msg, error) error) error {
	if b.inFlight {
		b.blocked = true
		return errInFlight
	}
	return b.conn.Dump(ctx, o, f, fn)
}

func (b *batchConn) Get(ctx context.Context, o netlink.Object, m *netlink.Msg) (*netlink.Msg, error) {
	if b.inFlight {
		b.blocked = true
		return nil, errInFlight
	}
	return b.conn.Get(ctx, o, m)
}

func (b *batchConn) LinkNames(ctx context.Context) (map[int32]string, error) {
	if b.inFlight {
		b.blocked = true
		return nil, errInFlight
	}
	return b.conn.LinkNames(ctx)
}

// LinkIndex answers from the cache. On the dumpAt-th device it does not know
// it loads every name with one link dump (a batch that names two devices
// likely names many: one dump is cheaper than a lookup each; with a window
// above 1 the first miss already loads them, because a lookup has to wait for
// the requests in flight); a name still unknown is looked up on its own, as
// tc does.
func (b *batchConn) LinkIndex(ctx context.Context, name string) (int32, error) {
	if idx, ok := b.index[name]; ok {
		return idx, nil
	}
	if b.inFlight {
		b.blocked = true
		return 0, errInFlight
	}
	if b.index == nil {
		b.index = map[string]int32{}
	}
	if b.misses++; b.misses == b.dumpAt {
		if b.loadNames(ctx) == nil {
			if idx, ok := b.index[name]; ok {
				return idx, nil
			}
		}
	}
	idx, err := b.conn.LinkIndex(ctx, name)
	if err == nil {
		b.index[name] = idx
	}
	return idx, err
}

// loadNames caches every device's index; a name it misses later is looked
// up on its own.
func (b *batchConn) loadNames(ctx context.Context) error {
	names, err := b.conn.LinkNames(ctx)
	if err != nil {
		return err
	}
	if b.index == nil {
		b.index = map[string]int32{}
	}
	for idx, n := range names {
		b.index[n] = idx
	}
	b.dumpAt = 0
	return nil
}

// sequentialPipeline is Pipeline for connections without one (tests' fakes):
// one Do at a time.
func sequentialPipeline(ctx context.Context, c conn, reqs iter.Seq[netlink.PipelineRequest], onResult func(int, error) bool) error {
	i := 0
	for r := range reqs {
		if !onResult(i, c.Do(ctx, r.Object, r.Op, r.Msg)) {
			return nil
		}
		i++
	}
	return nil
}

// batch runs the commands of a file (or "-" for standard input), one per
// line, stopping at the first failure unless -force, as tc -batch does.
func (t *tc) batch(name string) int {
	// A batch's garbage grows with its lines (about 2 KB a line) while what
	// it keeps is one line's: without the collector, 8,000 lines of an ISP
	// reload peaked at 26 MB, with it at 13 MB, for the same CPU time
	// (measured on a native kernel; the kernel's work dominates a batch).
	longRunning()
	in := t.stdin
	var file *os.File // a regular file, which can be read ahead
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(t.stderr, "Cannot open file \"%s\" for reading: %v\n", name, errors.Unwrap(err))
			return exitBadOption
		}
		defer f.Close()
		in = f
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			file = f
		}
	}
	// tc opens its rtnetlink socket before reading the batch, too.
	real, err := t.kernel()
	if err != nil {
		return exitBadOption
	}
	bc := &batchConn{conn: real, dumpAt: 2}
	t.conn = bc
	b := &batchRun{t: t, bc: bc, name: name, in: bufio.NewReaderSize(in, 64*1024), stderr: t.stderr}
	pipeline := func(reqs iter.Seq[netlink.PipelineRequest], onResult func(int, error) bool) error {
		return sequentialPipeline(t.ctx, real, reqs, onResult)
	}
	if p, ok := real.(pipeliner); ok {
		if t.force {
			bc.dumpAt = 1 // a lookup would have to wait for the requests in flight
		} else if l, ok := real.(placesLister); ok {
			b.accept.list = func(fn func(netlink.QdiscPlace)) error { return l.QdiscPlaces(t.ctx, fn) }
			b.accept.devices = func() int { return len(bc.index) }
			if file != nil {
				if err := b.accept.lookAhead(file, func() error { return bc.loadNames(t.ctx) }); err != nil {
					fmt.Fprintf(t.stderr, "%v\n", err)
					return exitBadOption
				}
			}
		}
		pipeline = func(reqs iter.Seq[netlink.PipelineRequest], onResult func(int, error) bool) error {
			return p.Pipeline(t.ctx, reqs, netlink.MaxWindow, onResult)
		}
	}

	defer func() { t.stderr = b.stderr }()
	for !b.stop {
		b.pending = b.pending[:0]
		b.yielded, b.answered = 0, 0
		err := pipeline(b.lines, b.result)
		bc.inFlight = false
		if err != nil {
			// The socket failed: the lines from the first unanswered one on
			// may or may not have been applied; stop in any case.
			fmt.Fprintf(b.stderr, "%v\n", err)
			if b.answered < len(b.pending) {
				fmt.Fprintf(b.stderr, "Command failed %s:%d\n", name, b.pending[b.answered].line)
			}
			b.status = exitBadOption
			break
		}
		if !b.held {
			break // end of input, or stopped at a failure
		}
	}
	return b.status
}

// batchRun is the state of one batch.
type batchRun struct {
	t      *tc
	bc     *batchConn
	name   string
	in     *bufio.Reader
	stderr io.Writer // the real standard error; t.stderr is a line's capture
	status int
	stop   bool

	lineNo   int
	held     bool // the current line is to run again when nothing is in flight
	heldText string
	heldErr  error // or the end of the input is, with this error

	pending           []pendingLine // requests of this segment, by Pipeline index
	yielded, answered int
	accept            acceptance
}

// pendingLine is a request sent (or about to be) and what to print with
// its result.
type pendingLine struct {
	line   int
	stderr []byte // what the line printed while it was parsed
}

// failed prints "Command failed" for a line and decides whether to go on.
func (b *batchRun) failed(line int) {
	fmt.Fprintf(b.stderr, "Command failed %s:%d\n", b.name, line)
	b.status = exitBadOption
	if !b.t.force {
		b.stop = true
	}
}

// result takes the kernel's answer for pending request i.
func (b *batchRun) result(i int, err error) bool {
	p := b.pending[i]
	b.answered = i + 1
	if b.answered == b.yielded {
		b.bc.inFlight = false
	}
	if len(p.stderr) > 0 {
		b.stderr.Write(p.stderr)
	}
	if err != nil {
		b.t.stderr = b.stderr
		b.t.kernelRefused(err)
		b.failed(p.line)
		if b.stop && b.yielded > b.answered {
			// Only a request shown accepted shares its burst without -force.
			fmt.Fprintf(b.stderr, "Warning: the requests of lines %d-%d were sent before line %d was refused: the qdiscs read at the start of the batch said the kernel would accept it\n",
				b.pending[b.answered].line, b.pending[b.yielded-1].line, p.line)
		}
	}
	return !b.stop
}

// lines is one segment of the batch for Pipeline: it runs lines and yields
// their requests until the input ends, the batch stops, or a line has to wait
// until nothing is in flight (then b.held is set and the segment ends).
func (b *batchRun) lines(yield func(netlink.PipelineRequest) bool) {
	var capture bytes.Buffer
	for !b.stop {
		var text string
		var readErr error
		if b.held {
			text, readErr, b.held = b.heldText, b.heldErr, false
		} else {
			cmd, lines, err := readCommand(b.in)
			if lines == 0 && err == nil {
				return // the end of the input
			}
			b.lineNo += lines
			text, readErr = cmd, err
		}
		inFlight := b.answered < b.yielded
		b.bc.inFlight = inFlight
		hold := func() {
			b.held, b.heldText, b.heldErr = true, text, readErr
		}
		// What ends the batch at once is said after the earlier lines'
		// results, which may end it first.
		if readErr != nil {
			if inFlight {
				hold()
				return
			}
			b.stop = true
			if readErr == errMissingContinuation {
				fmt.Fprintf(b.stderr, "%v\n", readErr) // tc ends as at the end of the input
			} else {
				fmt.Fprintf(b.stderr, "Cannot read \"%s\" after line %d: %v\n", b.name, b.lineNo, readErr)
				b.status = exitBadOption
			}
			return
		}
		args, err := tcline.SplitWords(text)
		if err != nil {
			if inFlight {
				hold()
				return
			}
			// tc exits on these at once, with -force too, and does not
			// name the line.
			fmt.Fprintf(b.stderr, "%v\n", err)
			b.status, b.stop = exitBadOption, true
			return
		}
		if len(args) == 0 {
			continue
		}
		// With nothing in flight the line's messages are already in order;
		// otherwise they wait for the earlier lines' results.
		capture.Reset()
		if inFlight {
			b.t.stderr = &capture
		}
		b.bc.collecting, b.bc.blocked, b.bc.requests = true, false, b.bc.requests[:0]
		status := b.t.do(args)
		b.bc.collecting = false
		b.t.stderr = b.stderr
		reqs := b.bc.requests
		if inFlight && (b.bc.blocked || status != exitOK || len(reqs) == 0) {
			hold()
			return
		}
		if status != exitOK || len(reqs) == 0 {
			if status != exitOK {
				b.failed(b.lineNo)
			}
			continue
		}
		for k, r := range reqs {
			if !b.t.force {
				r.WaitForResult = !b.accept.accepted(r, b.answered == b.yielded)
			}
			p := pendingLine{line: b.lineNo}
			if k == 0 && capture.Len() > 0 {
				p.stderr = bytes.Clone(capture.Bytes())
			}
			b.pending = append(b.pending, p)
			b.yielded++
			b.bc.inFlight = true
			if !yield(r) {
				return
			}
		}
	}
}

// readLine returns the next line of a batch with its newline, of any length
// (tc reads lines with getline); ok is false at the end of the input or on a
// read error.
func readLine(r *bufio.Reader) (line string, ok bool, err error) {
	line, err = r.ReadString('\n')
	if len(line) > 0 {
		return line, true, nil
	}
	if err == io.EOF {
		err = nil
	}
	return "", false, err
}

// errMissingContinuation ends a batch whose last line asks for another.
var errMissingContinuation = errors.New("Missing continuation line") //lint:ignore ST1005 tc's message, printed as it is

// readCommand reads one command of a batch as tc's getcmdline does: a '#'
// ends each line (wherever it is, quoted or not), and a line ending in a
// backslash right before its newline goes on with the next line, the two
// joined without the backslash and the newline. lines is how many lines it
// read: 0 at the end of the input.
func readCommand(r *bufio.Reader) (cmd string, lines int, err error) {
	line, ok, err := readLine(r)
	if !ok {
		return "", 0, err
	}
	cmd, lines = cutComment(line), 1
	for {
		cont := strings.Index(cmd, "\\\n")
		if cont < 0 {
			return cmd, lines, nil
		}
		next, ok, err := readLine(r)
		if !ok {
			if err == nil {
				err = errMissingContinuation
			}
			return "", lines, err
		}
		cmd, lines = cmd[:cont]+cutComment(next), lines+1
	}
}

func cutComment(line string) string {
	if i := strings.IndexByte(line, '#'); i >= 0 {
		return line[:i]
	}
	return line
}
