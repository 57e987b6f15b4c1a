package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/olekukonko/tablewriter/tw"

	"github.com/vprof/vprof/analyze"
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
	var progress analyze.Progress
	if !*quiet {
		progress = progressPrinter(stderr)
	}
	fl, err := analyze.FlatFile(fs.Arg(0), progress)
	if err != nil {
		return err
	}
	for _, w := range fl.Warnings {
		fmt.Fprintf(stderr, "vprof flat: warning: %s\n", w)
	}
	entries := fl.Entries
	if *top > 0 && len(entries) > *top {
		entries = entries[:*top]
	}
	pct := func(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
	if *format == "csv" {
		cw := csv.NewWriter(stdout)
		cw.Write([]string{"percent_time", "cumulative_s", "self_s", "name"})
		for _, e := range entries {
			cw.Write([]string{pct(e.Percent), fmtG(e.Cumulative), fmtG(e.Self), e.Name})
		}
		cw.Flush()
		return cw.Error()
	}
	if *format == "table" {
		fmt.Fprintf(stdout, "Flat profile of %s: %d samples, %.3f s sampled.\n\n", fs.Arg(0), fl.Samples, fl.Total)
	}
	rows := make([][]string, 0, len(entries))
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name
	}
	names = shortAll(names)
	for i, e := range entries {
		rows = append(rows, []string{pct(e.Percent), secs(e.Cumulative), secs(e.Self), names[i]})
	}
	align := tw.Alignment{tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignLeft}
	return renderTable(stdout, *format, []string{"% time", "cumulative s", "self s", "name"}, rows, align)
}
