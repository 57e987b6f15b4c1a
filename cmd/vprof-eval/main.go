// Command vprof-eval is vprof's scoreboard (`make eval`): for every test
// program it records normal and buggy runs with the real `vprof record`,
// ranks them with `vprof report`, runs the program's -pg build under real
// gprof, and prints where each ranks the root-cause function of the
// manifest, with the bug pattern found and the distance in lines from the
// reported location to the root cause.
//
// By default it follows the thesis' evaluation protocol (vProf chapter,
// section 3.4 and Table 3.2: "User identifies file that contains root cause
// function to limit number of variables sampled to that file"): each
// program is recorded with `vprof record --component FILE`, FILE being the
// manifest's component, the source file that holds the root cause.
// Variables declared elsewhere (the driver's main(), its worker loops, the
// configuration globals of other files) are not sampled; functions outside
// the component are still ranked, by PC cost and the hist-discounter. The
// flag -whole records every source file instead, for comparison. The table's
// footer says which protocol produced it.
//
// It drives the vprof command, not the packages, so the scoreboard measures
// exactly what a user gets.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
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

	"github.com/vprof/vprof/testprogs"
)

// Row is one program's line of the scoreboard.
type Row struct {
	Program   string `json:"program"`
	Issue     string `json:"issue"`
	RootCause string `json:"root_cause"`
	VprofRank int    `json:"vprof_rank"` // 0: not ranked
	// ThesisRank is vProf's rank of this bug's root cause in the thesis
	// (Table 3.3 of the vProf chapter), from the manifest.
	ThesisRank int    `json:"thesis_rank"`
	PlainRank  int    `json:"plain_rank"`
	GprofRank  int    `json:"gprof_rank"`
	Pattern    string `json:"pattern"`
	Expected   string `json:"expected_pattern"`
	LineDist   int    `json:"line_distance"` // -1: no location, or one in another file than the root cause's
	// Share is the root cause's share of the slowdown, in percent: the
	// growth of the samples with it on the stack over the growth of all
	// samples, means of the buggy over the normal runs; -1 if unknown.
	// Where it is low, most of the slow run's extra time is elsewhere.
	Share    float64 `json:"root_share"`
	Location string  `json:"location"`
	Err      string  `json:"error,omitempty"`
	Seconds  float64 `json:"seconds"` // to evaluate this program
	// Component is the --component path the runs were recorded with
	// (relative to testprogs/), "" with -whole.
	Component string `json:"component,omitempty"`
	// Unmonitored are the key variables outside the component, which the
	// protocol does not sample.
	Unmonitored []string `json:"unmonitored,omitempty"`
	// Above are (up to 3 of) the functions vprof ranks above the root cause,
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
	whole            bool     // record every source file, not the component
	interval         string   // vprof record --interval, "" for its default
	reuse            bool     // analyse the profiles already in out, record nothing
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
	flag.BoolVar(&c.whole, "whole", false, "record every source file (no --component), to compare with the thesis' protocol")
	format := flag.String("format", "table", "table or json")
	flag.StringVar(&c.interval, "interval", "", "vprof record --interval `D` (default: vprof's, 1ms)")
	flag.BoolVar(&c.reuse, "reuse", false, "record nothing: analyse the profiles (and gprof data) an earlier run left in -out, so that analyzer changes and -report-flags compare on the same samples")
	reportFlags := flag.String("report-flags", "", "extra `flags` for vprof report, e.g. \"--default-discount 0.7\" (the thesis' sensitivity study, §3.5.3)")
	recordFlags := flag.String("record-flags", "", "extra `flags` for vprof record, e.g. \"--sampler ptrace\"")
	trials := flag.Int("trials", 1, "repeat the whole evaluation `N` times and print each program's ranks and patterns over the trials (sampling makes single trials vary)")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, `Usage: vprof-eval [flags]

The scoreboard: root-cause rank by vprof, by a plain PC profile and by gprof
for every program of testprogs/manifest.json.

vprof records each program as the thesis' evaluation did (Table 3.2 of the
vProf chapter): with --component set to the source file that contains the
root-cause function (the manifest's "component"), so that only the variables
declared in that file are sampled. -whole samples every file instead.

Examples:
  vprof-eval                              # every program, the thesis' protocol
  vprof-eval -only lru_scan,var_range -runs 1
  vprof-eval -whole -out out/eval-whole   # every file monitored, for comparison
  vprof-eval -trials 3                    # how stable each rank and pattern is
  vprof-eval -trials 3 -reuse -report-flags '--hist-window 2'
                                          # the same recordings, analysed otherwise

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
		printTable(os.Stdout, rows, c.whole)
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
	printTrials(os.Stdout, all, c.whole)
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
			fmt.Fprintf(c.log, " vprof %s, plain %s, gprof %s (%.0fs)\n", rankStr(row.VprofRank), rankStr(row.PlainRank), rankStr(row.GprofRank), row.Seconds)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func evalProgram(c config, p testprogs.Program) Row {
	row := Row{Program: p.Name, Issue: p.Issue, RootCause: p.RootCauseDisplay, Expected: string(p.Pattern), LineDist: -1, Share: -1,
		ThesisRank: p.ThesisRank}
	if row.RootCause == "" {
		row.RootCause = p.RootCauseFunction
	}
	bin := filepath.Join(c.root, "testprogs", "bin", p.Name)
	dir := filepath.Join(c.out, p.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		row.Err = err.Error()
		return row
	}
	record := recordArgs(c, p)
	if !c.whole && p.Component != "" {
		row.Component = p.Component
		for _, v := range p.KeyVariables {
			if !p.InComponent(v) {
				row.Unmonitored = append(row.Unmonitored, v.Name)
			}
		}
	}
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
				if mode == "normal" {
					normal = append(normal, out)
				} else {
					buggy = append(buggy, out)
				}
				continue
			}
			args := append(slices.Clone(record), "-o", out, "--", bin, mode)
			cmd := exec.Command(c.vprof, args...)
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = io.Discard, &stderr
			if err := cmd.Run(); err != nil {
				row.Err = fmt.Sprintf("record %s: %v: %s", mode, err, lastLine(stderr.String()))
				return row
			}
			if mode == "normal" {
				normal = append(normal, out)
			} else {
				buggy = append(buggy, out)
			}
		}
	}
	rargs := append([]string{"report", "--format", "json", "--top", "100000"}, c.reportFlags...)
	rargs = append(rargs, "--normal", strings.Join(normal, ","), "--buggy", strings.Join(buggy, ","))
	cmd := exec.Command(c.vprof, rargs...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		row.Err = fmt.Sprintf("report: %v: %s", err, lastLine(stderr.String()))
		return row
	}
	os.WriteFile(filepath.Join(dir, "report.json"), stdout.Bytes(), 0o644)
	row.Share = rootShare(c, normal, buggy, row.RootCause)
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
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		row.Err = "report JSON: " + err.Error()
		return row
	}
	var above []Above
	for _, f := range rep.Functions {
		if f.Function != p.RootCauseFunction && f.Function != p.RootCauseDisplay && !sameFunc(f.Function, p.RootCauseDisplay) {
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
			row.Above, row.RootCost = above, f.Cost
		}
		row.VprofRank, row.PlainRank, row.Pattern = f.Rank, f.PlainRank, f.Pattern
		if len(f.Locations) > 0 {
			row.Location = f.Locations[0]
			row.LineDist = lineDistance(f.Locations[0], p)
		}
		break
	}
	if c.gprof {
		row.GprofRank = gprofRank(c, p, dir, &row)
	}
	return row
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
// the output file: the clock its slowdown shows in, and the component of the
// thesis' protocol unless c.whole.
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
	if !c.whole && p.Component != "" {
		// The thesis' protocol: only the variables of the root cause's file.
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
// gprof's flat profile (by self time, as gprof sorts it). Child processes
// write their own gmon files (GMON_OUT_PREFIX), summed with gprof -s.
func gprofRank(c config, p testprogs.Program, dir string, row *Row) int {
	pg := filepath.Join(c.root, "testprogs", "bin", "pg", p.Name)
	if _, err := os.Stat(pg); err != nil {
		row.Err = "no -pg build (make -C testprogs pg)"
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
			row.Err = "gprof run: " + err.Error()
			return 0
		}
		files, _ = filepath.Glob(filepath.Join(gdir, "gmon.out*"))
	}
	if len(files) == 0 {
		row.Err = "gprof: no gmon.out written"
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
		row.Err = "gprof: " + err.Error()
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
		if name == p.RootCauseFunction || name == p.RootCauseDisplay || sameFunc(name, p.RootCauseDisplay) ||
			strings.HasPrefix(name, p.RootCauseFunction+".") { // gcc clones: f.constprop.0
			return rank
		}
	}
	return 0
}

// score says whether r ranks the root cause 1st, in the top 3, and finds
// the expected pattern.
func (r Row) score() (first, top3, pattern bool) {
	return r.VprofRank == 1, r.VprofRank >= 1 && r.VprofRank <= 3, r.Pattern == r.Expected
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func printTable(w io.Writer, rows []Row, whole bool) {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "program\tissue\troot cause\tvprof\tthesis\tplain PC\tgprof\tpattern found\texpected\tlines off\troot share\tcomponent\t")
	n1, n3, pat, n, t1 := 0, 0, 0, 0, 0
	for _, r := range rows {
		if r.Err != "" {
			fmt.Fprintf(tw, "%s\t%s\t%s\terror: %s\t\t\t\t\t\t\t\n", r.Program, r.Issue, r.RootCause, r.Err)
			continue
		}
		n++
		first, top3, right := r.score()
		n1, n3, pat, t1 = n1+b2i(first), n3+b2i(top3), pat+b2i(right), t1+b2i(r.ThesisRank == 1)
		dist := "-"
		switch {
		case r.LineDist >= 0:
			dist = strconv.Itoa(r.LineDist)
		case r.Location != "":
			dist = "other file"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Program, r.Issue, short(r.RootCause, 32),
			rankStr(r.VprofRank), rankStr(r.ThesisRank), rankStr(r.PlainRank), rankStr(r.GprofRank), orDash(r.Pattern), r.Expected, dist,
			shareStr(r.Share), baseOrDash(r.Component))
	}
	tw.Flush()
	if n > 0 {
		fmt.Fprintf(w, "\nvprof ranks the root cause 1st on %d of %d programs, in the top 3 on %d; pattern right on %d of %d (%.0f%%).\n",
			n1, n, n3, pat, n, 100*float64(pat)/float64(n))
		fmt.Fprintf(w, "thesis: the vProf prototype's rank of the same bug's root cause in its own reproduction (Table 3.3): 1st on %d of %d.\n", t1, n)
		fmt.Fprintln(w, "root share: the root cause's share of the slowdown (samples with it on the stack, buggy minus normal,")
		fmt.Fprintln(w, "over all samples, buggy minus normal); where it is low, most of the slow run's extra time is elsewhere.")
		fmt.Fprintln(w, "One trial: ranks and patterns vary from trial to trial; -trials 3 shows how much.")
	}
	printAbove(w, [][]Row{rows})
	printProtocol(w, rows, whole)
}

// printAbove lists, for each program not ranked 1st, the functions ranked
// above its root cause and where their discounts came from (one trial), or
// how often each was above it (several).
func printAbove(w io.Writer, all [][]Row) {
	var lines []string
	for i := range all[0] {
		if len(all) == 1 {
			if r := all[0][i]; len(r.Above) > 0 {
				var parts []string
				for _, a := range r.Above {
					parts = append(parts, a.String())
				}
				lines = append(lines, fmt.Sprintf("  %s: %s; root cause %.3f s", r.Program, strings.Join(parts, "; "), r.RootCost))
			}
			continue
		}
		count := map[string]int{}
		var order []string
		for _, rows := range all {
			for _, a := range rows[i].Above {
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
		fmt.Fprintln(w, "Ranked above the root cause (calibrated cost, discount r and its source):")
	} else {
		fmt.Fprintln(w, "Ranked above the root cause (in how many trials):")
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
// (all[t] is trial t's rows, programs in the same order) and how often the
// root cause came 1st and the pattern was right.
func printTrials(w io.Writer, all [][]Row, whole bool) {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "program\tissue\troot cause\tvprof\tthesis\tplain PC\tgprof\t1st\tpattern right\texpected\troot share\t")
	trials := len(all)
	var always1, always3, patAll, n int
	var first, pats, cells int
	for i := range all[0] {
		var vr, pr, gr []string
		n1, n3, pat, ok := 0, 0, 0, 0
		share, nshare := 0.0, 0
		for _, rows := range all {
			r := rows[i]
			if r.Err != "" {
				vr = append(vr, "err")
				continue
			}
			ok++
			if r.Share >= 0 {
				share, nshare = share+r.Share, nshare+1
			}
			vr, pr, gr = append(vr, rankStr(r.VprofRank)), append(pr, rankStr(r.PlainRank)), append(gr, rankStr(r.GprofRank))
			first, top3, right := r.score()
			n1, n3, pat = n1+b2i(first), n3+b2i(top3), pat+b2i(right)
		}
		r := all[0][i]
		meanShare := -1.0
		if nshare > 0 {
			meanShare = share / float64(nshare)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d/%d\t%d/%d\t%s\t%s\t\n", r.Program, r.Issue, short(r.RootCause, 32),
			strings.Join(vr, " "), rankStr(r.ThesisRank), strings.Join(pr, " "), strings.Join(gr, " "), n1, trials, pat, trials, r.Expected, shareStr(meanShare))
		if ok == 0 {
			continue
		}
		n++
		first, pats, cells = first+n1, pats+pat, cells+trials
		if n1 == trials {
			always1++
		}
		if n3 == trials {
			always3++
		}
		if pat == trials {
			patAll++
		}
	}
	tw.Flush()
	if n > 0 {
		fmt.Fprintf(w, "\nOver %d trials: vprof ranks the root cause 1st in %d of %d program-trials (%.0f%%); 1st in every trial on %d of %d programs,\n",
			trials, first, cells, 100*float64(first)/float64(cells), always1, n)
		fmt.Fprintf(w, "in the top 3 in every trial on %d; pattern right in %d of %d program-trials (%.0f%%), in every trial on %d.\n",
			always3, pats, cells, 100*float64(pats)/float64(cells), patAll)
		t1 := 0
		for _, r := range all[0] {
			t1 += b2i(r.ThesisRank == 1)
		}
		fmt.Fprintf(w, "thesis: the vProf prototype's rank of the same bug's root cause in its own reproduction (Table 3.3): 1st on %d of %d.\n", t1, len(all[0]))
		fmt.Fprintln(w, "root share: the root cause's share of the slowdown, mean over the trials (see a single trial's footer).")
	}
	printAbove(w, all)
	printProtocol(w, all[0], whole)
}

// printProtocol says how the runs were recorded: with the component of the
// thesis' protocol, and which key variables it leaves unmonitored, or whole.
func printProtocol(w io.Writer, rows []Row, whole bool) {
	if whole {
		fmt.Fprintln(w, "Protocol: -whole: every source file's variables sampled (not the thesis' protocol).")
		return
	}
	fmt.Fprintln(w, "Protocol: the thesis' (Table 3.2): vprof record --component <the root cause's source file>;")
	fmt.Fprintln(w, "variables declared in other files (the driver, configuration globals) are not sampled.")
	var out []string
	for _, r := range rows {
		if len(r.Unmonitored) > 0 {
			out = append(out, fmt.Sprintf("%s (%s)", r.Program, strings.Join(r.Unmonitored, ", ")))
		}
	}
	if len(out) > 0 {
		fmt.Fprintf(w, "Key variables outside the component, so not sampled: %s.\n", strings.Join(out, "; "))
	}
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
