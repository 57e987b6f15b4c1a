package rank

import (
	"cmp"
	"slices"
	"strings"
)

// FlatEntry is one line of a gprof-style flat profile: a symbol ranked by
// self time (the innermost frame's function, library or program alike).
type FlatEntry struct {
	Name       string  // demangled
	Self       float64 // seconds
	Cumulative float64 // seconds: this and every line above it, as gprof prints
	Percent    float64 // of the total sampled time
	Program    bool    // in a program object
	fn         int
}

// Flat is the plain-profiler baseline of method.md §4 (`vprof flat`).
type Flat struct {
	Total    float64 // seconds sampled
	Entries  []FlatEntry
	Samples  int64
	Warnings []string
}

// flatEntries ranks every symbol by mean self time over runs, ties by
// name, without zero entries.
func (a *Analyzer) flatEntries(runs []*Run, selfOf func(*Run, int) float64, mean func([]*Run, func(*Run, int) float64, int) float64) []FlatEntry {
	var out []FlatEntry
	for f := range a.funcs {
		if s := mean(runs, selfOf, f); s > 0 {
			out = append(out, FlatEntry{Name: a.funcs[f].display, Self: s, Program: a.funcs[f].program, fn: f})
		}
	}
	slices.SortFunc(out, func(x, y FlatEntry) int {
		if c := cmp.Compare(y.Self, x.Self); c != 0 {
			return c
		}
		return strings.Compare(x.Name, y.Name)
	})
	return out
}

// Flat returns the flat profile of the runs fed so far (means over runs).
func (a *Analyzer) Flat() *Flat {
	for _, r := range a.runs {
		r.End()
	}
	fl := &Flat{Warnings: slices.Clone(a.warnings)}
	mean := func(runs []*Run, get func(*Run, int) float64, f int) float64 {
		var s float64
		for _, r := range runs {
			if f < len(r.self) {
				s += get(r, f)
			}
		}
		return s / float64(max(len(runs), 1))
	}
	for _, r := range a.runs {
		fl.Total += r.total / float64(len(a.runs))
		fl.Samples += r.samples
	}
	fl.Entries = a.flatEntries(a.runs, func(r *Run, f int) float64 { return r.self[f] }, mean)
	var cum float64
	for i := range fl.Entries {
		e := &fl.Entries[i]
		cum += e.Self
		e.Cumulative = cum
		if fl.Total > 0 {
			e.Percent = 100 * e.Self / fl.Total
		}
	}
	return fl
}
