package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/vprof/vprof/analyze/rank"
	"github.com/vprof/vprof/analyze/report"
)

const reportHelp = `
Usage: vprof report [flags] NORMAL BUGGY
       vprof report [flags] --normal A,B,C --buggy D,E,F

Compares normal (baseline) runs with buggy (slow) runs of one program and
ranks the functions most likely to be the root cause of the slowness.

Each function's raw cost (the larger of its PC cost and its variable-based
cost) in the buggy runs, less its raw cost in the normal runs, is its
extra cost (normal runs longer than the buggy ones count at the buggy
runs' length: docs/method.md D56); it is calibrated with a discount r in [0,1] and weighted by
the share of the raw cost that is new: calibrated = (1 - r) x extra x
(extra / raw). Three placements follow (docs/method.md §7): a caller that
spends all its time in one callee, whose own variables went wrong while
it did, takes that callee's place when the callee ranks higher, and
ranks just above it at equal cost (it decided to make the costly call),
unless what went wrong in it only describes its input (one value per
run, or a frame above other work in the normal runs: D70) or is only a
struct pointer it was given, or fields behind it, that the callee was
given and that went wrong there too (then it ranks just below: D135),
or when its strongest evidence is a value kept through each run (a
setting) and the callee's own loop went over more items (then it ranks
just below, and is no spinning loop's head either: D160); in these
placements a frame's local read during less than a twentieth of the
time its variables were read (a value computed after a call returned,
one case of a dispatcher) is none of its evidence (D246);
a caller where two anomalous callees meet ranks just below the better of
them (only the frame where they meet: a caller above it that does nothing
else is left to D10, D317; a caller that took its callee's place keeps it,
D318), and a frame that repeats nothing of its own (a dispatcher, a
request handler) above two or more walks whose loops went wrong ranks
below the least costly of them (D204); a caller seen only in the slow runs, with no loop, all of whose
time is one anomalous callee ranks just below it (it only passed
control), and so does one whose variables held their normal values,
only longer, while a callee given normal arguments looped more (its
evidence is the callee's time), and so does a caller seen only in the
slow runs whose callee, holding three quarters of its time, was too and
looped; a callee that holds no variable, has no loop and calls nothing,
seen only or far more when slow, gives its place to the caller whose
loop went wrong and called it (D74), and one whose time is all a library
call (strlen, std::find) to its direct caller whose variables went wrong
(D123), as does one whose variables say only that it ran when slow (a
clock read at every turn of a spin: D208); a library call with variables (memmove, sendmsg) under a loop
that looks normal gives its place to that loop's other callee whose
condition went wrong: its result made the loop call again (D145), and
one whose only anomalies are its arguments to its direct caller whose
loop went wrong and computed them (D189); a source file's function
inlined at every call, with no loop
and nothing under it (a predicate in a walk's condition), gives its
place to the function it is inlined into when that one has a loop
(D133); a thread's loop that spins (its own instructions take the extra
time, not its callees) ranks at its outermost level whose own variables
went wrong, globals aside (D209); a driver frame entered again at
each call (a parameter of its own changes: a library entry point the
program calls per item) takes the place of the callee that is all of its
time when the callee's strongest evidence is an argument it was given
(D251); last, where the normal and the slow
profiles hold call counts (vprof record --count), a caller and its callee
among the first three rows are ordered by them: the callee called more
often per call of its caller, each call about as long, puts the caller
above; called as often, each call twice as long or more, the callee; a
function never called in the normal runs goes above its caller (D220,
D221). --explain and the JSON ("placed", "counts") say when one applied.
When the first two rows are a caller and its callee that carry the same
time and no counts were recorded, a line on standard error (JSON
"next_step") gives the vprof record --count command to run. Time
spent waiting for a lock another thread held counts for no function,
nor does the C library's wake of a thread that waits for one (named
from its debug file, libc6-dbg, when its symbols do not name it; the
report says how much). r comes
from the function's most anomalous variable (the variable-
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
("rare when normal"); more or longer normal runs make it a test. So
is a local read a few times per normal run, a tenth as often as when
slow, in a function that barely ran in the normal runs (D341). A
parameter that only its callers' call-site records locate (an entry
value), in a function that ran in the normal runs, is not judged so:
how often it was read says which caller called ("read through
callers", docs/method.md D335).
`

func init() {
	register(&command{name: "report", order: 30, summary: "rank root-cause functions of a slow run against a normal run", run: runReport})
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
	o := rank.DefaultOptions()
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
	var progress rank.Progress
	if !*quiet {
		progress = progressPrinter(stderr)
	}
	o.Components = comps
	res, err := rank.Analyze(normal, buggy, o, progress)
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "vprof report: warning: %s\n", w)
	}
	if res.NextStep != nil {
		fmt.Fprintf(stderr, "vprof report: %s\n", res.NextStep.Text)
	}
	if *explain != "" {
		return report.Explain(stdout, res, *explain, *format)
	}
	fns := res.Functions
	if len(fns) == 0 {
		// An empty table alone reads as "nothing is wrong"; it means that no
		// sample fell in a function vprof can name.
		fmt.Fprintln(stderr, "vprof report: no function to rank: no sample of these runs is in a named function of the program (see the warnings above)")
	}
	if *top > 0 && len(fns) > *top {
		fns = fns[:*top]
	}
	return report.WriteExtra(stdout, fns, *format, res.Warnings, report.ExtraOf(res))
}

// progressPrinter reports progress on large files only (256 MiB and up).
func progressPrinter(w io.Writer) rank.Progress {
	return func(name string, done, total int64) {
		if total < 256<<20 {
			return
		}
		fmt.Fprintf(w, "vprof: %s: %d of %d MiB read\n", name, done>>20, total>>20)
	}
}
