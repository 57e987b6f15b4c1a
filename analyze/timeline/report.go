package timeline

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/vprof/vprof/analyze"
	"github.com/vprof/vprof/analyze/trace"
	"github.com/vprof/vprof/runtime/model"
)

// ReportMarks turns the analyzer's top functions into marks: those of the
// first top ranks that keep a cost once discounted (a function whose
// discount cleared its cost is not one the report blames).
func ReportMarks(res *analyze.Result, top int) []Mark {
	var out []Mark
	for i := range res.Functions {
		f := &res.Functions[i]
		if f.Rank > top {
			break
		}
		if f.Calibrated <= 0 {
			continue
		}
		note := fmt.Sprintf("calibrated cost %.3g s (raw %.3g s); ", f.Calibrated, f.Raw)
		if f.Variable != "" {
			what := f.Variable
			if f.Dimension != "" {
				what += " (" + f.Dimension + ")"
			}
			note += "values of " + what + " " + likeness(f.Discount)
		} else {
			note += f.Reason + ": discount " + fmt.Sprintf("%.2f", f.Discount)
		}
		if f.Pattern != "" {
			note += "; " + f.Pattern
		}
		out = append(out, Mark{Func: f.Name, Rank: f.Rank, Note: note})
	}
	return out
}

// likeness says a discount in words: r is 1 minus the distance between a
// variable's values in the two runs, and below the analyzer's default
// discount (0.8, "no difference found") the values differ.
func likeness(r float64) string {
	if r < analyze.DefaultOptions().DefaultDiscount {
		return fmt.Sprintf("unlike the normal run: discount %.2f", r)
	}
	return fmt.Sprintf("like the normal run: discount %.2f", r)
}

// VarRef names a variable as the analyzer reports it: its defining
// function's display name ("" for a global) and its source name.
type VarRef struct {
	Function string
	Name     string
	Label    string // for the track
}

// AnomalousVars picks up to k variables for value tracks: the v* of the top
// functions in rank order, then the variables whose distributions differ
// most between the runs (smallest discount r).
func AnomalousVars(res *analyze.Result, k int) []VarRef {
	var out []VarRef
	seen := map[[2]string]bool{}
	add := func(v *analyze.VarVerdict) {
		name, _, _ := strings.Cut(v.Name, "#") // "#N" tells apart same-named variables of one function
		key := [2]string{v.Function, name}
		if len(out) >= k || seen[key] {
			return
		}
		seen[key] = true
		where := v.Function
		if v.Global {
			where = "global"
		}
		label := fmt.Sprintf("%s (%s)", name, where)
		if v.HasDim {
			label += fmt.Sprintf(", %s", v.Dim)
		}
		out = append(out, VarRef{Function: v.Function, Name: name,
			Label: label + ": values " + likeness(v.R)})
	}
	for i := range res.Functions {
		f := &res.Functions[i]
		if f.Variable == "" || f.Source != analyze.SourceVariable {
			continue
		}
		for _, vi := range f.Vars {
			if vi >= 0 && vi < len(res.Variables) && res.Variables[vi].Name == f.Variable {
				add(&res.Variables[vi])
				break
			}
		}
	}
	var rest []*analyze.VarVerdict
	for i := range res.Variables {
		v := &res.Variables[i]
		if v.OK && v.HasDim && v.Buggy > 0 && v.R < 0.8 {
			rest = append(rest, v)
		}
	}
	sort.SliceStable(rest, func(i, j int) bool { return rest[i].R < rest[j].R })
	for _, v := range rest {
		add(v)
	}
	return out
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
	return tr, tracks, nil
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
