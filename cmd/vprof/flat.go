package main

import (
	"fmt"
	"io"

	"github.com/vprof/vprof/analyze/rank"
	"github.com/vprof/vprof/analyze/report"
)

const flatHelp = `
Usage: vprof flat [flags] FILE

Prints the flat profile of one recorded run, like 'gprof -b -p': every
function (program and libraries alike) ranked by self time, the time
samples had their innermost frame in it, with the percentage of all
sampled time and the cumulative seconds of that line and every line above.
The calls column of gprof is omitted (sampling does not count calls).
C++ names are demangled.

This is the plain-profiler baseline that 'vprof report' improves on: its
"plain" column is a function's rank here (by self time in the buggy runs).

Examples:
  vprof flat slow.vprof
  vprof flat --top 15 --format markdown slow.vprof
  vprof flat --format csv slow.vprof > flat.csv
`

func init() {
	register(&command{name: "flat", order: 35, summary: "print a gprof-style flat profile of one run", run: runFlat})
}

func runFlat(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("flat", flatHelp, stdout)
	format := fs.String("format", "table", "output `format`: table, csv or markdown")
	top := fs.Int("top", 0, "show the top `N` functions (0: all)")
	quiet := fs.Bool("q", false, "no progress on standard error")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkFormat(*format, []string{"table", "csv", "markdown"}); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErr("need one profile: vprof flat FILE")
	}
	if *top < 0 {
		return usageErr("--top %d: want 0 or more", *top)
	}
	var progress rank.Progress
	if !*quiet {
		progress = progressPrinter(stderr)
	}
	fl, err := rank.FlatFile(fs.Arg(0), progress)
	if err != nil {
		return err
	}
	for _, w := range fl.Warnings {
		fmt.Fprintf(stderr, "vprof flat: warning: %s\n", w)
	}
	return report.WriteFlat(stdout, fs.Arg(0), fl, *top, *format)
}
