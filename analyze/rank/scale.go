package rank

import "slices"

// Normal runs longer than the slow ones (method.md §4, decision D56).
//
// The extra cost (D6) is a function's raw cost in the slow runs less its
// raw cost in the normal runs: the part of the slowdown it explains. That
// difference reads the normal runs as the same work without the bug. When
// the normal runs took longer in total than the slow ones (the user ran
// the program on a bigger input, or on more files, that does not trigger
// the bug), they did more of every kind of work: a function that takes
// the same share of both kinds of runs, or most of the slow runs and a
// large part of the longer normal runs, shows no extra cost or a negative
// one, however much more of the run it takes when the bug is triggered.
// There is no slowdown in seconds to explain, only a different use of
// the time. The normal runs' costs are then counted at the slow runs'
// length: each is multiplied by the ratio of the slow runs' mean sampled
// time to the normal runs', so that the extra cost is the slow runs' time
// less the time the function would have had in a normal run as long as
// them (its share of a normal run times the slow run's length). When the
// slow runs are the longer ones the costs are compared as measured: the
// slowdown in seconds is what the extra cost explains, and a normal run
// on a smaller input says nothing of how the other functions' work would
// grow with the input.

// normalScale returns the factor applied to the normal runs' costs before
// the extra cost is taken: the slow runs' mean sampled time over the
// normal runs', when that is below 1, else 1. Recordings attached to a
// running process last what the user chose (--duration), not what the
// work took: their totals say nothing, and they are compared as measured.
func normalScale(normal, buggy []*Run) float64 {
	if len(normal) == 0 || len(buggy) == 0 {
		return 1
	}
	if slices.ContainsFunc(normal, attached) || slices.ContainsFunc(buggy, attached) {
		return 1
	}
	n, b := meanTotal(normal), meanTotal(buggy)
	if n <= 0 || b >= n {
		return 1
	}
	return b / n
}

func attached(r *Run) bool { return r.hdr.Attached }
