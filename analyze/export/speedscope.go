package export

import (
	"encoding/json"
	"io"
	"sort"
)

// ssFrame is a frame of speedscope's shared frame list.
type ssFrame struct {
	Name string `json:"name"`
	File string `json:"file,omitempty"`
	Line int32  `json:"line,omitempty"`
}

// speedscopeFrame is the frame of one function: speedscope draws one bar
// per frame and call, so a frame per source line would split a function's
// time into as many bars as lines were sampled. The file and line are the
// function's declaration (DWARF); a library symbol has neither.
func speedscopeFrame(st *Stack, f *Frame) struct {
	Name string `json:"name"`
	File string `json:"file,omitempty"`
	Line int32  `json:"line,omitempty"`
} {
	fr := struct {
		Name string `json:"name"`
		File string `json:"file,omitempty"`
		Line int32  `json:"line,omitempty"`
	}{Name: f.Display}
	if f.Func < 0 {
		return fr
	}
	if o := st.Table.Objects[f.Obj]; o != nil && o.Schema != nil && int(f.Func) < len(o.Schema.Funcs) {
		fn := &o.Schema.Funcs[f.Func]
		if fn.File >= 0 && int(fn.File) < len(o.Schema.Files) {
			fr.File = o.Schema.Files[fn.File]
		}
		fr.Line = fn.Line
	}
	return fr
}

// Speedscope writes the profile as speedscope's JSON file format
// (https://www.speedscope.app/file-format-schema.json): one sampled
// profile per thread, stacks root first, weights in nanoseconds of the
// recording's clock, one frame per function (speedscopeFrame).
func Speedscope(w io.Writer, path string) error {
	type frame = ssFrame
	type prof struct {
		Type       string    `json:"type"`
		Name       string    `json:"name"`
		Unit       string    `json:"unit"`
		StartValue int64     `json:"startValue"`
		EndValue   int64     `json:"endValue"`
		Samples    [][]int32 `json:"samples"`
		Weights    []int64   `json:"weights"`
		key        uint64
	}
	var frames []frame
	fidx := map[frame]int32{}
	profs := map[uint64]*prof{}
	_, hdr, _, err := Walk(path, func(st *Stack) error {
		k := uint64(uint32(st.PID))<<32 | uint64(uint32(st.TID))
		p := profs[k]
		if p == nil {
			p = &prof{Type: "sampled", Name: threadName(st.PID, st.TID), Unit: "nanoseconds",
				StartValue: st.Sample.TimeNS - st.Sample.WeightNS, key: k}
			profs[k] = p
		}
		stack := make([]int32, len(st.Frames))
		for i := range st.Frames {
			fr := speedscopeFrame(st, &st.Frames[i])
			id, ok := fidx[fr]
			if !ok {
				id = int32(len(frames))
				fidx[fr] = id
				frames = append(frames, fr)
			}
			stack[len(st.Frames)-1-i] = id
		}
		p.Samples = append(p.Samples, stack)
		p.Weights = append(p.Weights, st.Sample.WeightNS)
		p.EndValue = st.Sample.TimeNS
		return nil
	})
	if err != nil {
		return err
	}
	list := make([]*prof, 0, len(profs))
	for _, p := range profs {
		if p.StartValue < 0 {
			p.StartValue = 0
		}
		list = append(list, p)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].key < list[j].key })
	if frames == nil {
		frames = []frame{}
	}
	name := "vprof"
	if hdr.Target != "" {
		name = "vprof " + hdr.Target
	}
	out := struct {
		Schema   string  `json:"$schema"`
		Shared   any     `json:"shared"`
		Profiles []*prof `json:"profiles"`
		Name     string  `json:"name"`
		Active   int     `json:"activeProfileIndex"`
		Exporter string  `json:"exporter"`
	}{"https://www.speedscope.app/file-format-schema.json", map[string]any{"frames": frames}, list, name, 0, "vprof"}
	enc := json.NewEncoder(w)
	return enc.Encode(&out)
}
