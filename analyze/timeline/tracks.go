package timeline

import (
	"math"

	"github.com/vprof/vprof/analyze/regtime"
	"github.com/vprof/vprof/analyze/trace"
	"github.com/vprof/vprof/runtime/model"
)

// VarRef names a variable as the analyzer reports it: its defining
// function's display name ("" for a global) and its source name.
type VarRef struct {
	Function string
	Name     string
	Label    string // for the track
}

// keepVars selects the value samples of vars in a profile.
func keepVars(vars []VarRef) func(o *model.Object, v model.VarID) bool {
	want := map[[2]string]bool{}
	for _, r := range vars {
		want[[2]string{r.Function, r.Name}] = true
	}
	return func(o *model.Object, v model.VarID) bool {
		va := &o.Schema.Vars[v]
		fn := ""
		if va.Func >= 0 && int(va.Func) < len(o.Schema.Funcs) {
			f := &o.Schema.Funcs[va.Func]
			fn = f.Display
			if fn == "" {
				fn = f.Name
			}
		}
		return want[[2]string{fn, va.Name}]
	}
}

// ReadProfileWithTracks reads a vprof profile as calls and turns the value
// samples of vars into tracks, one per variable and thread that sampled it.
func ReadProfileWithTracks(path string, vars []VarRef) (*trace.Trace, map[*trace.Thread][]Track, error) {
	return ReadProfileTracks(path, vars, trace.ProfileOptions{})
}

// ReadProfileTracks is ReadProfileWithTracks with options for the calls
// (opt.KeepValue is set from vars).
func ReadProfileTracks(path string, vars []VarRef, opt trace.ProfileOptions) (*trace.Trace, map[*trace.Thread][]Track, error) {
	opt.KeepValue = keepVars(vars)
	tr, prof, err := trace.ReadProfile(path, opt)
	if err != nil {
		return nil, nil, err
	}
	return tr, tracksOf(prof, vars), nil
}

// StreamProfile reads a vprof profile as ReadProfileWithTracks does and
// summarises its threads with RegTime, as regtime.All would, streaming
// (regtime.Stream): the calls are not kept, so memory grows with the
// functions and the value samples of vars, not with the samples.
func StreamProfile(path string, vars []VarRef, p regtime.Params) (*trace.Trace, []*regtime.Summary, map[*trace.Thread][]Track, error) {
	var prof *trace.Profile
	tr, sums, err := regtime.Stream(p, func(sinks func(pid, tid int64) trace.Sink) (*trace.Trace, error) {
		tr, pr, err := trace.ReadProfile(path, trace.ProfileOptions{Sinks: sinks, KeepValue: keepVars(vars)})
		prof = pr
		return tr, err
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return tr, sums, tracksOf(prof, vars), nil
}

// tracksOf turns the value samples of vars into tracks, one per variable
// and thread that sampled it.
func tracksOf(prof *trace.Profile, vars []VarRef) map[*trace.Thread][]Track {
	tracks := map[*trace.Thread][]Track{}
	for th, vs := range prof.Values {
		for _, ref := range vars {
			var tk Track
			tk.Name = ref.Label
			for _, s := range vs {
				o := prof.Objects[s.Obj]
				va := &o.Schema.Vars[s.Var]
				if va.Name != ref.Name || funcName(o.Schema, va.Func) != ref.Function {
					continue
				}
				tk.Times = append(tk.Times, s.Time)
				tk.Values = append(tk.Values, valueOf(va, s.Bits))
			}
			if len(tk.Times) > 0 {
				tracks[th] = append(tracks[th], tk)
			}
		}
	}
	return tracks
}

func funcName(s *model.Schema, f model.FuncID) string {
	if f < 0 || int(f) >= len(s.Funcs) {
		return ""
	}
	if s.Funcs[f].Display != "" {
		return s.Funcs[f].Display
	}
	return s.Funcs[f].Name
}

// valueOf reads a sampled value as a number for plotting.
func valueOf(v *model.Var, bits uint64) float64 {
	switch v.Kind {
	case model.KindInt, model.KindEnum:
		return float64(int64(bits))
	case model.KindFloat:
		f := math.Float64frombits(bits)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return 0
		}
		return f
	default:
		return float64(bits)
	}
}
