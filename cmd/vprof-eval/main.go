package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/ianlancetaylor/demangle"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/vprof/vprof/runtime/symname"
	"github.com/vprof/vprof/sampler/callcount"
	"github.com/vprof/vprof/testprogs"
)

// Row is one program's line of the scoreboard: one set of recordings,
// analysed whole-program (the headline) and narrowed to the component.
type Row struct {
	Program   string `json:"program"`
	Issue     string `json:"issue"`
	RootCause string `json:"root_cause"`
	// Whole is `vprof report` on the recordings, with no --component: what
	// a user who does not know the component gets. The headline.
	Whole Analysis `json:"vprof"`
	// Comp is the same recordings analysed with --component Component, the
	// thesis' protocol after the fact; zero (Rank 0) if the program names
	// no component.
	Comp Analysis `json:"component"`
	// ThesisRank is vProf's rank of this bug's root cause in the thesis
	// (Table 3.3 of the vProf chapter), from the manifest; 0 for a bug the
	// thesis did not evaluate.
	ThesisRank int `json:"thesis_rank,omitempty"`
	// PlainRank is the root cause's rank in a plain PC profile of the buggy
	// runs (vprof flat), as the whole-program report gives it.
	PlainRank int    `json:"plain_rank"`
	GprofRank int    `json:"gprof_rank"`
	Expected  string `json:"expected_pattern"`
	// Share is the root cause's share of the slowdown, in percent: the
	// growth of the samples with it on the stack over the growth of all
	// samples, means of the buggy over the normal runs; -1 if unknown.
	// Where it is low, most of the slow run's extra time is elsewhere.
	Share float64 `json:"root_share"`
	Err   string  `json:"error,omitempty"`
	// GprofNote says why gprof gave no rank (a program that writes no
	// gmon.out); vprof's columns stand.
	GprofNote string  `json:"gprof_note,omitempty"`
	Seconds   float64 `json:"seconds"` // to evaluate this program
	// Component is the manifest's component (relative to testprogs/): the
	// --component path of the Comp analysis, "" if none.
	Component string `json:"component_path,omitempty"`
	// RecordComponent says the runs were recorded with --component
	// (-record-component), so Whole saw the component's variables only.
	RecordComponent bool `json:"record_component,omitempty"`
	// Unmonitored are the key variables outside the component, which the
	// thesis' protocol leaves out.
	Unmonitored []string `json:"unmonitored,omitempty"`
	// Counts (-counts) is the second protocol, "whole-program with
	// counts": the functions the whole-program report says to count (its
	// next step) counted in one more normal and one more slow run
	// (vprof record --count), and the report of the runs with those two
	// added; the same as Whole where the report names none. Counted are
	// the functions counted. Nil without -counts.
	Counts  *Analysis `json:"counts,omitempty"`
	Counted []string  `json:"counted,omitempty"`
}

// Analysis is where one `vprof report` of a program's recordings ranks the
// root cause.
type Analysis struct {
	Rank     int    `json:"rank"` // 0: not ranked
	Pattern  string `json:"pattern"`
	LineDist int    `json:"line_distance"` // -1: no location, or one in another file than the root cause's
	Location string `json:"location"`
	// Above are (up to 3 of) the functions ranked above the root cause,
	// with where their discounts came from: what a method change would have
	// to move. RootCost is the root cause's calibrated cost.
	Above    []Above `json:"above,omitempty"`
	RootCost float64 `json:"root_cost_s,omitempty"`
}

// Above is a function ranked above the root cause.
type Above struct {
	Function string  `json:"function"`
	Cost     float64 `json:"calibrated_cost_s"`
	Discount float64 `json:"discount"`
	Source   string  `json:"source"` // "variable dimension", or hist
}

func (a Above) String() string {
	return fmt.Sprintf("%s (%.3f s, r %.2f from %s)", shortName(a.Function), a.Cost, a.Discount, a.Source)
}

type config struct {
	vprof, root, out string
	runs             int
	progs            map[string]bool
	gprof            bool
	recordComponent  bool     // record with --component (the old protocol), not whole
	interval         string   // vprof record --interval, "" for its default
	reuse            bool     // analyse the profiles already in out, record nothing
	counts           bool     // the second protocol, whole-program with counts (Row.Counts)
	reportFlags      []string // extra vprof report flags
	recordFlags      []string // extra vprof record flags
	log              io.Writer
}

func main() {
	var c config
	flag.StringVar(&c.vprof, "vprof", "bin/vprof", "the vprof `binary` to evaluate")
	flag.StringVar(&c.out, "out", "out/eval", "`directory` for profiles and logs")
	flag.IntVar(&c.runs, "runs", 3, "runs of each kind (normal, buggy) per program")
	only := flag.String("only", "", "comma-separated `programs` (default: all in the manifest)")
	flag.BoolVar(&c.gprof, "gprof", true, "also rank with gprof on the -pg builds")
	flag.BoolVar(&c.recordComponent, "record-component", false, "record with --component set to the root cause's file, as the thesis (and this scoreboard before) did, instead of recording the whole program and narrowing after the fact; for comparison: the vprof column then analyses component recordings")
	format := flag.String("format", "table", "table or json")
	flag.StringVar(&c.interval, "interval", "", "vprof record --interval `D` (default: vprof's, 1ms)")
	flag.BoolVar(&c.reuse, "reuse", false, "record nothing: analyse the profiles (and gprof data) an earlier run left in -out, both ways, so that analyzer changes and -report-flags compare on the same samples (recordings made with --component need -record-component)")
	flag.BoolVar(&c.counts, "counts", false, "also score \"whole-program with counts\" (an extra column; the headline is unchanged): where the whole-program report's first rows are a caller and its callee, record one more normal and one more slow run with vprof record --count of the functions it names, and report again with them (docs/method.md D220); with -reuse, the counted runs an earlier -counts left are reused, and recorded where missing")
	reportFlags := flag.String("report-flags", "", "extra `flags` for vprof report, e.g. \"--default-discount 0.7\" (the thesis' sensitivity study, §3.5.3)")
	recordFlags := flag.String("record-flags", "", "extra `flags` for vprof record, e.g. \"--sampler ptrace\"")
	expected := flag.String("expected", "", "print what `program` reproduces (the manifest's issue, root cause, line and pattern) and exit; with -verdict, whether a report found them (make demo)")
	verdict := flag.String("verdict", "", "with -expected: the `report` (vprof report --format json, every function) to judge")
	trials := flag.Int("trials", 1, "repeat the whole evaluation `N` times and print each program's ranks and patterns over the trials (sampling makes single trials vary)")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, `Usage: vprof-eval [flags]

The scoreboard: root-cause rank by vprof, by a plain PC profile and by gprof
for every program of testprogs/manifest.json.

vprof records each program once per trial, whole (no --component), and
analyses the recordings twice:
  vprof      vprof report, with no --component: what a user who does not
             know where the bug is gets (the headline)
  component  vprof report --component FILE, FILE being the source file that
             contains the root-cause function (the manifest's "component"):
             the thesis' evaluation protocol (Table 3.2 of the vProf
             chapter), applied after the fact
-record-component records with --component instead, as the thesis (and
this scoreboard before) did: variables of other files are then not sampled
at all, so both columns analyse the component's variables.

The footer gives the goal next to the result: the root cause 1st in 90%% of
the program-trials, whole-program, and never below its plain-profile rank.

Examples:
  vprof-eval -trials 3                    # make eval: every program, 3 trials
  vprof-eval -only lru_scan,var_range -runs 1
  vprof-eval -trials 3 -reuse -report-flags '--hist-window 2'
                                          # the same recordings, analysed otherwise
  vprof-eval -record-component -out out/eval-component
                                          # the old protocol, for comparison
  vprof-eval -expected var_range -verdict report.json
                                          # make demo's verdict on a report

Flags:
`)
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "vprof-eval: unexpected argument %q\n", flag.Arg(0))
		flag.Usage()
		os.Exit(1)
	}
	if *format != "table" && *format != "json" {
		fmt.Fprintf(os.Stderr, "vprof-eval: -format %q: want table or json\n", *format)
		os.Exit(1)
	}
	if *expected != "" || *verdict != "" {
		if err := printExpected(os.Stdout, *expected, *verdict); err != nil {
			fmt.Fprintln(os.Stderr, "vprof-eval:", err)
			os.Exit(2)
		}
		return
	}
	c.root = testprogs.Root()
	c.log = os.Stderr
	c.reportFlags = strings.Fields(*reportFlags)
	c.recordFlags = strings.Fields(*recordFlags)
	if *only != "" {
		c.progs = map[string]bool{}
		for _, p := range strings.Split(*only, ",") {
			c.progs[p] = true
		}
	}
	if c.progs != nil {
		progs, err := testprogs.Manifest()
		if err != nil {
			fmt.Fprintln(os.Stderr, "vprof-eval:", err)
			os.Exit(2)
		}
		for name := range c.progs {
			if !slices.ContainsFunc(progs, func(p testprogs.Program) bool { return p.Name == name }) {
				fmt.Fprintf(os.Stderr, "vprof-eval: -only: no program %q in the manifest\n", name)
				os.Exit(1)
			}
		}
	}
	if *trials < 1 {
		fmt.Fprintf(os.Stderr, "vprof-eval: -trials %d: want at least 1\n", *trials)
		os.Exit(1)
	}
	if *trials == 1 {
		rows, err := evaluate(c)
		if err != nil {
			fmt.Fprintln(os.Stderr, "vprof-eval:", err)
			os.Exit(2)
		}
		if *format == "json" {
			json.NewEncoder(os.Stdout).Encode(rows)
			return
		}
		printTable(os.Stdout, rows)
		return
	}
	var all [][]Row
	out := c.out
	for t := 1; t <= *trials; t++ {
		fmt.Fprintf(c.log, "vprof-eval: trial %d of %d\n", t, *trials)
		c.out = filepath.Join(out, fmt.Sprintf("trial-%d", t))
		rows, err := evaluate(c)
		if err != nil {
			fmt.Fprintln(os.Stderr, "vprof-eval:", err)
			os.Exit(2)
		}
		all = append(all, rows)
	}
	if *format == "json" {
		json.NewEncoder(os.Stdout).Encode(all)
		return
	}
	printTrials(os.Stdout, all)
}

func evaluate(c config) ([]Row, error) {
	progs, err := testprogs.Manifest()
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(c.vprof) {
		c.vprof = filepath.Join(c.root, c.vprof)
	}
	if !filepath.IsAbs(c.out) {
		c.out = filepath.Join(c.root, c.out)
	}
	var rows []Row
	for _, p := range progs {
		if c.progs != nil && !c.progs[p.Name] {
			continue
		}
		start := time.Now()
		fmt.Fprintf(c.log, "vprof-eval: %s (%s) ...", p.Name, p.Issue)
		row := evalProgram(c, p)
		row.Seconds = time.Since(start).Seconds()
		if row.Err != "" {
			fmt.Fprintf(c.log, " error: %s\n", row.Err)
		} else {
			fmt.Fprintf(c.log, " vprof %s, component %s, plain %s, gprof %s (%.0fs)\n", rankStr(row.Whole.Rank), compRankStr(row), rankStr(row.PlainRank), rankStr(row.GprofRank), row.Seconds)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func evalProgram(c config, p testprogs.Program) Row {
	row := Row{Program: p.Name, Issue: p.Issue, RootCause: p.RootCauseDisplay, Expected: string(p.Pattern), Share: -1,
		ThesisRank: p.ThesisRank, Component: p.Component, RecordComponent: c.recordComponent && p.Component != "",
		Whole: Analysis{LineDist: -1}, Comp: Analysis{LineDist: -1}}
	if row.RootCause == "" {
		row.RootCause = p.RootCauseFunction
	}
	if link, disp := reportedRoot(p); link != p.RootCauseFunction {
		row.RootCause = "(host) " + disp
	}
	for _, v := range p.KeyVariables {
		if !p.InComponent(v) {
			row.Unmonitored = append(row.Unmonitored, v.Name)
		}
	}
	bin := filepath.Join(c.root, "testprogs", "bin", p.Name)
	dir := filepath.Join(c.out, p.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		row.Err = err.Error()
		return row
	}
	record := recordArgs(c, p)
	var normal, buggy []string
	// Interleave the kinds so machine load drifts hit both alike.
	for i := 1; i <= c.runs; i++ {
		for _, mode := range []string{"normal", "buggy"} {
			out := filepath.Join(dir, fmt.Sprintf("%s-%d.data", mode, i))
			if c.reuse {
				if _, err := os.Stat(out); err != nil {
					row.Err = fmt.Sprintf("-reuse: %v (record it first: vprof-eval without -reuse, same -out and -runs)", err)
					return row
				}
			} else {
				args := append(slices.Clone(record), "-o", out, "--", bin, mode)
				cmd := exec.Command(c.vprof, args...)
				var stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = io.Discard, &stderr
				if err := cmd.Run(); err != nil {
					row.Err = fmt.Sprintf("record %s: %v: %s", mode, err, lastLine(stderr.String()))
					return row
				}
			}
			if mode == "normal" {
				normal = append(normal, out)
			} else {
				buggy = append(buggy, out)
			}
		}
	}
	if c.reuse {
		// Recordings made with --component look like whole ones to vprof
		// report; analysed as whole, they would score the old protocol
		// under the headline's name.
		comp, err := recordedComponent(c, normal[0])
		switch {
		case err != nil:
			row.Err = "-reuse: " + err.Error()
			return row
		case comp && !row.RecordComponent:
			row.Err = "-reuse: " + normal[0] + " was recorded with --component: add -record-component, or record again"
			return row
		case !comp && row.RecordComponent:
			row.Err = "-reuse: " + normal[0] + " was recorded whole: drop -record-component"
			return row
		}
	}
	var err error
	if row.Whole, row.PlainRank, err = analyse(c, p, normal, buggy, nil, filepath.Join(dir, "report.json")); err != nil {
		row.Err = err.Error()
		return row
	}
	if c.counts {
		if err := countProtocol(c, p, &row, bin, dir, normal, buggy); err != nil {
			row.Err = "counts: " + err.Error()
			return row
		}
	}
	if p.Component != "" {
		var plain int
		// The path from testprogs/ down matches the recorded binary's
		// DWARF paths at a directory boundary wherever it was built: a
		// -reuse of recordings made in another checkout analyses the same
		// files (an absolute path of this checkout would match none).
		comp := filepath.Join("testprogs", p.Component)
		if row.Comp, plain, err = analyse(c, p, normal, buggy, []string{"--component", comp}, filepath.Join(dir, "report-component.json")); err != nil {
			row.Err = "component " + err.Error()
			return row
		}
		if row.PlainRank == 0 {
			// The plain profile is the same either way, but a
			// whole-program report that leaves the root cause out gives
			// no rank for it.
			row.PlainRank = plain
		}
	}
	// The share is the root cause's own: exported stacks carry inlined frames.
	share := p.RootCauseDisplay
	if share == "" {
		share = p.RootCauseFunction
	}
	row.Share = rootShare(c, normal, buggy, share)
	if c.gprof {
		row.GprofRank = gprofRank(c, p, dir, &row)
	}
	return row
}

// countProtocol is -counts (Row.Counts): the functions the whole-program
// report (report.json) says to count, those of them the binary has a
// symbol for, counted in one more normal and one more slow run recorded
// as the others (one each: the counts are exact, and the report reads
// the counted runs' counts, not their samples), and the report of all
// the runs. New runs rather than counting during the sampled ones: a
// counted call costs a trap, which the samples would hold (D202).
func countProtocol(c config, p testprogs.Program, row *Row, bin, dir string, normal, buggy []string) error {
	os.Remove(filepath.Join(dir, "report-counts.json")) // an earlier -counts', stale
	data, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		return err
	}
	var rep struct {
		NextStep *struct {
			Count []string `json:"count"`
		} `json:"next_step"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		return fmt.Errorf("report.json: %w", err)
	}
	a := row.Whole
	row.Counts = &a
	if rep.NextStep == nil {
		return nil // nothing to count: the headline's report
	}
	for _, f := range rep.NextStep.Count {
		if _, err := callcount.Resolve(bin, []string{f}); err == nil {
			row.Counted = append(row.Counted, f)
		}
	}
	if len(row.Counted) < 2 {
		return nil
	}
	record := append(recordArgs(c, p), "--count", strings.Join(row.Counted, ","))
	var extra [2]string
	for i, mode := range []string{"normal", "buggy"} {
		out := filepath.Join(dir, mode+"-count.data")
		extra[i] = out
		if c.reuse && sameCount(c, out, row.Counted) {
			continue
		}
		cmd := exec.Command(c.vprof, append(slices.Clone(record), "-o", out, "--", bin, mode)...)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("record --count %s: %v: %s", mode, err, lastLine(stderr.String()))
		}
	}
	an, _, err := analyse(c, p, append(slices.Clone(normal), extra[0]), append(slices.Clone(buggy), extra[1]), nil, filepath.Join(dir, "report-counts.json"))
	if err != nil {
		return err
	}
	row.Counts = &an
	return nil
}

// sameCount reports whether the profile at path exists and counted funcs
// (vprof info's "counted:" line).
func sameCount(c config, path string, funcs []string) bool {
	if _, err := os.Stat(path); err != nil {
		return false
	}
	out, err := exec.Command(c.vprof, "info", path).Output()
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "counted:" {
			return f[1] == strings.Join(funcs, ",")
		}
	}
	return false
}

// printExpected prints what the manifest says program reproduces, and with
// a report file, where that report ranks the root cause and which pattern
// it gives it.
func printExpected(w io.Writer, program, report string) error {
	if program == "" {
		return fmt.Errorf("-verdict needs -expected PROGRAM")
	}
	p, err := testprogs.Lookup(program)
	if err != nil {
		return err
	}
	root := p.RootCauseDisplay
	if root == "" {
		root = p.RootCauseFunction
	}
	if report == "" {
		fmt.Fprintf(w, "%s reproduces %s (%s): normal: %s; buggy: %s.\n", p.Name, p.Issue, p.Application, p.Normal, p.Buggy)
		fmt.Fprintf(w, "expected: root cause %s, at %s:%d; pattern %s.\n", root, filepath.Base(p.Source), p.RootCauseLine, p.Pattern)
		return nil
	}
	data, err := os.ReadFile(report)
	if err != nil {
		return err
	}
	a, _, err := findRoot(p, data)
	if err != nil {
		return fmt.Errorf("%s: %w", report, err)
	}
	rank := "not ranked"
	if a.Rank > 0 {
		rank = "ranked " + ordinal(a.Rank)
	}
	fmt.Fprintf(w, "vprof: root cause %s (expected 1st), pattern %s (expected %s)", rank, orDash(a.Pattern), p.Pattern)
	if a.LineDist >= 0 {
		fmt.Fprintf(w, ", %d lines from line %d", a.LineDist, p.RootCauseLine)
	}
	fmt.Fprintln(w, ".")
	return nil
}

// ordinal writes n as 1st, 2nd, 3rd, 4th, ... 11th, 12th, 13th, 21st.
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

// recordedObject matches vprof info's line of the program object of a
// recording made with --component.
var recordedObject = regexp.MustCompile(`(?m)^\s+0 .*\(program, .*, component `)

// recordedComponent reports whether the profile was recorded with --component.
func recordedComponent(c config, profile string) (bool, error) {
	out, err := exec.Command(c.vprof, "info", profile).Output()
	if err != nil {
		return false, fmt.Errorf("vprof info %s: %w", profile, err)
	}
	return recordedObject.Match(out), nil
}

// analyse runs `vprof report` (with the extra flags, such as --component)
// on the runs, saves its JSON to save, and returns where it ranks p's root
// cause, and the root cause's plain-profile rank.
func analyse(c config, p testprogs.Program, normal, buggy, extra []string, save string) (Analysis, int, error) {
	a := Analysis{LineDist: -1}
	rargs := append([]string{"report", "--format", "json", "--top", "100000"}, c.reportFlags...)
	rargs = append(rargs, extra...)
	rargs = append(rargs, "--normal", strings.Join(normal, ","), "--buggy", strings.Join(buggy, ","))
	cmd := exec.Command(c.vprof, rargs...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return a, 0, fmt.Errorf("report: %w: %s", err, lastLine(stderr.String()))
	}
	os.WriteFile(save, stdout.Bytes(), 0o644)
	return findRoot(p, stdout.Bytes())
}

// findRoot returns where the report (vprof report --format json, its whole
// table) ranks p's root cause, and the root cause's plain-profile rank.
func findRoot(p testprogs.Program, report []byte) (Analysis, int, error) {
	a := Analysis{LineDist: -1}
	var rep struct {
		Functions []struct {
			Rank      int      `json:"rank"`
			Function  string   `json:"function"`
			PlainRank int      `json:"plain_rank"`
			Pattern   string   `json:"pattern"`
			Locations []string `json:"locations"`
			Discount  float64  `json:"discount"`
			Source    string   `json:"discount_source"`
			Variable  string   `json:"variable"`
			Dimension string   `json:"dimension"`
			Cost      float64  `json:"calibrated_cost_s"`
		} `json:"functions"`
	}
	if err := json.Unmarshal(report, &rep); err != nil {
		return a, 0, fmt.Errorf("report JSON: %w", err)
	}
	var above []Above
	link, disp := reportedRoot(p)
	for _, f := range rep.Functions {
		if f.Function != link && f.Function != disp && !sameFunc(f.Function, disp) {
			if len(above) < 3 {
				src := f.Source
				if f.Variable != "" {
					src = f.Variable + " " + f.Dimension
				}
				above = append(above, Above{Function: f.Function, Cost: f.Cost, Discount: f.Discount, Source: src})
			}
			continue
		}
		if f.Rank > 1 {
			a.Above, a.RootCost = above, f.Cost
		}
		a.Rank, a.Pattern = f.Rank, f.Pattern
		if len(f.Locations) > 0 {
			a.Location = f.Locations[0]
			a.LineDist = lineDistance(f.Locations[0], p)
		}
		return a, f.PlainRank, nil
	}
	return a, 0, nil
}

// reportedRoot returns the linkage and display names of the function whose
// report row stands for the root cause: its own, or for a root cause that
// the compiler inlined at every call (manifest root_cause_inlined), its
// host's. vprof's rows are out-of-line functions; inlined code is reported
// under its host, whose locations name the inlined call's line.
func reportedRoot(p testprogs.Program) (linkage, display string) {
	if p.RootCauseInlined && p.RootCauseHost != "" {
		return p.RootCauseHost, demangle.Filter(p.RootCauseHost)
	}
	return p.RootCauseFunction, p.RootCauseDisplay
}

// rootShare returns the root cause's share of the slowdown in percent (Row.Share),
// from the runs' stacks (vprof export --format collapsed), or -1.
func rootShare(c config, normal, buggy []string, root string) float64 {
	root, _, _ = strings.Cut(root, "(")
	mean := func(files []string) (total, incl float64, ok bool) {
		for _, f := range files {
			out, err := exec.Command(c.vprof, "export", "--format", "collapsed", f).Output()
			if err != nil {
				return 0, 0, false
			}
			t, i := collapsedShare(out, root)
			total, incl = total+t, incl+i
		}
		n := float64(len(files))
		return total / n, incl / n, len(files) > 0
	}
	nt, ni, ok1 := mean(normal)
	bt, bi, ok2 := mean(buggy)
	if !ok1 || !ok2 || bt <= nt {
		return -1
	}
	return 100 * (bi - ni) / (bt - nt)
}

// collapsedShare sums the counts of collapsed stacks ("a;b;c 12" lines), and
// of those with function root on them (a frame named root, or root( with
// C++ parameters).
func collapsedShare(out []byte, root string) (total, incl float64) {
	for _, line := range strings.Split(string(out), "\n") {
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		n, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			continue
		}
		total += n
		for _, f := range strings.Split(line[:i], ";") {
			if f == root || strings.HasPrefix(f, root+"(") {
				incl += n
				break
			}
		}
	}
	return total, incl
}

// recordArgs returns the arguments of `vprof record` for program p, up to
// the output file: the clock its slowdown shows in, and with
// -record-component the component of the thesis' protocol.
func recordArgs(c config, p testprogs.Program) []string {
	clock := "cpu"
	if p.Measure == "wall" {
		clock = "wall"
	}
	args := []string{"record", "--clock", clock}
	if c.interval != "" {
		args = append(args, "--interval", c.interval)
	}
	args = append(args, c.recordFlags...)
	if c.recordComponent && p.Component != "" {
		// The thesis' protocol at record time: only the variables of the
		// root cause's file are sampled.
		args = append(args, "--component", p.ComponentPath())
	}
	return args
}

// lineDistance returns the distance in lines from a reported location
// ("file.c:123" or "file.c:123 bb4") to the root-cause line, or -1 when the
// location is in another file (code inlined from a header, say): lines of
// different files are not comparable.
func lineDistance(loc string, p testprogs.Program) int {
	file, ln, ok := strings.Cut(loc, ":")
	if !ok || p.RootCauseLine <= 0 || filepath.Base(file) != filepath.Base(p.Source) {
		return -1
	}
	ln, _, _ = strings.Cut(ln, " ")
	n, err := strconv.Atoi(ln)
	if err != nil {
		return -1
	}
	return abs(n - p.RootCauseLine)
}

// sameFunc matches a reported display name with the manifest's, ignoring
// a C++ parameter list the report may shorten.
func sameFunc(reported, want string) bool {
	if want == "" {
		return false
	}
	cut := func(s string) string {
		if i := strings.IndexByte(s, '('); i > 0 {
			return s[:i]
		}
		return s
	}
	return cut(reported) == cut(want)
}

var gprofLine = regexp.MustCompile(`^\s*[0-9.]+\s+[0-9.]+\s+[0-9.]+\s+(?:\d+\s+[0-9.]+\s+[0-9.]+\s+)?(.+?)\s*$`)

// gprofRank runs the -pg build in buggy mode and ranks the root cause in
// gprof's flat profile (by self time, as gprof sorts it). A program gprof
// cannot profile (no gmon.out: it ends by _exit, or is killed) gets rank 0
// and a note; vprof's own columns stand. Child processes
// write their own gmon files (GMON_OUT_PREFIX), summed with gprof -s.
func gprofRank(c config, p testprogs.Program, dir string, row *Row) int {
	pg := filepath.Join(c.root, "testprogs", "bin", "pg", p.Name)
	if _, err := os.Stat(pg); err != nil {
		row.GprofNote = "no -pg build (make -C testprogs pg)"
		return 0
	}
	gdir := filepath.Join(dir, "gprof")
	files, _ := filepath.Glob(filepath.Join(gdir, "gmon.out*"))
	if !c.reuse || len(files) == 0 {
		os.RemoveAll(gdir)
		os.MkdirAll(gdir, 0o755)
		cmd := exec.Command(pg, "buggy")
		cmd.Dir = gdir
		cmd.Env = append(os.Environ(), "GMON_OUT_PREFIX=gmon.out")
		cmd.Stdout = io.Discard
		if err := cmd.Run(); err != nil {
			row.GprofNote = "gprof run: " + err.Error()
			return 0
		}
		files, _ = filepath.Glob(filepath.Join(gdir, "gmon.out*"))
	}
	if len(files) == 0 {
		row.GprofNote = "gprof: no gmon.out written"
		return 0
	}
	args := append([]string{"-b", "-p", pg}, files...)
	if len(files) > 1 {
		sum := exec.Command("gprof", append([]string{"-s", pg}, files...)...)
		sum.Dir = gdir
		if err := sum.Run(); err == nil {
			args = []string{"-b", "-p", pg, filepath.Join(gdir, "gmon.sum")}
		}
	}
	out, err := exec.Command("gprof", args...).Output()
	if err != nil {
		row.GprofNote = "gprof: " + err.Error()
		return 0
	}
	rank := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := gprofLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		rank++
		name := m[1]
		if link, disp := reportedRoot(p); name == disp || sameFunc(name, disp) ||
			symname.StripClone(name) == link { // gcc clones: f.constprop.0
			return rank
		}
	}
	return 0
}

// score says whether analysis a of r ranks the root cause 1st, in the top
// 3, finds the expected pattern, and ranks the root cause no lower than the
// plain profile does (where the plain profile does not rank it, ranking it
// at all).
func (r Row) score(a Analysis) (first, top3, pattern, notBelow bool) {
	return a.Rank == 1, a.Rank >= 1 && a.Rank <= 3, a.Pattern == r.Expected,
		a.Rank >= 1 && (r.PlainRank <= 0 || a.Rank <= r.PlainRank)
}

// tally counts an analysis' scores over program-trials.
type tally struct{ cells, first, top3, pattern, notBelow int }

func (t *tally) add(r Row, a Analysis) {
	first, top3, pattern, notBelow := r.score(a)
	t.cells++
	t.first, t.top3, t.pattern, t.notBelow = t.first+b2i(first), t.top3+b2i(top3), t.pattern+b2i(pattern), t.notBelow+b2i(notBelow)
}

// goalFirst is the issue's goal for the headline: the root cause ranked
// 1st, whole-program, in this share of the program-trials (percent).
const goalFirst = 90

// line states the tally in a footer line; unit names what is counted.
func (t tally) line(label, unit string) string {
	pct := func(n int) float64 { return 100 * float64(n) / float64(t.cells) }
	return fmt.Sprintf("%s: root cause 1st in %d of %d %s (%.0f%%, goal %d%%), in the top 3 in %d; never below its plain-profile rank in %d of %d; pattern right in %d of %d (%.0f%%).",
		label, t.first, t.cells, unit, pct(t.first), goalFirst, t.top3, t.notBelow, t.cells, t.pattern, t.cells, pct(t.pattern))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// recordedWithComponent reports whether rows were recorded with
// -record-component.
func recordedWithComponent(rows []Row) bool {
	return slices.ContainsFunc(rows, func(r Row) bool { return r.RecordComponent })
}

// printGoal prints the footer's counts of the headline and the component
// analyses over all trials' rows, and the thesis' own.
func printGoal(w io.Writer, all [][]Row) {
	var whole, comp tally
	for _, rows := range all {
		for _, r := range rows {
			if r.Err != "" {
				continue
			}
			whole.add(r, r.Whole)
			if r.Component != "" {
				comp.add(r, r.Comp)
			}
		}
	}
	if whole.cells == 0 {
		return
	}
	unit := "program-trials"
	if len(all) == 1 {
		unit = "programs"
	}
	label := "whole-program"
	if recordedWithComponent(all[0]) {
		label = "vprof (recorded with --component)"
	}
	fmt.Fprintf(w, "\n%s\n", whole.line(label, unit))
	var counted tally
	nc := 0
	for _, rows := range all {
		for _, r := range rows {
			if r.Err == "" && r.Counts != nil {
				counted.add(r, *r.Counts)
				nc += b2i(len(r.Counted) > 0)
			}
		}
	}
	if counted.cells > 0 {
		fmt.Fprintf(w, "%s (counted in %d)\n", counted.line("whole-program with counts", unit), nc)
	}
	if comp.cells > 0 {
		fmt.Fprintln(w, comp.line("component", unit))
	}
	t1, nt := 0, 0
	for _, r := range all[0] {
		if r.ThesisRank > 0 {
			nt++
			t1 += b2i(r.ThesisRank == 1)
		}
	}
	if nt > 0 {
		fmt.Fprintf(w, "thesis: the vProf prototype's rank of the same bug's root cause in its own reproduction (Table 3.3): 1st on %d of the %d it evaluated.\n", t1, nt)
	}
}

func printTable(w io.Writer, rows []Row) {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	withCounts := hasCounts([][]Row{rows})
	countsHead := ""
	if withCounts {
		countsHead = "with counts\t"
	}
	fmt.Fprintln(tw, "program\tissue\troot cause\tvprof\tpattern found\t"+countsHead+"component\tcomp. pattern\texpected\tthesis\tplain PC\tgprof\tlines off\troot share\tcomponent file\t")
	for _, r := range rows {
		if r.Err != "" {
			// The message goes below the table, so it widens no column.
			fmt.Fprintf(tw, "%s\t%s\t%s\terror\t\t\t\t\t\t\t\t\t\t\t\n", r.Program, r.Issue, short(r.RootCause, 32))
			continue
		}
		dist := "-"
		switch {
		case r.Whole.LineDist >= 0:
			dist = strconv.Itoa(r.Whole.LineDist)
		case r.Whole.Location != "":
			dist = "other file"
		}
		compPattern := "n/a"
		if r.Component != "" {
			compPattern = orDash(r.Comp.Pattern)
		}
		countsCell := ""
		if withCounts {
			countsCell = countsStr(r) + "\t"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Program, r.Issue, short(r.RootCause, 32),
			rankStr(r.Whole.Rank), orDash(r.Whole.Pattern), countsCell, compRankStr(r), compPattern, r.Expected,
			rankStr(r.ThesisRank), rankStr(r.PlainRank), rankStr(r.GprofRank), dist, shareStr(r.Share), baseOrDash(r.Component))
	}
	tw.Flush()
	printErrors(w, [][]Row{rows})
	printGoal(w, [][]Row{rows})
	if slices.ContainsFunc(rows, func(r Row) bool { return r.Err == "" }) {
		fmt.Fprintln(w, "lines off: from vprof's location of the root cause to its line. root share: the root cause's share of the slowdown")
		fmt.Fprintln(w, "(samples with it on the stack, buggy minus normal, over all samples, buggy minus normal); where it is low,")
		fmt.Fprintln(w, "most of the slow run's extra time is elsewhere.")
		fmt.Fprintln(w, "One trial: ranks and patterns vary from trial to trial; -trials 3 (make eval) shows how much.")
	}
	printAbove(w, [][]Row{rows})
	printProtocol(w, rows)
}

// hasCounts reports whether the rows were scored with -counts.
func hasCounts(all [][]Row) bool {
	for _, rows := range all {
		if slices.ContainsFunc(rows, func(r Row) bool { return r.Counts != nil }) {
			return true
		}
	}
	return false
}

// countsStr is a row's "with counts" cell: the rank, with a "c" where
// calls were counted (else the report named nothing to count).
func countsStr(r Row) string {
	if r.Counts == nil {
		return "-"
	}
	s := rankStr(r.Counts.Rank)
	if len(r.Counted) > 0 {
		s += "c"
	}
	return s
}

// printErrors lists the errors of the rows of all trials.
func printErrors(w io.Writer, all [][]Row) {
	for t, rows := range all {
		for _, r := range rows {
			if r.Err == "" {
				continue
			}
			if len(all) > 1 {
				fmt.Fprintf(w, "error: %s, trial %d: %s\n", r.Program, t+1, r.Err)
			} else {
				fmt.Fprintf(w, "error: %s: %s\n", r.Program, r.Err)
			}
		}
	}
}

// printAbove lists, for each program not ranked 1st by the whole-program
// analysis, the functions ranked above its root cause and where their
// discounts came from (one trial), or how often each was above it
// (several).
func printAbove(w io.Writer, all [][]Row) {
	var lines []string
	for i := range all[0] {
		if len(all) == 1 {
			if r := all[0][i]; len(r.Whole.Above) > 0 {
				var parts []string
				for _, a := range r.Whole.Above {
					parts = append(parts, a.String())
				}
				lines = append(lines, fmt.Sprintf("  %s: %s; root cause %.3f s", r.Program, strings.Join(parts, "; "), r.Whole.RootCost))
			}
			continue
		}
		count := map[string]int{}
		var order []string
		for _, rows := range all {
			for _, a := range rows[i].Whole.Above {
				name := shortName(a.Function)
				if count[name] == 0 {
					order = append(order, name)
				}
				count[name]++
			}
		}
		if len(order) == 0 {
			continue
		}
		var parts []string
		for _, name := range order {
			parts = append(parts, fmt.Sprintf("%s %d/%d", name, count[name], len(all)))
		}
		lines = append(lines, fmt.Sprintf("  %s: %s", all[0][i].Program, strings.Join(parts, ", ")))
	}
	if len(lines) == 0 {
		return
	}
	if len(all) == 1 {
		fmt.Fprintln(w, "Ranked above the root cause, whole-program (calibrated cost, discount r and its source):")
	} else {
		fmt.Fprintln(w, "Ranked above the root cause, whole-program (in how many trials):")
	}
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

// shortName drops a C++ function's parameter list and cuts long names.
func shortName(f string) string {
	if i := strings.IndexByte(f, '('); i > 0 {
		f = f[:i]
	}
	return short(f, 48)
}

// printTrials prints, per program, the ranks and patterns of every trial
// (all[t] is trial t's rows, programs in the same order), whole-program and
// narrowed to the component, and how often the root cause came 1st and the
// pattern was right.
func printTrials(w io.Writer, all [][]Row) {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	withCounts := hasCounts(all)
	countsHead := ""
	if withCounts {
		countsHead = "with counts\t"
	}
	fmt.Fprintln(tw, "program\tissue\troot cause\tvprof\t1st\tpattern right\t"+countsHead+"component\tcomp. 1st\tcomp. pattern\texpected\tthesis\tplain PC\tgprof\troot share\t")
	trials := len(all)
	var always1, always3, patAll, n int
	for i := range all[0] {
		var vr, cr, pr, gr, kr []string
		var whole, comp tally
		share, nshare := 0.0, 0
		for _, rows := range all {
			r := rows[i]
			if r.Err != "" {
				vr, cr, kr = append(vr, "err"), append(cr, "err"), append(kr, "err")
				continue
			}
			kr = append(kr, countsStr(r))
			if r.Share >= 0 {
				share, nshare = share+r.Share, nshare+1
			}
			vr, cr = append(vr, rankStr(r.Whole.Rank)), append(cr, compRankStr(r))
			pr, gr = append(pr, rankStr(r.PlainRank)), append(gr, rankStr(r.GprofRank))
			whole.add(r, r.Whole)
			if r.Component != "" {
				comp.add(r, r.Comp)
			}
		}
		r := all[0][i]
		meanShare := -1.0
		if nshare > 0 {
			meanShare = share / float64(nshare)
		}
		comp1, compPat := "n/a", "n/a"
		if r.Component != "" {
			comp1, compPat = fmt.Sprintf("%d/%d", comp.first, trials), fmt.Sprintf("%d/%d", comp.pattern, trials)
		}
		countsCell := ""
		if withCounts {
			countsCell = strings.Join(kr, " ") + "\t"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d/%d\t%d/%d\t%s%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Program, r.Issue, short(r.RootCause, 32),
			strings.Join(vr, " "), whole.first, trials, whole.pattern, trials, countsCell, strings.Join(cr, " "), comp1, compPat, r.Expected,
			rankStr(r.ThesisRank), strings.Join(pr, " "), strings.Join(gr, " "), shareStr(meanShare))
		if whole.cells == 0 {
			continue
		}
		n++
		always1, always3, patAll = always1+b2i(whole.first == trials), always3+b2i(whole.top3 == trials), patAll+b2i(whole.pattern == trials)
	}
	tw.Flush()
	printErrors(w, all)
	printGoal(w, all)
	if n > 0 {
		fmt.Fprintf(w, "Over %d trials, whole-program: 1st in every trial on %d of %d programs, in the top 3 in every trial on %d; pattern right in every trial on %d.\n",
			trials, always1, n, always3, patAll)
		fmt.Fprintln(w, "root share: the root cause's share of the slowdown, mean over the trials (see a single trial's footer).")
	}
	printAbove(w, all)
	printProtocol(w, all[0])
}

// printProtocol says how the runs were recorded and analysed, and which
// key variables the component leaves out.
func printProtocol(w io.Writer, rows []Row) {
	var out []string
	for _, r := range rows {
		if len(r.Unmonitored) > 0 {
			out = append(out, fmt.Sprintf("%s (%s)", r.Program, strings.Join(r.Unmonitored, ", ")))
		}
	}
	if recordedWithComponent(rows) {
		fmt.Fprintln(w, "Protocol: -record-component: recorded with --component <the root cause's source file>, as the thesis did (Table 3.2);")
		fmt.Fprintln(w, "variables declared in other files were not sampled, so the vprof column is no whole-program analysis.")
		if len(out) > 0 {
			fmt.Fprintf(w, "Key variables outside the component, so not sampled: %s.\n", strings.Join(out, "; "))
		}
		return
	}
	fmt.Fprintln(w, "Protocol: each program recorded whole (every file's variables sampled). vprof: vprof report on those recordings;")
	fmt.Fprintln(w, "component: the same recordings, vprof report --component <the root cause's source file>: the thesis' protocol")
	fmt.Fprintln(w, "(Table 3.2) applied after the fact, leaving out variables declared in other files (the driver, configuration globals).")
	if len(out) > 0 {
		fmt.Fprintf(w, "Key variables outside the component, so left out of its column: %s.\n", strings.Join(out, "; "))
	}
}

// compRankStr is r's component rank, "n/a" if the program names no
// component.
func compRankStr(r Row) string {
	if r.Component == "" {
		return "n/a"
	}
	return rankStr(r.Comp.Rank)
}

func shareStr(s float64) string {
	if s < 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", s)
}

func rankStr(r int) string {
	if r <= 0 {
		return "-"
	}
	return strconv.Itoa(r)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func baseOrDash(path string) string {
	if path == "" {
		return "-"
	}
	return filepath.Base(path)
}

func short(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
