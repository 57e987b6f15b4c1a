// Package sampler is vprof's recorder: it launches a program or attaches
// to a running one under ptrace, follows its threads and child processes,
// and at each tick records per thread the PC stack (sampler/unwind) and
// the values of the variables accessible in the innermost program frames,
// streaming them into a profile file (runtime/proffile).
//
// Use: Record(Config{Args: []string{"./prog", "arg"}, Output: "prof.data"})
// runs a recording to its end (Config.PID attaches instead) and returns a
// Result; `vprof record` is this call. Config.Sampler picks perf events
// or ptrace stops, Config.Clock cpu or wall time.
//
// The parts: tracer (process control), sampling (the per-tick sampling),
// profWriter (the profile), wired by Recorder (recorder.go). How they
// work and why, the system calls a stop may interrupt, and how a
// recording ends: docs/sampler.md; what recording costs: docs/benchmarks.md.
package sampler
