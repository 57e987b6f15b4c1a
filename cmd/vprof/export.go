package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/vprof/vprof/analyze/export"
	"github.com/vprof/vprof/analyze/rank"
	"github.com/vprof/vprof/analyze/report"
)

const exportHelp = `
Usage: vprof export --format pprof|collapsed|speedscope|chrome [-o FILE] PROFILE

Writes a vprof profile in the format of a tool you already use:

  pprof       gzipped protobuf for 'go tool pprof' (stacks with inlined
              frames, files and lines; the objects' mappings with their
              addresses, file offsets and build-ids; labels pid, tid,
              state (running or blocked: -tagfocus state=blocked) and the
              innermost frame's variable values)
  collapsed   one 'root;...;leaf count' line per stack, for flamegraph.pl
              and inferno
  speedscope  speedscope's JSON format, one sampled profile per thread,
              one frame per function (its declaration's file and line)
  chrome      Chrome trace-event JSON (Perfetto UI, chrome://tracing): per
              thread, the calls rebuilt from the samples; with --report
              NORMAL, the most anomalous variables as counter tracks

Library code that the library's own symbols do not name (a stripped
libc's local functions) is named from its separate debug file, found by
build-id under /usr/lib/debug (Debian: libc6-dbg, the -dbgsym packages)
when installed. Inlined code is the inlined function's, as in 'vprof
report' and 'vprof flat'. Chrome timestamps are the samples' own, in
microseconds with nanosecond decimals.

Without -o the output goes to standard output (pprof refuses a terminal).

Examples:
  vprof export --format pprof -o cpu.pb.gz vprof.data && go tool pprof -top cpu.pb.gz
  vprof export --format collapsed vprof.data | flamegraph.pl > flame.svg
  vprof export --format speedscope -o prof.speedscope.json vprof.data
  vprof export --format chrome --report normal.data -o slow.trace.json slow.data
`

func init() {
	register(&command{name: "export", order: 60, summary: "write a profile as pprof, collapsed stacks, speedscope or Chrome trace JSON", run: runExport})
}

func runExport(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("export", exportHelp, stdout)
	format := fs.String("format", "", "output `FORMAT`: pprof, collapsed, speedscope or chrome (required)")
	normals := fs.String("report", "", "chrome only: normal-run `profiles` (comma-separated) to compare with, adding counter tracks of the most anomalous variables")
	out := fs.String("o", "", "output `file` (default: standard output)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErr("want exactly one profile, got %d arguments", fs.NArg())
	}
	var write func(io.Writer, string) error
	switch strings.ToLower(*format) {
	case "pprof":
		write = export.Pprof
	case "collapsed", "folded":
		write = export.Collapsed
	case "speedscope":
		write = export.Speedscope
	case "chrome", "perfetto":
		opt := export.ChromeOptions{}
		write = func(w io.Writer, p string) error {
			if *normals != "" {
				// Counter tracks of the most anomalous variables.
				res, err := rank.Analyze(strings.Split(*normals, ","), []string{p}, rank.DefaultOptions(), nil)
				if err != nil {
					return err
				}
				opt.Vars = report.Vars(res, 4)
			}
			return export.Chrome(w, p, opt)
		}
	case "":
		return usageErr("--format is required (pprof, collapsed, speedscope or chrome)")
	default:
		return usageErr("unknown --format %q (want pprof, collapsed, speedscope or chrome)", *format)
	}
	if f := strings.ToLower(*format); *normals != "" && f != "chrome" && f != "perfetto" {
		return usageErr("--report applies to --format chrome only")
	}
	in := fs.Arg(0)
	if *out == "" {
		if *format == "pprof" {
			if f, ok := stdout.(*os.File); ok && isTerminal(f) {
				return usageErr("pprof output is binary: give -o FILE or redirect standard output")
			}
		}
		bw := bufio.NewWriter(stdout)
		if err := write(bw, in); err != nil {
			return err
		}
		return bw.Flush()
	}
	tmp := *out + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	err = write(bw, in)
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
	if err := os.Rename(tmp, *out); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "vprof export: wrote %s (%s)\n", *out, *format)
	return nil
}

// isTerminal reports whether f is a terminal (not merely a character
// device such as /dev/null).
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
