package trace

import (
	"errors"
	"fmt"
	"io"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/proffile"
	"github.com/vprof/vprof/runtime/symtab"
)

// ValueSample is one sampled value of a variable, kept for value tracks.
type ValueSample struct {
	Time int64 // ns since recording start (the sample's tick)
	Obj  uint16
	Var  model.VarID
	Bits uint64 // as model.Value.Bits
}

// Profile is what ReadProfile keeps beside the calls: the objects (for
// variable names and kinds) and, per thread, the value samples asked for.
type Profile struct {
	Header  model.Header
	Objects map[uint16]*model.Object
	Values  map[*Thread][]ValueSample
}

// ProfileOptions tunes ReadProfile.
type ProfileOptions struct {
	// KeepValue selects the variables whose value samples are kept; nil
	// keeps none. It is asked once per variable.
	KeepValue func(o *model.Object, v model.VarID) bool
	// SampleTime times calls by each sample's measured time (TimeNS, to
	// the nanosecond) instead of tick x interval (whole intervals): for
	// exports whose readers show time finer than the interval. A call
	// still ends one interval after its last sample.
	SampleTime bool
	// NameCode, when set, names code that the object's own symbols do not
	// (link-time address link in object o), e.g. from a separate debug
	// file; otherwise such code is "[object]".
	NameCode func(o *model.Object, link uint64) (string, bool)
	// Sinks, when set, receives each thread's calls as events instead of
	// the trace keeping them (as Stream does for text traces): the threads
	// come back without calls.
	Sinks func(pid, tid int64) Sink
}

// ReadProfile turns a vprof profile's samples into calls (method.md §9):
// per thread, frame k of consecutive samples is the same call while its
// (depth, function, call site) stays the same, and a call spans
// [first tick, last tick + interval). Time is tick x interval, so every
// thread shares the recording's clock.
func ReadProfile(path string, opt ProfileOptions) (*Trace, *Profile, error) {
	r, err := proffile.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	return readProfile(r, path, opt)
}

type profThread struct {
	ts   tstate
	open []openFrame
}

type openFrame struct {
	fn   int32
	site uint64
	last int64 // time of the last sample the frame was in
}

type profReader struct {
	names
	tab      *symtab.Table
	objs     map[uint16]*model.Object
	interval int64
	frames   []openFrame
	cache    map[pcKey]int32 // resolved frame names
	kept     map[[2]int64]bool
	nameCode func(*model.Object, uint64) (string, bool)
}

type pcKey struct {
	pid int32
	pc  uint64
}

func readProfile(r *proffile.Reader, path string, opt ProfileOptions) (*Trace, *Profile, error) {
	h := r.Header()
	p := &profReader{
		nameCode: opt.NameCode,
		tab:      symtab.New(),
		objs:     map[uint16]*model.Object{},
		interval: h.IntervalNS,
		cache:    map[pcKey]int32{},
		kept:     map[[2]int64]bool{},
	}
	if p.interval <= 0 {
		p.interval = 1_000_000
	}
	prof := &Profile{Header: h, Objects: p.objs, Values: map[*Thread][]ValueSample{}}
	threads := map[[2]int32]*profThread{}
	var order []*profThread
	tnames := map[[2]int32]string{}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		p.tab.Observe(rec)
		switch v := rec.(type) {
		case *model.Object:
			p.objs[v.ID] = v
		case *model.ThreadEvent:
			if v.Name != "" {
				tnames[[2]int32{v.PID, v.TID}] = v.Name
			}
		case *model.Block:
			k := [2]int32{v.PID, v.TID}
			pt := threads[k]
			if pt == nil {
				pt = &profThread{ts: tstate{th: Thread{PID: int64(v.PID), TID: int64(v.TID)}}}
				if opt.Sinks != nil {
					pt.ts.sink = opt.Sinks(int64(v.PID), int64(v.TID))
				}
				threads[k] = pt
				order = append(order, pt)
			}
			for i := range v.Samples {
				s := &v.Samples[i]
				t := int64(s.Tick) * p.interval
				if opt.SampleTime && s.TimeNS > 0 {
					t = s.TimeNS
				}
				p.sample(pt, v.PID, s, t)
				if opt.KeepValue != nil {
					for _, val := range s.Values {
						if p.keep(opt.KeepValue, val.Obj, val.Var) {
							th := &pt.ts.th
							prof.Values[th] = append(prof.Values[th], ValueSample{t, val.Obj, val.Var, val.Bits})
						}
					}
				}
			}
		}
	}
	tr := &Trace{Format: "vprof", Path: path, Funcs: p.funcs}
	if tr.Funcs == nil {
		tr.Funcs = []string{}
	}
	for _, pt := range order {
		ts := &pt.ts
		end := ts.th.End
		if len(pt.open) > 0 {
			end = pt.open[0].last + p.interval
		}
		p.closeFrom(pt, 0)
		th := ts.th
		th.End = max(th.End, end)
		th.Name = fmt.Sprintf("tid %d", th.TID)
		if n := tnames[[2]int32{int32(th.PID), int32(th.TID)}]; n != "" {
			th.Name = fmt.Sprintf("%s (tid %d)", n, th.TID)
		}
		tr.Threads = append(tr.Threads, &th)
		// Values were keyed by the builder's thread; rekey to the copy.
		if vs, ok := prof.Values[&ts.th]; ok {
			delete(prof.Values, &ts.th)
			prof.Values[tr.Threads[len(tr.Threads)-1]] = vs
		}
	}
	return tr, prof, nil
}

// keep asks keep once per variable.
func (p *profReader) keep(keep func(*model.Object, model.VarID) bool, obj uint16, v model.VarID) bool {
	k := [2]int64{int64(obj), int64(v)}
	if b, ok := p.kept[k]; ok {
		return b
	}
	o := p.objs[obj]
	b := o != nil && o.Schema != nil && int(v) < len(o.Schema.Vars) && v >= 0 && keep(o, v)
	p.kept[k] = b
	return b
}

// sample adds one sample of a thread at time t.
func (p *profReader) sample(pt *profThread, pid int32, s *model.Sample, t int64) {
	ts := &pt.ts
	if !ts.begun {
		ts.begun = true
		ts.th.Start = t
	}
	if t < ts.th.End {
		ts.th.Backwards++
		t = ts.th.End
	}
	// Frames outermost first: frame i of Stack (innermost first) runs
	// function f(Stack[i]) (return addresses looked up at -1) and was
	// called from the site Stack[i+1] in its caller.
	n := len(s.Stack)
	k := 0
	for ; k < n; k++ {
		i := n - 1 - k
		pc := s.Stack[i]
		if i > 0 {
			pc--
		}
		var site uint64
		if i+1 < n {
			site = s.Stack[i+1]
		}
		fn := p.resolve(pid, pc)
		if k < len(pt.open) && pt.open[k].fn == fn && pt.open[k].site == site {
			pt.open[k].last = t
			continue
		}
		p.closeFrom(pt, k)
		if ts.sink != nil {
			ts.sink.Enter(fn, t)
		} else {
			ts.open = append(ts.open, int32(len(ts.th.Calls)))
			ts.th.Calls = append(ts.th.Calls, Call{Start: t, End: t, Func: fn, Depth: int32(k)})
		}
		pt.open = append(pt.open, openFrame{fn, site, t})
	}
	p.closeFrom(pt, n)
	ts.th.End = t
}

// closeFrom closes the open frames from depth k on, each at its last
// sample's tick + interval.
func (p *profReader) closeFrom(pt *profThread, k int) {
	if k >= len(pt.open) {
		return
	}
	ts := &pt.ts
	if ts.sink != nil {
		for q := len(pt.open) - 1; q >= k; q-- {
			end := pt.open[q].last + p.interval
			ts.sink.Exit(end)
			ts.th.End = max(ts.th.End, end)
		}
		pt.open = pt.open[:k]
		return
	}
	next := int32(len(ts.th.Calls))
	for q := len(pt.open) - 1; q >= k; q-- {
		c := &ts.th.Calls[ts.open[q]]
		c.End, c.Next = pt.open[q].last+p.interval, next
		ts.th.End = max(ts.th.End, c.End)
	}
	ts.open = ts.open[:k]
	pt.open = pt.open[:k]
}

// resolve names the function at a runtime pc of process pid.
func (p *profReader) resolve(pid int32, pc uint64) int32 {
	k := pcKey{pid, pc}
	if id, ok := p.cache[k]; ok {
		return id
	}
	id := p.id([]byte(p.name(pid, pc)))
	if len(p.cache) > 1<<20 {
		clear(p.cache)
	}
	p.cache[k] = id
	return id
}

func (p *profReader) name(pid int32, pc uint64) string {
	f := p.tab.Resolve(pid, pc, 0) // pc is already inside the call for callers
	switch {
	case !f.Known || p.tab.Objects[f.Obj] == nil:
		return "[unknown]"
	case f.Func >= 0 || f.Symbol:
		return f.Display
	}
	o := p.tab.Objects[f.Obj]
	if p.nameCode != nil {
		if name, ok := p.nameCode(o.Object, f.LinkPC); ok {
			return name
		}
	}
	// Code of an object without a symbol there: one name per object.
	return "[" + symtab.BaseName(o.Path) + "]"
}
