package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/vprof/vprof/analyze/rank"
	"github.com/vprof/vprof/analyze/timeline"
)

// Marks turns the analyzer's top functions into marks: those of the
// first top ranks that keep a cost once discounted (a function whose
// discount cleared its cost is not one the report blames).
func Marks(res *rank.Result, top int) []timeline.Mark {
	var out []timeline.Mark
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
		out = append(out, timeline.Mark{Func: f.Name, Rank: f.Rank, Note: note})
	}
	return out
}

// likeness says a discount in words: r is 1 minus the distance between a
// variable's values in the two runs, and below the analyzer's default
// discount (0.8, "no difference found") the values differ.
func likeness(r float64) string {
	if r < rank.DefaultOptions().DefaultDiscount {
		return fmt.Sprintf("unlike the normal run: discount %.2f", r)
	}
	return fmt.Sprintf("like the normal run: discount %.2f", r)
}

// Vars picks up to k variables for value tracks: the v* of the top
// functions in rank order, then the variables whose distributions differ
// most between the runs (smallest discount r).
func Vars(res *rank.Result, k int) []timeline.VarRef {
	var out []timeline.VarRef
	seen := map[[2]string]bool{}
	add := func(v *rank.VarVerdict) {
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
		out = append(out, timeline.VarRef{Function: v.Function, Name: name,
			Label: label + ": values " + likeness(v.R)})
	}
	for i := range res.Functions {
		f := &res.Functions[i]
		if f.Variable == "" || f.Source != rank.SourceVariable {
			continue
		}
		for _, vi := range f.Vars {
			if vi >= 0 && vi < len(res.Variables) && res.Variables[vi].Name == f.Variable {
				add(&res.Variables[vi])
				break
			}
		}
	}
	var rest []*rank.VarVerdict
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
