// Package regtime compresses a thread's calls into a timeline summary with
// the RegTime algorithm (NonSequitur, Algorithms 1 and 2), as settled in
// method.md §9: runs of short, closely spaced sibling calls become
// expressions whose content is the merged callstacks of the run with their
// cumulative durations; long calls, long gaps and long runs stay visible.
//
// Use: All(tr, Thesis) summarises a trace held in memory; StreamFile (text
// traces) and Stream (any reader taking trace.Sinks) give the same
// summaries keeping no calls, for inputs too large to hold (stream.go).
package regtime

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"

	"github.com/vprof/vprof/analyze/trace"
)

// Params are the thresholds, as fractions of a thread's span T. A quantity
// is short if and only if it is strictly below its threshold.
type Params struct {
	CDT  float64 // CallDurationThresh: a call is long if its duration >= CDT*T
	CGT  float64 // CallGapThresh: a gap between siblings is idle if >= CGT*T
	TTFT float64 // TotalTimeFractionThresh: an expression stops growing once it spans >= TTFT*T
	// Filter drops, before compressing, functions whose cumulative
	// duration in the thread is at most Filter*T; at 0 it drops only
	// functions that never took any time (the authors' THRESHOLD = 0),
	// below 0 nothing. A dropped call's children take its place.
	Filter float64
	// MinRecords: a thread is compressed only if, after the filter, it has
	// more than MinRecords trace records, counting a call without children
	// as one record and a call with children as two (its enter and its
	// exit), as the authors' code counts its trace (len(trace) > 1300/4).
	MinRecords int
}

// Presets (method.md §9): the thesis' values with its 1% filter, and the
// authors' later code (regtime_alg.py, traceFilter.py with THRESHOLD = 0).
var (
	Thesis = Params{CDT: 0.01, CGT: 0.001, TTFT: 0.13, Filter: 0.01, MinRecords: 325}
	Later  = Params{CDT: 0.005, CGT: 0.001, TTFT: 0.02, Filter: 0, MinRecords: 325}
)

// Preset returns the named preset: "thesis" or "later".
func Preset(name string) (Params, error) {
	switch name {
	case "thesis":
		return Thesis, nil
	case "later":
		return Later, nil
	}
	return Params{}, fmt.Errorf("unknown RegTime preset %q (want thesis or later)", name)
}

// Entry is one element of a summary: a plain call (NNodes == 0) or an
// expression over [Start, End] whose merged callstacks are
// Summary.Nodes[Node : Node+NNodes].
type Entry struct {
	Start, End int64
	Func       int32 // plain call: its function; expression: -1
	Depth      int32 // call depth of the call, or of the expression's sibling calls
	Node       int32
	NNodes     int32
}

// IsExpr tells an expression from a plain call.
func (e *Entry) IsExpr() bool { return e.NNodes > 0 }

// Node is one node of an expression's prefix trie of callstacks, output
// depth first with siblings in order of first occurrence.
type Node struct {
	Func  int32
	Depth int32 // relative to the expression: 0 for the sibling calls themselves
	Dur   int64 // cumulative duration of the callstack ending here, ns
}

// Summary is a compressed thread.
type Summary struct {
	Thread     *trace.Thread
	Entries    []Entry // in start order
	Nodes      []Node
	Before     int  // calls before compressing (and before the filter)
	Records    int  // trace records after the filter (see Params.MinRecords)
	Compressed bool // false when Records <= MinRecords
	Plain      int  // plain calls in Entries
	Exprs      int  // expressions in Entries
}

// After is the size after compressing: plain calls kept plus trie nodes.
func (s *Summary) After() int { return s.Plain + len(s.Nodes) }

// Ratio is floor(Before / After), 0 for an empty thread.
func (s *Summary) Ratio() int {
	if s.After() == 0 {
		return 0
	}
	return s.Before / s.After()
}

// Compressor runs RegTime, reusing its scratch space across threads.
type Compressor struct {
	P Params

	calls       []trace.Call
	long        float64 // thresholds in ns
	gap         float64
	total       float64
	out         *Summary
	trie        []tnode
	path        []int32
	big         map[uint64]int32
	bigUsed     bool
	dfs         []int32
	cum         []int64
	filtered    []trace.Call
	filterStack []int32
}

// tnode is a trie node while an expression is built.
type tnode struct {
	fn                int32
	depth             int32
	dur               int64
	first, last, next int32 // children list, in order of first occurrence
	nchild            int32
}

// bigFanout is the child count above which a trie node's children are
// found through a map rather than by scanning its list.
const bigFanout = 16

// Compress compresses one thread.
func Compress(th *trace.Thread, p Params) *Summary {
	c := &Compressor{P: p}
	return c.Thread(th)
}

// All compresses every thread of tr, threads in parallel.
func All(tr *trace.Trace, p Params) []*Summary {
	out := make([]*Summary, len(tr.Threads))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(tr.Threads)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &Compressor{P: p}
			for i := range next {
				out[i] = c.Thread(tr.Threads[i])
			}
		}()
	}
	for i := range tr.Threads {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// Thread compresses one thread.
func (c *Compressor) Thread(th *trace.Thread) *Summary {
	s := &Summary{Thread: th, Before: len(th.Calls)}
	c.out = s
	T := float64(th.Span())
	c.calls = th.Calls
	var shortest int64
	s.Records, shortest = records(th.Calls)
	// A function's cumulative duration is at least its longest call's,
	// so nothing is dropped unless some call is within the limit.
	if limit := c.P.Filter * T; c.P.Filter >= 0 && float64(shortest) <= limit {
		c.calls = c.filter(th.Calls, limit)
		if len(c.calls) < len(th.Calls) {
			s.Records, _ = records(c.calls)
			if len(c.calls) > 0 {
				// The authors measure T on the filtered trace:
				// first record to last.
				T = float64(max(c.calls[lastTop(c.calls)].End-c.calls[0].Start, 1))
			}
		}
	}
	if s.Records <= c.P.MinRecords {
		s.Entries = make([]Entry, len(c.calls))
		for i := range c.calls {
			k := &c.calls[i]
			s.Entries[i] = Entry{Start: k.Start, End: k.End, Func: k.Func, Depth: k.Depth}
		}
		s.Plain = len(c.calls)
		c.calls = nil
		return s
	}
	s.Compressed = true
	c.long, c.gap, c.total = c.P.CDT*T, c.P.CGT*T, c.P.TTFT*T
	c.siblings(0, int32(len(c.calls)))
	c.calls = nil
	return s
}

// records counts calls as trace records: one for a call without
// children, two (enter and exit) for a call with children. It also
// returns the shortest call's duration (MaxInt64 without calls).
func records(calls []trace.Call) (n int, shortest int64) {
	n, shortest = len(calls), math.MaxInt64
	for i := range calls {
		k := &calls[i]
		if k.Next > int32(i)+1 {
			n++
		}
		shortest = min(shortest, k.End-k.Start)
	}
	return n, shortest
}

// lastTop is the index of the last top-level call.
func lastTop(calls []trace.Call) int {
	i := 0
	for int(calls[i].Next) < len(calls) {
		i = int(calls[i].Next)
	}
	return i
}

// filter drops the calls of functions whose cumulative duration is at
// most limit ns, promoting their children (the thesis-era filter).
func (c *Compressor) filter(calls []trace.Call, limit float64) []trace.Call {
	c.cum = c.cum[:0]
	for i := range calls {
		f := int(calls[i].Func)
		for f >= len(c.cum) {
			c.cum = append(c.cum, 0)
		}
		c.cum[f] += calls[i].Dur()
	}
	drop := false
	for i := range calls { // functions of this thread only
		if float64(c.cum[calls[i].Func]) <= limit {
			drop = true
			break
		}
	}
	if !drop {
		return calls
	}
	if cap(c.filtered) < len(calls) {
		c.filtered = make([]trace.Call, 0, len(calls)) // at most all calls are kept
	}
	out := c.filtered[:0]
	st := c.filterStack[:0] // kept ancestors: (old index, new index) pairs
	n := int32(len(calls))
	for i := int32(0); i < n; i++ {
		k := calls[i]
		for len(st) > 0 && calls[st[len(st)-2]].Next <= i {
			out[st[len(st)-1]].Next = int32(len(out))
			st = st[:len(st)-2]
		}
		if float64(c.cum[k.Func]) <= limit {
			continue
		}
		k.Depth = int32(len(st) / 2)
		st = append(st, i, int32(len(out)))
		out = append(out, k)
	}
	for len(st) > 0 {
		out[st[len(st)-1]].Next = int32(len(out))
		st = st[:len(st)-2]
	}
	c.filtered, c.filterStack = out, st
	return out
}

// siblings runs the algorithm over the sibling calls starting at first
// and ending before end (method.md §9).
func (c *Compressor) siblings(first, end int32) {
	calls := c.calls
	i := first
	for i < end {
		ci := &calls[i]
		if float64(ci.End-ci.Start) >= c.long {
			c.plain(ci)
			c.siblings(i+1, ci.Next)
			i = ci.Next
			continue
		}
		start := ci.Start
		prev, j := i, ci.Next
		n := 1
		for j < end {
			cj, cp := &calls[j], &calls[prev]
			if float64(cj.End-cj.Start) >= c.long || float64(cj.Start-cp.End) >= c.gap || float64(cp.End-start) >= c.total {
				break
			}
			prev, j = j, cj.Next
			n++
		}
		if n == 1 && ci.Next == i+1 {
			// One short call without children is the same as a
			// one-node expression: keep it plain. With children it
			// stays an expression whose trie holds its subtree, as
			// the authors' code and the thesis' Algorithm 2 do.
			c.plain(ci)
		} else {
			c.expr(i, j, start, calls[prev].End)
		}
		i = j
	}
}

func (c *Compressor) plain(k *trace.Call) {
	c.out.Entries = append(c.out.Entries, Entry{Start: k.Start, End: k.End, Func: k.Func, Depth: k.Depth})
	c.out.Plain++
}

// expr emits the expression over the sibling calls in [lo, hi) (their
// subtrees are exactly calls[lo:hi] in pre-order).
func (c *Compressor) expr(lo, hi int32, start, end int64) {
	calls := c.calls
	base := calls[lo].Depth
	c.trie = append(c.trie[:0], tnode{fn: -1, depth: -1, first: -1, last: -1, next: -1})
	c.path = append(c.path[:0], 0)
	for k := lo; k < hi; k++ {
		ck := &calls[k]
		rel := ck.Depth - base
		c.path = c.path[:rel+1]
		n := c.child(c.path[rel], ck.Func, rel)
		c.trie[n].dur += ck.End - ck.Start
		c.path = append(c.path, n)
	}
	if c.bigUsed {
		clear(c.big)
		c.bigUsed = false
	}
	s := c.out
	first := int32(len(s.Nodes))
	// Depth first, children in order of first occurrence.
	c.dfs = c.dfs[:0]
	c.pushChildren(0)
	for len(c.dfs) > 0 {
		n := c.dfs[len(c.dfs)-1]
		c.dfs = c.dfs[:len(c.dfs)-1]
		t := &c.trie[n]
		s.Nodes = append(s.Nodes, Node{Func: t.fn, Depth: t.depth, Dur: t.dur})
		c.pushChildren(n)
	}
	s.Entries = append(s.Entries, Entry{Start: start, End: end, Func: -1, Depth: base, Node: first, NNodes: int32(len(s.Nodes)) - first})
	s.Exprs++
}

// pushChildren pushes n's children so that the first pops first.
func (c *Compressor) pushChildren(n int32) {
	at := len(c.dfs)
	for ch := c.trie[n].first; ch >= 0; ch = c.trie[ch].next {
		c.dfs = append(c.dfs, ch)
	}
	d := c.dfs[at:]
	for i, j := 0, len(d)-1; i < j; i, j = i+1, j-1 {
		d[i], d[j] = d[j], d[i]
	}
}

// child finds or adds the child of trie node p for function fn.
func (c *Compressor) child(p, fn, depth int32) int32 {
	t := &c.trie[p]
	if t.nchild > bigFanout {
		if n, ok := c.big[uint64(p)<<32|uint64(uint32(fn))]; ok {
			return n
		}
	} else {
		for ch := t.first; ch >= 0; ch = c.trie[ch].next {
			if c.trie[ch].fn == fn {
				return ch
			}
		}
	}
	n := int32(len(c.trie))
	c.trie = append(c.trie, tnode{fn: fn, depth: depth, first: -1, last: -1, next: -1})
	t = &c.trie[p]
	if t.last >= 0 {
		c.trie[t.last].next = n
	} else {
		t.first = n
	}
	t.last = n
	t.nchild++
	if t.nchild > bigFanout {
		if c.big == nil {
			c.big = make(map[uint64]int32)
		}
		c.bigUsed = true
		if t.nchild == bigFanout+1 {
			for ch := t.first; ch >= 0; ch = c.trie[ch].next {
				c.big[uint64(p)<<32|uint64(uint32(c.trie[ch].fn))] = ch
			}
		} else {
			c.big[uint64(p)<<32|uint64(uint32(fn))] = n
		}
	}
	return n
}

// Stat is one thread's line of `vprof timeline --stats`.
type Stat struct {
	Thread     string
	Before     int
	After      int
	Ratio      int
	Compressed bool
}

// Stats lists the summaries' sizes, in thread order.
func Stats(ss []*Summary) []Stat {
	out := make([]Stat, len(ss))
	for i, s := range ss {
		out[i] = Stat{s.Thread.Name, s.Before, s.After(), s.Ratio(), s.Compressed}
	}
	return out
}

// FuncAppearances counts, per function, its appearances in the summaries
// (plain calls and trie nodes) and the number of threads calling it there:
// the legend's prominence is their product.
func FuncAppearances(ss []*Summary, nfuncs int) (appear, threads []int) {
	appear, threads = make([]int, nfuncs), make([]int, nfuncs)
	seen := make([]int, nfuncs)
	for ti, s := range ss {
		mark := func(f int32) {
			if f < 0 || int(f) >= nfuncs {
				return
			}
			appear[f]++
			if seen[f] != ti+1 {
				seen[f] = ti + 1
				threads[f]++
			}
		}
		for i := range s.Entries {
			if !s.Entries[i].IsExpr() {
				mark(s.Entries[i].Func)
			}
		}
		for i := range s.Nodes {
			mark(s.Nodes[i].Func)
		}
	}
	return appear, threads
}

// Prominent returns function ids by decreasing prominence (appearances x
// threads), ties by id; functions absent from the summaries are left out.
func Prominent(ss []*Summary, nfuncs int) []int32 {
	appear, threads := FuncAppearances(ss, nfuncs)
	var ids []int32
	for f := range appear {
		if appear[f] > 0 {
			ids = append(ids, int32(f))
		}
	}
	sort.SliceStable(ids, func(i, j int) bool {
		a, b := appear[ids[i]]*threads[ids[i]], appear[ids[j]]*threads[ids[j]]
		return a > b
	})
	return ids
}
