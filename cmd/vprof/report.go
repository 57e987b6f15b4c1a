package main

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/vprof/vprof/analyze"
)

const reportHelp = `
Usage: vprof report [flags] NORMAL BUGGY
       vprof report [flags] --normal A,B,C --buggy D,E,F

Compares normal (baseline) runs with buggy (slow) runs of one program and
ranks the functions most likely to be the root cause of the slowness.

Each function's raw cost (the larger of its PC cost and its variable-based
cost) is calibrated with a discount r in [0,1]: calibrated = (1 - r) x raw.
r comes from the function's most anomalous variable (the variable-
discounter: k-sample Anderson-Darling test and Hellinger distance between
the normal and buggy samples of its values, deltas and durations), or,
for functions without sampled variables, from how similarly it ranks in
normal and buggy runs (the hist-discounter). Variables that look normal
discount their function by 0.8; anomalous ones keep its cost.

The table shows per function: calibrated, raw and PC cost (seconds, means
over the buggy runs), its rank in a plain profile (vprof flat), the
discount and its source (variable and dimension, or hist), the bug pattern
(missing constraint, wrong constraint, scalability) for the top functions,
the source lines and basic blocks where the anomalous values were read,
and the library functions that carried its cost ("via qsort 71%").

Several runs of a kind (--normal/--buggy, comma-separated) make the result
steadier: variable samples are pooled per kind and the hist-discounter
compares every (buggy, normal) pair. Runs of different builds are matched
by function and variable name, with a warning.

Examples:
  vprof record -o normal.vprof -- ./server --config small.conf
  vprof record -o slow.vprof -- ./server --config big.conf
  vprof report normal.vprof slow.vprof
  vprof report --normal n1.vprof,n2.vprof,n3.vprof --buggy b1.vprof,b2.vprof,b3.vprof --top 10
  vprof report --format json normal.vprof slow.vprof > report.json
  vprof report --explain recv_group_scan_log_recs normal.vprof slow.vprof
  vprof report --component storage/innobase/buf/ normal.vprof slow.vprof

--component narrows the analysis to the variables of one part of the
program (a file or a directory, repeatable), as the thesis' evaluation
did with the file that holds the root cause: the program's other
functions are still ranked, by their PC cost and the hist-discounter.
A recording of the whole program can be narrowed this way after the
fact, trying one component after another without recording again. A
recording made with record --component is analysed with its component
without being told. Within a component, code of other files inlined
into its functions (a header's std::find) is their cost, "via" the
inlined function, and the lines shown are always the function's own.

A variable seen once or twice in the normal runs (a test needs 3
samples a side) is judged by how much more often the slow runs read it
("rare when normal"); more or longer normal runs make it a test.
`

func init() {
	register(&command{name: "report", order: 30, summary: "rank root-cause functions of a slow run against a normal run", run: runReport})
}

// reportJSON is the stable JSON shape of a report (tests and tools read it).
type reportJSON struct {
	Functions []reportRowJSON `json:"functions"`
	// Warnings are those printed on standard error (never null).
	Warnings []string `json:"warnings"`
}

type reportRowJSON struct {
	Rank           int      `json:"rank"`
	Function       string   `json:"function"`
	CalibratedCost float64  `json:"calibrated_cost_s"`
	Tie            bool     `json:"tie"`
	RawCost        float64  `json:"raw_cost_s"`
	ExtraCost      float64  `json:"extra_cost_s"`
	PCCost         float64  `json:"pc_cost_s"`
	PlainRank      int      `json:"plain_rank"`
	Discount       float64  `json:"discount"`
	DiscountSource string   `json:"discount_source"`
	Pattern        string   `json:"pattern"`
	PatternReason  string   `json:"pattern_reason"`
	Variable       string   `json:"variable"`
	Dimension      string   `json:"dimension"`
	Locations      []string `json:"locations"`
	// Where is Locations with the basic block of each (the table's
	// "where, basic block" column); Via the library functions that
	// carried the cost (its "via" column), every one, largest first.
	Where []whereJSON `json:"where"`
	Via   []viaJSON   `json:"via"`
}

type whereJSON struct {
	File      string  `json:"file"`
	Line      int32   `json:"line"`
	Block     *int    `json:"block"`      // index among the function's basic blocks; null: unknown
	BlockAddr string  `json:"block_addr"` // link-time address of the block, hex
	Samples   float64 `json:"samples"`    // abnormal samples read there
}

type viaJSON struct {
	Function string  `json:"function"`
	Share    float64 `json:"share"` // of the function's PC cost, 0..1
}

var tableFormats = []string{"table", "json", "csv", "markdown"}

func checkFormat(f string, allowed []string) error {
	for _, a := range allowed {
		if f == a {
			return nil
		}
	}
	return usageErr("--format %q: want one of %s", f, strings.Join(allowed, ", "))
}

// splitList splits a comma-separated list of files, dropping empties.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func runReport(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("report", reportHelp, stdout)
	normalList := fs.String("normal", "", "comma-separated normal (baseline) `profiles`")
	buggyList := fs.String("buggy", "", "comma-separated buggy (slow) `profiles`")
	top := fs.Int("top", 20, "show the top `N` functions (0: all)")
	format := fs.String("format", "table", "output `format`: table, json, csv or markdown")
	explain := fs.String("explain", "", "show the variables of function `FUNC` with each dimension's test")
	o := analyze.DefaultOptions()
	fs.Float64Var(&o.DefaultDiscount, "default-discount", o.DefaultDiscount, "discount `r` of a variable whose samples look normal")
	fs.Float64Var(&o.ValidDiscount, "valid-discount", o.ValidDiscount, "discounts below `r` become 0")
	fs.Float64Var(&o.Alpha, "alpha", o.Alpha, "significance `level` of the Anderson-Darling test")
	fs.IntVar(&o.PatternTop, "patterns", o.PatternTop, "infer the bug pattern of the top `N` functions")
	fs.IntVar(&o.Locations, "locations", o.Locations, "source locations shown per function, at most `N`")
	fs.IntVar(&o.HistWindow, "hist-window", o.HistWindow, "hist-discounter: ranks at most `N` apart count as alike")
	fs.IntVar(&o.MinSamples, "min-samples", o.MinSamples, "a dimension needs `N` samples on each side for a verdict; a variable with none in the normal runs and N in the buggy ones is \"present only when slow\"")
	fs.IntVar(&o.MaxDistinct, "max-distinct", o.MaxDistinct, "distinct values counted exactly per variable and dimension; beyond, a reservoir of `N` samples")
	var comps multiFlag
	fs.Var(&comps, "component", "analyse only variables declared in source files under `PATH`, a file or directory (repeatable; the rule of record --component: see 'vprof schema --help')")
	quiet := fs.Bool("q", false, "no progress on standard error")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkFormat(*format, tableFormats); err != nil {
		return err
	}
	normal, buggy := splitList(*normalList), splitList(*buggyList)
	switch {
	case len(normal) == 0 && len(buggy) == 0 && fs.NArg() == 2:
		normal, buggy = []string{fs.Arg(0)}, []string{fs.Arg(1)}
	case len(normal) > 0 && len(buggy) > 0 && fs.NArg() == 0:
	case len(normal) > 0 || len(buggy) > 0:
		return usageErr("give both --normal and --buggy (and no other arguments), or NORMAL BUGGY")
	default:
		return usageErr("need a normal and a buggy profile: vprof report NORMAL BUGGY")
	}
	if *top < 0 {
		return usageErr("--top %d: want 0 or more", *top)
	}
	switch {
	case o.DefaultDiscount < 0 || o.DefaultDiscount > 1:
		return usageErr("--default-discount %g: want a ratio in [0, 1]", o.DefaultDiscount)
	case o.ValidDiscount < 0 || o.ValidDiscount > 1:
		return usageErr("--valid-discount %g: want a ratio in [0, 1]", o.ValidDiscount)
	case o.Alpha <= 0 || o.Alpha >= 1:
		return usageErr("--alpha %g: want a level in (0, 1)", o.Alpha)
	case o.MinSamples < 1:
		return usageErr("--min-samples %d: want 1 or more", o.MinSamples)
	}
	var progress analyze.Progress
	if !*quiet {
		progress = progressPrinter(stderr)
	}
	o.Components = comps
	res, err := analyze.Analyze(normal, buggy, o, progress)
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "vprof report: warning: %s\n", w)
	}
	if *explain != "" {
		return writeExplain(stdout, res, *explain, *format)
	}
	fns := res.Functions
	if *top > 0 && len(fns) > *top {
		fns = fns[:*top]
	}
	return writeReport(stdout, fns, *format, res.Warnings)
}

// progressPrinter reports progress on large files only (256 MiB and up).
func progressPrinter(w io.Writer) analyze.Progress {
	return func(name string, done, total int64) {
		if total < 256<<20 {
			return
		}
		fmt.Fprintf(w, "vprof: %s: %d of %d MiB read\n", name, done>>20, total>>20)
	}
}

func secs(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }

// source describes where a function's discount came from.
func source(f *analyze.Function) string {
	if f.Source == analyze.SourceHist {
		return fmt.Sprintf("hist %d/%d", f.HistNear, f.HistPairs)
	}
	if f.Dimension == "" {
		return f.Variable + " (" + f.Reason + ")"
	}
	return f.Variable + " (" + f.Dimension + ")"
}

func locations(f *analyze.Function, blocks bool) []string {
	out := []string{}
	for _, l := range f.Locations {
		s := l.String()
		if blocks && l.Block >= 0 {
			s += fmt.Sprintf(" bb%d", l.Block)
		}
		out = append(out, s)
	}
	return out
}

// via lists the functions that carried f's cost; name shapes each (short
// for a table cell, whole for CSV).
func via(f *analyze.Function, name func(string) string) string {
	var parts []string
	for _, v := range f.Via {
		if len(parts) == 2 || v.Share < 0.01 {
			break
		}
		parts = append(parts, fmt.Sprintf("via %s %.0f%%", name(v.Func), 100*v.Share))
	}
	return strings.Join(parts, ", ")
}

func whole(s string) string { return s }

func plain(rank int) string {
	if rank == 0 {
		return "-"
	}
	return strconv.Itoa(rank)
}

func writeReport(w io.Writer, fns []analyze.Function, format string, warnings []string) error {
	switch format {
	case "json":
		out := reportJSON{Functions: []reportRowJSON{}, Warnings: append([]string{}, warnings...)}
		for i := range fns {
			f := &fns[i]
			row := reportRowJSON{
				Rank: f.Rank, Tie: f.Tie, Function: f.Name, CalibratedCost: f.Calibrated, RawCost: f.Raw, ExtraCost: f.Extra, PCCost: f.PCCost,
				PlainRank: f.PlainRank, Discount: f.Discount, DiscountSource: f.Source, Pattern: f.Pattern, PatternReason: f.PatternReason,
				Variable: f.Variable, Dimension: f.Dimension, Locations: locations(f, false),
				Where: []whereJSON{}, Via: []viaJSON{},
			}
			for _, l := range f.Locations {
				wj := whereJSON{File: l.File, Line: l.Line, BlockAddr: fmt.Sprintf("%#x", l.BlockAddr), Samples: l.Samples}
				if l.Block >= 0 {
					wj.Block = &l.Block
				}
				row.Where = append(row.Where, wj)
			}
			for _, v := range f.Via {
				row.Via = append(row.Via, viaJSON{Function: v.Func, Share: v.Share})
			}
			out.Functions = append(out.Functions, row)
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	case "csv":
		cw := csv.NewWriter(w)
		cw.Write([]string{"rank", "tie", "function", "calibrated_cost_s", "raw_cost_s", "extra_cost_s", "pc_cost_s", "plain_rank", "discount",
			"discount_source", "pattern", "pattern_reason", "variable", "dimension", "locations", "via"})
		for i := range fns {
			f := &fns[i]
			cw.Write([]string{strconv.Itoa(f.Rank), strconv.FormatBool(f.Tie), f.Name, fmtG(f.Calibrated), fmtG(f.Raw), fmtG(f.Extra), fmtG(f.PCCost),
				strconv.Itoa(f.PlainRank), fmtG(f.Discount), f.Source, f.Pattern, f.PatternReason, f.Variable, f.Dimension,
				strings.Join(locations(f, true), ";"), via(f, whole)})
		}
		cw.Flush()
		return cw.Error()
	}
	header := []string{"rank", "function", "calibrated s", "extra s", "slow s", "pc s", "plain", "discount", "from", "pattern", "where, basic block", "via"}
	rows := make([][]string, 0, len(fns))
	names := make([]string, len(fns))
	for i := range fns {
		names[i] = fns[i].Name
	}
	// C++ template names run to hundreds of characters: the table
	// shortens them (shortAll); CSV and JSON keep them whole.
	names = shortAll(names)
	for i := range fns {
		f := &fns[i]
		rank := strconv.Itoa(f.Rank)
		if f.Tie {
			rank += "="
		}
		pattern := f.Pattern
		if pattern == "" && f.PatternReason != "" {
			pattern = "- (" + shortReason(f.PatternReason) + ")"
		}
		// C++ template names run to hundreds of characters: the table
		// shortens them (short); CSV and JSON keep them whole.
		rows = append(rows, []string{rank, names[i], secs(f.Calibrated), secs(f.Extra), secs(f.Raw), secs(f.PCCost),
			plain(f.PlainRank), strconv.FormatFloat(f.Discount, 'f', 2, 64), source(f), pattern,
			strings.Join(locations(f, true), ", "), via(f, short)})
	}
	align := tw.Alignment{tw.AlignRight, tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight,
		tw.AlignRight, tw.AlignLeft, tw.AlignLeft, tw.AlignLeft, tw.AlignLeft}
	return renderTable(w, format, header, rows, align)
}

// shortReason is the part of a pattern reason before its first colon
// or parenthesis, for a table cell; --explain and JSON give it whole.
func shortReason(r string) string {
	if i := strings.IndexAny(r, ":("); i > 0 {
		r = strings.TrimSpace(r[:i])
	}
	return r
}

func fmtG(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// renderTable writes rows as an aligned text table or a Markdown table.
func renderTable(w io.Writer, format string, header []string, rows [][]string, align tw.Alignment) error {
	opts := []tablewriter.Option{tablewriter.WithAlignment(align), tablewriter.WithHeaderAlignment(tw.AlignCenter),
		tablewriter.WithHeaderAutoFormat(tw.Off)}
	if format == "markdown" {
		opts = append(opts, tablewriter.WithRenderer(renderer.NewMarkdown()))
	}
	t := tablewriter.NewTable(w, opts...)
	hs := make([]any, len(header))
	for i, h := range header {
		hs[i] = h
	}
	t.Header(hs...)
	if err := t.Bulk(rows); err != nil {
		return err
	}
	return t.Render()
}

// writeExplain prints the variables of one function: every dimension's
// sample counts, Anderson-Darling statistic and p-value, Hellinger distance
// and discount.
func writeExplain(w io.Writer, res *analyze.Result, name, format string) error {
	var f *analyze.Function
	for i := range res.Functions {
		if fn := &res.Functions[i]; fn.Name == name || fn.Key == name {
			f = fn
			break
		}
	}
	if f == nil {
		// A C++ name without its parameter list, when it names one
		// function (no overloads among the ranked).
		var same []*analyze.Function
		for i := range res.Functions {
			if fn := &res.Functions[i]; strings.HasPrefix(fn.Name, name+"(") {
				same = append(same, fn)
			}
		}
		if len(same) == 1 {
			f = same[0]
		}
	}
	if f == nil {
		var close []string
		for _, fn := range res.Functions {
			if strings.Contains(fn.Name, name) && len(close) < 5 {
				close = append(close, fn.Name)
			}
		}
		if len(close) > 0 {
			return fmt.Errorf("no function %q in the buggy runs; did you mean %s?", name, strings.Join(close, ", "))
		}
		return fmt.Errorf("no function %q with cost in the buggy runs", name)
	}
	type dimRow struct {
		Variable  string   `json:"variable"`
		Tags      string   `json:"tags"`
		Type      string   `json:"type"`
		Dimension string   `json:"dimension"`
		Normal    float64  `json:"normal_samples"`
		Buggy     float64  `json:"buggy_samples"`
		Statistic *float64 `json:"statistic"`
		P         *float64 `json:"p"`
		Hellinger *float64 `json:"hellinger"`
		Discount  *float64 `json:"discount"`
		Note      string   `json:"note"`
	}
	// The most anomalous variables first, locals before globals.
	vars := slices.Clone(f.Vars)
	slices.SortStableFunc(vars, func(x, y int) int {
		vx, vy := &res.Variables[x], &res.Variables[y]
		if vx.OK != vy.OK {
			if vx.OK {
				return -1
			}
			return 1
		}
		if vx.OK && vx.R != vy.R {
			return cmp.Compare(vx.R, vy.R)
		}
		if vx.Global != vy.Global {
			if vy.Global {
				return -1
			}
			return 1
		}
		return strings.Compare(vx.Name, vy.Name)
	})
	var rows []dimRow
	for _, j := range vars {
		vv := &res.Variables[j]
		name := vv.Name
		if vv.Global {
			name += " (global)"
		}
		if len(vv.Dims) == 0 {
			r := dimRow{Variable: name, Tags: vv.Tags, Type: vv.Type, Normal: vv.Normal, Buggy: vv.Buggy, Note: vv.Reason}
			if vv.OK {
				r.Discount = ptr(vv.R)
			}
			rows = append(rows, r)
			continue
		}
		for _, d := range vv.Dims {
			r := dimRow{Variable: name, Tags: vv.Tags, Type: vv.Type, Dimension: d.Dim.String(), Normal: d.Normal, Buggy: d.Buggy, Note: d.Reason}
			if d.Tested {
				r.Statistic, r.P = ptr(d.Statistic), ptr(d.P)
				if d.Reason == analyze.ReasonDiffer || d.Reason == analyze.ReasonRunNoise {
					r.Hellinger = ptr(d.Hellinger)
				}
				if d.Reason == analyze.ReasonRunNoise {
					r.Note += fmt.Sprintf(": two runs of one kind %.2f apart, the kinds %.2f, no verdict", d.Within, d.Hellinger)
				}
			}
			if d.OK {
				r.Discount = ptr(d.R)
			}
			if !d.Exact {
				r.Note += " (reservoir)"
			}
			if vv.OK && vv.HasDim && vv.Dim == d.Dim && f.Source == analyze.SourceVariable && vv.Name == f.Variable {
				r.Note += "  <- r(f)"
			}
			rows = append(rows, r)
		}
	}
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Function  string   `json:"function"`
			Rank      int      `json:"rank"`
			Discount  float64  `json:"discount"`
			Source    string   `json:"discount_source"`
			Variable  string   `json:"variable"`
			Dimension string   `json:"dimension"`
			Reason    string   `json:"reason"`
			Variables []dimRow `json:"variables"`
		}{f.Name, f.Rank, f.Discount, f.Source, f.Variable, f.Dimension, f.Reason, rows})
	}
	opt := func(p *float64, prec int) string {
		if p == nil {
			return "-"
		}
		return strconv.FormatFloat(*p, 'f', prec, 64)
	}
	header := []string{"variable", "tags", "type", "dimension", "normal n", "buggy n", "AD statistic", "p", "hellinger", "discount", "note"}
	var table [][]string
	for _, r := range rows {
		table = append(table, []string{r.Variable, r.Tags, r.Type, r.Dimension, fmtG(r.Normal), fmtG(r.Buggy),
			opt(r.Statistic, 3), opt(r.P, 4), opt(r.Hellinger, 3), opt(r.Discount, 2), r.Note})
	}
	if format == "csv" {
		cw := csv.NewWriter(w)
		cw.Write(header)
		cw.WriteAll(table)
		return cw.Error()
	}
	fmt.Fprintf(w, "%s: rank %d, calibrated %s s = (1 - %.2f) x raw %s s; discount from %s: %s\n",
		f.Name, f.Rank, secs(f.Calibrated), f.Discount, secs(f.Raw), source(f), f.Reason)
	if f.Pattern != "" {
		fmt.Fprintf(w, "pattern: %s\n", f.Pattern)
	}
	if len(rows) == 0 {
		fmt.Fprintln(w, "no variables of this function were sampled")
		return nil
	}
	align := tw.Alignment{tw.AlignLeft, tw.AlignLeft, tw.AlignLeft, tw.AlignLeft, tw.AlignRight, tw.AlignRight,
		tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignLeft}
	return renderTable(w, format, header, table, align)
}

func ptr(x float64) *float64 { return &x }
