// Command vprof-eval is vprof's scoreboard (`make eval`): for every test
// program of testprogs/manifest.json it records normal and buggy runs with
// the real `vprof record`, ranks them with `vprof report`, ranks the -pg
// build with gprof, and prints where each puts the root-cause function.
//
//	go run ./cmd/vprof-eval -trials 3             # what make eval runs
//	go run ./cmd/vprof-eval -only a,b -trials 1 -runs 1
//	go run ./cmd/vprof-eval -reuse                # analyse out/eval again
//
// It drives the vprof command, not the packages, so the scoreboard
// measures what a user gets. The protocol (whole-program recordings, the
// component column, the thesis column) is README.md's `make eval` row;
// -help lists the flags.
package main
