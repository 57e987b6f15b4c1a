package model

// Clock is how ticks select threads (method.md §3).
type Clock string

const (
	ClockCPU  Clock = "cpu"  // sample a thread only if it ran since its last tick
	ClockWall Clock = "wall" // sample every thread every tick, with its state
)

// Header describes the recording. It is the first record. Its Clock is
// ClockCPU or ClockWall and its interval positive.
type Header struct {
	Version     int      `json:"version"`
	Target      string   `json:"target"` // path of the main executable
	Args        []string `json:"args,omitempty"`
	BuildID     string   `json:"build_id,omitempty"`
	Attached    bool     `json:"attached"` // -p PID rather than launched
	PID         int32    `json:"pid"`      // first process
	IntervalNS  int64    `json:"interval_ns"`
	Clock       Clock    `json:"clock"`
	Depth       int      `json:"depth"` // caller frames with values (program frames only)
	Stack       int      `json:"stack"` // PC stack frames kept
	StartUnixNS int64    `json:"start_unix_ns"`
	Hostname    string   `json:"hostname,omitempty"`
	Recorder    string   `json:"recorder,omitempty"` // vprof version / command line
	// Sampler is how samples were taken: "ptrace" (each thread stopped at
	// each tick) or "perf" (the kernel's perf events, read a few
	// milliseconds later: globals and heap values are those of then).
	Sampler string `json:"sampler,omitempty"`
	// Count names the functions whose entries were counted (vprof record
	// --count, as given): their counts are in the Trailer. The samples of
	// such a run carry a trap per counted call (method.md D220).
	Count []string `json:"count,omitempty"`
}

// Object is one ELF object the run used, with its schema (the layout log).
// Program objects (by default the main executable) are the ones whose
// functions are ranked; libraries and the vDSO carry symbols only.
type Object struct {
	ID      uint16  `json:"id"`
	Path    string  `json:"path"`
	BuildID string  `json:"build_id,omitempty"`
	Program bool    `json:"program"`
	Schema  *Schema `json:"schema"`
}

// Mapping places an object's executable segment in a process: a PC in
// [Start, End) of process PID belongs to object Obj at link-time address
// PC - Bias (Start <= End). Reset marks the first mapping after an exec: earlier mappings
// of that PID no longer apply. A child process inherits its parent's
// mappings at fork until it has mappings of its own.
type Mapping struct {
	PID   int32  `json:"pid"`
	Start uint64 `json:"start"`
	End   uint64 `json:"end"`
	Bias  uint64 `json:"bias"` // load bias: runtime address - link-time address
	Obj   uint16 `json:"obj"`
	Reset bool   `json:"reset,omitempty"`
}

// ProcEventKind is what happened to a process.
type ProcEventKind uint8

const (
	ProcStart  ProcEventKind = iota + 1 // launched or attached
	ProcFork                            // created by fork/vfork/clone without CLONE_THREAD
	ProcExec                            // replaced its image
	ProcExit                            // exited (Status) or was killed (Signal)
	ProcDetach                          // recording stopped following it, process alive
)

// ProcEvent is a process life event.
type ProcEvent struct {
	Kind   ProcEventKind `json:"kind"`
	PID    int32         `json:"pid"`
	PPID   int32         `json:"ppid,omitempty"`
	TimeNS int64         `json:"time_ns"`        // since recording start
	Path   string        `json:"path,omitempty"` // executable (start, exec)
	Status int32         `json:"status,omitempty"`
	Signal int32         `json:"signal,omitempty"`
}

// ThreadEvent is a thread's start (Exit false) or end.
type ThreadEvent struct {
	PID    int32  `json:"pid"`
	TID    int32  `json:"tid"`
	TimeNS int64  `json:"time_ns"`
	Exit   bool   `json:"exit,omitempty"`
	Name   string `json:"name,omitempty"` // comm, when known
}

// ThreadState is what a sampled thread was doing.
type ThreadState uint8

const (
	Running ThreadState = iota
	Blocked             // wall clock only: in a blocking system call or sleeping
)

// Value is one value sample (method.md §1): variable Var of object Obj read
// in frame Frame of the sample's stack.
//
// Bits holds the value normalised by the variable's Kind: integers, bools,
// enums and chars sign- or zero-extended to 64 bits, floats as the bits of a
// float64, pointers as the address, aggregates as FNV-1a of their first 64
// bytes. For a pointer to a basic type, Pointee holds the pointee's value,
// normalised the same way, when HasPointee. Obj is the ID of an Object
// recorded before the sample, and Var indexes its schema's Vars.
type Value struct {
	Frame      uint8  `json:"frame"`
	Obj        uint16 `json:"obj"`
	Var        VarID  `json:"var"`
	Bits       uint64 `json:"bits"`
	Pointee    uint64 `json:"pointee,omitempty"`
	HasPointee bool   `json:"has_pointee,omitempty"`
}

// Sample is one PC sample of one thread with its value samples.
//
// Stack[0] is the PC of the innermost frame; Stack[i>0] are return
// addresses as unwound (look them up at Stack[i]-1). All are runtime
// addresses of process PID (see Mapping). Each value's Frame indexes
// Stack; Syscall is -1 unless the thread was Blocked.
type Sample struct {
	Tick     uint64      `json:"tick"`      // tick number since recording start
	TimeNS   int64       `json:"time_ns"`   // since recording start
	WeightNS int64       `json:"weight_ns"` // CPU (cpu clock) or wall (wall clock) time since this thread's previous sample
	State    ThreadState `json:"state"`
	Syscall  int32       `json:"syscall"` // system call number when Blocked, else -1
	Stack    []uint64    `json:"stack"`
	Values   []Value     `json:"values,omitempty"`
	// TailFrames marks (bit i: Stack[i], i < 64) the frames that a reader
	// restored from the call-site records because a tail call removed
	// them (runtime/tailcall): such a frame's PC is the return address
	// of its tail call (the address after the jump), and it has no
	// values. It is never recorded.
	TailFrames uint64 `json:"tail_frames,omitempty"`
}

// Block is a run of consecutive samples of one thread.
type Block struct {
	PID     int32    `json:"pid"`
	TID     int32    `json:"tid"`
	Samples []Sample `json:"samples"`
}

// Trailer ends a complete file.
type Trailer struct {
	EndNS           int64 `json:"end_ns"` // since recording start
	Samples         int64 `json:"samples"`
	ValueSamples    int64 `json:"value_samples"`
	UnreadableReads int64 `json:"unreadable_reads"`
	LostTicks       int64 `json:"lost_ticks,omitempty"` // ticks that could not be taken on time
	// Samples of threads blocked in system calls (wall clock), and how
	// many of them carry registers (read at a stop in that blocking call).
	BlockedSamples int64 `json:"blocked_samples,omitempty"`
	BlockedRegs    int64 `json:"blocked_regs,omitempty"`
	ExitStatus     int32 `json:"exit_status"`        // of the first process; 128+n for signal n
	Detached       bool  `json:"detached,omitempty"` // target left running
	// Counts are the entry counts of the functions Header.Count names,
	// summed over the tasks of the recorded executable; none when they
	// could not be counted, and CountError says why.
	Counts     []CallCount `json:"counts,omitempty"`
	CountError string      `json:"count_error,omitempty"`
	// CutStacks counts the stacks unwound short of their entry frame
	// (_start, a thread's clone), by why the unwinding stopped ("return
	// address unreadable", "no CFI nor frame pointer", "stack pointer not
	// growing", "frame limit"); none when every stack was whole, and in
	// profiles recorded before it was counted.
	CutStacks map[string]int64 `json:"cut_stacks,omitempty"`
}

// CallCount is how many times one function was entered during the run
// (tail calls into it included: the probe is at its entry).
type CallCount struct {
	Function string `json:"function"` // as asked for
	Symbol   string `json:"symbol"`   // the symbol it resolved to (a linkage name)
	Calls    uint64 `json:"calls"`
	// Inlined: how many inlined instances were probed (D257); Unsure,
	// why the count is not to be trusted (an inlined instance whose entry
	// and first instruction ran a different number of times): the report
	// reads no count that is unsure.
	Inlined int    `json:"inlined,omitempty"`
	Unsure  string `json:"unsure,omitempty"`
}
