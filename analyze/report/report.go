package report

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/vprof/vprof/analyze/rank"
)

// JSON is the stable JSON shape of a report (tests and tools read it).
type JSON struct {
	Functions []RowJSON `json:"functions"`
	// Warnings are those printed on standard error (never null).
	Warnings []string `json:"warnings"`
	// Counts are the call counts of the leading rows' caller/callee pairs
	// and what they decided (method.md D220); absent without counts.
	Counts []CountJSON `json:"counts,omitempty"`
	// NextStep: the first two rows are a caller and its callee that no
	// counts order; which functions to count, and how (also printed on
	// standard error).
	NextStep *NextStepJSON `json:"next_step,omitempty"`
}

// CountJSON is one caller/callee pair's counts (rank.CountPair); -1 where
// a figure is not defined.
type CountJSON struct {
	Caller         string  `json:"caller"`
	Callee         string  `json:"callee"`
	CallerNormal   float64 `json:"caller_calls_normal"`
	CallerSlow     float64 `json:"caller_calls_slow"`
	CalleeNormal   float64 `json:"callee_calls_normal"`
	CalleeSlow     float64 `json:"callee_calls_slow"`
	PerCallNormal  float64 `json:"callee_calls_per_caller_call_normal"`
	PerCallSlow    float64 `json:"callee_calls_per_caller_call_slow"`
	TimeCallNormal float64 `json:"callee_s_per_call_normal"`
	TimeCallSlow   float64 `json:"callee_s_per_call_slow"`
	Above          string  `json:"above"` // "caller", "callee", or "" (nothing moves)
	Why            string  `json:"why"`
}

// NextStepJSON is rank.NextStep.
type NextStepJSON struct {
	Count []string `json:"count"`
	Text  string   `json:"text"`
}

// Extra is what a report says besides its rows: the call counts read and
// the next step (method.md D220).
type Extra struct {
	Counts   []rank.CountPair
	NextStep *rank.NextStep
}

// ExtraOf is res's Extra.
func ExtraOf(res *rank.Result) Extra { return Extra{Counts: res.Counts, NextStep: res.NextStep} }

type RowJSON struct {
	Rank           int     `json:"rank"`
	Function       string  `json:"function"`
	CalibratedCost float64 `json:"calibrated_cost_s"`
	Tie            bool    `json:"tie"`
	RawCost        float64 `json:"raw_cost_s"`
	ExtraCost      float64 `json:"extra_cost_s"`
	PCCost         float64 `json:"pc_cost_s"`
	PlainRank      int     `json:"plain_rank"`
	Discount       float64 `json:"discount"`
	DiscountSource string  `json:"discount_source"`
	Pattern        string  `json:"pattern"`
	PatternReason  string  `json:"pattern_reason"`
	// Placed: why calibrated_cost_s is not the function's own (method.md
	// §7, D10 and D12); empty when it is.
	Placed    string   `json:"placed,omitempty"`
	Variable  string   `json:"variable"`
	Dimension string   `json:"dimension"`
	Locations []string `json:"locations"`
	// Where is Locations with the basic block of each (the table's
	// "where, basic block" column); Via the library functions that
	// carried the cost (its "via" column), every one, largest first.
	Where []WhereJSON `json:"where"`
	Via   []ViaJSON   `json:"via"`
}

type WhereJSON struct {
	File      string  `json:"file"`
	Line      int32   `json:"line"`
	Block     *int    `json:"block"`      // index among the function's basic blocks; null: unknown
	BlockAddr string  `json:"block_addr"` // link-time address of the block, hex
	Samples   float64 `json:"samples"`    // abnormal samples read there
}

type ViaJSON struct {
	Function string  `json:"function"`
	Share    float64 `json:"share"` // of the function's PC cost, 0..1
}

func secs(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }

// source describes where a function's discount came from.
func source(f *rank.Function) string {
	if f.Source == rank.SourceHist {
		return fmt.Sprintf("hist %d/%d", f.HistNear, f.HistPairs)
	}
	if f.Dimension == "" {
		return f.Variable + " (" + f.Reason + ")"
	}
	return f.Variable + " (" + f.Dimension + ")"
}

func locations(f *rank.Function, blocks bool) []string {
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
func via(f *rank.Function, name func(string) string) string {
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

// Write prints the ranked functions fns in format: "table" (a Boxed
// table, long C++ names shortened), "markdown", "csv" or "json" (JSON,
// names whole). warnings go into the JSON only; the command prints them
// on standard error.
func Write(w io.Writer, fns []rank.Function, format string, warnings []string) error {
	return WriteExtra(w, fns, format, warnings, Extra{})
}

// WriteExtra is Write with the call counts and the next step in the JSON,
// and the counts that moved a row in the table's notes (its Placed).
func WriteExtra(w io.Writer, fns []rank.Function, format string, warnings []string, x Extra) error {
	switch format {
	case "json":
		out := JSON{Functions: []RowJSON{}, Warnings: append([]string{}, warnings...)}
		out.Counts = countsJSON(x.Counts)
		if x.NextStep != nil {
			out.NextStep = &NextStepJSON{Count: x.NextStep.Count, Text: x.NextStep.Text}
		}
		for i := range fns {
			f := &fns[i]
			row := RowJSON{
				Rank: f.Rank, Tie: f.Tie, Function: f.Name, CalibratedCost: f.Calibrated, RawCost: f.Raw, ExtraCost: f.Extra, PCCost: f.PCCost,
				PlainRank: f.PlainRank, Discount: f.Discount, DiscountSource: f.Source, Pattern: f.Pattern, PatternReason: f.PatternReason, Placed: f.Placed,
				Variable: f.Variable, Dimension: f.Dimension, Locations: locations(f, false),
				Where: []WhereJSON{}, Via: []ViaJSON{},
			}
			for _, l := range f.Locations {
				wj := WhereJSON{File: l.File, Line: l.Line, BlockAddr: fmt.Sprintf("%#x", l.BlockAddr), Samples: l.Samples}
				if l.Block >= 0 {
					wj.Block = &l.Block
				}
				row.Where = append(row.Where, wj)
			}
			for _, v := range f.Via {
				row.Via = append(row.Via, ViaJSON{Function: v.Func, Share: v.Share})
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
	names = ShortAll(names)
	var placed []string
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
		// shortens them (Short); CSV and JSON keep them whole.
		cal := secs(f.Calibrated)
		if f.Placed != "" {
			// Set by D10 or D12, not from its own cost: said below.
			cal = "*" + cal
			placed = append(placed, "* "+names[i]+": "+f.Placed)
		}
		rows = append(rows, []string{rank, names[i], cal, secs(f.Extra), secs(f.Raw), secs(f.PCCost),
			plain(f.PlainRank), strconv.FormatFloat(f.Discount, 'f', 2, 64), source(f), pattern,
			strings.Join(locations(f, true), ", "), via(f, Short)})
	}
	align := []Align{Right, Left, Right, Right, Right, Right, Right, Right, Left, Left, Left, Left}
	if err := WriteTable(w, StyleOf(format), header, rows, align); err != nil {
		return err
	}
	for _, p := range placed {
		if _, err := fmt.Fprintln(w, p); err != nil {
			return err
		}
	}
	return nil
}

// shortReason is the part of a pattern reason before its first ": " or
// " (" after its first word, for a table cell; --explain and JSON give it whole. A colon or a
// parenthesis inside a word is part of a name the reason starts with
// (C++'s DB::current_memory_tracker->amount, a function's f(int)): cut
// there, the cell kept only the name's first part ("- (DB)"), no reason.
func shortReason(r string) string {
	// Cut after the reason's first word: "page_no: absent when slow"
	// starts with a name, and its cell is the whole reason.
	w := strings.IndexByte(r, ' ')
	if w < 0 {
		return r
	}
	i := strings.Index(r[w:], ": ")
	if j := strings.Index(r[w:], " ("); j >= 0 && (i < 0 || j < i) {
		i = j
	}
	if i >= 0 {
		r = strings.TrimSpace(r[:w+i])
	}
	return r
}

func fmtG(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// Explain prints the variables of the function name (its display name,
// its key, or a C++ name without parameters naming one function): every
// dimension's sample counts, Anderson-Darling statistic and p-value,
// Hellinger distance and discount, in format (as Write's).
func Explain(w io.Writer, res *rank.Result, name, format string) error {
	var f *rank.Function
	for i := range res.Functions {
		if fn := &res.Functions[i]; fn.Name == name || fn.Key == name {
			f = fn
			break
		}
	}
	if f == nil {
		// A C++ name without its parameter list, when it names one
		// function (no overloads among the ranked).
		var same []*rank.Function
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
				if d.Reason == rank.ReasonDiffer || d.Reason == rank.ReasonRunNoise {
					r.Hellinger = ptr(d.Hellinger)
				}
				if d.Reason == rank.ReasonRunNoise {
					r.Note += fmt.Sprintf(": two runs of one kind %.2f apart, the kinds %.2f, no verdict", d.Within, d.Hellinger)
				}
			}
			if d.OK {
				r.Discount = ptr(d.R)
			}
			if !d.Exact {
				r.Note += " (reservoir)"
			}
			// r(f) is v*'s strongest dimension, or, for a driver frame
			// judged by what it held (D313), the dimension named.
			if vv.OK && f.Source == rank.SourceVariable && vv.Name == f.Variable && (vv.HasDim && vv.Dim == d.Dim && vv.R == f.Discount ||
				vv.R != f.Discount && d.OK && d.Dim.String() == f.Dimension && d.R == f.Discount) {
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
			// Counts: the pairs of the leading rows this function is in
			// whose call counts were read (D220).
			Counts []CountJSON `json:"counts,omitempty"`
		}{f.Name, f.Rank, f.Discount, f.Source, f.Variable, f.Dimension, f.Reason, rows, countsJSON(countsOf(res, f))})
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
	if f.Placed != "" {
		fmt.Fprintf(w, "%s: rank %d, calibrated %s s: %s; its own: (1 - %.2f) x extra %s s x (extra / raw %s s); discount from %s: %s\n",
			f.Name, f.Rank, secs(f.Calibrated), f.Placed, f.Discount, secs(f.Extra), secs(f.Raw), source(f), f.Reason)
	} else {
		fmt.Fprintf(w, "%s: rank %d, calibrated %s s = (1 - %.2f) x extra %s s x (extra / raw %s s); discount from %s: %s\n",
			f.Name, f.Rank, secs(f.Calibrated), f.Discount, secs(f.Extra), secs(f.Raw), source(f), f.Reason)
	}
	if f.Pattern != "" {
		fmt.Fprintf(w, "pattern: %s\n", f.Pattern)
	}
	if len(f.Sliver) > 0 {
		fmt.Fprintf(w, "left out of the placements, read during less than a twentieth of its variables' time (D246): %s\n", strings.Join(f.Sliver, ", "))
	}
	for _, p := range countsOf(res, f) {
		fmt.Fprintf(w, "call counts, caller %s, callee %s: %s\n", p.Caller, p.Callee, p.Why)
	}
	if len(rows) == 0 {
		fmt.Fprintln(w, "no variables of this function were sampled")
		return nil
	}
	align := []Align{Left, Left, Left, Left, Right, Right, Right, Right, Right, Right, Left}
	return WriteTable(w, StyleOf(format), header, table, align)
}

func ptr(x float64) *float64 { return &x }

// countsOf are the count pairs f is in.
func countsOf(res *rank.Result, f *rank.Function) []rank.CountPair {
	var out []rank.CountPair
	for _, p := range res.Counts {
		if p.CallerKey == f.Key || p.CalleeKey == f.Key {
			out = append(out, p)
		}
	}
	return out
}

func countsJSON(ps []rank.CountPair) []CountJSON {
	var out []CountJSON
	for _, p := range ps {
		out = append(out, CountJSON{Caller: p.Caller, Callee: p.Callee, CallerNormal: p.CallerNormal, CallerSlow: p.CallerSlow,
			CalleeNormal: p.CalleeNormal, CalleeSlow: p.CalleeSlow, PerCallNormal: p.PerCallNormal, PerCallSlow: p.PerCallSlow,
			TimeCallNormal: p.TimeCallNormal, TimeCallSlow: p.TimeCallSlow, Above: p.Above, Why: p.Why})
	}
	return out
}
