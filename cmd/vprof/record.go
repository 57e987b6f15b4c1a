package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vprof/vprof/dwarfschema"
	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/sampler"
	"github.com/vprof/vprof/sampler/callcount"
	"github.com/vprof/vprof/sampler/unwind"
)

const recordHelp = `
Usage: vprof record [flags] -- COMMAND [ARGS...]
       vprof record [flags] -p PID

Runs COMMAND (or attaches to the running process PID) and samples it: at
every tick, for each thread that used CPU since the last one, the program
counter, the whole call stack, and the values of the variables accessible
in the innermost program function and its callers (globals, loop
variables, variables read by conditions, call arguments: see 'vprof
schema'). The program needs no rebuild; build it with -g for values (a
binary without DWARF gives a PC-only profile). Threads and child processes
are followed.

The profile goes to vprof.data (an existing one is moved to vprof.data.old),
streamed as recording goes, so a recorder killed half-way leaves a
readable prefix in FILE.partial.

Schema cache: the program's schema (what 'vprof schema' prints) is kept
by build-id in $XDG_CACHE_HOME/vprof (else ~/.cache/vprof), so that
recording the same build again does not read its DWARF again (for a large
C++ program, seconds and gigabytes). Beside it (.indirect) is the scan
for the functions whose address the code takes, which report, flat,
timeline and export read too. A rebuilt program has another build-id;
a cache file of another vprof schema version, or damaged, is ignored
with a warning and replaced. --no-schema-cache or
VPROF_SCHEMA_CACHE=off builds the schema every time. The files can be
removed at any time.

Samplers (--sampler):
  - perf (the default where the kernel allows it): the kernel samples each
    thread on its own CPU clock and copies its registers and stack into a
    ring buffer; vprof reads them a few milliseconds later. No running
    thread is ever stopped: usually the cheapest, and the program cannot
    tell it is sampled. Globals and heap values are those of that moment,
    a few milliseconds after the tick; locals in SSE registers (doubles
    kept in %xmm) are not sampled. With --clock wall, threads blocked in
    the kernel are sampled at each tick from /proc and their memory (and
    briefly stopped only in calls the kernel restarts unseen: futex waits,
    sleeps, poll, pipe reads...), each weighing the time it was blocked;
    time a thread spends waiting for a CPU counts as running.
  - ptrace: each running thread is stopped at each tick, read, resumed.
    Values are exact at the tick; costlier per sample, but nothing per
    thread switch: cheaper for programs that switch threads tens of
    thousands of times a second (lock hand-offs), where perf pays a few µs
    in the kernel at each switch. Beware: a thread that /proc shows
    running may be inside a system call (just woken, copying data), and
    the stop makes that call return early as a signal would: a pipe or
    socket write returns a short count, a terminal read waiting for VMIN
    bytes returns fewer, a socket receive with a timeout, epoll_wait or
    sigtimedwait fail with EINTR. Programs that retry (as they should) see
    nothing; others may fail. Use it only where that is acceptable.
  - auto: perf, or ptrace with a warning saying why perf cannot be used
    (kernel.perf_event_paranoid above 2, a container's seccomp profile).
  'vprof info' shows which one recorded a profile.

Ending a recording:
  - the program exits: vprof exits with its status (128+n for signal n);
  - Ctrl-C goes to the program, as without vprof: recording goes on until
    the program exits (a program that handles SIGINT is profiled to its end);
  - --duration D: vprof stops recording after D, detaches, and exits with
    the program's status when it ends on its own;
  - SIGTERM to vprof: vprof detaches, writes the profile and exits 143; the
    program runs on;
  - with -p PID, Ctrl-C, SIGTERM or --duration detach cleanly: the process
    keeps running unharmed.

Counting calls (--count F,G): the entries of the named functions are
counted exactly (a uprobe perf counter per function and thread, as vprof
count does) while the run is sampled, and the counts are stored in the
profile. vprof report reads them when the normal and the slow profiles
both hold them: they tell a caller that decided to call its callee more
often from a callee whose calls grew longer (docs/method.md D220), which
the samples cannot. Each counted call costs a trap (microseconds), which
the samples of this run carry: record one normal and one slow run with
--count besides the runs without it, and give report all of them (it then
reads only the counts of the counted runs). report says which functions
to count when its top rows are a caller and its callee. A kernel without
the uprobe PMU records without counts, with a warning.

Examples:
  vprof record -- ./server --port 8080
  vprof record -o slow.vprof --duration 30s -p $(pidof server)
  vprof record --clock wall --interval 5ms --depth 2 -- make -j4
  vprof record --func 'lookup|#global' -o buggy.vprof -- ./cache --buggy
  vprof record --sampler ptrace -- ./server     # values exact at the tick (see Beware above)
  vprof record --count 'lookup,rehash' -o slow-count.vprof -- ./cache --buggy
`

func init() {
	register(&command{name: "record", order: 20, summary: "run or attach to a program and record a value-assisted profile", run: runRecord})
}

func runRecord(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("record", recordHelp, stdout)
	out := fs.String("o", "vprof.data", "write the profile to `FILE`")
	pid := fs.Int("p", 0, "attach to the running process `PID` instead of launching a command")
	interval := fs.Duration("interval", time.Millisecond, "time between ticks (`D`: 1ms is 1000 samples per second per busy thread)")
	depth := fs.Int("depth", 4, "read values in `N` caller program frames besides the innermost one (docs/method.md §3, D36)")
	stack := fs.Int("stack", 64, "keep `N` frames of each call stack (at most 128)")
	clock := fs.String("clock", "cpu", "what a tick samples, `MODE`: cpu (the threads that used CPU since the last tick) or wall (every thread, with running/blocked state)")
	duration := fs.Duration("duration", 0, "stop recording after `D` (0: when the program exits)")
	jitter := fs.Bool("jitter", false, "jitter the ticks (exponential gaps, mean --interval) to avoid aliasing with periodic work")
	progress := fs.Bool("progress", false, "print progress every second even when standard error is not a terminal")
	quiet := fs.Bool("q", false, "no progress and no summary")
	funcRe := fs.String("func", "", "sample only variables of functions matching `REGEX` ('#global' matches globals)")
	samplerName := fs.String("sampler", "auto", "how threads are sampled, `NAME`: auto, perf or ptrace (see above; ptrace may cut a running system call short)")
	all := fs.Bool("all", false, "sample every local variable and parameter DWARF describes, not only those tagged loop/cond/args (more values, more cost)")
	tailFrames := fs.Bool("tail-frames", true, "restore while recording the frames that tail calls removed and read their parameters there (docs/method.md §3, D36; --tail-frames=false: the other commands restore them anyway, without values)")
	strLens := fs.Bool("strlen", false, "also sample, for each monitored local or parameter of type char *, the length of the string it points at (up to 16 KiB) as a variable of its own, strlen(NAME): a string built by appending (strcat, sprintf(buf + strlen(buf), ...)) then shows its growth (method.md D140). Off by default: up to two more reads per string per sample, and a length that the input sets (a key, a name) reads as a wrong constraint")
	noFields := fs.Bool("no-fields", false, "sample no struct fields: struct globals as one hash each, no fields of struct locals, nothing read behind pointers (as before fields were sampled; for comparison)")
	count := fs.String("count", "", "also count, exactly, the entries of the functions named in `NAMES` (comma-separated, as vprof count --func takes them) in every thread and child, and store the counts in the profile (see Counting calls above)")
	noCache := fs.Bool("no-schema-cache", false, "build the program's schema even when it is cached (also VPROF_SCHEMA_CACHE=off; see Schema cache above)")
	var comps multiFlag
	fs.Var(&comps, "component", "sample only variables declared in source files under `PATH`, a file or directory (repeatable; the rule: see 'vprof schema --help')")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cmdArgs := fs.Args()
	switch {
	case *pid != 0 && len(cmdArgs) > 0:
		return usageErr("give either -p PID or a command after --, not both")
	case *pid == 0 && len(cmdArgs) == 0:
		return usageErr("nothing to record: give a command after -- or -p PID")
	case *pid < 0:
		return usageErr("-p %d: not a process id", *pid)
	case *interval < 10*time.Microsecond:
		return usageErr("--interval %v: too short (at least 10µs)", *interval)
	case *depth < 0 || *depth > 64:
		return usageErr("--depth %d: want 0 to 64", *depth)
	case *stack < 1 || *stack > sampler.MaxStack:
		return usageErr("--stack %d: want 1 to %d", *stack, sampler.MaxStack)
	case *clock != "cpu" && *clock != "wall":
		return usageErr("--clock %q: want cpu or wall", *clock)
	case *samplerName != sampler.SamplerAuto && *samplerName != sampler.SamplerPerf && *samplerName != sampler.SamplerPtrace:
		return usageErr("--sampler %q: want auto, perf or ptrace", *samplerName)
	case *duration < 0:
		return usageErr("--duration %v: must not be negative", *duration)
	case *out == "":
		return usageErr("-o: empty file name")
	}
	cfg := sampler.Config{
		Output:     *out,
		Args:       cmdArgs,
		PID:        *pid,
		Interval:   *interval,
		Jitter:     *jitter,
		Clock:      model.Clock(*clock),
		Depth:      *depth,
		Stack:      *stack,
		Components: comps,
		AllVars:    *all,
		NoFields:   *noFields,
		StrLens:    *strLens,
		TailFrames: *tailFrames,
		Duration:   *duration,
		Sampler:    *samplerName,
		Recorder:   "vprof record " + strings.Join(args, " "),
		Warn:       func(s string) { fmt.Fprintf(stderr, "vprof record: warning: %s\n", s) },
	}
	if *funcRe != "" {
		re, err := regexp.Compile(*funcRe)
		if err != nil {
			return usageErr("--func: %v", err)
		}
		cfg.FuncRegex = re
	}
	if *count != "" {
		if err := setupCount(&cfg, *count, cmdArgs, *pid); err != nil {
			return err
		}
		if cfg.Count != nil {
			defer cfg.Count.Discard()
		}
	}
	if !*noCache && os.Getenv("VPROF_SCHEMA_CACHE") != "off" {
		cfg.SchemaCache = dwarfschema.DefaultCacheDir()
	}
	if !*quiet && (*progress || isTTY(stderr)) {
		tty := isTTY(stderr)
		cfg.Progress = func(p sampler.Progress) {
			line := fmt.Sprintf("vprof record: %s  %d threads  %d samples  %d value samples",
				p.Elapsed.Round(100*time.Millisecond), p.Threads, p.Samples, p.ValueSamples)
			if tty {
				fmt.Fprintf(stderr, "\r\033[K%s", line)
			} else {
				fmt.Fprintln(stderr, line)
			}
		}
	}
	printed := false
	summary := func(res *sampler.Result) {
		if *quiet || printed {
			return
		}
		printed = true
		if cfg.Progress != nil && isTTY(stderr) {
			fmt.Fprint(stderr, "\r\033[K")
		}
		printSummary(stderr, res)
	}
	cfg.OnDetached = func(res *sampler.Result) {
		summary(res)
		fmt.Fprintln(stderr, "vprof record: the program runs on; waiting for it to exit")
	}
	limitProcs()
	stopProfiles, err := startProfiles(os.Getenv(cpuProfileEnv), os.Getenv(memProfileEnv))
	if err != nil {
		return err
	}
	res, err := sampler.Record(cfg)
	if perr := stopProfiles(); perr != nil {
		fmt.Fprintf(stderr, "vprof record: warning: %v\n", perr)
	}
	if path := os.Getenv(resultEnv); path != "" && res != nil {
		if werr := writeResult(path, res); werr != nil {
			fmt.Fprintf(stderr, "vprof record: warning: %s: %v\n", resultEnv, werr)
		}
	}
	if err != nil {
		var pe *sampler.PermissionError
		switch {
		case errors.As(err, &pe):
			return err
		case errors.Is(err, sampler.ErrNoProcess):
			return err
		}
		if res != nil {
			summary(res)
		}
		return err
	}
	summary(res)
	if res.ExitStatus != 0 {
		return &exitError{code: res.ExitStatus}
	}
	return nil
}

// setupCount resolves the functions of --count in the executable to be
// recorded (the command's, or process pid's) and prepares their counters.
// A name that names no function is an error (nothing has run yet); a
// kernel without the uprobe PMU is not: the run is recorded, and the
// profile and a warning say why it has no counts.
func setupCount(cfg *sampler.Config, list string, cmdArgs []string, pid int) error {
	names := callcount.ParseNames(list)
	if len(names) == 0 {
		return usageErr("--count %q: no function named", list)
	}
	var prog string
	var err error
	if pid != 0 {
		prog, err = os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	} else if prog, err = exec.LookPath(cmdArgs[0]); err == nil {
		prog, err = filepath.Abs(prog)
	}
	if err != nil {
		return fmt.Errorf("--count: %v", err)
	}
	// An executable must have them all (nothing has run yet); a script or
	// a launcher is bound to the first program it runs that has them.
	if isELF(prog) {
		if _, err := callcount.Resolve(prog, names); err != nil {
			return fmt.Errorf("--count: %v", err)
		}
	}
	cfg.CountNames = names
	if cfg.Count, err = callcount.NewLazySet(names); err != nil {
		cfg.CountMissing = err.Error()
		cfg.Warn("the calls are not counted: " + cfg.CountMissing + "; recording without counts")
	}
	return nil
}

// isELF reports whether the file at path starts as an ELF file does.
func isELF(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [4]byte
	_, err = io.ReadFull(f, b[:])
	return err == nil && string(b[:]) == "\x7fELF"
}

// printCounts is the summary's line of counts (record --count).
func printCounts(w io.Writer, t model.Trailer) {
	switch {
	case t.CountError != "":
		fmt.Fprintf(w, "  no call counts: %s\n", t.CountError)
	case len(t.Counts) > 0:
		fmt.Fprintf(w, "  calls: %s\n", joinCounts(t.Counts))
	}
}

// joinCounts is counts as "f 12, g 3" (record's summary, vprof info).
func joinCounts(counts []model.CallCount) string {
	parts := make([]string, len(counts))
	for i, c := range counts {
		parts[i] = fmt.Sprintf("%s %d", c.Function, c.Calls)
		if c.Unsure != "" {
			parts[i] += " (unsure: " + c.Unsure + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// recordProcs caps GOMAXPROCS while recording. A recording is one
// thread's work (the tracer's), with a few helpers while it starts; more
// Ps serve only the garbage collector, whose idle workers run a cycle's
// marking on every idle P, each taking a CPU from the program recorded
// (16 on a 16-CPU machine, for a cycle or two).
const recordProcs = 4

// limitProcs applies recordProcs, unless GOMAXPROCS is set.
func limitProcs() {
	if os.Getenv("GOMAXPROCS") == "" && runtime.GOMAXPROCS(0) > recordProcs {
		runtime.GOMAXPROCS(recordProcs)
	}
}

// isTTY reports whether w is a terminal that takes escape sequences (the
// progress line redraws itself with them): not a file or pipe, and not
// TERM=dumb (an editor's shell buffer).
func isTTY(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("TERM") == "dumb" {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// printSummary is the end-of-recording report on standard error.
func printSummary(w io.Writer, res *sampler.Result) {
	t := res.Trailer
	fmt.Fprintf(w, "vprof record: %s after %s; %d samples, %d value samples, %d unreadable reads",
		res.Reason, res.Elapsed.Round(time.Millisecond), t.Samples, t.ValueSamples, t.UnreadableReads)
	if t.LostTicks > 0 {
		fmt.Fprintf(w, ", %d ticks lost", t.LostTicks)
	}
	fmt.Fprintf(w, "\n  %d processes, %d threads, %d objects; profile %s (%s)\n",
		res.Processes, res.Threads, res.Objects, res.Path, fmtBytes(res.FileSize))
	printCounts(w, t)
	if v := res.Values; t.UnreadableReads > 0 {
		fmt.Fprintf(w, "  unreadable: %d not recoverable in a caller frame, %d entry values unknown, %d unsupported expressions, %d faulted reads\n",
			v.Unavailable, v.EntryValue, v.Unsupported, v.Faulted)
	}
	if v := res.Values; v.EntryValue > 0 || v.EntryLast > 0 {
		// Where the chains of call-site records stopped (method.md §3).
		fmt.Fprintf(w, "  entry values: %d found at the %dth call-site record of a chain; unknown: %d no value in a caller's record (%d at the 2nd or a later record, %d from a caller in an object without records), %d under a tail call no chain restores, %d no caller frame, %d past %d records, %d other\n",
			v.EntryLast, sampler.MaxEntryHops, v.EntryNoValue, v.EntryNoValueDeep, v.EntryNoRecords, v.EntryTail, v.EntryNoCaller,
			v.EntryBound, sampler.MaxEntryHops, v.EntryValue-v.EntryNoValue-v.EntryTail-v.EntryNoCaller-v.EntryBound)
	}
	if b := res.Blocked; b.Samples > 0 {
		fmt.Fprintf(w, "  blocked threads: %d samples, %d with registers (%d stops: one per wait in a call the kernel restarts unseen)\n",
			b.Samples, b.WithRegs, b.Stops)
	}
	printStackStops(w, res)
	s := res.Steps
	n := s.Full + s.Light
	if res.Sampler == sampler.SamplerPerf {
		printPerfSummary(w, res)
		if s.Full == 0 {
			return // no running thread stopped: the blocked samples are in the perf lines
		}
	}
	if n > 0 {
		us := func(d time.Duration, k uint64) float64 {
			if k == 0 {
				return 0
			}
			return float64(d.Nanoseconds()) / float64(k) / 1e3
		}
		fmt.Fprintf(w, "  per sample (µs): stop %.1f, registers %.1f, copy %.1f, resume %.1f, unwind %.1f, values %.1f, write %.1f; choosing threads %.1f per tick\n",
			us(s.Stop, s.Full), us(s.Regs, s.Full), us(s.Read, n), us(s.Resume, s.Full),
			us(s.Unwind, n), us(s.Values, n), us(s.Write, n), us(s.Decide, s.Ticks))
		fmt.Fprintf(w, "  overhead: %s; threads were held stopped %.1f µs per sample\n",
			overhead(res, n), us(s.Stopped, s.Full))
	} else {
		fmt.Fprintf(w, "  overhead: %s\n", overhead(res, 0))
	}
}

func fmtBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// printPerfSummary is the summary's cost part for the perf sampler.
func printPerfSummary(w io.Writer, res *sampler.Result) {
	s := res.Steps
	np := s.Perf - s.Dropped
	n := np + s.Light + s.Full // blocked threads (--clock wall) and threads without perf events are sampled at the ticks
	if n == 0 {
		fmt.Fprintf(w, "  overhead: %s\n", overhead(res, 0))
		return
	}
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(n) / 1e3 }
	ring, lag := 0.0, 0.0
	if np > 0 {
		ring = float64(s.Ring.Nanoseconds()) / float64(np) / 1e3
		lag = float64(s.Lag.Nanoseconds()) / float64(np) / 1e6
	}
	fmt.Fprintf(w, "  perf sampler, per sample (µs): ring %.1f, unwind %.1f, values %.1f, write %.1f; read %.1f ms after the tick on average (at most %.1f)\n",
		ring, us(s.Unwind), us(s.Values), us(s.Write), lag, float64(s.MaxLag.Nanoseconds())/1e6)
	if s.Light > 0 {
		fmt.Fprintf(w, "  %d samples of running threads from perf events, %d of blocked threads at the ticks (%.1f µs per tick choosing them)\n",
			np, s.Light, float64(s.Decide.Nanoseconds())/float64(max(s.Ticks-s.Perf, 1))/1e3)
	}
	stopped := "no thread was stopped to sample it"
	switch {
	case s.Full > 0:
		stopped = "threads without perf events were stopped (see below)"
	case res.Blocked.Stops > 0:
		stopped = "no running thread was stopped"
	}
	fmt.Fprintf(w, "  overhead: %s; %s\n", overhead(res, n), stopped)
	if s.Dropped > 0 || s.Throttled > 0 {
		fmt.Fprintf(w, "  %d samples dropped (thread no longer followed, or exec'd), %d throttled by the kernel\n", s.Dropped, s.Throttled)
	}
}

// overhead says what recording cost in terms that stay true whatever the
// program did: vprof's CPU time per second of recording and per sample
// after start-up. A share of the program's CPU time is added only when the
// program was busy (a tenth of a CPU or more): for an idle server, 0.4 s of
// vprof's CPU against its 0.09 s would read "430%" of next to nothing.
func overhead(res *sampler.Result, samples uint64) string {
	s := fmt.Sprintf("vprof used %s of CPU in %s (%.1f ms per second", cpuTime(res.TracerCPU),
		res.Elapsed.Round(time.Millisecond), perSecond(res.TracerCPU, res.Elapsed))
	if samples > 0 {
		s += fmt.Sprintf(", %.1f µs per sample after start-up", float64((res.TracerCPU-res.SetupCPU).Nanoseconds())/float64(samples)/1e3)
	}
	s += ")"
	switch {
	case res.TargetCPU <= 0:
	case res.Elapsed > 0 && res.TargetCPU*10 < res.Elapsed:
		s += fmt.Sprintf("; the program was mostly idle (%s of CPU, %.1f ms per second)", cpuTime(res.TargetCPU), perSecond(res.TargetCPU, res.Elapsed))
	default:
		s += fmt.Sprintf(", %.1f%% of the program's %s of CPU", 100*res.TracerCPU.Seconds()/res.TargetCPU.Seconds(), cpuTime(res.TargetCPU))
	}
	return s
}

// cpuTime is "0.72 s", or "3.1 ms" under a second.
func cpuTime(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%.1f ms", float64(d.Nanoseconds())/1e6)
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

// perSecond is d per second of wall time el, in milliseconds.
func perSecond(d, el time.Duration) float64 {
	if el <= 0 {
		return 0
	}
	return 1e3 * d.Seconds() / el.Seconds()
}

// resultEnv names a file that vprof record writes its sampler.Result to,
// as JSON: the per-step times and vprof's own CPU time that `make bench`
// prints beside its timing of the whole command. Not for users: the
// summary on standard error says the same in words.
const resultEnv = "VPROF_RESULT_JSON"

// cpuProfileEnv and memProfileEnv name files that vprof record and vprof
// schema write their own Go CPU profile and allocation profile to (go
// tool pprof reads them), for whoever works on the recorder's or the
// schema reader's cost (docs/benchmarks.md, "Sampler" and issue 18).
// Not for users.
const (
	cpuProfileEnv = "VPROF_CPUPROFILE"
	memProfileEnv = "VPROF_MEMPROFILE"
)

// startProfiles starts the CPU profile to cpuPath and the allocation
// profile to memPath (each "" for none); stop writes and closes them.
func startProfiles(cpuPath, memPath string) (stop func() error, err error) {
	var cpu *os.File
	if cpuPath != "" {
		if cpu, err = os.Create(cpuPath); err != nil {
			return nil, fmt.Errorf("%s: %w", cpuProfileEnv, err)
		}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			cpu.Close()
			return nil, fmt.Errorf("%s: %w", cpuProfileEnv, err)
		}
	}
	if memPath != "" {
		runtime.MemProfileRate = 512 // every allocation of the sampling path shows
	}
	return func() error {
		var errs []error
		if cpu != nil {
			pprof.StopCPUProfile()
			errs = append(errs, cpu.Close())
		}
		if memPath != "" {
			f, err := os.Create(memPath)
			if err == nil {
				err = pprof.Lookup("allocs").WriteTo(f, 0)
				errs = append(errs, err, f.Close())
			} else {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	}, nil
}

func writeResult(path string, res *sampler.Result) error {
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// printStackStops says how many stacks were unwound short of their entry
// frame, and why, when some were.
func printStackStops(w io.Writer, res *sampler.Result) {
	u := res.Unwind
	var all uint64
	for _, n := range u.Stops {
		all += n
	}
	cut := all - u.Stops[unwind.StopOutermost]
	if cut == 0 {
		return
	}
	fmt.Fprintf(w, "  stacks cut short of their entry frame: %d of %d (%.1f%%):", cut, all, 100*float64(cut)/float64(all))
	sep := " "
	for r := unwind.Stop(0); r < unwind.NumStops; r++ {
		if n := u.Stops[r]; n > 0 && r != unwind.StopOutermost {
			fmt.Fprintf(w, "%s%d %s", sep, n, r)
			sep = ", "
		}
	}
	fmt.Fprintln(w)
	if s := res.Steps; s.CutRefused > 0 || s.FaultIns > 0 {
		fmt.Fprintf(w, "  perf stack copies cut short (at a stack page never touched): %d samples read past the copy live, %d refused (its end changed since the tick), %d holes read in\n",
			s.CutLive, s.CutRefused, s.FaultIns)
	}
}
