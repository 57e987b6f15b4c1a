package rank

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/vprof/vprof/runtime/model"
)

// TailNoteShare is the share of the slow runs' time from which a
// function on their stacks through a tail call gets a note: its frame is
// restored (runtime/tailcall), its variables are not read there.
const TailNoteShare = 0.05

// onTailFrames counts w for each program function of the frames of s
// that the reader restored from a tail call, once per sample.
func (r *Run) onTailFrames(pid int32, s *model.Sample, nf int, w float64, stamp uint64) {
	var seen []int32
	for m := s.TailFrames; m != 0; m &= m - 1 {
		i := bits.TrailingZeros64(m)
		if i >= nf {
			break
		}
		fr := r.frame(pid, s, i, stamp)
		if !fr.prog {
			continue
		}
		for _, f := range fr.chain {
			if !r.a.funcs[f].program || slices.Contains(seen, f) {
				continue
			}
			seen = append(seen, f)
			if r.tailOn == nil {
				r.tailOn = map[int32]float64{}
			}
			r.tailOn[f] += w
		}
	}
	// The functions of seen with no frame of their own on this stack (a
	// recursive function may have both): only a tail call put them there
	// (D35).
	for i := 0; i < nf && i < maxWalk && len(seen) > 0; i++ {
		if i < 64 && s.TailFrames&(1<<i) != 0 {
			continue
		}
		fr := r.frame(pid, s, i, stamp)
		if !fr.prog {
			continue
		}
		for _, f := range fr.chain {
			if j := slices.Index(seen, f); j >= 0 {
				seen = slices.Delete(seen, j, j+1)
			}
		}
	}
	for _, f := range seen {
		if r.tailOnly == nil {
			r.tailOnly = map[int32]float64{}
		}
		r.tailOnly[f] += w
	}
}

// tailCallNotes says, for each program function that was on the slow
// runs' stacks through a tail call for TailNoteShare of their time or
// more, that its frame there was restored, and what that frame holds:
// its parameters' entry values, or, when its variables were read there
// for less than half of that time (a recording made before the recorder
// restored such frames holds none), nothing, so that its cost and
// verdict come from the samples of its own frame.
func (a *Analyzer) tailCallNotes(res *Result) []string {
	var total float64
	on := map[int32]float64{}
	nb := 0
	for _, r := range a.runs {
		if r.Kind != Buggy {
			continue
		}
		nb++
		total += r.total
		for f, w := range r.tailOn {
			on[f] += w
		}
	}
	if total <= 0 {
		return nil
	}
	row := map[int32]*Function{}
	for i := range res.Functions {
		if fi, ok := a.funcIdx[res.Functions[i].Key]; ok {
			row[fi] = &res.Functions[i]
		}
	}
	var fs []int32
	for f, w := range on {
		if w >= TailNoteShare*total {
			fs = append(fs, f)
		}
	}
	// Most time first; the name only makes the order the same from run
	// to run.
	slices.SortFunc(fs, func(x, y int32) int {
		return cmp.Or(cmp.Compare(on[y], on[x]), strings.Compare(a.funcs[x].display, a.funcs[y].display))
	})
	var out []string
	for _, f := range fs {
		mean := on[f] / float64(nb)
		note := fmt.Sprintf("%s was on the slow runs' stacks through a tail call for %.3f s (%.0f%% of their time): "+
			"its frame there is restored from the DWARF call-site records, or under a call through a function pointer from the functions whose address the code takes (docs/method.md §3, D85)", a.funcs[f].display, mean, 100*on[f]/total)
		switch fn := row[f]; {
		case fn == nil:
			note += "; none of its variables was read there and it has no samples of its own frame, so no row"
		case fn.VarCost < mean/2:
			note += fmt.Sprintf("; its variables were read in %.3f s only (a recording made before vprof restored such frames has none there), "+
				"so its cost (%.3f s, rank %d) and verdict come mostly from the samples of its own frame", fn.VarCost, fn.Raw, fn.Rank)
		default:
			note += "; what was read there is its parameters' values at entry (from its caller's call-site record) and the fields behind them"
		}
		out = append(out, note)
	}
	return out
}
