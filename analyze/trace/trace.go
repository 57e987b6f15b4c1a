// Package trace is the call-tree model behind `vprof timeline`: per thread,
// the function calls it made, with start and end times and nesting.
//
// Calls come from enter/exit traces of other tools (DINAMITE text,
// NonSequitur trace folders, Chrome trace-event JSON) or from vprof profile
// samples (method.md §9). A thread's calls are stored flat in pre-order
// (depth first, in start order), each with the index one past its subtree,
// so a thread of millions of calls is one slice and walking it never
// allocates.
package trace

import (
	"fmt"
	"sort"
)

// Call is one function call. Its subtree (itself and every call it made,
// directly or not) is Calls[i:Next] of its thread; its children are
// Calls[i+1], then Calls[Calls[i+1].Next], ... while below Next.
type Call struct {
	Start int64 // ns
	End   int64 // ns, >= Start
	Func  int32 // index into Trace.Funcs
	Depth int32 // 0 for a thread's top-level calls
	Next  int32 // index one past this call's subtree
}

// Dur is the call's duration in ns.
func (c *Call) Dur() int64 { return c.End - c.Start }

// Thread is one thread's calls and what importing them had to repair.
type Thread struct {
	PID   int64
	TID   int64
	Name  string // label: file name, thread name, or "tid N"
	Start int64  // ns: span of the thread, covering all its calls
	End   int64
	Calls []Call

	Unmatched int // exits that matched no open call (dropped)
	Unclosed  int // enters closed by an outer exit or at the thread's end
	Backwards int // timestamps earlier than the thread's previous one (clamped)
	Overlaps  int // complete events that overlapped a sibling (clamped to nest)
}

// Span is the thread's duration T in ns (never below 1, so fractions of it
// are well defined).
func (t *Thread) Span() int64 {
	if t.End > t.Start {
		return t.End - t.Start
	}
	return 1
}

// MaxDepth is the deepest call's depth, -1 without calls.
func (t *Thread) MaxDepth() int32 {
	d := int32(-1)
	for i := range t.Calls {
		if t.Calls[i].Depth > d {
			d = t.Calls[i].Depth
		}
	}
	return d
}

// Trace is a set of threads sharing one function-name table.
type Trace struct {
	Format  string // "dinamite", "nonsequitur", "chrome", "vprof"
	Path    string
	Funcs   []string
	Threads []*Thread
}

// Calls is the number of calls over all threads.
func (tr *Trace) Calls() int {
	n := 0
	for _, t := range tr.Threads {
		n += len(t.Calls)
	}
	return n
}

// Check verifies the structural invariants of every thread: pre-order,
// nesting, Next pointers and depths. Importers keep them; tests and fuzz
// targets call Check to prove it.
func (tr *Trace) Check() error {
	for _, t := range tr.Threads {
		if err := t.check(len(tr.Funcs)); err != nil {
			return fmt.Errorf("thread %s: %w", t.Name, err)
		}
	}
	return nil
}

func (t *Thread) check(nfuncs int) error {
	var stack []int32
	n := int32(len(t.Calls))
	for i := int32(0); i < n; i++ {
		c := &t.Calls[i]
		for len(stack) > 0 && t.Calls[stack[len(stack)-1]].Next <= i {
			stack = stack[:len(stack)-1]
		}
		if c.Depth != int32(len(stack)) {
			return fmt.Errorf("call %d: depth %d, want %d", i, c.Depth, len(stack))
		}
		if c.Next <= i || c.Next > n {
			return fmt.Errorf("call %d: next %d out of (%d, %d]", i, c.Next, i, n)
		}
		if c.End < c.Start {
			return fmt.Errorf("call %d: ends before it starts", i)
		}
		if c.Func < 0 || int(c.Func) >= nfuncs {
			return fmt.Errorf("call %d: func %d out of range", i, c.Func)
		}
		if c.Start < t.Start || c.End > t.End {
			return fmt.Errorf("call %d: [%d,%d] outside thread span [%d,%d]", i, c.Start, c.End, t.Start, t.End)
		}
		if len(stack) > 0 {
			p := &t.Calls[stack[len(stack)-1]]
			if c.Next > p.Next || c.Start < p.Start || c.End > p.End {
				return fmt.Errorf("call %d not nested in its parent %d", i, stack[len(stack)-1])
			}
		}
		stack = append(stack, i)
	}
	return nil
}

// names interns function names.
type names struct {
	m     map[string]int32
	funcs []string
}

func (n *names) id(b []byte) int32 {
	if id, ok := n.m[string(b)]; ok { // no allocation for the lookup
		return id
	}
	if n.m == nil {
		n.m = make(map[string]int32)
	}
	s := string(b)
	id := int32(len(n.funcs))
	n.m[s] = id
	n.funcs = append(n.funcs, s)
	return id
}

// builder turns per-thread enter/exit events, in time order within each
// thread, into threads of calls, or passes them to a Sink per thread.
type builder struct {
	names
	threads map[[2]int64]*tstate
	order   []*tstate
	last    *tstate                   // events usually come in runs of one thread
	sinks   func(pid, tid int64) Sink // streaming: keep no calls (see Stream)
}

type tstate struct {
	th    Thread
	open  []int32 // indices of open calls, outermost first
	begun bool
	// Streaming: the open calls' functions, outermost first, and where
	// their events go.
	sink Sink
	fns  []int32
}

// A Sink receives a thread's calls as events, in time order, instead of
// the thread keeping them: Enter when a call opens, Exit when the
// innermost open call closes. Calls come in pre-order (Enter) and close in
// post-order (Exit); times never go backwards. Its memory, not the
// trace's, decides what streaming costs.
type Sink interface {
	Enter(fn int32, t int64)
	Exit(t int64)
}

func (b *builder) thread(pid, tid int64) *tstate {
	if l := b.last; l != nil && l.th.TID == tid && l.th.PID == pid {
		return l
	}
	k := [2]int64{pid, tid}
	ts := b.threads[k]
	if ts == nil {
		if b.threads == nil {
			b.threads = make(map[[2]int64]*tstate)
		}
		ts = &tstate{th: Thread{PID: pid, TID: tid}}
		if b.sinks != nil {
			ts.sink = b.sinks(pid, tid)
		}
		b.threads[k] = ts
		b.order = append(b.order, ts)
	}
	b.last = ts
	return ts
}

// time clamps t to be no earlier than the thread's previous event.
func (ts *tstate) time(t int64) int64 {
	if !ts.begun {
		ts.begun = true
		ts.th.Start, ts.th.End = t, t
		return t
	}
	if t < ts.th.End {
		ts.th.Backwards++
		return ts.th.End
	}
	ts.th.End = t
	return t
}

func (ts *tstate) enter(fn int32, t int64) {
	t = ts.time(t)
	if ts.sink != nil {
		ts.fns = append(ts.fns, fn)
		ts.sink.Enter(fn, t)
		return
	}
	ts.open = append(ts.open, int32(len(ts.th.Calls)))
	ts.th.Calls = append(ts.th.Calls, Call{Start: t, End: t, Func: fn, Depth: int32(len(ts.open) - 1)})
}

// nopen is the number of open calls.
func (ts *tstate) nopen() int {
	if ts.sink != nil {
		return len(ts.fns)
	}
	return len(ts.open)
}

// openFunc is the function of open call p (0 outermost).
func (ts *tstate) openFunc(p int) int32 {
	if ts.sink != nil {
		return ts.fns[p]
	}
	return ts.th.Calls[ts.open[p]].Func
}

// exit closes the innermost open call of fn (fn < 0: the innermost open
// call), closing calls opened inside it first.
func (ts *tstate) exit(fn int32, t int64) {
	t = ts.time(t)
	p := ts.nopen() - 1
	if fn >= 0 {
		for p >= 0 && ts.openFunc(p) != fn {
			p--
		}
	}
	if p < 0 {
		ts.th.Unmatched++
		return
	}
	ts.th.Unclosed += ts.nopen() - 1 - p
	ts.closeFrom(p, t)
}

func (ts *tstate) closeFrom(p int, t int64) {
	if ts.sink != nil {
		for q := len(ts.fns) - 1; q >= p; q-- {
			ts.sink.Exit(t)
		}
		ts.fns = ts.fns[:p]
		return
	}
	next := int32(len(ts.th.Calls))
	for q := len(ts.open) - 1; q >= p; q-- {
		c := &ts.th.Calls[ts.open[q]]
		c.End, c.Next = t, next
	}
	ts.open = ts.open[:p]
}

// finish closes what is still open at each thread's last timestamp and
// returns the threads, ordered by sortThreads when asked.
func (b *builder) finish(format, path string, sortThreads bool) *Trace {
	tr := &Trace{Format: format, Path: path, Funcs: b.funcs}
	for _, ts := range b.order {
		ts.th.Unclosed += ts.nopen()
		ts.closeFrom(0, ts.th.End)
		th := ts.th
		if th.Name == "" {
			th.Name = fmt.Sprintf("tid %d", th.TID)
		}
		tr.Threads = append(tr.Threads, &th)
	}
	if sortThreads {
		sort.SliceStable(tr.Threads, func(i, j int) bool {
			a, b := tr.Threads[i], tr.Threads[j]
			if a.PID != b.PID {
				return a.PID < b.PID
			}
			return a.TID < b.TID
		})
	}
	if tr.Funcs == nil {
		tr.Funcs = []string{}
	}
	return tr
}
