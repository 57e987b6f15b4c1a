// Command bench compares reading a binary's schema with gdb's reading of
// its symbols (`make bench-schema`): `vprof schema BINARY` against
// `gdb -nx -batch -readnow BINARY` (gdb expands the full symbol table of
// every compilation unit: the closest thing gdb does to what the schema
// reads), alternated pair by pair on the same binary, the first of a pair
// alternating too, so that the machine's load and the page cache fall on
// both alike. It prints the medians of wall time, CPU time (user+system)
// and peak RSS, and the ratios vprof/gdb side by side. With several vprof
// builds (-vprof before=PATH,after=PATH) each round runs gdb and every
// build, in an order rotated from round to round, so that builds are
// compared in one run under the same load.
//
// The binaries are the arguments; with none, binutils' gold, when Debian's
// binutils-x86-64-linux-gnu-dbg gives its DWARF (a large C++ program).
// Without gdb, or a binary without DWARF, it says so and skips.
//
// It measures on the machine it runs on, whatever else that machine is
// doing: the load average is printed with the results.
package main

import (
	"debug/elf"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
)

// gold is the default binary; its DWARF is in the -dbg package.
const gold = "/usr/bin/x86_64-linux-gnu-ld.gold"

func main() {
	pairs := flag.Int("pairs", 5, "runs of each tool on each binary, alternated")
	vprofs := flag.String("vprof", "bin/vprof", "the vprof binary, or several builds to compare as NAME=PATH,NAME=PATH (each alternated with gdb in every round)")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: bench [-pairs N] [-vprof PATH | -vprof NAME=PATH,...] [BINARY...]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	bins := flag.Args()
	if len(bins) == 0 {
		bins = []string{gold}
	}
	builds, err := parseBuilds(*vprofs)
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench-schema: -vprof: %v\n", err)
		os.Exit(2)
	}
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		fmt.Println("bench-schema: skipped: no gdb (apt-get install gdb, or make debug-tools)")
		return
	}
	for _, b := range builds {
		if _, err := os.Stat(b.path); err != nil {
			fmt.Fprintf(os.Stderr, "bench-schema: %v (make build first)\n", err)
			os.Exit(2)
		}
	}
	type row struct {
		bin   string
		gdb   []sample
		vprof [][]sample // per build
	}
	var rows []row
	for _, bin := range bins {
		if why := noDWARF(bin); why != "" {
			fmt.Printf("bench-schema: %s skipped: %s\n", bin, why)
			continue
		}
		r := row{bin: bin, vprof: make([][]sample, len(builds))}
		fmt.Fprintf(os.Stderr, "bench-schema: %s: %d pairs", bin, *pairs)
		for i := range *pairs {
			// One round: gdb and each build, the order rotated round by
			// round so that none is always first after another.
			runs := []func(){func() { r.gdb = append(r.gdb, measure(gdb, "-nx", "-batch", "-readnow", bin)) }}
			for k, b := range builds {
				runs = append(runs, func() { r.vprof[k] = append(r.vprof[k], measure(b.path, "schema", bin)) })
			}
			for j := range runs {
				runs[(i+j)%len(runs)]()
			}
			fmt.Fprint(os.Stderr, ".")
		}
		fmt.Fprintln(os.Stderr)
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		return
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "binary\tgdb wall\tvprof wall\tratio\tgdb cpu\tvprof cpu\tratio\tgdb peak RSS\tvprof peak RSS\tratio\t\n")
	for _, r := range rows {
		g := medians(r.gdb)
		for k, b := range builds {
			v := medians(r.vprof[k])
			name := filepath.Base(r.bin)
			if len(builds) > 1 {
				name += " (" + b.name + ")"
			}
			fmt.Fprintf(tw, "%s\t%.2fs\t%.2fs\t%.2fx\t%.2fs\t%.2fs\t%.2fx\t%dMB\t%dMB\t%.2fx\t\n", name,
				g.wall.Seconds(), v.wall.Seconds(), v.wall.Seconds()/g.wall.Seconds(),
				g.cpu.Seconds(), v.cpu.Seconds(), v.cpu.Seconds()/g.cpu.Seconds(),
				g.rss>>20, v.rss>>20, float64(v.rss)/float64(g.rss))
		}
	}
	tw.Flush()
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("medians of %d pairs (vprof schema vs gdb -batch -readnow), load average %s", *pairs, strings.Join(strings.Fields(string(b))[:3], " ")+"\n")
	}
	for _, r := range rows {
		all := r.gdb
		for _, v := range r.vprof {
			all = append(all, v...)
		}
		for _, s := range all {
			if s.err != "" {
				fmt.Printf("bench-schema: %s: %s\n", r.bin, s.err)
				break
			}
		}
	}
}

// build is a vprof binary to measure, named in the table when there are
// several.
type build struct{ name, path string }

// parseBuilds reads -vprof: a path, or NAME=PATH pairs separated by commas.
func parseBuilds(arg string) ([]build, error) {
	if !strings.Contains(arg, "=") {
		return []build{{name: arg, path: arg}}, nil
	}
	var out []build
	for _, f := range strings.Split(arg, ",") {
		name, path, ok := strings.Cut(f, "=")
		if !ok || name == "" || path == "" {
			return nil, fmt.Errorf("%q: want NAME=PATH", f)
		}
		out = append(out, build{name, path})
	}
	return out, nil
}

// sample is one run: wall and CPU time, peak RSS in bytes.
type sample struct {
	wall, cpu time.Duration
	rss       int64
	err       string
}

// measure runs a command with its output discarded.
func measure(name string, args ...string) sample {
	cmd := exec.Command(name, args...)
	t0 := time.Now()
	err := cmd.Run()
	s := sample{wall: time.Since(t0)}
	if err != nil {
		s.err = fmt.Sprintf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	if ps := cmd.ProcessState; ps != nil {
		s.cpu = ps.UserTime() + ps.SystemTime()
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			s.rss = ru.Maxrss << 10 // KiB on Linux
		}
	}
	return s
}

// medians takes the median of each measure on its own.
func medians(ss []sample) sample {
	med := func(f func(sample) int64) int64 {
		v := make([]int64, len(ss))
		for i, s := range ss {
			v[i] = f(s)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	return sample{
		wall: time.Duration(med(func(s sample) int64 { return int64(s.wall) })),
		cpu:  time.Duration(med(func(s sample) int64 { return int64(s.cpu) })),
		rss:  med(func(s sample) int64 { return s.rss }),
	}
}

// noDWARF says why bin cannot be compared ("" when it can): not readable,
// or no DWARF of its own nor a debug file by build-id.
func noDWARF(bin string) string {
	ef, err := elf.Open(bin)
	if err != nil {
		return err.Error()
	}
	defer ef.Close()
	if ef.Section(".debug_info") != nil || ef.Section(".zdebug_info") != nil {
		return ""
	}
	if id := buildID(ef); len(id) > 2 {
		p := filepath.Join("/usr/lib/debug/.build-id", id[:2], id[2:]+".debug")
		if _, err := os.Stat(p); err == nil {
			return ""
		}
	}
	if bin == gold {
		return "no DWARF: its debug file is in Debian's binutils-x86-64-linux-gnu-dbg (apt-get install binutils-x86-64-linux-gnu-dbg)"
	}
	return "no DWARF (build it with -g, or install its debug file under /usr/lib/debug)"
}

// buildID returns the hex NT_GNU_BUILD_ID of ef, or "".
func buildID(ef *elf.File) string {
	sec := ef.Section(".note.gnu.build-id")
	if sec == nil {
		return ""
	}
	b, err := sec.Data()
	if err != nil || len(b) < 16 {
		return ""
	}
	namesz := ef.ByteOrder.Uint32(b)
	descsz := ef.ByteOrder.Uint32(b[4:])
	off := 12 + (namesz+3)&^3
	if uint64(off)+uint64(descsz) > uint64(len(b)) {
		return ""
	}
	return hex.EncodeToString(b[off : off+descsz])
}
