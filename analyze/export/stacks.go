// Package export writes vprof profiles in the formats of the tools that
// profiler users already use: pprof protobuf, collapsed stacks (flame
// graphs), speedscope JSON and Chrome trace events.
//
// Use: Pprof, Collapsed, Speedscope or Chrome(w, path, opt) write the
// profile at path to w; Walk visits its symbolized stacks for another
// format. Chrome's counter tracks are the variables in opt.Vars
// (report.Vars picks the most anomalous).
package export

import (
	"fmt"
	"github.com/vprof/vprof/analyze/debugsyms"
	"io"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/proffile"
	"github.com/vprof/vprof/runtime/symname"
	"github.com/vprof/vprof/runtime/symtab"
)

// Frame is one frame of a resolved stack. An inlined call becomes two
// frames at one PC: the inlined function (Inlined true) above its caller.
type Frame struct {
	symtab.Frame
	Inlined bool
	PC      uint64        // runtime address as sampled
	Map     model.Mapping // the mapping PC lies in (Known frames)
}

// Stack is one sample with its frames resolved, innermost first.
type Stack struct {
	Table    *symtab.Table // objects and mappings seen so far
	PID, TID int32
	Sample   *model.Sample
	Frames   []Frame
}

// Walk streams the samples of the profile at path, resolved, to fn. The
// Stack and its Frames are reused between calls. It returns the table used
// (objects and mappings) and the reader's recovery report.
func Walk(path string, fn func(*Stack) error) (*symtab.Table, model.Header, proffile.Recovery, error) {
	r, err := proffile.Open(path)
	if err != nil {
		return nil, model.Header{}, proffile.Recovery{}, err
	}
	defer r.Close()
	tab := symtab.New()
	st := Stack{Table: tab}
	var dbg debugsyms.Table
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return tab, r.Header(), r.Recovery(), err
		}
		tab.Observe(rec)
		b, ok := rec.(*model.Block)
		if !ok {
			continue
		}
		st.PID, st.TID = b.PID, b.TID
		for i := range b.Samples {
			s := &b.Samples[i]
			st.Sample = s
			st.Frames = st.Frames[:0]
			for d, pc := range s.Stack {
				f := tab.Resolve(b.PID, pc, d)
				var m model.Mapping
				if f.Known {
					look := pc
					if d > 0 && pc > 0 {
						look--
					}
					m, _ = tab.Space.Lookup(b.PID, look)
					if f.Func < 0 && !f.Symbol {
						if o := tab.Objects[f.Obj]; o != nil {
							if name, ok := dbg.Name(o.BuildID, f.LinkPC); ok {
								f.Name, f.Display, f.Symbol = name, symname.Demangle(name), true
							}
						}
					}
				}
				if f.Func >= 0 && f.Outer >= 0 && f.Func != f.Outer {
					st.Frames = append(st.Frames, Frame{Frame: f, Inlined: true, PC: pc, Map: m})
					o := tab.Objects[f.Obj].Schema.Funcs[f.Outer]
					f.Func, f.Name, f.Display = f.Outer, o.Name, o.Display
					if f.Display == "" {
						f.Display = f.Name
					}
				}
				st.Frames = append(st.Frames, Frame{Frame: f, PC: pc, Map: m})
			}
			if err := fn(&st); err != nil {
				return tab, r.Header(), r.Recovery(), err
			}
		}
	}
	return tab, r.Header(), r.Recovery(), nil
}

// threadName labels a thread in exports: "pid 12 / tid 13", or just the
// tid for the main process's threads when there is one process.
func threadName(pid, tid int32) string {
	if pid == tid {
		return fmt.Sprintf("pid %d (main thread)", pid)
	}
	return fmt.Sprintf("pid %d / tid %d", pid, tid)
}
