package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/proffile"
)

const infoHelp = `
Usage: vprof info [flags] FILE

Prints what a profile holds: the target (path, arguments, build-id),
how it was recorded (clock, interval, depth, stack), its processes with
their exit status, threads, objects, duration and counts of samples and
value samples, and how many stacks were unwound short of their entry
frame, by reason ("stacks cut", when some were). For a profile cut short
(vprof record killed), it says how much was recovered; every complete
block before the cut is usable.

--samples N also prints the first N samples: thread, weight, call stack
(function names) and values (variable = value, per frame).

Examples:
  vprof info vprof.data
  vprof info --samples 5 slow.vprof
`

func init() {
	register(&command{name: "info", order: 25, summary: "print what a profile holds", run: runInfo})
}

// procInfo is what info gathers about one process.
type procInfo struct {
	pid, ppid int32
	path      string
	end       string
	threads   int
	samples   int64
}

func runInfo(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("info", infoHelp, stdout)
	nsamples := fs.Int("samples", 0, "print the first `N` samples")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErr("need one profile: vprof info FILE")
	}
	if *nsamples < 0 {
		return usageErr("--samples %d: want 0 or more", *nsamples)
	}
	path := fs.Arg(0)
	r, err := proffile.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			if _, e2 := os.Stat(path + proffile.PartialSuffix); e2 == nil {
				return fmt.Errorf("%w (a recording cut short left %s%s: try that)", err, path, proffile.PartialSuffix)
			}
		}
		return err
	}
	defer r.Close()
	h := r.Header()
	var (
		objs     []*model.Object
		procs    = map[int32]*procInfo{}
		order    []int32
		threads  int
		blocks   int64
		samples  int64
		values   int64
		weight   int64
		lastTime int64
		trailer  *model.Trailer
		printed  int
		space    = proffile.NewAddrSpace()
		objByID  = map[uint16]*model.Object{}
		mappings int
	)
	proc := func(pid int32) *procInfo {
		p := procs[pid]
		if p == nil {
			p = &procInfo{pid: pid}
			procs[pid] = p
			order = append(order, pid)
		}
		return p
	}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintf(stderr, "vprof info: %v\n", err)
			break
		}
		space.Observe(rec)
		switch x := rec.(type) {
		case *model.Object:
			objs = append(objs, x)
			objByID[x.ID] = x
		case *model.Mapping:
			mappings++
		case *model.ProcEvent:
			p := proc(x.PID)
			switch x.Kind {
			case model.ProcStart, model.ProcFork:
				p.ppid, p.path = x.PPID, x.Path
			case model.ProcExec:
				p.path = x.Path
			case model.ProcExit:
				if x.Signal != 0 {
					p.end = fmt.Sprintf("killed by signal %d (%s)", x.Signal, sigName(x.Signal))
				} else {
					p.end = fmt.Sprintf("exited %d", x.Status)
				}
			case model.ProcDetach:
				p.end = "detached, left running"
			}
			lastTime = max(lastTime, x.TimeNS)
		case *model.ThreadEvent:
			if !x.Exit {
				threads++
				proc(x.PID).threads++
			}
			lastTime = max(lastTime, x.TimeNS)
		case *model.Block:
			blocks++
			p := proc(x.PID)
			for i := range x.Samples {
				s := &x.Samples[i]
				samples++
				p.samples++
				values += int64(len(s.Values))
				weight += s.WeightNS
				lastTime = max(lastTime, s.TimeNS)
				if printed < *nsamples {
					printed++
					printSample(stdout, x.PID, x.TID, s, space, objByID)
				}
			}
		case *model.Trailer:
			trailer = x
		}
	}
	if printed > 0 {
		fmt.Fprintln(stdout)
	}
	rec := r.Recovery()
	st, _ := os.Stat(path)
	size := int64(0)
	if st != nil {
		size = st.Size()
	}
	state := "complete"
	if !rec.Complete {
		state = "INCOMPLETE"
	}
	fmt.Fprintf(stdout, "profile:      %s (%s, %s, format version %d)\n", path, fmtBytes(size), state, h.Version)
	mode := "launched"
	if h.Attached {
		mode = "attached to"
	}
	fmt.Fprintf(stdout, "target:       %s (%s pid %d)\n", h.Target, mode, h.PID)
	if len(h.Args) > 0 {
		fmt.Fprintf(stdout, "command:      %s\n", strings.Join(h.Args, " "))
	}
	if h.BuildID != "" {
		fmt.Fprintf(stdout, "build-id:     %s\n", h.BuildID)
	}
	when := time.Unix(0, h.StartUnixNS).UTC().Format("2006-01-02 15:04:05 MST")
	fmt.Fprintf(stdout, "recorded:     %s", when)
	if h.Hostname != "" {
		fmt.Fprintf(stdout, " on %s", h.Hostname)
	}
	fmt.Fprintln(stdout)
	fmt.Fprintf(stdout, "sampling:     clock %s, interval %v, values in %d caller frames, stacks of up to %d frames\n",
		h.Clock, time.Duration(h.IntervalNS), h.Depth, h.Stack)
	switch h.Sampler {
	case "perf":
		if h.Clock == model.ClockWall {
			fmt.Fprintln(stdout, "sampler:      perf (no running thread stopped: running threads sampled by perf events, blocked ones at each tick; globals and heap values read a few ms after each sample)")
		} else {
			fmt.Fprintln(stdout, "sampler:      perf (no thread stopped; globals and heap values read a few ms after each tick)")
		}
	case "ptrace":
		fmt.Fprintln(stdout, "sampler:      ptrace (each running thread stopped at each tick: a system call it was in may have been cut short)")
	}
	if len(h.Count) > 0 {
		fmt.Fprintf(stdout, "counted:      %s\n", strings.Join(h.Count, ","))
	}
	dur := lastTime
	if trailer != nil {
		dur = trailer.EndNS
	}
	fmt.Fprintf(stdout, "duration:     %v\n", time.Duration(dur).Round(time.Millisecond))
	fmt.Fprintf(stdout, "processes:    %d\n", len(order))
	sort.Slice(order, func(i, j int) bool { return order[i] < order[j] })
	for _, pid := range order {
		p := procs[pid]
		end := p.end
		if end == "" {
			end = "running when the recording ended"
		}
		parent := ""
		if p.ppid != 0 && procs[p.ppid] != nil {
			parent = fmt.Sprintf(", child of %d", p.ppid)
		}
		fmt.Fprintf(stdout, "  %d %s: %d threads, %d samples%s; %s\n", pid, p.path, p.threads, p.samples, parent, end)
	}
	fmt.Fprintf(stdout, "threads:      %d\n", threads)
	fmt.Fprintf(stdout, "objects:      %d (%d mappings)\n", len(objs), mappings)
	for _, o := range objs {
		kind := "library"
		if o.Program {
			kind = "program"
			if o.Schema.HasDWARF {
				kind += fmt.Sprintf(", %d variables, %d locations", len(o.Schema.Vars), len(o.Schema.Locs))
				if len(o.Schema.Components) > 0 {
					files := fmt.Sprintf("%d source files", len(o.Schema.ComponentFiles))
					if len(o.Schema.ComponentFiles) == 1 {
						files = "1 source file"
					}
					kind += fmt.Sprintf(", component %s (%s)", strings.Join(o.Schema.Components, ", "), files)
				}
			} else {
				kind += ", no DWARF: PCs only"
			}
		}
		fmt.Fprintf(stdout, "  %d %s (%s)\n", o.ID, o.Path, kind)
	}
	fmt.Fprintf(stdout, "samples:      %d in %d blocks, %.3f s of %s time\n", samples, blocks, float64(weight)/1e9, h.Clock)
	fmt.Fprintf(stdout, "values:       %d value samples", values)
	if samples > 0 {
		fmt.Fprintf(stdout, " (%.1f per sample)", float64(values)/float64(samples))
	}
	fmt.Fprintln(stdout)
	if trailer != nil {
		fmt.Fprintf(stdout, "unreadable:   %d reads\n", trailer.UnreadableReads)
		if trailer.BlockedSamples > 0 {
			fmt.Fprintf(stdout, "blocked:      %d samples of threads blocked in system calls, %d with registers\n",
				trailer.BlockedSamples, trailer.BlockedRegs)
		}
		if trailer.LostTicks > 0 {
			fmt.Fprintf(stdout, "lost ticks:   %d\n", trailer.LostTicks)
		}
		if len(trailer.CutStacks) > 0 {
			fmt.Fprintf(stdout, "stacks cut:   %s (unwound short of their entry frame)\n", joinCutStacks(trailer.CutStacks))
		}
		switch {
		case trailer.CountError != "":
			fmt.Fprintf(stdout, "calls:        not counted: %s\n", trailer.CountError)
		case len(trailer.Counts) > 0:
			fmt.Fprintf(stdout, "calls:        %s (entries counted, record --count)\n", joinCounts(trailer.Counts))
		}
		if trailer.Detached {
			fmt.Fprintf(stdout, "exit status:  none (vprof detached; the program ran on)\n")
		} else {
			fmt.Fprintf(stdout, "exit status:  %d\n", trailer.ExitStatus)
		}
	} else {
		fmt.Fprintf(stdout, "recovery:     %s\n", rec)
		fmt.Fprintf(stdout, "              the recorder stopped before writing the trailer (killed?); the counts above\n"+
			"              cover the complete blocks before the cut, which analysis uses as they are\n")
	}
	return nil
}

func sigName(s int32) string {
	names := map[int32]string{1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 6: "SIGABRT", 7: "SIGBUS",
		8: "SIGFPE", 9: "SIGKILL", 10: "SIGUSR1", 11: "SIGSEGV", 12: "SIGUSR2", 13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM"}
	if n, ok := names[s]; ok {
		return n
	}
	return fmt.Sprintf("signal %d", s)
}

// printSample prints one sample with names resolved through the objects'
// schemas.
func printSample(w io.Writer, pid, tid int32, s *model.Sample, space *proffile.AddrSpace, objs map[uint16]*model.Object) {
	state := "running"
	if s.State == model.Blocked {
		state = fmt.Sprintf("blocked in syscall %d", s.Syscall)
	}
	fmt.Fprintf(w, "sample tick %d, %v, thread %d/%d, weight %v, %s\n", s.Tick, time.Duration(s.TimeNS), pid, tid, time.Duration(s.WeightNS), state)
	for i, pc := range s.Stack {
		look := pc
		if i > 0 {
			look--
		}
		name := fmt.Sprintf("%#x", pc)
		if id, link, ok := space.Resolve(pid, look); ok {
			if o := objs[id]; o != nil {
				name = symbolize(o, link)
			}
		}
		fmt.Fprintf(w, "  #%-2d %s\n", i, name)
		for _, v := range s.Values {
			if int(v.Frame) != i {
				continue
			}
			if v.Frame == 0 {
				o := objs[v.Obj]
				if o != nil && int(v.Var) < len(o.Schema.Vars) && o.Schema.Vars[v.Var].Func == model.NoFunc {
					continue // globals: printed below
				}
			}
			fmt.Fprintf(w, "      %s\n", fmtValue(objs[v.Obj], v))
		}
	}
	var gs []string
	for _, v := range s.Values {
		o := objs[v.Obj]
		if v.Frame == 0 && o != nil && int(v.Var) < len(o.Schema.Vars) && o.Schema.Vars[v.Var].Func == model.NoFunc {
			gs = append(gs, fmtValue(o, v))
		}
	}
	if len(gs) > 0 {
		fmt.Fprintf(w, "  globals: %s\n", strings.Join(gs, ", "))
	}
}

func symbolize(o *model.Object, link uint64) string {
	syms := o.Schema.Symbols
	i := sort.Search(len(syms), func(i int) bool { return syms[i].Value > link }) - 1
	base := o.Path
	if k := strings.LastIndexByte(base, '/'); k >= 0 {
		base = base[k+1:]
	}
	if i < 0 || (syms[i].Size > 0 && link >= syms[i].Value+syms[i].Size) {
		return fmt.Sprintf("%s+%#x", base, link)
	}
	name := syms[i].Name
	if o.Program {
		return fmt.Sprintf("%s+%#x", name, link-syms[i].Value)
	}
	return fmt.Sprintf("%s+%#x (%s)", name, link-syms[i].Value, base)
}

func fmtValue(o *model.Object, v model.Value) string {
	if o == nil || int(v.Var) >= len(o.Schema.Vars) {
		return fmt.Sprintf("var#%d = %#x", v.Var, v.Bits)
	}
	vr := &o.Schema.Vars[v.Var]
	val := fmtBits(vr.Kind, v.Bits)
	if v.HasPointee {
		val += " -> " + fmtBits(vr.PointeeKind, v.Pointee)
	}
	return fmt.Sprintf("%s = %s", vr.Name, val)
}

func fmtBits(k model.Kind, b uint64) string {
	switch k {
	case model.KindInt, model.KindEnum:
		return fmt.Sprint(int64(b))
	case model.KindFloat:
		return fmt.Sprint(math.Float64frombits(b))
	case model.KindPointer, model.KindAggregate:
		return fmt.Sprintf("%#x", b)
	}
	return fmt.Sprint(b)
}

// joinCutStacks lists the stacks cut short by reason, most first.
func joinCutStacks(m map[string]int64) string {
	why := make([]string, 0, len(m))
	var n int64
	for k, v := range m {
		why = append(why, k)
		n += v
	}
	sort.Slice(why, func(i, j int) bool { return m[why[i]] > m[why[j]] || m[why[i]] == m[why[j]] && why[i] < why[j] })
	parts := make([]string, len(why))
	for i, k := range why {
		parts[i] = fmt.Sprintf("%d %s", m[k], k)
	}
	return fmt.Sprintf("%d: %s", n, strings.Join(parts, ", "))
}
