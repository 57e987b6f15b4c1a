package export

import (
	"fmt"
	"io"

	"github.com/google/pprof/profile"

	"github.com/vprof/vprof/dwarfschema"
	"github.com/vprof/vprof/runtime/proffile"
	"github.com/vprof/vprof/runtime/symtab"
)

// Pprof writes the profile at path as a gzipped pprof protobuf: sample
// types samples/count and cpu/nanoseconds (wall/nanoseconds for a wall-clock
// recording), full stacks with inlined frames, demangled names, files and
// lines, and per-sample labels: pid, tid, state, and the values of the
// innermost frame's variables (numeric labels named after the variable).
func Pprof(w io.Writer, path string) error {
	p := &profile.Profile{}
	type lkey struct {
		obj  uint16
		addr uint64
	}
	locs := map[lkey]*profile.Location{}
	funcs := map[string]*profile.Function{}
	maps := map[uint16]*profile.Mapping{}
	var unknown *profile.Mapping

	function := func(f *Frame) *profile.Function {
		k := f.Name + "\x00" + f.File
		fn := funcs[k]
		if fn == nil {
			fn = &profile.Function{ID: uint64(len(p.Function) + 1), Name: f.Display, SystemName: f.Name, Filename: f.File}
			funcs[k] = fn
			p.Function = append(p.Function, fn)
		}
		return fn
	}
	mapping := func(tab *symtab.Table, f *Frame) *profile.Mapping {
		if !f.Known {
			if unknown == nil {
				unknown = &profile.Mapping{ID: uint64(len(p.Mapping) + 1), File: "[unknown]"}
				p.Mapping = append(p.Mapping, unknown)
			}
			return unknown
		}
		m := maps[f.Obj]
		if m == nil {
			m = &profile.Mapping{ID: uint64(len(p.Mapping) + 1), HasFunctions: true}
			if o := tab.Objects[f.Obj]; o != nil {
				m.File, m.BuildID = o.Path, o.BuildID
				m.HasFilenames = o.Schema.HasDWARF
				m.HasLineNumbers = o.Schema.HasDWARF
				m.HasInlineFrames = o.Schema.HasDWARF
			}
			maps[f.Obj] = m
			p.Mapping = append(p.Mapping, m)
		}
		return m
	}

	_, hdr, _, err := Walk(path, func(st *Stack) error {
		s, tab := st.Sample, st.Table
		ps := &profile.Sample{Value: []int64{1, s.WeightNS}}
		// Frames come innermost first; an inlined frame and its caller
		// share one Location whose Lines are innermost first.
		for i := 0; i < len(st.Frames); i++ {
			f := &st.Frames[i]
			n := 1 // frames sharing this PC: an inlined one and its caller
			if f.Inlined && i+1 < len(st.Frames) {
				n = 2
			}
			k := lkey{f.Obj, f.LinkPC}
			if !f.Known {
				k = lkey{0xffff, f.PC}
			}
			loc := locs[k]
			if loc == nil {
				loc = &profile.Location{ID: uint64(len(p.Location) + 1), Mapping: mapping(tab, f), Address: f.LinkPC}
				for j := i; j < i+n; j++ {
					fj := &st.Frames[j]
					loc.Line = append(loc.Line, profile.Line{Function: function(fj), Line: int64(fj.Line)})
				}
				locs[k] = loc
				p.Location = append(p.Location, loc)
			}
			ps.Location = append(ps.Location, loc)
			i += n - 1
		}
		ps.NumLabel = map[string][]int64{"pid": {int64(st.PID)}, "tid": {int64(st.TID)}}
		if s.State == proffile.Blocked {
			ps.Label = map[string][]string{"state": {"blocked"}}
		}
		for vi := range s.Values {
			v := &s.Values[vi]
			if v.Frame != 0 {
				continue
			}
			if sv, _ := tab.Var(v); sv != nil && sv.Kind != dwarfschema.KindAggregate && sv.Kind != dwarfschema.KindFloat {
				ps.NumLabel[sv.Name] = []int64{int64(v.Bits)}
			}
		}
		p.Sample = append(p.Sample, ps)
		return nil
	})
	if err != nil {
		return err
	}
	clock := "cpu"
	if hdr.Clock == proffile.ClockWall {
		clock = "wall"
	}
	p.SampleType = []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: clock, Unit: "nanoseconds"}}
	p.DefaultSampleType = clock
	p.PeriodType = &profile.ValueType{Type: clock, Unit: "nanoseconds"}
	p.Period = hdr.IntervalNS
	p.TimeNanos = hdr.StartUnixNS
	p.Comments = []string{fmt.Sprintf("vprof: %s", hdr.Target)}
	if err := p.CheckValid(); err != nil {
		return fmt.Errorf("building pprof profile: %w", err)
	}
	return p.Write(w)
}
