package export

import (
	"debug/elf"
	"fmt"
	"io"

	"github.com/google/pprof/profile"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/symtab"
)

// Pprof writes the profile at path as a gzipped pprof protobuf: sample
// types samples/count and cpu/nanoseconds (wall/nanoseconds for a wall-clock
// recording), full stacks with inlined frames, demangled names, files and
// lines, and per-sample labels: pid, tid, state (running or blocked), and
// the values of the innermost frame's variables (numeric labels named after
// the variable).
//
// Mappings are the objects as they were mapped: start and limit (runtime
// addresses), file offset, path and build-id, one per object and load
// address. Location addresses are runtime addresses: the sampled PC for
// the innermost frame, the return address minus one for its callers (the
// call instruction, where their lines are looked up).
func Pprof(w io.Writer, path string) error {
	p := &profile.Profile{}
	type lkey struct {
		mapping uint64
		addr    uint64
	}
	locs := map[lkey]*profile.Location{}
	funcs := map[string]*profile.Function{}
	type mkey struct {
		obj        uint16
		start, end uint64
	}
	maps := map[mkey]*profile.Mapping{}
	var unknown *profile.Mapping
	offsets := fileOffsets{}

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
		if !f.Known || f.Map.End == 0 {
			if unknown == nil {
				unknown = &profile.Mapping{ID: uint64(len(p.Mapping) + 1), File: "[unknown]"}
				p.Mapping = append(p.Mapping, unknown)
			}
			return unknown
		}
		k := mkey{f.Obj, f.Map.Start, f.Map.End}
		m := maps[k]
		if m == nil {
			m = &profile.Mapping{ID: uint64(len(p.Mapping) + 1), Start: f.Map.Start, Limit: f.Map.End, HasFunctions: true}
			if o := tab.Objects[f.Obj]; o != nil {
				m.File, m.BuildID = o.Path, o.BuildID
				m.Offset = offsets.of(o.Object, f.Map.Start-f.Map.Bias)
				if o.Schema != nil {
					m.HasFilenames = o.Schema.HasDWARF
					m.HasLineNumbers = o.Schema.HasDWARF
					m.HasInlineFrames = o.Schema.HasDWARF
				}
			}
			maps[k] = m
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
			n := 1 // frames sharing this PC: the inlined ones and their caller
			for i+n-1 < len(st.Frames)-1 && st.Frames[i+n-1].Inlined {
				n++
			}
			addr := f.PC
			if len(ps.Location) > 0 && addr > 0 {
				addr-- // a caller: inside the call instruction
			}
			m := mapping(tab, f)
			k := lkey{m.ID, addr}
			loc := locs[k]
			if loc == nil {
				loc = &profile.Location{ID: uint64(len(p.Location) + 1), Mapping: m, Address: addr}
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
		state := "running"
		if s.State == model.Blocked {
			state = "blocked"
		}
		ps.Label = map[string][]string{"state": {state}}
		for vi := range s.Values {
			v := &s.Values[vi]
			if v.Frame != 0 {
				continue
			}
			if sv, _ := tab.Var(v); sv != nil && sv.Kind != model.KindAggregate && sv.Kind != model.KindFloat {
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
	if hdr.Clock == model.ClockWall {
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

// fileOffsets finds the file offset of a mapping from the object's
// program headers: the PT_LOAD segment holding its link-time start. The
// object is read from its path when it is there and has the build-id the
// profile recorded; otherwise the offset is the usual layout's: the
// link-time address for a shared object or PIE, less the 0x400000 base for
// a fixed-address executable.
type fileOffsets map[string][]elf.ProgHeader // by path; nil: not readable

func (fo fileOffsets) of(o *model.Object, link uint64) uint64 {
	phs, ok := fo[o.Path]
	if !ok {
		phs = loadSegments(o.Path, o.BuildID)
		fo[o.Path] = phs
	}
	for _, ph := range phs {
		if ph.Type == elf.PT_LOAD && link >= ph.Vaddr && link < ph.Vaddr+max(ph.Memsz, 1) {
			return link - ph.Vaddr + ph.Off
		}
	}
	if o.Schema != nil && o.Schema.Type == "exec" && link >= 0x400000 {
		return link - 0x400000
	}
	return link
}

func loadSegments(path, buildID string) []elf.ProgHeader {
	ef, err := elf.Open(path)
	if err != nil {
		return nil
	}
	defer ef.Close()
	if buildID != "" && noteBuildID(ef) != buildID {
		return nil // another build at that path now
	}
	var out []elf.ProgHeader
	for _, p := range ef.Progs {
		out = append(out, p.ProgHeader)
	}
	return out
}

// noteBuildID is the hex GNU build-id of ef, "" if none.
func noteBuildID(ef *elf.File) string {
	sec := ef.Section(".note.gnu.build-id")
	if sec == nil {
		return ""
	}
	b, err := sec.Data()
	if err != nil || len(b) < 16 {
		return ""
	}
	nameSz := ef.ByteOrder.Uint32(b[0:4])
	descSz := ef.ByteOrder.Uint32(b[4:8])
	off := 12 + (nameSz+3)&^3
	if uint32(len(b)) < off+descSz {
		return ""
	}
	return fmt.Sprintf("%x", b[off:off+descSz])
}
