package rank

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/symname"
)

// This file holds the checks a report makes of its own inputs: mistakes a
// user makes when giving runs (the same file twice, the runs swapped, too
// short a recording), which the ranking would otherwise turn silently into
// a confident-looking table. They become Result.Warnings.

// MinRunSamples is the fewest samples a run should hold for the
// statistics: below it, a function of a tenth of the run's time has under
// 10 samples and the value tests (MinSamples a side per variable) and the
// hist-discounter's rank comparisons decide on noise.
const MinRunSamples = 100

// checkComponents fails when one of Options.Components matches none of the
// source files of the runs' program objects (model.ComponentError,
// the rule record and schema use): almost always a typo, which would
// otherwise leave every function to the hist-discounter without a word.
func (a *Analyzer) checkComponents() error {
	if len(a.opt.Components) == 0 {
		return nil
	}
	var files, names []string
	seen := map[string]bool{}
	for _, o := range a.objs {
		if !o.program || o.schema == nil || !o.schema.HasDWARF {
			continue
		}
		if !slices.Contains(names, o.path) {
			names = append(names, o.path)
		}
		for _, f := range o.schema.Files {
			if !seen[f] {
				seen[f] = true
				files = append(files, f)
			}
		}
	}
	if len(names) == 0 {
		return nil // no DWARF: no variables to narrow, and nothing to check against
	}
	return model.CheckComponents(a.opt.Components, strings.Join(names, ", "), files)
}

// inputWarnings checks the runs given as normal and buggy: a file given
// twice, one recording on both sides (a copy), slow runs no slower than
// the normal ones (swapped?), runs with too few samples.
func inputWarnings(normal, buggy []*Run) []string {
	var out []string
	all := append(slices.Clone(normal), buggy...)
	side := func(i int) string {
		if i < len(normal) {
			return "normal"
		}
		return "buggy"
	}
	for i := range all {
		for j := i + 1; j < len(all); j++ {
			x, y := all[i], all[j]
			where := "twice among the " + side(i) + " runs"
			if side(i) != side(j) {
				where = "as a normal and as a buggy run"
			}
			switch {
			case sameFile(x.Name, y.Name):
				out = append(out, fmt.Sprintf("%s is given %s: a run must be counted once", x.Name, where))
			case sameRecording(x, y):
				out = append(out, fmt.Sprintf("%s and %s are the same recording (copies: same process, same start), given %s", x.Name, y.Name, where))
			}
		}
	}
	// Launched runs only: an attached recording lasts what --duration
	// says, and a server's slowness need not show in its total time.
	attached := slices.ContainsFunc(all, func(r *Run) bool { return r.hdr.Attached })
	if len(normal) > 0 && len(buggy) > 0 && !attached {
		n, b := meanTotal(normal), meanTotal(buggy)
		if b < n {
			out = append(out, fmt.Sprintf("the buggy runs are not slower than the normal ones (%.3f s sampled against %.3f s, means per run): are NORMAL and BUGGY swapped? If not, each function's normal-run cost is counted at the slow runs' length (x %.2f) before its extra cost is taken (docs/method.md §4, D56)", b, n, normalScale(normal, buggy)))
		}
	}
	for _, r := range all {
		if r.samples < MinRunSamples {
			out = append(out, fmt.Sprintf("%s has %d samples, too few for the statistics (%d or more): record longer, or with a shorter --interval", r.Name, r.samples, MinRunSamples))
		}
	}
	return out
}

func meanTotal(runs []*Run) float64 {
	var s float64
	for _, r := range runs {
		s += r.total
	}
	return s / float64(len(runs))
}

// sameFile reports whether the paths name one file (a link, another
// spelling of the path).
func sameFile(a, b string) bool {
	if a == b {
		return true
	}
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}

// sameRecording reports whether two runs are one recording: the same host,
// first process and start time to the nanosecond (a start time of zero,
// as in made-up profiles, tells nothing).
func sameRecording(x, y *Run) bool {
	return x.hdr.StartUnixNS != 0 && x.hdr.StartUnixNS == y.hdr.StartUnixNS &&
		x.hdr.PID == y.hdr.PID && x.hdr.Hostname == y.hdr.Hostname && x.hdr.Target == y.hdr.Target
}

// debugInfoWarnings names the program objects built without debugging
// information: their functions are ranked on cost alone (no variables, so
// every discount comes from the hist-discounter), and a stripped one has
// no names at all, so its time is ranked under no function. Without this
// a report of a binary built without -g is a table of hist verdicts, or
// an empty one, with no word of why.
func (a *Analyzer) debugInfoWarnings() []string {
	var out []string
	seen := map[string]bool{}
	for _, o := range a.objs {
		if !o.program || o.schema == nil || o.schema.HasDWARF || seen[o.path] {
			continue
		}
		seen[o.path] = true
		if !namesOwnCode(o.schema) {
			out = append(out, fmt.Sprintf("%s has neither DWARF debugging information nor a symbol table (stripped): none of its functions can be named or ranked (rebuild it with -g, or install its debug file under /usr/lib/debug/.build-id before recording)", o.path))
			continue
		}
		out = append(out, fmt.Sprintf("%s has no DWARF debugging information: its functions are ranked by their cost alone, with no variables (build with -g)", o.path))
	}
	return out
}

// namesOwnCode reports whether a program's symbols name any code of its
// own: a stripped program still names its PLT stubs (from .dynsym and the
// relocations, D290), which are calls into libraries, not its functions.
func namesOwnCode(s *model.Schema) bool {
	for i := range s.Funcs {
		if !symname.IsPLT(s.Funcs[i].Name) {
			return true
		}
	}
	return false
}
