// Package rank is vprof's post-profiling analysis (docs/method.md §4-8):
// it compares normal and slow (buggy) runs of one program and ranks the
// functions most likely to be the root cause. Per function it computes the
// PC cost and the variable-based cost, calibrates the raw cost with the
// variable-discounter (Anderson-Darling and Hellinger per dimension of
// every variable, analyze/stats) or the hist-discounter, infers the bug
// pattern of the top functions and locates the source lines and basic
// blocks where anomalous values were read. It also builds the gprof-style
// flat profile that serves as the baseline. The outputs (analyze/report,
// analyze/timeline, analyze/export) read its Result.
//
// Use: Analyze(normal, buggy, DefaultOptions(), nil) for files, or New,
// then BeginRun and Run.Record for every record of every normal run, then
// of every buggy run, then Result. FlatFile for one run's flat profile.
//
// # Memory
//
// The analysis streams: what it keeps grows with the number of distinct
// functions, variables, threads and (variable, PC) pairs with abnormal
// samples, not with the number of samples. Per variable, dimension and kind
// of run, the samples are kept as counts of distinct values, exact up to
// Options.MaxDistinct distinct values; beyond that, as a uniform reservoir
// of MaxDistinct samples drawn over the whole run (deterministic seeds),
// with count, minimum and maximum still exact. Each run also keeps its own
// value set of each variable (512 distinct values, then a reservoir), for
// run noise (method.md D7). The buffers in flight are fixed (about 25 MiB).
// Figures: docs/benchmarks.md.
//
// # Speed
//
// A file streams through three stages (pipeline.go): profile heads read
// ahead by a goroutine; the feeding goroutine decodes blocks, computes what
// needs whole samples and writes a 40-byte record per value sample;
// workers own the variables v with v % workers == their number and fold
// each batch's records into their sets. Each variable's observations
// reach its sets in file order, so results do not depend on scheduling or
// on the number of workers. Figures: docs/benchmarks.md.
//
// # Details
//
// The choices docs/method.md §4-8 leave open (weights, inlined code,
// locations, ties, components, bins) are in its §10.
package rank
