package regtime

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/vprof/vprof/analyze/trace"
)

// Streaming RegTime: the summary of a trace without its calls in memory.
// The thresholds are fractions of the thread's span, after the filter,
// and the filter needs every function's cumulative duration, so a first
// pass (Scan) gathers per function its cumulative duration and its first
// start and last end; the second (Streamer) compresses the calls as they
// close, replayed from a compact temporary copy of the events (Stream).
// What either keeps grows with the functions, the call depth and the
// distinct callstacks of an expression, not with the calls:
//
//   - A call is long once its duration reaches CDT*T, which is known while
//     it is still open (the time passed since it started) and implies
//     every caller is long too. A call not yet known to be long keeps the
//     merged callstacks of its subtree (a trie), in case it ends short and
//     becomes part of an expression of its caller's children, and the
//     entries of its own children, in case it ends long. Under a call
//     shorter than CDT*T only gaps of CGT*T end an expression (its
//     children are short and TTFT > CDT in both presets), so those entries
//     are few.
//   - The sibling run in progress at each level keeps its merged
//     callstacks, built by merging each sibling's subtree trie as it
//     closes: children stay in order of first occurrence, as the batch
//     algorithm, reading the calls in pre-order, puts them.
//
// Entries are numbered by their first call's pre-order index and sorted by
// it at the end, so the summary is the one Compressor.Thread gives for the
// same thread, entry for entry and node for node.

// Scan is the first pass over one thread: a trace.Sink that measures
// each function's calls (24-32 bytes per function id up to the thread's
// highest).
type Scan struct {
	Calls int // calls of the thread
	fns   []int32
	start []int64
	fn    []scanFunc // by function id
}

type scanFunc struct {
	seen       bool
	cum        int64 // cumulative duration, ns
	first, end int64 // first start, last end
}

// Enter implements trace.Sink.
func (s *Scan) Enter(fn int32, t int64) {
	s.Calls++
	s.fns = append(s.fns, fn)
	s.start = append(s.start, t)
}

// Exit implements trace.Sink.
func (s *Scan) Exit(t int64) {
	n := len(s.fns) - 1
	fn, start := s.fns[n], s.start[n]
	s.fns, s.start = s.fns[:n], s.start[:n]
	for int(fn) >= len(s.fn) {
		s.fn = append(s.fn, scanFunc{})
	}
	f := &s.fn[fn]
	if !f.seen {
		f.seen, f.first, f.end = true, start, t
	}
	f.cum += t - start
	f.first, f.end = min(f.first, start), max(f.end, t)
}

// Streamer is the second pass over one thread: a trace.Sink that builds
// its summary. Summary gives it once every event was passed.
type Streamer struct {
	p                Params
	th               *trace.Thread
	long, gap, total float64
	drop             []bool   // by function id: filtered out
	before           int      // calls
	records          int      // trace records of the kept calls (Summary.Records)
	kept             int64    // kept calls entered: pre-order index of the next
	all              []bool   // open calls, kept or not, outermost first
	stack            []sframe // kept open calls; stack[0] is the thread
	known            int      // stack[:known] are known to be long
	// plainEntries are the kept calls as plain entries while there are
	// at most MinRecords+1 of them (plainOver after): the summary of a
	// thread too small to compress.
	plainEntries []seqEntry
	plainOver    bool
	out          []seqEntry // entries of the compressed summary, any order
	pool         []*strie   // tries to reuse
	scratch      []int32
}

type seqEntry struct {
	seq   int64
	e     Entry
	nodes []Node
}

// sframe is an open kept call, or the thread itself (stack[0]).
type sframe struct {
	seq      int64
	fn       int32
	depth    int32
	start    int64
	children bool       // a kept call was entered inside it
	acc      *strie     // callstacks of its subtree below it, while it may end short
	run      srun       // the expression in progress among its children
	pending  []seqEntry // entries of its children's level, while it may end short
}

// srun is a run of short sibling calls in progress.
type srun struct {
	active     bool
	seq        int64
	start, end int64
	n          int
	first      Entry // the first call, for a run of one call without children
	firstKids  bool
	trie       *strie
}

// strie is a prefix trie of callstacks; node 0 is the root (function -1).
type strie struct {
	nodes []tnode
	big   map[uint64]int32
}

// NewStreamer prepares the second pass over thread th (its span and name
// from the first pass's trace) with the first pass's scan.
func NewStreamer(th *trace.Thread, scan *Scan, p Params) *Streamer {
	s := &Streamer{p: p, th: th}
	T := float64(th.Span())
	if limit := p.Filter * T; p.Filter >= 0 {
		s.drop = make([]bool, len(scan.fn))
		first, end := int64(math.MaxInt64), int64(math.MinInt64)
		dropped, kept := false, false
		for f := range scan.fn {
			sf := &scan.fn[f]
			if !sf.seen {
				continue
			}
			if float64(sf.cum) <= limit {
				s.drop[f], dropped = true, true
				continue
			}
			kept = true
			first, end = min(first, sf.first), max(end, sf.end)
		}
		if dropped && kept {
			// As Compressor.Thread: T of the filtered trace, its first
			// record to its last.
			T = float64(max(end-first, 1))
		}
	}
	s.long, s.gap, s.total = p.CDT*T, p.CGT*T, p.TTFT*T
	s.stack = append(s.stack, sframe{fn: -1, depth: -1})
	s.known = 1
	return s
}

func (s *Streamer) dropped(fn int32) bool { return int(fn) < len(s.drop) && s.drop[fn] }

// Enter implements trace.Sink.
func (s *Streamer) Enter(fn int32, t int64) {
	s.before++
	s.advance(t)
	keep := !s.dropped(fn)
	s.all = append(s.all, keep)
	if !keep {
		return
	}
	parent := &s.stack[len(s.stack)-1]
	parent.children = true
	s.stack = append(s.stack, sframe{seq: s.kept, fn: fn, depth: int32(len(s.stack) - 1), start: t})
	s.kept++
}

// Exit implements trace.Sink.
func (s *Streamer) Exit(t int64) {
	n := len(s.all) - 1
	keep := s.all[n]
	s.all = s.all[:n]
	s.advance(t)
	if !keep {
		return
	}
	k := len(s.stack) - 1
	c := &s.stack[k]
	s.records++
	if c.children {
		s.records++
	}
	if !s.plainOver {
		if len(s.plainEntries) > s.p.MinRecords {
			s.plainOver, s.plainEntries = true, nil
		} else {
			s.plainEntries = append(s.plainEntries, seqEntry{seq: c.seq, e: Entry{Start: c.start, End: t, Func: c.fn, Depth: c.depth}})
		}
	}
	pk := k - 1
	if float64(t-c.start) >= s.long {
		// Long: its children's entries hold; it is a plain call of its
		// parent's level, ending the run there.
		s.flush(k, c)
		s.flushRun(pk)
		s.emit(pk, seqEntry{seq: c.seq, e: Entry{Start: c.start, End: t, Func: c.fn, Depth: c.depth}})
		s.release(c)
		s.stack = s.stack[:k]
		if s.known > k {
			s.known = k
		}
		return
	}
	// Short: its subtree joins its parent's run, or starts one.
	p := &s.stack[pk]
	if pk >= s.known {
		if p.acc == nil {
			p.acc = s.newTrie()
		}
		p.acc.addSubtree(0, c.fn, t-c.start, c.acc)
	}
	r := &p.run
	if r.active && float64(c.start-r.end) < s.gap && float64(r.end-r.start) < s.total {
		r.trie.addSubtree(0, c.fn, t-c.start, c.acc)
		r.n++
		r.end = t
	} else {
		s.flushRun(pk)
		p = &s.stack[pk]
		r = &p.run
		if r.trie == nil {
			r.trie = s.newTrie()
		}
		r.trie.addSubtree(0, c.fn, t-c.start, c.acc)
		r.active, r.seq, r.start, r.end, r.n = true, c.seq, c.start, t, 1
		r.first, r.firstKids = Entry{Start: c.start, End: t, Func: c.fn, Depth: c.depth}, c.children
	}
	s.release(c)
	s.stack = s.stack[:k]
	if s.known > k {
		s.known = k
	}
}

// advance marks the open calls that have lasted CDT*T by t as long: their
// callstacks are no longer needed, and their children's entries hold.
func (s *Streamer) advance(t int64) {
	for s.known < len(s.stack) {
		c := &s.stack[s.known]
		if float64(t-c.start) < s.long {
			return
		}
		if c.acc != nil {
			s.pool = append(s.pool, c.acc.reset())
			c.acc = nil
		}
		s.out = append(s.out, c.pending...) // its callers are long too
		c.pending = nil
		s.known++
	}
}

// flush ends frame k's children's level: the run in progress, then its
// pending entries, to the output of frame k's level.
func (s *Streamer) flush(k int, c *sframe) {
	s.flushRun(k)
	s.out = append(s.out, c.pending...)
	c.pending = nil
}

// emit adds an entry of the level of frame k's children: to the output
// when frame k is known long, else to its pending entries.
func (s *Streamer) emit(k int, e seqEntry) {
	if k < s.known || k == 0 {
		s.out = append(s.out, e)
		return
	}
	s.stack[k].pending = append(s.stack[k].pending, e)
}

// flushRun emits frame k's run in progress: a plain call for one call
// without children, else an expression.
func (s *Streamer) flushRun(k int) {
	r := &s.stack[k].run
	if !r.active {
		return
	}
	r.active = false
	if r.n == 1 && !r.firstKids {
		s.emit(k, seqEntry{seq: r.seq, e: r.first})
		r.trie.reset()
		return
	}
	nodes := r.trie.dfs(&s.scratch)
	r.trie.reset()
	s.emit(k, seqEntry{seq: r.seq, e: Entry{Start: r.start, End: r.end, Func: -1, Depth: s.stack[k].depth + 1}, nodes: nodes})
}

func (s *Streamer) newTrie() *strie {
	if n := len(s.pool); n > 0 {
		t := s.pool[n-1]
		s.pool = s.pool[:n-1]
		return t
	}
	return (&strie{}).reset()
}

// release returns a closed frame's tries to the pool.
func (s *Streamer) release(c *sframe) {
	if c.acc != nil {
		s.pool = append(s.pool, c.acc.reset())
	}
	if c.run.trie != nil {
		s.pool = append(s.pool, c.run.trie.reset())
	}
	c.acc, c.run.trie, c.pending = nil, nil, nil
}

// Summary ends the pass (closing nothing: the trace reader closed every
// call) and returns the thread's summary.
func (s *Streamer) Summary() *Summary {
	sum := &Summary{Thread: s.th, Before: s.before, Records: s.records}
	if s.records <= s.p.MinRecords {
		slices.SortStableFunc(s.plainEntries, func(a, b seqEntry) int { return cmpInt64(a.seq, b.seq) })
		sum.Entries = make([]Entry, len(s.plainEntries))
		for i := range s.plainEntries {
			sum.Entries[i] = s.plainEntries[i].e
		}
		sum.Plain = len(sum.Entries)
		return sum
	}
	sum.Compressed = true
	s.flush(0, &s.stack[0])
	slices.SortStableFunc(s.out, func(a, b seqEntry) int { return cmpInt64(a.seq, b.seq) })
	sum.Entries = make([]Entry, 0, len(s.out))
	for _, o := range s.out {
		e := o.e
		if len(o.nodes) > 0 {
			e.Node, e.NNodes = int32(len(sum.Nodes)), int32(len(o.nodes))
			sum.Nodes = append(sum.Nodes, o.nodes...)
			sum.Exprs++
		} else {
			sum.Plain++
		}
		sum.Entries = append(sum.Entries, e)
	}
	s.out = nil
	return sum
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (t *strie) reset() *strie {
	t.nodes = append(t.nodes[:0], tnode{fn: -1, depth: -1, first: -1, last: -1, next: -1})
	if len(t.big) > 0 {
		clear(t.big)
	}
	return t
}

// child finds or adds the child of node p for function fn.
func (t *strie) child(p, fn int32) int32 {
	nd := &t.nodes[p]
	if nd.nchild > bigFanout {
		if n, ok := t.big[uint64(p)<<32|uint64(uint32(fn))]; ok {
			return n
		}
	} else {
		for ch := nd.first; ch >= 0; ch = t.nodes[ch].next {
			if t.nodes[ch].fn == fn {
				return ch
			}
		}
	}
	n := int32(len(t.nodes))
	t.nodes = append(t.nodes, tnode{fn: fn, depth: t.nodes[p].depth + 1, first: -1, last: -1, next: -1})
	nd = &t.nodes[p]
	if nd.last >= 0 {
		t.nodes[nd.last].next = n
	} else {
		nd.first = n
	}
	nd.last = n
	nd.nchild++
	if nd.nchild > bigFanout {
		if t.big == nil {
			t.big = make(map[uint64]int32)
		}
		if nd.nchild == bigFanout+1 {
			for ch := nd.first; ch >= 0; ch = t.nodes[ch].next {
				t.big[uint64(p)<<32|uint64(uint32(t.nodes[ch].fn))] = ch
			}
		} else {
			t.big[uint64(p)<<32|uint64(uint32(fn))] = n
		}
	}
	return n
}

// addSubtree adds, under node p, a call of fn lasting dur whose
// descendants' callstacks are below (nil: none; below's root stands for
// the call).
func (t *strie) addSubtree(p, fn int32, dur int64, below *strie) {
	n := t.child(p, fn)
	t.nodes[n].dur += dur
	if below != nil {
		t.merge(n, below, 0)
	}
}

// merge adds the subtrees below node sp of src under node dp, children in
// src's order (after dp's own: first occurrences stay first).
func (t *strie) merge(dp int32, src *strie, sp int32) {
	for ch := src.nodes[sp].first; ch >= 0; ch = src.nodes[ch].next {
		n := t.child(dp, src.nodes[ch].fn)
		t.nodes[n].dur += src.nodes[ch].dur
		t.merge(n, src, ch)
	}
}

// dfs lists the nodes below the root depth first, children in order of
// first occurrence, as Compressor.expr does.
func (t *strie) dfs(stack *[]int32) []Node {
	out := make([]Node, 0, len(t.nodes)-1)
	st := (*stack)[:0]
	push := func(n int32) {
		at := len(st)
		for ch := t.nodes[n].first; ch >= 0; ch = t.nodes[ch].next {
			st = append(st, ch)
		}
		slices.Reverse(st[at:])
	}
	push(0)
	for len(st) > 0 {
		n := st[len(st)-1]
		st = st[:len(st)-1]
		nd := &t.nodes[n]
		out = append(out, Node{Func: nd.fn, Depth: nd.depth, Dur: nd.dur})
		push(n)
	}
	*stack = st
	return out
}

// StreamFile summarises every thread of the trace at path (a format that
// trace.Streams accepts) without holding its calls (see Stream). It
// returns the trace without its calls and one summary per thread, in the
// trace's order, as All would.
func StreamFile(path, format string, p Params) (*trace.Trace, []*Summary, error) {
	return Stream(p, func(sinks func(pid, tid int64) trace.Sink) (*trace.Trace, error) {
		return trace.Stream(path, format, sinks)
	})
}

// Stream summarises the threads of an input that read passes, as events,
// to the sinks it is given, and returns read's trace (without calls) and
// one summary per thread in its order, as All would give for the trace
// with its calls. The thresholds need every thread's whole span first, so
// while read scans the input (Scan) the events are also written compactly
// (about 5 bytes each) to a temporary file, which the second pass
// (Streamer) replays: the input is parsed once and no call is held.
func Stream(p Params, read func(sinks func(pid, tid int64) trace.Sink) (*trace.Trace, error)) (*trace.Trace, []*Summary, error) {
	sp, err := newSpill()
	if err != nil {
		return nil, nil, err
	}
	defer sp.close()
	var scans []*Scan
	var keys [][2]int64
	tr, err := read(func(pid, tid int64) trace.Sink {
		s := &Scan{}
		scans = append(scans, s)
		keys = append(keys, [2]int64{pid, tid})
		return &spillSink{sp: sp, th: uint64(len(scans) - 1), scan: s}
	})
	if err != nil {
		return nil, nil, err
	}
	if err := sp.rewind(); err != nil {
		return nil, nil, err
	}
	index := map[[2]int64]int{}
	for i, k := range keys {
		index[k] = i
	}
	streams := make([]*Streamer, len(scans))
	for _, th := range tr.Threads {
		i, ok := index[[2]int64{th.PID, th.TID}]
		if !ok {
			return nil, nil, fmt.Errorf("regtime: thread %s has no events", th.Name)
		}
		streams[i] = NewStreamer(th, scans[i], p)
	}
	for i, st := range streams {
		if st == nil {
			return nil, nil, fmt.Errorf("regtime: events of thread %d of process %d, which the trace does not list", keys[i][1], keys[i][0])
		}
	}
	if err := sp.replay(streams); err != nil {
		return nil, nil, err
	}
	out := make([]*Summary, len(tr.Threads))
	for i, th := range tr.Threads {
		out[i] = streams[index[[2]int64{th.PID, th.TID}]].Summary()
		out[i].Thread = th
	}
	return tr, out, nil
}

// spill is the temporary file of Stream's events: per event, uvarint(thread
// index << 1 | exit), for an enter uvarint(function), then the zigzag
// varint of the time since the thread's previous event.
type spill struct {
	f    *os.File
	w    *bufio.Writer
	last []int64 // per thread: time of its previous event
	buf  [3 * binary.MaxVarintLen64]byte
	err  error
}

func newSpill() (*spill, error) {
	f, err := os.CreateTemp("", "vprof-regtime-*")
	if err != nil {
		return nil, err
	}
	return &spill{f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

func (sp *spill) event(th uint64, exit bool, fn int32, t int64) {
	for int(th) >= len(sp.last) {
		sp.last = append(sp.last, 0)
	}
	tag := th << 1
	if exit {
		tag |= 1
	}
	b := binary.AppendUvarint(sp.buf[:0], tag)
	if !exit {
		b = binary.AppendUvarint(b, uint64(fn))
	}
	b = binary.AppendVarint(b, t-sp.last[th])
	sp.last[th] = t
	if _, err := sp.w.Write(b); err != nil && sp.err == nil {
		sp.err = err
	}
}

func (sp *spill) rewind() error {
	if sp.err != nil {
		return fmt.Errorf("regtime: writing %s: %w", sp.f.Name(), sp.err)
	}
	if err := sp.w.Flush(); err != nil {
		return fmt.Errorf("regtime: writing %s: %w", sp.f.Name(), err)
	}
	if _, err := sp.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	clear(sp.last)
	return nil
}

// replay passes the spilled events to the streams, by thread index.
func (sp *spill) replay(streams []*Streamer) error {
	r := bufio.NewReaderSize(sp.f, 1<<20)
	bad := func(err error) error {
		return fmt.Errorf("regtime: reading back %s: %w", sp.f.Name(), err)
	}
	for {
		tag, err := binary.ReadUvarint(r)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return bad(err)
		}
		th := tag >> 1
		if th >= uint64(len(streams)) {
			return bad(fmt.Errorf("thread index %d of %d", th, len(streams)))
		}
		var fn uint64
		if tag&1 == 0 {
			if fn, err = binary.ReadUvarint(r); err != nil {
				return bad(err)
			}
		}
		d, err := binary.ReadVarint(r)
		if err != nil {
			return bad(err)
		}
		t := sp.last[th] + d
		sp.last[th] = t
		if tag&1 == 0 {
			streams[th].Enter(int32(fn), t)
		} else {
			streams[th].Exit(t)
		}
	}
}

func (sp *spill) close() {
	sp.f.Close()
	os.Remove(sp.f.Name())
}

// spillSink scans a thread's events and spills them.
type spillSink struct {
	sp   *spill
	th   uint64
	scan *Scan
}

func (s *spillSink) Enter(fn int32, t int64) {
	s.scan.Enter(fn, t)
	s.sp.event(s.th, false, fn, t)
}

func (s *spillSink) Exit(t int64) {
	s.scan.Exit(t)
	s.sp.event(s.th, true, 0, t)
}
