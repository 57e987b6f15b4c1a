package rank

import (
	"fmt"
	"strings"

	"github.com/vprof/vprof/analyze/stats"
	"github.com/vprof/vprof/runtime/model"
)

// IdleShare is the share of its samples, in each kind of run, that the
// commonest value of an idle walk's per-element test holds (D83): a
// sample that read the field while the pointer was being moved on may
// see another element's value.
const IdleShare = 0.95

// idleWalk finds a walk that scalability would describe but that does
// nothing per element (method.md §8, decision D83): fn has a loop
// variable read in the slow runs, and a condition variable that is a
// field behind a pointer local of fn (not a parameter: the element the
// walk is on, `receiver->btype` while `receiver = node->value`), a
// number read during at least a quarter of the loop's slow samples,
// whose pointer the walk only tests (neither it nor a field behind it is
// passed to a call: elementPassed),
// whose commonest value holds IdleShare of its samples in the normal runs
// (MinSamples at least) and in the slow ones, the same value. Every
// element then gets the same outcome of the walk's test, in both kinds of
// runs: the walk learns nothing from the elements it visits, and the slow
// runs pay for more of them where one check before the walk would skip
// it (Redis-8668: every client is rotated because none is blocked by a
// module; a walk that does work per element, cluster_nodes' description
// of each node, reads fields that differ from element to element, and
// passes the node on; a walk that serves each element it finds, as the
// list walk before Redis-8668's, passes the element to its calls). It
// returns the loop and field variables' names, "" if none.
//
// Failing that, own is true when such a field (the same bounds, but its
// normal runs' values left aside, and behind the walk's cursor: a pointer
// tagged loop) keeps one value at IdleShare of its
// slow samples (MinSamples at least) and all of fn's slow-run time is its
// own instructions (ownWalk): every element of the slow runs' walk gets
// the same outcome and the walk calls nothing on any of them, so it
// visits elements it never acts on (decision D225, DAOS-8343: every
// cached item is referenced when slow and the flush skips each). The
// normal runs' outcome may differ (their walk evicted what it visited);
// a walk whose one outcome is work, made by a call (HDF5's insertion of
// every dirty entry), spends its time in the callee.
func (a *Analyzer) idleWalk(res *Result, fn *Function) (loop, field string, own bool) {
	loop, loopN := a.busiestLoop(res, fn, func(*VarVerdict) bool { return true })
	if loop == "" {
		return "", "", false
	}
	var skip string // a field for D225, if D83 finds none
	for _, j := range fn.Vars {
		vv := &res.Variables[j]
		vi := &a.vars[vv.Var]
		if vi.tags&model.TagCond == 0 || vi.tags&model.TagLoop != 0 || vi.mode != modeBasic || vi.natural {
			continue
		}
		// A field behind a pointer of fn's own (outlives, of a function,
		// and not a parameter or a field behind one).
		if !vi.outlives || vi.fn < 0 || vi.param {
			continue
		}
		if 4*vi.count[Buggy] < loopN || a.elementPassed(vi) {
			continue
		}
		bv, bok := commonest(vi.sets[Buggy][DimValue].dist())
		if !bok {
			continue
		}
		if vi.count[Normal] >= float64(a.opt.MinSamples) {
			if nv, nok := commonest(vi.sets[Normal][DimValue].dist()); nok && nv == bv {
				return loop, vv.Name, false
			}
		}
		if skip == "" && vi.count[Buggy] >= float64(a.opt.MinSamples) && a.behindCursor(vi) {
			skip = vv.Name
		}
	}
	if skip != "" && a.ownWalk(fn) {
		return loop, skip, true
	}
	return "", "", false
}

// behindCursor reports whether field variable vi lies behind a pointer
// local of its function tagged `loop`: the walk's cursor, so the field is
// the element's (as D207 reads a field behind a loop cursor). A field
// behind a pointer that stays put during the walk (a page's item count,
// the walk's bound) keeps one value at every step without being any
// element's outcome (D225's bound).
func (a *Analyzer) behindCursor(vi *varInfo) bool {
	ptr, _, ok := strings.Cut(vi.name, "->")
	if !ok || vi.fn < 0 {
		return false
	}
	for _, l := range a.funcs[vi.fn].locals {
		if x := &a.vars[l]; x.name == ptr && x.tags&model.TagLoop != 0 {
			return true
		}
	}
	return false
}

// ownWalk reports whether all of fn's slow-run time is its own
// instructions (D225): SoleCallee of its time on the stack has it as the
// innermost program frame, and library functions carry at most
// 1 - SoleCallee of its PC cost. Its walk then calls nothing, program or
// library, on the elements it visits.
func (a *Analyzer) ownWalk(fn *Function) bool {
	f, ok := a.funcIdx[fn.Key]
	if !ok || int(f) >= len(a.stk.on) {
		return false
	}
	on := a.stk.on[f]
	return on > 0 && a.selfSlow(int(f)) >= SoleCallee*on && libraryShare(fn) <= 1-SoleCallee
}

// elementPassed reports whether the pointer that field variable vi lies
// behind, or another field behind it, is passed to a call (tagged args)
// in vi's function: the walk does something with the element besides
// testing it. The pointer is the field's name up to its first "->", as
// the schema names fields behind pointers (method.md §2).
func (a *Analyzer) elementPassed(vi *varInfo) bool {
	ptr, _, ok := strings.Cut(vi.name, "->")
	if !ok || vi.fn < 0 {
		return true // not a field behind a pointer: no element to speak of
	}
	for _, l := range a.funcs[vi.fn].locals {
		x := &a.vars[l]
		if (x.name == ptr || strings.HasPrefix(x.name, ptr+"->")) && x.tags&model.TagArgs != 0 {
			return true
		}
	}
	return false
}

// commonest returns the value that holds IdleShare of d's observations.
func commonest(d stats.Dist) (float64, bool) {
	n := d.N()
	if n == 0 {
		return 0, false
	}
	for i, c := range d.Counts {
		if c >= IdleShare*n {
			return d.Values[i], true
		}
	}
	return 0, false
}

// idleReason is the reason an idle walk gives its missing constraint
// (D83; D225 where own).
func idleReason(loop, field string, own bool) string {
	if own {
		return fmt.Sprintf("loop variable %s walks more elements in the slow runs, while condition field %s, behind the element's pointer, keeps one value at every step of their walk, and all of the function's time is its own instructions: every element gets the same outcome and none is passed to a call, so the walk visits elements it never acts on, where a bound or a check before it would skip them (D225)", loop, field)
	}
	return fmt.Sprintf("loop variable %s walks more elements in the slow runs, while condition field %s, behind the element's pointer, keeps one value at every step in both kinds of runs: every element gets the same outcome, so the walk does nothing per element that a check before it would not (D83)", loop, field)
}
