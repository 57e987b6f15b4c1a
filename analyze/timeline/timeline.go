// Package timeline writes `vprof timeline`'s page: one self-contained HTML
// file (script, style and data inline, nothing fetched) that draws each
// thread's RegTime summary on a canvas, NonSequitur style, with a legend,
// search, thread selection, tooltips, linked highlighting, zoom and pan,
// an optional second run to compare with, and optional marks and value
// tracks from `vprof report`.
//
// Use: read each run's calls (trace.Open, trace.ReadProfile, or
// ReadProfileWithTracks for value tracks), summarise them with
// regtime.All, then Write a Page of Runs; report.Marks and report.Vars
// give the marks and the variables to track.
package timeline

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math"
	"strings"

	"github.com/vprof/vprof/analyze/regtime"
	"github.com/vprof/vprof/analyze/trace"
)

//go:embed page.html
var pageHTML string

//go:embed page.css
var pageCSS string

//go:embed page.js
var pageJS string

// Page is what the HTML file shows.
type Page struct {
	Title  string
	Runs   []*Run // one, or two to compare (drawn left to right)
	Params regtime.Params
	Preset string
	// Marks are functions to flag (the report's top functions), by name.
	Marks []Mark
}

// Run is one recorded execution with its compressed threads.
type Run struct {
	Label     string // e.g. "buggy", "normal"
	Trace     *trace.Trace
	Summaries []*regtime.Summary // one per thread of Trace, same order
	// Tracks are value tracks drawn under a thread's calls.
	Tracks map[*trace.Thread][]Track
}

// Track is a variable's sampled values over time in one thread.
type Track struct {
	Name   string    // e.g. "budget (recover, loop)"
	Times  []int64   // ns, on the trace's clock
	Values []float64 // same length as Times
}

// Mark flags a function on the timeline.
type Mark struct {
	Func string // function name as in the traces
	Rank int    // 1 = top
	Note string // shown in the tooltip, e.g. the report's score and pattern
}

// The data block's shape; field names are short because a page can hold
// hundreds of thousands of entries.
type jsonPage struct {
	Title  string     `json:"title"`
	Funcs  []string   `json:"funcs"`
	Runs   []jsonRun  `json:"runs"`
	Marks  []jsonMark `json:"marks"`
	Params jsonParams `json:"params"`
}

type jsonParams struct {
	Preset string  `json:"preset"`
	CDT    float64 `json:"cdt"`
	CGT    float64 `json:"cgt"`
	TTFT   float64 `json:"ttft"`
	Filter float64 `json:"filter"`
}

type jsonMark struct {
	F    int    `json:"f"`
	Rank int    `json:"rank"`
	Note string `json:"note"`
}

type jsonRun struct {
	Label   string       `json:"label"`
	Path    string       `json:"path"`
	Format  string       `json:"format"`
	Span    int64        `json:"span"`
	Threads []jsonThread `json:"threads"`
}

type jsonThread struct {
	Name       string `json:"name"`
	TID        int64  `json:"tid"`
	Start      int64  `json:"start"`
	End        int64  `json:"end"`
	Before     int    `json:"before"`
	After      int    `json:"after"`
	Ratio      int    `json:"ratio"`
	Compressed bool   `json:"compressed"`
	Repairs    string `json:"repairs,omitempty"`
	// E is the entries, flat: start, end, depth, func, n, then n nodes of
	// func, relative depth, cumulative duration (n = 0: a plain call).
	E      []int64     `json:"e"`
	Tracks []jsonTrack `json:"tracks,omitempty"`
}

type jsonTrack struct {
	Name string    `json:"name"`
	T    []int64   `json:"t"`
	V    []float64 `json:"v"`
}

// Write writes the page.
func Write(w io.Writer, p *Page) error {
	data, err := p.data()
	if err != nil {
		return err
	}
	// encoding/json escapes <, > and & as \u003c, \u003e, \u0026 (and
	// U+2028/2029), so no name can close the script element; the page
	// only ever puts names into the DOM as text.
	b, err := json.Marshal(data)
	if err != nil {
		return err
	}
	out := pageHTML
	out = strings.Replace(out, "{{TITLE}}", html.EscapeString(p.Title), 1)
	out = strings.Replace(out, "{{CSS}}", pageCSS, 1)
	out = strings.Replace(out, "{{JS}}", pageJS, 1)
	i := strings.Index(out, "{{DATA}}")
	if i < 0 {
		return fmt.Errorf("timeline: page template without a data slot")
	}
	if _, err := io.WriteString(w, out[:i]); err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return err
	}
	_, err = io.WriteString(w, out[i+len("{{DATA}}"):])
	return err
}

func (p *Page) data() (*jsonPage, error) {
	jp := &jsonPage{Title: p.Title, Funcs: []string{}, Marks: []jsonMark{},
		Params: jsonParams{p.Preset, p.Params.CDT, p.Params.CGT, p.Params.TTFT, p.Params.Filter}}
	ids := map[string]int{}
	gid := func(name string) int {
		if id, ok := ids[name]; ok {
			return id
		}
		id := len(jp.Funcs)
		ids[name] = id
		jp.Funcs = append(jp.Funcs, name)
		return id
	}
	for _, r := range p.Runs {
		if len(r.Summaries) != len(r.Trace.Threads) {
			return nil, fmt.Errorf("timeline: run %s: %d summaries for %d threads", r.Label, len(r.Summaries), len(r.Trace.Threads))
		}
		remap := make([]int64, len(r.Trace.Funcs))
		for i, f := range r.Trace.Funcs {
			remap[i] = -1
			_ = f
		}
		fid := func(f int32) int64 {
			if f < 0 || int(f) >= len(remap) {
				return -1
			}
			if remap[f] < 0 {
				remap[f] = int64(gid(r.Trace.Funcs[f]))
			}
			return remap[f]
		}
		origin := int64(math.MaxInt64)
		end := int64(math.MinInt64)
		for _, th := range r.Trace.Threads {
			origin = min(origin, th.Start)
			end = max(end, th.End)
		}
		if len(r.Trace.Threads) == 0 {
			origin, end = 0, 0
		}
		for _, tracks := range r.Tracks {
			for _, tk := range tracks {
				for _, t := range tk.Times {
					origin, end = min(origin, t), max(end, t)
				}
			}
		}
		jr := jsonRun{Label: r.Label, Path: r.Trace.Path, Format: r.Trace.Format, Span: max(end-origin, 1), Threads: []jsonThread{}}
		for i, th := range r.Trace.Threads {
			s := r.Summaries[i]
			jt := jsonThread{Name: th.Name, TID: th.TID, Start: th.Start - origin, End: th.End - origin,
				Before: s.Before, After: s.After(), Ratio: s.Ratio(), Compressed: s.Compressed, Repairs: repairs(th)}
			e := make([]int64, 0, len(s.Entries)*5+len(s.Nodes)*3)
			for _, en := range s.Entries {
				e = append(e, en.Start-origin, en.End-origin, int64(en.Depth), fid(en.Func), int64(en.NNodes))
				for _, n := range s.Nodes[en.Node : en.Node+en.NNodes] {
					e = append(e, fid(n.Func), int64(n.Depth), n.Dur)
				}
			}
			jt.E = e
			for _, tk := range r.Tracks[th] {
				jk := jsonTrack{Name: tk.Name, T: make([]int64, len(tk.Times)), V: make([]float64, len(tk.Values))}
				for k, t := range tk.Times {
					jk.T[k] = t - origin
				}
				for k, v := range tk.Values {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						v = 0 // JSON has no NaN; a track shows finite values only
					}
					jk.V[k] = v
				}
				jt.Tracks = append(jt.Tracks, jk)
			}
			jr.Threads = append(jr.Threads, jt)
		}
		jp.Runs = append(jp.Runs, jr)
	}
	for _, m := range p.Marks {
		if id, ok := ids[m.Func]; ok {
			jp.Marks = append(jp.Marks, jsonMark{F: id, Rank: m.Rank, Note: m.Note})
		}
	}
	return jp, nil
}

func repairs(th *trace.Thread) string {
	var parts []string
	for _, r := range []struct {
		n    int
		what string
	}{{th.Unmatched, "unmatched exits dropped"}, {th.Unclosed, "unclosed enters closed"}, {th.Backwards, "timestamps out of order clamped"}, {th.Overlaps, "overlapping events clamped"}} {
		if r.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", r.n, r.what))
		}
	}
	return strings.Join(parts, ", ")
}
