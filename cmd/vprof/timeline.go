package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/vprof/vprof/analyze/rank"
	"github.com/vprof/vprof/analyze/regtime"
	"github.com/vprof/vprof/analyze/report"
	"github.com/vprof/vprof/analyze/timeline"
	"github.com/vprof/vprof/analyze/trace"
)

const timelineHelp = `
Usage: vprof timeline [-o FILE.html] [flags] INPUT [--compare NORMAL]

Writes one self-contained HTML page (no network: code, style and data
inline) showing what every thread did over time: one row per thread, time
across, call depth up. Runs of short calls are compressed with RegTime
(NonSequitur) into black-outlined expressions that hold their merged
callstacks, widths by cumulative duration; long calls and long idle gaps
stay visible. The page has a legend (click to highlight a function),
thread selection, search, tooltips, linked highlighting of a hovered
interval across threads, zoom (wheel) and pan (drag), and a linear/
nonlinear time axis toggle.

INPUT is a vprof profile (sampled stacks become calls), a DINAMITE text
trace ('tid func dir time'), a NonSequitur trace folder (one file per
thread, 'DIR FUNC TIMESTAMP_NS') or Chrome trace-event JSON (llvm-xray
convert --output-format=trace_event, Perfetto, Chrome). The format is
detected; --input-format names it.

Thresholds are fractions of each thread's span, in percent: --preset
thesis is CDT 1, CGT 0.1, TTFT 13 with functions of at most 1% cumulative
time dropped first; --preset later is 0.5, 0.1, 2 dropping only functions
that never took time (the authors' code). A thread is compressed only if
it has more than 325 trace records (a call without children is one, a
call with children two: its enter and its exit).

With --report (vprof profiles, --compare NORMAL), the top functions of
'vprof report' that keep a cost once discounted are marked (a red corner
once per plain call or expression, #rank in the legend, the report's
reason in the tooltip) and each thread gets value tracks: the sampled
values over time of the most anomalous variables (the v* of the top
functions first), each saying how unlike the normal run its values are
(its discount: 0 nothing alike, 0.8 and up no difference found).

Every call and expression node is drawn at least 4 px wide, as
NonSequitur does; with --compare the runs share one time scale and each
run's axis ends at its own end.

Examples:
  vprof timeline -o slow.html buggy.vprof --compare normal.vprof --report
  vprof timeline --stats trace.json
  llvm-xray convert --symbolize --instr_map=./app --output-format=trace_event xray-log.app.* > app.json
  vprof timeline -o app.html app.json
`

func init() {
	register(&command{name: "timeline", order: 50, summary: "write per-thread RegTime timelines as one HTML page", run: runTimeline})
}

// pctFlag is a percentage flag that remembers whether it was set.
type pctFlag struct {
	v   float64
	set bool
}

func (p *pctFlag) String() string { return "" }
func (p *pctFlag) Set(s string) error {
	var v float64
	if _, err := fmt.Sscanf(s, "%g", &v); err != nil || v < 0 || v > 100 {
		return fmt.Errorf("want a percentage between 0 and 100, got %q", s)
	}
	p.v, p.set = v/100, true
	return nil
}

func runTimeline(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("timeline", timelineHelp, stdout)
	out := fs.String("o", "", "output `file` (default timeline.html; with --stats, none unless given)")
	compare := fs.String("compare", "", "a `NORMAL` run to draw beside INPUT on a comparable axis")
	stats := fs.Bool("stats", false, "print per thread: calls before, entries after, compression ratio")
	preset := fs.String("preset", "thesis", "RegTime thresholds `NAME`: thesis or later")
	format := fs.String("input-format", "", "input `FORMAT`: vprof, dinamite, nonsequitur or chrome (default: detect)")
	title := fs.String("title", "", "page `TITLE` (default: from the inputs)")
	var cdt, cgt, ttft, filter pctFlag
	fs.Var(&cdt, "cdt", "CallDurationThresh, `percent` of a thread's span (overrides the preset)")
	fs.Var(&cgt, "cgt", "CallGapThresh, `percent` of a thread's span (overrides the preset)")
	fs.Var(&ttft, "ttft", "TotalTimeFractionThresh, `percent` of a thread's span (overrides the preset)")
	fs.Var(&filter, "filter", "drop functions with at most this cumulative `percent` of a thread's span (0: only functions that never took time; overrides the preset)")
	minRecords := fs.Int("min-records", -1, "compress only threads with more than this many trace `records`: one per call without children, two per call with children (default 325)")
	mark := fs.Bool("report", false, "mark the top functions of 'vprof report' and add value tracks of the most anomalous variables (needs --compare NORMAL; vprof profiles)")
	top := fs.Int("top", 10, "with --report: how many top `functions` to mark")
	nvars := fs.Int("vars", 3, "with --report: how many anomalous `variables` to track")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErr("want exactly one INPUT, got %d arguments", fs.NArg())
	}
	p, err := regtime.Preset(*preset)
	if err != nil {
		return usageErr("%v", err)
	}
	for _, o := range []struct {
		f   *pctFlag
		dst *float64
	}{{&cdt, &p.CDT}, {&cgt, &p.CGT}, {&ttft, &p.TTFT}, {&filter, &p.Filter}} {
		if o.f.set {
			*o.dst = o.f.v
		}
	}
	if *minRecords >= 0 {
		p.MinRecords = *minRecords
	}
	switch *format {
	case "", "vprof", "dinamite", "nonsequitur", "chrome":
	default:
		return usageErr("unknown --input-format %q (want vprof, dinamite, nonsequitur or chrome)", *format)
	}

	var res *rank.Result
	var vars []timeline.VarRef
	if *mark {
		if *compare == "" {
			return usageErr("--report compares runs: give --compare NORMAL")
		}
		for _, in := range []string{*compare, fs.Arg(0)} {
			if f, err := inputFormat(in, *format); err != nil {
				return err
			} else if f != "vprof" {
				return usageErr("--report needs vprof profiles; %s is %s", in, f)
			}
		}
		res, err = rank.Analyze([]string{*compare}, []string{fs.Arg(0)}, rank.DefaultOptions(), nil)
		if err != nil {
			return err
		}
		vars = report.Vars(res, *nvars)
	}

	page := &timeline.Page{Params: p, Preset: *preset}
	if res != nil {
		page.Marks = report.Marks(res, *top)
	}
	if set(fs, "cdt") || set(fs, "cgt") || set(fs, "ttft") || set(fs, "filter") || set(fs, "min-records") {
		page.Preset += " with overrides"
	}
	buggy, err := loadRun(fs.Arg(0), *format, p, vars)
	if err != nil {
		return err
	}
	page.Title = "vprof timeline: " + filepath.Base(fs.Arg(0))
	if *compare != "" {
		normal, err := loadRun(*compare, *format, p, vars)
		if err != nil {
			return err
		}
		normal.Label, buggy.Label = "normal", "buggy"
		page.Runs = []*timeline.Run{normal, buggy}
		page.Title = "vprof timeline: " + filepath.Base(*compare) + " (normal) vs " + filepath.Base(fs.Arg(0)) + " (buggy)"
	} else {
		page.Runs = []*timeline.Run{buggy}
	}
	if *title != "" {
		page.Title = *title
	}

	if *stats {
		// entries: plain calls and expressions, as the authors' output
		// lists them; size: plain calls and trie nodes, for the ratio.
		header := []string{"run", "thread", "calls before", "records", "entries", "size after", "ratio"}
		var rows [][]string
		for _, r := range page.Runs {
			for _, s := range r.Summaries {
				note := ""
				if !s.Compressed {
					note = " (uncompressed)"
				}
				rows = append(rows, []string{r.Label, s.Thread.Name, strconv.Itoa(s.Before), strconv.Itoa(s.Records), strconv.Itoa(len(s.Entries)),
					strconv.Itoa(s.After()), strconv.Itoa(s.Ratio()) + note})
			}
		}
		if err := report.WriteTable(stdout, report.Plain, header, rows, nil); err != nil {
			return err
		}
		if *out == "" {
			return nil
		}
	}
	path := *out
	if path == "" {
		path = "timeline.html"
	}
	if err := writePage(path, page); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %s\n", path)
	return nil
}

func set(fs *flag.FlagSet, name string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

func inputFormat(path, format string) (string, error) {
	if format != "" {
		return format, nil
	}
	return trace.Detect(path)
}

// loadRun reads and compresses one input, with value tracks of vars.
func loadRun(path, format string, p regtime.Params, vars []timeline.VarRef) (*timeline.Run, error) {
	format, err := inputFormat(path, format)
	if err != nil {
		return nil, err
	}
	if format == "vprof" || trace.Streams(format) {
		// Profiles and text traces run to tens of millions of calls:
		// read twice, keeping none (memory grows with functions, not
		// calls).
		var (
			tr     *trace.Trace
			sums   []*regtime.Summary
			tracks map[*trace.Thread][]timeline.Track
		)
		if format == "vprof" {
			tr, sums, tracks, err = timeline.StreamProfile(path, vars, p)
		} else {
			tr, sums, err = regtime.StreamFile(path, format, p)
		}
		if err != nil {
			return nil, err
		}
		if len(tr.Threads) == 0 {
			return nil, fmt.Errorf("%s: no calls in the input", path)
		}
		return &timeline.Run{Label: filepath.Base(path), Trace: tr, Summaries: sums, Tracks: tracks}, nil
	}
	var tr *trace.Trace
	var tracks map[*trace.Thread][]timeline.Track
	if format == "vprof" {
		tr, tracks, err = timeline.ReadProfileWithTracks(path, vars)
	} else {
		tr, err = trace.Open(path, format)
	}
	if err != nil {
		return nil, err
	}
	if len(tr.Threads) == 0 {
		return nil, fmt.Errorf("%s: no calls in the input", path)
	}
	return &timeline.Run{Label: filepath.Base(path), Trace: tr, Summaries: regtime.All(tr, p), Tracks: tracks}, nil
}

func writePage(path string, page *timeline.Page) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = timeline.Write(bw, page)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}
