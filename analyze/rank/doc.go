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
// # Decisions where method.md is silent
//
//   - Weights: a sample whose weight is not positive counts one interval of
//     the header (1 ms if none).
//   - The PC of a value sample is that of the frame it was read in
//     (Value.Frame indexes Sample.Stack; callers at return address - 1). A
//     value whose frame is not on the stack, or not in a known mapping, is
//     analysed but counts for no function and no location.
//   - A variable read several times in one sample (several frames) counts
//     once, its first read (the sampler puts the shallowest first).
//   - "via" names the library function the program frame called (the
//     outermost library frame above it), e.g. qsort rather than memcpy
//     inside qsort; its share is of the function's PC cost. With a
//     component it also names another file's code inlined into the
//     function (see Components below).
//   - Inlined code: a PC in an inlined body belongs to the inlined function
//     (method.md §2); one machine frame there holds a chain of logical
//     frames, the inlined function, then the functions it is inlined into.
//     The PC cost goes to the innermost function (with a component, the
//     innermost of the component: see Components). A value sample counts
//     (variable-based cost) for the logical frame it was read in: a
//     local's defining function, which is on the chain (an outer
//     function's variables are readable inside the bodies inlined into
//     it, as they are at the call site of a callee that is not inlined);
//     a global's innermost function there (globals are located in the code
//     of the functions that read them, dwarfschema/globalrefs.go, and that
//     code excludes the bodies of other functions inlined into a reader),
//     which is also the function the global counts for (§5). So inlining
//     neither adds nor removes cost from a function: a caller gets an
//     event when its own variables were read, as without inlining, not
//     every event of every body inlined into it. The flat profile charges
//     self time to the out-of-line function (the symbol), as gprof and
//     perf do.
//   - A PC inside a program object but outside every function (PLT stubs)
//     is not a program frame: its cost passes to the caller.
//   - A pointer to a basic type whose pointee could not be read (NULL) is
//     counted in the variable's samples but not in its dimensions.
//   - Integer values become float64 (exact up to 2^53). Deltas are float64
//     differences of those, so an unsigned counter going down has a
//     negative delta.
//   - A variable with 1 to MinSamples-1 normal samples and MinSamples
//     buggy ones gets r from the ratio of its shares of each kind's
//     samples ("rare when normal", method.md D4), not the hist-discounter.
//     MinSamples is a flag of vprof report as the other constants are
//     (--min-samples).
//   - Locations: a function's abnormal samples are located at its own
//     lines. A sample read in a body inlined into it (a helper of the same
//     file, a header's std::find) is located at its line that calls that
//     body (the inlined call's DW_AT_call_line), not at the helper's line:
//     the row names the function, and a reader looks in it (the thesis
//     reports MDEV-21826's line "right before the while loop in
//     recv_group_scan_log_recs").
//   - Duration samples of an abnormal run of equal values are located at
//     the PCs of the run's samples (up to four distinct PCs per run), each
//     counting its samples, so a long stall weighs by its length.
//   - A run of equal values ends at a thread's or process's exit or exec,
//     and at the end of the profile; ticks going backwards start a new run.
//   - Tie between variables of equal r: a verdict from evidence (a test or
//     a decisive rule: constant sides that differ, present only when slow)
//     wins over a DefaultDiscount given without a test (single value
//     pooled, absent when slow); then the variable's name.
//   - Duration of a value that never changes: when no thread of any run,
//     normal or buggy, saw a variable's value change, each of its
//     durations is one thread's whole span of samples (a configuration
//     constant, a thread's argument): it measures how long the thread ran,
//     which is longer in the slow run by definition, not how long the
//     variable's values last (the thesis: "how many alarm intervals a
//     variable value stays the same. This quantifies how often the values
//     change"). Such a duration dimension gets DefaultDiscount ("never
//     changes"), like a single value pooled; with fewer than MinSamples
//     durations a side it still has no verdict. A value that changes on
//     some thread of either kind keeps every duration, so a value stuck
//     for the whole slow run while it changes in the normal runs (the
//     hang of Postgres-14b1) is still compared.
//   - A variable absent in the buggy runs has r = DefaultDiscount and no
//     dimension, so rule 4 does not classify it.
//   - Variables are matched across runs by defining function (linkage name;
//     "#global" for globals) and name; the Nth variable of one name in one
//     function, in declaration order, is called name#N. Static functions of
//     one name in several files are told apart by file. Compiler clone
//     suffixes are stripped from symbol names.
//   - Costs of a kind are means over its runs; the report's costs are those
//     of the buggy runs. The plain rank is by mean self time over the buggy
//     runs among every symbol, as `vprof flat` ranks them.
//   - Components (Options.Components, report --component; record
//     --component does the same at recording time): only variables
//     declared in the component's files are analysed, and a global of the
//     component counts only where it was read in a function of the
//     component. The thesis gives functions outside the monitored
//     component no variable discount ("no discount ratio being available
//     for functions outside of those program components"; the
//     hist-discounter ranks them), so a component global read in main
//     (printing a setting at exit) must not give main a verdict and its
//     whole inclusive time as variable-based cost. At analysis time a
//     global read in a frame outside the component is dropped; the
//     recorder, narrowing the global to the component's readers, would
//     have read it in a deeper frame of the component instead, so a
//     component chosen at analysis time sees slightly fewer samples of
//     such globals than one chosen at recording time. A recording made
//     with record --component carries its components in the program's
//     schema (Schema.ComponentFiles, the source files the component
//     matched there, so that the analysis does not depend on the
//     recording machine's paths); report uses them when it is given none.
//   - Code of another file inlined into a component function (a header's
//     std::find or iterator, a helper of another file) is not a frame of
//     its own within the component: its PC cost is the component
//     function's, and "via" names the inlined function, as for a library
//     callee (method.md §4: --component narrows the program frames; the
//     thesis' profiler, built on gprof, charged inlined code to the
//     symbol that holds it). An
//     out-of-line function outside the component stays a frame of its
//     own, ranked by the hist-discounter (the thesis ranks such
//     functions: zmalloc in Redis-8668, MYSQLparse in MDEV-23399). Without
//     a component, an inlined body is its own function (method.md §2).
//   - Hellinger equal-frequency bins: cut points at pooled sorted indices
//     floor(t N / 64), t = 1..63; x falls in bin #{t : cut_t <= x}.
package rank
