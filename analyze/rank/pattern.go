package rank

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/vprof/vprof/analyze/stats"
	"github.com/vprof/vprof/runtime/model"
)

// The bug pattern of a function (method.md §8, decision D11). The rules
// read the variables that give the function its discount (v* and those
// tied with it), not v* alone: which of several equally anomalous
// variables is v* is decided by name, and a name must not decide the
// pattern.

// pattern classifies function fn, whose discount came from best (v*),
// and says which rule matched or why none did. When no rule of §8
// matches and fn decided the call that is all of its slow-run time (D10's
// sense), the decision is the wrong constraint (decision D15).
func (a *Analyzer) pattern(res *Result, fn *Function, best *VarVerdict) (pattern, reason string) {
	pattern, reason = a.ownPattern(res, fn, best)
	if lib := a.libraryWalk(res, fn); lib != "" {
		switch {
		case (pattern == PatternWrong || pattern == "") && best.R < a.opt.DefaultDiscount:
			if vv := a.grewArgument(res, fn, best, false); vv != nil {
				pattern, reason = PatternScalability, fmt.Sprintf("%s (%s) takes the normal values and larger ones (%s) while all of the function's time is its calls of %s: the walk is the library routine's, over more data (D124)", vv.Name, a.vars[vv.Var].tags, dimName(vv), lib)
			}
		case pattern == PatternMissing && best.R < a.opt.DefaultDiscount:
			if vv := a.grewArgument(res, fn, best, true); vv != nil {
				pattern, reason = PatternScalability, fmt.Sprintf("the string's length %s (%s) grew above the normal values (%s) while all of the function's time is its calls of %s: each call walks the string built so far, longer (D124, D141)", vv.Name, a.vars[vv.Var].tags, dimName(vv), lib)
			}
		case pattern == "" && best.R >= a.opt.DefaultDiscount:
			pattern, reason = PatternScalability, fmt.Sprintf("its variables look normal (%s: %s, r %.2f) while all of its time is its calls of %s: the walk is the library routine's, run more, on more data (D124)", best.Name, dimName(best), best.R, lib)
		}
	}
	if pattern == PatternScalability {
		if loop, field, own := a.idleWalk(res, fn); loop != "" {
			return PatternMissing, idleReason(loop, field, own)
		}
	}
	if pattern != "" {
		return pattern, reason
	}
	if d := a.decidedCall(res, fn, best); d != "" {
		if clock := a.onlyClockSpacing(res, fn, best); clock != "" {
			if c, ok := a.normalOrNoControl(res, fn); ok {
				how := "it has no loop or condition variable read in the slow runs"
				if c != "" {
					how = "its loop and condition variables look normal (" + c + ")"
				}
				return PatternMissing, fmt.Sprintf("only clock %s went wrong (%s), which says how long %s took, not what the call was decided on; %s: the call is made as in the normal runs, with nothing to skip it (D52)", clock, dimName(best), d, how)
			}
		}
		return PatternWrong, fmt.Sprintf("%s went wrong (%s) and was read during all of %s, which is all of its slow-run time: the call it decided is the cost (D10, D15)", best.Name, dimName(best), d)
	}
	// Rule 8 (D285): D52's reading of a clock needs no call. A function
	// whose only evidence is a clock's spacing, with no loop or condition
	// variable read in the slow runs, did the same work longer, and nothing
	// in it read a value that could have skipped it. It reaches here when
	// rule 7 found no call it decided: under --component a callee in
	// another file has no variable verdict (ssl_flush_sessions' component
	// column), or its time is its own.
	if best != nil && best.R < a.opt.DefaultDiscount && pattern == "" {
		if clock := a.onlyClockSpacing(res, fn, best); clock != "" {
			if c, ok := a.normalOrNoControl(res, fn); ok && c == "" {
				return PatternMissing, fmt.Sprintf("only clock %s went wrong (%s), which says how long the function's work took, not what it was decided on; it has no loop or condition variable read in the slow runs: the same work as in the normal runs, done longer, with nothing to skip it (D285)", clock, dimName(best))
			}
		}
	}
	return pattern, reason
}

// clockWords are the words of §5's name list that name a time (the
// others, pid tid proc thread, name an identity).
var clockWords = map[string]bool{"time": true, "clock": true, "now": true, "ts": true, "timestamp": true}

// clockTypes are §5's types that hold a time.
var clockTypes = map[string]bool{"time_t": true, "clock_t": true, "struct timespec": true, "struct timeval": true}

// isClock reports whether a variable holds a time by its name or type, as
// §5 names clocks: a word of its name (split as §5 splits names, and at
// the '.' and '->' of a field's path, so that tp.time is a clock) is
// one of clockWords, or its type is one of clockTypes.
func isClock(name, typ string) bool {
	parts := strings.FieldsFunc(name, func(r rune) bool {
		return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	})
	for _, p := range parts {
		for _, w := range nameWords(p) {
			if clockWords[strings.ToLower(w)] {
				return true
			}
		}
	}
	t := typ
	for _, q := range []string{"const ", "volatile ", "restrict "} {
		t = strings.ReplaceAll(t, q, "")
	}
	t = strings.Join(strings.Fields(t), " ")
	return clockTypes[t]
}

// onlyClockSpacing returns the name of v* when v* and every variable
// tied with it (§8's candidates) is a clock (isClock) whose verdict came
// from its deltas or durations; "" otherwise. A clock's delta is the time
// between two samples of the code that holds it, and its duration how
// many ticks a stored time stays: a call that takes longer spreads both
// by construction (a time read once before a walk is the same at every
// sample of the walk: deltas of 0, long durations). They say how long
// the code took, which the cost already measures, not a value that a
// decision read (§5 leaves a clock's value out: it differs by nature);
// decision D52.
func (a *Analyzer) onlyClockSpacing(res *Result, fn *Function, best *VarVerdict) string {
	for _, j := range fn.Vars {
		vv := &res.Variables[j]
		if vv != best && !(vv.OK && vv.R == best.R && vv.Default == best.Default) {
			continue
		}
		vi := &a.vars[vv.Var]
		if !isClock(vv.Name, vi.typ) || !vv.HasDim || vv.Dim == DimValue {
			return ""
		}
	}
	vi := &a.vars[best.Var]
	if !isClock(best.Name, vi.typ) || !best.HasDim || best.Dim == DimValue {
		return ""
	}
	return best.Name
}

// clockSpacing reports whether vv is a clock (isClock) whose verdict came
// from its deltas or durations (D52).
func (a *Analyzer) clockSpacing(vv *VarVerdict) bool {
	return vv.HasDim && vv.Dim != DimValue && isClock(vv.Name, a.vars[vv.Var].typ)
}

// normalOrNoControl is normalControl that also answers when fn has no
// loop or condition variable read in the slow runs: ok is false only
// when one of them went wrong.
func (a *Analyzer) normalOrNoControl(res *Result, fn *Function) (name string, ok bool) {
	for _, j := range fn.Vars {
		vv := &res.Variables[j]
		if !vv.OK || vv.Buggy == 0 || a.vars[vv.Var].tags&(model.TagLoop|model.TagCond) == 0 {
			continue
		}
		if a.clockSpacing(vv) {
			continue // says how long, not what was decided (D52, D78)
		}
		if vv.R < a.opt.DefaultDiscount {
			return "", false
		}
		if name == "" {
			name = vv.Name
		}
	}
	return name, true
}

// decidedCall returns the callee D whose call fn decided, in the sense of
// D10 (whether or not the two swapped places): fn is no driver frame,
// its own variables went wrong (best.R below DefaultDiscount) and were
// read during CallerEvidence of D's time on the stack, D runs under fn
// for SoleCallee of D's time and fn spends SoleCallee of its time in D,
// and D has a variable verdict; "" if none. The slow runs then fall into
// a costly path, D, on values that fn's decision read: the vProf
// chapter's wrong constraint. A call made without a decision (its loops
// and conditions look normal) is rule 6's missing constraint, matched
// before.
func (a *Analyzer) decidedCall(res *Result, fn *Function, best *VarVerdict) string {
	if best == nil || best.R >= a.opt.DefaultDiscount {
		return ""
	}
	f, ok := a.funcIdx[fn.Key]
	c := &a.stk
	if !ok || int(f) >= len(c.on) || c.on[f] <= 0 || a.drivers()[f] {
		return ""
	}
	for j := range res.Functions {
		d := &res.Functions[j]
		g, ok := a.funcIdx[d.Key]
		if !ok || g == f || d.Source != SourceVariable || int(g) >= len(c.on) {
			continue
		}
		if c.under(int(f), int(g)) < SoleCallee*c.on[g] || c.on[g] < SoleCallee*c.on[f] {
			continue
		}
		if fn.VarCost*float64(res.BuggyRuns) < CallerEvidence*c.on[g] {
			continue
		}
		return d.Name
	}
	return ""
}

// ownPattern is the pattern that fn's own variables give.
func (a *Analyzer) ownPattern(res *Result, fn *Function, best *VarVerdict) (pattern, reason string) {
	o := &a.opt
	// The variables tied with v*, v* first, then in the order better
	// ranks them.
	tied := []*VarVerdict{best}
	for _, j := range fn.Vars {
		if vv := &res.Variables[j]; vv != best && vv.OK && vv.R == best.R && vv.Default == best.Default {
			tied = append(tied, vv)
		}
	}
	slices.SortStableFunc(tied[1:], func(x, y *VarVerdict) int {
		if better(x, y) {
			return -1
		}
		if better(y, x) {
			return 1
		}
		return 0
	})
	// An identity's durations are left out of anomalous candidates while
	// another remains (D81); normal ones are rule 4's.
	if best.R < o.DefaultDiscount {
		if kept := slices.DeleteFunc(slices.Clone(tied), a.identityDuration); len(kept) > 0 && len(kept) < len(tied) {
			tied = kept
		}
	}
	// The first rule that one of them matches.
	var vv *VarVerdict
	rule := 0
	for _, x := range tied {
		k := a.ruleOf(res, fn, x)
		if k != 0 && (rule == 0 || k < rule) {
			vv, rule = x, k
		}
	}
	if rule == 3 {
		if clock := a.onlyClockSpacing(res, fn, best); clock != "" {
			if c, ok := a.normalOrNoControl(res, fn); ok {
				how := "it has no other loop or condition variable read in the slow runs"
				if c != "" {
					how = "its other loop and condition variables look normal (" + c + ")"
				}
				return PatternMissing, fmt.Sprintf("only clock %s went wrong (%s), which says how often the code that holds it was sampled, not a value its condition read; %s: the same work as in the normal runs, done more, with nothing to skip it (D78)", clock, dimName(best), how)
			}
		}
	}
	if rule == 2 || rule == 3 || rule == 5 {
		if loop, cond := a.repeatedWalk(res, fn); loop != "" {
			return PatternMissing, fmt.Sprintf("loop variable %s runs in the slow runs only, while condition variable %s keeps one value through them, a value the normal runs never had: the same walk, repeated on state that does not change, with nothing to skip it (D31)", loop, cond)
		}
	}
	if rule == 3 {
		if w, sn, sb := a.walkFurther(res, fn); w != "" {
			return PatternScalability, fmt.Sprintf("condition variable %s takes other values (%s), while walk %s, the cursor of a loop over a linked structure, was read in %.0f%% of the slow runs' samples against %.0f%% of the normal runs': the walk goes further, over more elements, and the condition reads the data it reaches (D119)", vv.Name, dimName(vv), w, 100*sb, 100*sn)
		}
	}
	if rule == 2 && a.vars[vv.Var].tags&model.TagLoop != 0 {
		if x, d, in := a.sameIterations(res, fn, vv); x != nil {
			return PatternMissing, fmt.Sprintf("loop variable %s went wrong (%s) but %.0f%% of its slow samples lie in the normal runs' range, as do those of the function's other loop variables that went wrong: the loops did not go further, they made the iterations the normal runs made, more often, with nothing to skip them (D347)", x.Name, d, 100*in)
		}
	}
	switch {
	case rule == 2 && a.vars[vv.Var].tags&model.TagLoop == 0:
		it := a.vars[a.vars[vv.Var].derefOf-1].name
		return PatternScalability, fmt.Sprintf("%s, read through loop variable %s, takes other values (%s): the walk reaches elements the normal runs did not have, it goes further (D80)", vv.Name, it, dimName(vv))
	case rule == 1:
		tags := a.vars[vv.Var].tags
		if tags&model.TagLoop == 0 {
			if loop := a.loopAtPace(res, fn); loop != "" {
				how := "holds its values longer than normal"
				if !a.longer(vv) {
					how = "changes otherwise than normal (duration, not longer)"
				}
				return PatternScalability, fmt.Sprintf("%s (%s) %s while loop variable %s steps at its normal pace: the loop runs longer, over more data", vv.Name, tags, how, loop)
			}
		}
		if a.held(vv) {
			return PatternMissing, fmt.Sprintf("loop variable %s keeps each value over several ticks in the slow runs (%s): the loop stays on one iteration", vv.Name, vv.Reason)
		}
	case rule == 3 && vv.HasDim && vv.Dim == DimDuration:
		// Durations that differ but are not longer (D14).
		if loop := a.oneObjectWalked(res, fn, vv); loop != "" {
			return PatternScalability, fmt.Sprintf("pointer %s keeps one object through each slow run, where the normal runs moved from one to the next, and its condition sees only whether it is null: each call finds the same object, grown by the calls before, and loop variable %s walks it (D79)", vv.Name, loop)
		}
		if !a.vars[vv.Var].changed[Buggy] {
			return PatternWrong, fmt.Sprintf("condition variable %s keeps one value through each slow run, where it changed in the normal runs: the condition is decided on a value stuck", vv.Name)
		}
		if a.fewChanges(vv.Var) {
			return PatternWrong, fmt.Sprintf("condition variable %s changes about once per slow run, where it changed more often in the normal runs: its durations are pieces of the runs' span, and the condition is decided on other values (D20)", vv.Name)
		}
		return PatternWrong, fmt.Sprintf("condition variable %s changes otherwise than normal (duration, not longer than the normal runs'): the condition is decided on other values", vv.Name)
	case rule == 0 && best.R < o.DefaultDiscount && a.vars[best.Var].tags&(model.TagLoop|model.TagCond) == 0:
		if c := a.normalControl(res, fn); c != "" {
			if best.HasDim && best.Dim == DimDuration {
				if loop := a.loopAtPace(res, fn); loop != "" {
					return PatternScalability, fmt.Sprintf("%s went wrong (duration) while loop variable %s steps at its normal pace and the condition variables look normal (%s): each call on a value runs longer, over more data (D53)", best.Name, loop, c)
				}
			}
			return PatternMissing, fmt.Sprintf("%s went wrong (%s) while the loop and condition variables look normal (%s): the same work, done more, with nothing to skip it", best.Name, dimName(best), c)
		}
	}
	if vv == nil {
		vv = best
	}
	return classify(a.vars[vv.Var].tags, vv, o, a.longer(vv))
}

// walkFurther returns a walk variable of fn (method.md §2, D118: the
// cursor of a loop over a linked structure that no variable names) whose
// share of the slow runs' samples is above its share of the normal runs'
// (the normal share below DefaultDiscount times the slow one) beyond
// chance: a Poisson count whose mean is its slow-run samples at the
// normal runs' share is at most its normal samples with chance below
// Alpha, as D75 reads a loop variable by how often it was read. It needs
// 3 slow samples at least (D37), and gives the two shares.
func (a *Analyzer) walkFurther(res *Result, fn *Function) (name string, sn, sb float64) {
	o := &a.opt
	if a.total[Normal] <= 0 || a.total[Buggy] <= 0 {
		return "", 0, 0
	}
	for _, j := range fn.Vars {
		vv := &res.Variables[j]
		if !model.IsWalk(vv.Name) || vv.Buggy < 3 {
			continue
		}
		n, b := vv.Normal/a.total[Normal], vv.Buggy/a.total[Buggy]
		if n >= o.DefaultDiscount*b || poissonAtMost(vv.Normal, vv.Buggy*a.total[Normal]/a.total[Buggy]) >= o.Alpha {
			continue
		}
		if name == "" || b > sb {
			name, sn, sb = vv.Name, n, b
		}
	}
	return name, sn, sb
}

// ruleOf is the number of the first rule of method.md §8 that verdict vv
// of function fn matches, 0 if none. A loop variable held over several
// ticks (held) counts as one that holds its values longer than normal:
// rule 1. So does a condition variable whose durations differ, longer or
// not, while fn's loops step at their normal pace: rule 1 then reads
// scalability (D11, D14).
func (a *Analyzer) ruleOf(res *Result, fn *Function, vv *VarVerdict) int {
	if a.held(vv) {
		return 1
	}
	tags := a.vars[vv.Var].tags
	k := ruleNumber(tags, vv, &a.opt, a.longer(vv))
	if k == 3 && a.walkElement(fn, vv) {
		return 2
	}
	if k == 3 && tags&model.TagLoop == 0 && vv.HasDim && vv.Dim == DimDuration &&
		vv.R < a.opt.DefaultDiscount && a.loopAtPace(res, fn) != "" {
		return 1
	}
	return k
}

// ruleNumber is the first rule of method.md §8 that verdict vv matches.
// longer says whether its values last longer than normal (see longer): a
// duration anomaly matches rule 1 only then (D14).
func ruleNumber(tags model.Tags, vv *VarVerdict, o *Options, longer bool) int {
	loop, cond := tags&model.TagLoop != 0, tags&model.TagCond != 0
	low := vv.R < o.DefaultDiscount
	switch {
	case (loop || cond) && vv.HasDim && vv.Dim == DimDuration && low && longer:
		return 1
	case loop && vv.HasDim && (vv.Dim == DimValue || vv.Dim == DimDelta) && low:
		return 2
	case cond && low:
		return 3
	case vv.HasDim && vv.R >= o.DefaultDiscount && (vv.Dim == DimDuration || durationsNormal(vv, o)):
		return 4
	case vv.Normal == 0 && vv.Buggy > 0:
		return 5
	}
	return 0
}

// classify applies the bug-pattern rules of method.md §8 to one verdict,
// first match wins, and says which rule matched or why none did.
func classify(tags model.Tags, vv *VarVerdict, o *Options, longer bool) (pattern, reason string) {
	loop, cond := tags&model.TagLoop != 0, tags&model.TagCond != 0
	low := vv.R < o.DefaultDiscount
	dim := dimName(vv)
	switch ruleNumber(tags, vv, o, longer) {
	case 1:
		return PatternMissing, fmt.Sprintf("%s (%s) holds its values longer than normal: a loop or wait that should have stopped", vv.Name, tags)
	case 2:
		return PatternScalability, fmt.Sprintf("loop variable %s goes further (%s)", vv.Name, dim)
	case 3:
		return PatternWrong, fmt.Sprintf("condition variable %s takes abnormal values (%s)", vv.Name, dim)
	case 4:
		return PatternScalability, "values look normal but last as long as normal: it runs more, on more data"
	case 5:
		return PatternScalability, fmt.Sprintf("%s is sampled in slow runs only", vv.Name)
	}
	switch {
	case !loop && !cond && low:
		return "", fmt.Sprintf("%s went wrong (%s) but is neither a loop nor a condition variable", vv.Name, dim)
	case !vv.HasDim:
		return "", fmt.Sprintf("%s: %s", vv.Name, vv.Reason)
	}
	return "", fmt.Sprintf("its variables look normal (%s: %s, r %.2f)", vv.Name, dim, vv.R)
}

// durationsNormal reports whether vv's durations were compared and look
// normal (r >= DefaultDiscount: the same distribution, a difference so
// small that 1 - Hellinger stays above it, or one duration on both sides),
// though another dimension gave v* its r by the tie order: the values
// last as long as normal, which is what rule 4 reads (decision D54). A
// value that never changed has one duration per run, the run's span
// (D14): no comparison of how long values last.
func durationsNormal(vv *VarVerdict, o *Options) bool {
	for _, d := range vv.Dims {
		if d.Dim == DimDuration && d.OK && d.R >= o.DefaultDiscount && !d.spansOnly() {
			return true
		}
	}
	return false
}

func dimName(vv *VarVerdict) string {
	if !vv.HasDim {
		return "no dimension"
	}
	return vv.Dim.String()
}

// held reports whether vv is the verdict of a loop variable that was
// judged without a test (present only when slow, rare when normal) and
// whose values in the slow runs typically last longer than one tick and
// than any of its normal durations: the loop stays on one iteration (the
// thesis' HTTPD-62668, "an unexpected long processing for a fixed value
// inside for-loop"), where a loop that merely goes further steps on at
// every tick. Without the normal samples a test needs, this is what the
// duration dimension can still say.
func (a *Analyzer) held(vv *VarVerdict) bool {
	if vv.Reason != ReasonBuggyOnly && vv.Reason != ReasonRare {
		return false
	}
	vi := &a.vars[vv.Var]
	if vi.tags&model.TagLoop == 0 {
		return false
	}
	limit := 1.0 // ticks
	if vi.mode == modePtrBasic {
		// A pointer compared by its pointee: its runs of equal values are
		// runs of one byte or number, which a walk over equal data (a run
		// of '/', of zeros) keeps while it moves at every iteration. An
		// iteration is an address: the loop stays on one when its address
		// does, and it changed when its address did (D158).
		slow, normal := vi.addrDur[Buggy], vi.addrDur[Normal]
		if slow == nil || slow.n <= float64(vi.streams[Buggy]) {
			return false
		}
		if normal != nil && normal.n > 0 {
			limit = max(limit, normal.max)
		}
		return median(slow) > limit
	}
	if !vi.changed[Buggy] {
		return false
	}
	bs := vi.sets[Buggy][DimDuration]
	if bs == nil || bs.n == 0 {
		return false
	}
	if ns := vi.sets[Normal][DimDuration]; ns != nil && ns.n > 0 {
		limit = max(limit, ns.max)
	}
	return median(bs) > limit
}

// longer reports whether the values of vv's variable last longer in the
// slow runs than in the normal ones: what rule 1 of method.md §8 reads
// in a duration anomaly, "stays the same for an abnormally long time"
// (decision D14). The test behind r says only that the durations differ.
//
// A loop variable changes at every iteration, so its durations are the
// times of its iterations: they are longer when a slow duration is more
// often longer than a normal one than shorter (stochastic order), however
// long the longest normal iteration was (a poll that the normal runs make
// once in a while, HTTPD-54852).
//
// A condition variable changes only when what it tests is updated, so its
// durations follow whatever runs between two updates, and any slowdown
// around it makes them typically longer. Its values stay the same for an
// abnormally long time when more of its slow durations lie above the
// normal range (with slack: §8's abnormal samples) than below it, and it
// changed in the slow runs: one that keeps one value through each slow
// run has one duration per run, the span the run was sampled over, which
// a longer run makes longer by construction (as a counter's value, D2);
// what it says is the value it is stuck at. So does one that changed
// about once per run (fewChanges, decision D20): its two durations are
// the run's span cut in two.
func (a *Analyzer) longer(vv *VarVerdict) bool {
	vi := &a.vars[vv.Var]
	bs := vi.sets[Buggy][DimDuration]
	if bs == nil || bs.n == 0 {
		return false
	}
	if !vi.has[DimDuration] {
		return true // no normal durations: every slow one is abnormal
	}
	if vi.tags&model.TagLoop != 0 {
		return stochasticallyLonger(vi.sets[Normal][DimDuration].dist(), bs.dist())
	}
	if !vi.changed[Buggy] || a.fewChanges(vv.Var) {
		return false
	}
	d := bs.dist()
	var above, below float64
	for i, x := range d.Values {
		switch {
		case x > vi.hi[DimDuration]:
			above += d.Counts[i]
		case x < vi.lo[DimDuration]:
			below += d.Counts[i]
		}
	}
	return above > below
}

// fewChanges reports whether variable v gave at most two durations per
// (run, thread) that read it in the slow runs: it changed about once per
// run, if at all, so each of its durations is a piece of the run's span,
// which a longer run makes longer by construction (as one that never
// changes, D14, and a counter's value, D2). Two durations and not one:
// a value before a change and one after (decision D20).
func (a *Analyzer) fewChanges(v int32) bool {
	return a.fewChangesIn(v, Buggy)
}

// fewChangesIn is fewChanges in the runs of kind k: v gave at most two
// durations per (run, thread) that read it there, counted over all of
// them (durations <= 2 x such pairs).
func (a *Analyzer) fewChangesIn(v int32, k Kind) bool {
	vi := &a.vars[v]
	s := vi.sets[k][DimDuration]
	return s != nil && s.n <= 2*float64(vi.streams[k])
}

// stochasticallyLonger reports whether, over all pairs of a normal and a
// slow observation, the slow one is larger more often than smaller (the
// pairs counted by the Mann-Whitney U statistic). n's values are sorted.
func stochasticallyLonger(n, b stats.Dist) bool {
	cum := make([]float64, len(n.Values)+1) // cum[i]: count of n.Values[:i]
	for i, c := range n.Counts {
		cum[i+1] = cum[i] + c
	}
	total := cum[len(n.Values)]
	var gt, lt float64
	for i, x := range b.Values {
		lo := sort.SearchFloat64s(n.Values, x)
		hi := lo
		for hi < len(n.Values) && n.Values[hi] == x {
			hi++
		}
		gt += b.Counts[i] * cum[lo]
		lt += b.Counts[i] * (total - cum[hi])
	}
	return gt > lt
}

// median is the lower median of the observations of s.
func median(s *sampleSet) float64 {
	d := s.dist()
	half := d.N() / 2
	var c float64
	for i, n := range d.Counts {
		if c += n; c >= half {
			return d.Values[i]
		}
	}
	return s.max
}

// loopAtPace returns a loop variable of fn whose durations were compared
// and look normal, provided no loop variable of fn holds its values
// longer than normal; "" otherwise. Then a condition variable that holds
// its values longer is waiting on a loop that steps as fast as normal
// and runs longer: the loop has more to go through.
func (a *Analyzer) loopAtPace(res *Result, fn *Function) string {
	o := &a.opt
	name := ""
	for _, j := range fn.Vars {
		vv := &res.Variables[j]
		if !vv.OK || a.vars[vv.Var].tags&model.TagLoop == 0 {
			continue
		}
		if a.held(vv) {
			return ""
		}
		for _, d := range vv.Dims {
			if d.Dim != DimDuration || !d.OK || d.spansOnly() {
				continue
			}
			if d.R < o.DefaultDiscount {
				return ""
			}
			if name == "" {
				name = vv.Name
			}
		}
	}
	return name
}

// normalControl returns a loop or condition variable of fn with a
// verdict, provided all of them look normal (r >= DefaultDiscount); ""
// otherwise, or when fn has none. A variable never read in the slow runs
// (absent when slow) has a verdict but says nothing about how fn decided
// there: it is left out (decision D32).
//
// A condition variable that went wrong only in its durations, which last
// longer than normal (§8's "last longer", D14), while the function has no
// loop stepping at its normal pace (loopAtPace), is rule 1's missing
// constraint on its own: it agrees with rule 6's reading and does not
// stop it (decision D227; cascade_delete's `foreign`, a pointer whose
// durations grow with the rows each cascade deletes, r 0.64-0.72, where
// it is 0.80 in the trials that read rule 6).
func (a *Analyzer) normalControl(res *Result, fn *Function) string {
	name := ""
	atPace := -1 // loopAtPace, computed once when needed: 0 no, 1 yes
	for _, j := range fn.Vars {
		vv := &res.Variables[j]
		if !vv.OK || vv.Buggy == 0 || a.vars[vv.Var].tags&(model.TagLoop|model.TagCond) == 0 {
			continue
		}
		if vv.R < a.opt.DefaultDiscount {
			if a.vars[vv.Var].tags&model.TagLoop == 0 && a.onlyLongerDurations(vv) {
				if atPace < 0 {
					atPace = 0
					if a.loopAtPace(res, fn) != "" {
						atPace = 1
					}
				}
				if atPace == 0 {
					continue // rule 1's missing constraint (D227)
				}
			}
			return ""
		}
		if name == "" {
			name = vv.Name
		}
	}
	return name
}

// onlyLongerDurations reports whether vv went wrong (below
// DefaultDiscount) in its durations alone, and they last longer than
// normal (longer, D14).
func (a *Analyzer) onlyLongerDurations(vv *VarVerdict) bool {
	if !vv.HasDim {
		return false
	}
	for _, d := range vv.Dims {
		if d.OK && d.R < a.opt.DefaultDiscount && d.Dim != DimDuration {
			return false
		}
	}
	return vv.Dim == DimDuration && a.longer(vv)
}

// repeatedWalk returns a loop variable of fn that the normal runs never
// (or rarely) read, and a condition variable of fn that kept one value
// through the slow runs while that loop ran (it changed about once per
// (run, thread) at most: D14's stuck value, D20's once per run), at a
// value outside the normal runs' values (or with no normal sample); ""
// otherwise. The slow runs then repeat, call after call, a walk that the
// normal runs never made, on state that the walk does not change: each
// walk can only find what the last one found, and nothing the function
// tests tells it to skip the walk: the thesis' missing constraint,
// "operations performed uniformly instead of discriminating based on some
// constraint" (decision D31). A walk that the normal runs also made goes
// further on more data (rule 2: scalability), however uniform.
//
// A condition that also kept one value through the normal runs (at
// least MinSamples of them) is a setting, such as the size of the data
// the workload configures, not state that stopped moving: it is left out.
//
// The condition must be state that outlives a call (a global, a static,
// a field behind a pointer: what one call leaves and the next finds; a
// local holds one value through a walk whenever it is set after it), a
// number (addresses and hashed aggregates differ by nature, §5), read
// during most of the loop (half of the loop variable's samples at least:
// a value read once says nothing about what held during the walk).
func (a *Analyzer) repeatedWalk(res *Result, fn *Function) (loop, cond string) {
	o := &a.opt
	loop, loopN := a.busiestLoop(res, fn, func(vv *VarVerdict) bool {
		return vv.OK && vv.R < o.DefaultDiscount && (vv.Reason == ReasonBuggyOnly || vv.Reason == ReasonRare)
	})
	if loop == "" {
		return "", ""
	}
	for _, j := range fn.Vars {
		vv := &res.Variables[j]
		vi := &a.vars[vv.Var]
		if vi.tags&model.TagCond == 0 || vi.tags&model.TagLoop != 0 || vi.natural || !vi.outlives {
			continue
		}
		if vi.mode != modeBasic && vi.mode != modePtrBasic {
			continue
		}
		if 2*vi.count[Buggy] < loopN {
			continue
		}
		if vi.changed[Buggy] && !a.fewChanges(vv.Var) {
			continue
		}
		bs := vi.sets[Buggy][DimValue]
		if bs == nil || bs.n == 0 {
			continue
		}
		if ns := vi.sets[Normal][DimValue]; ns != nil && ns.n > 0 {
			if bs.min <= ns.max && bs.max >= ns.min {
				continue // a value the normal runs had
			}
			if !vi.changed[Normal] && vi.count[Normal] >= float64(o.MinSamples) {
				continue // one value through the normal runs too: a setting
			}
		}
		return loop, vv.Name
	}
	return "", ""
}

// walkElement reports whether vv, a condition variable gone wrong in value
// or delta, is a field read through a pointer that is a loop variable of
// fn (simple_key->token_number of a walk over simple_key): the data of
// the element the walk is at. A walk that reaches other elements reads
// other values there, so the values differ when the walk goes further, as
// the iterator's own values would (rule 2) if a pointer's value were
// compared (§5 compares only null or not). Decision D80.
func (a *Analyzer) walkElement(fn *Function, vv *VarVerdict) bool {
	if !vv.HasDim || vv.Dim == DimDuration || vv.R >= a.opt.DefaultDiscount {
		return false
	}
	vi := &a.vars[vv.Var]
	if vi.derefOf == 0 || vi.tags&model.TagLoop != 0 {
		return false
	}
	p := &a.vars[vi.derefOf-1]
	f, ok := a.funcIdx[fn.Key]
	return ok && p.fn == f && vi.fn == f && p.tags&model.TagLoop != 0 && p.mode == modePtrNull
}

// oneObjectWalked returns a loop variable of fn read in the slow runs when
// vv is a pointer (compared as null or not, §5) whose durations gave its
// verdict because it kept one address through each slow run (or changed
// about once per (run, thread), D20) where it changed in the normal runs;
// "" otherwise. The condition that reads such a pointer sees only whether
// it is null, which did not change: no value it decided on was stuck
// (D14's reading). What kept one address is the object: every call of the
// slow runs finds the one the calls before it left and grew, where the
// normal runs moved to a new one, and fn's loop walks it: scalability.
// Decision D79.
func (a *Analyzer) oneObjectWalked(res *Result, fn *Function, vv *VarVerdict) string {
	vi := &a.vars[vv.Var]
	if vi.mode != modePtrNull || !vi.changed[Normal] || vi.changed[Buggy] && !a.fewChanges(vv.Var) {
		return ""
	}
	for _, j := range fn.Vars {
		x := &res.Variables[j]
		if x != vv && x.OK && x.Buggy > 0 && a.vars[x.Var].tags&model.TagLoop != 0 {
			return x.Name
		}
	}
	return ""
}

// identityDuration reports whether vv's verdict came from the durations of
// a number whose values differ from run to run as much as between the
// kinds (address bits, a hash of a pointer: ReasonRunNoise, §5). §5 found
// its values to be no evidence: they name an object, as an address does,
// and its durations say how long one object stayed in use, which a
// longer call makes longer by construction, not a value that a loop
// stepped through or a condition read. Among candidates tied at v*'s r
// below DefaultDiscount, such a candidate is left out as long as another
// remains (decision D81). A pointer's durations are the evidence §5 gives
// a pointer on purpose (rule 4, D79, and rule 1's loop that runs longer
// at its normal pace read them): they stay.
func (a *Analyzer) identityDuration(vv *VarVerdict) bool {
	if !vv.HasDim || vv.Dim != DimDuration {
		return false
	}
	for _, d := range vv.Dims {
		if d.Dim == DimValue && d.Reason == ReasonRunNoise {
			return true
		}
	}
	return false
}

// busiestLoop returns the loop variable of fn, among those keep accepts,
// read in the most slow-run samples, and that count; "" if none.
func (a *Analyzer) busiestLoop(res *Result, fn *Function, keep func(*VarVerdict) bool) (loop string, n float64) {
	for _, j := range fn.Vars {
		vv := &res.Variables[j]
		if a.vars[vv.Var].tags&model.TagLoop != 0 && keep(vv) && vv.Buggy > n {
			loop, n = vv.Name, vv.Buggy
		}
	}
	return loop, n
}

// A function whose walk is a library routine's (method.md §8, decision
// D124): all of its slow-run time is its own PC cost (no program callee),
// library functions carry at least SoleCallee of that, and none of its
// own loop variables went wrong. The loop that costs is the library's
// (memchr, memmem, strlen, std::find, basic_string::find), which vprof
// cannot read: what the function shows is the bounds it computed and
// passed on. A number whose slow values hold the normal runs' range and
// reach above it (a length, an end, an offset: more data), or variables
// that look normal, say the walk went over more data: scalability, where
// rule 3 would read a condition that took other values, and where no rule
// matched (a number that is neither a loop's nor a condition's, or
// variables that look normal). A value the slow runs moved away from the normal range
// (a flag set, a mode) is not more data and keeps rule 3's reading.
// A string length variable (D140) that grew so reads scalability over
// rule 6's missing constraint too (D141): the string is the data the
// library's walk goes over, and it is no loop's or condition's number
// only because the loop that reads it is the library's.

// loopWrongBeyondSpan reports whether one of fn's loop variables went
// wrong (a verdict below DefaultDiscount) in a dimension other than
// duration. For a function whose time is all its library calls
// (libraryWalk), an iteration of its own loop spans the library calls
// made in it: its durations are those calls' times, and they change when
// the library's walk goes over other data. A loop whose values and steps
// look normal, and whose durations alone differ, went over the same
// items; what changed is the library's walk (decision D226; llama.cpp's
// tokenizer_st_partition, whose fragment iterators' durations differ, r
// 0.77-0.80, with std::string::find's search to the end of the prompt).
func (a *Analyzer) loopWrongBeyondSpan(res *Result, fn *Function) bool {
	for _, j := range fn.Vars {
		vv := &res.Variables[j]
		if a.vars[vv.Var].tags&model.TagLoop == 0 || !vv.OK || vv.R >= a.opt.DefaultDiscount {
			continue
		}
		if !vv.HasDim {
			return true
		}
		for _, d := range vv.Dims {
			if d.OK && d.R < a.opt.DefaultDiscount && d.Dim != DimDuration {
				return true
			}
		}
	}
	return false
}

// libraryWalk returns the library function that carried most of fn's
// cost when fn's walk is a library routine's (see above), else "".
func (a *Analyzer) libraryWalk(res *Result, fn *Function) string {
	f, ok := a.funcIdx[fn.Key]
	if !ok || len(fn.Via) == 0 || libraryShare(fn) < SoleCallee || a.loopWrongBeyondSpan(res, fn) {
		return ""
	}
	on := a.stk.on[f]
	if on <= 0 || a.selfSlow(int(f)) < SoleCallee*on {
		return ""
	}
	return fn.Via[0].Func
}

// grewArgument returns v* or a candidate tied with it that went wrong in
// value or delta, whose slow samples take values of the normal runs' range
// and lie above it more often than below (a delta beyond it either way: a
// longer step), at three or more distinct values there: a number that grew (a length, an end, an offset), not one moved
// to a new setting (a flag set, a mode: one or two values). nil if none.
// With lengths, only string length variables (D140) count, and their slow
// samples need not take the normal values (D141): each build starts the
// string empty, but the time a build spends at a length grows with the
// length, so the slow runs' samples rarely land on the short lengths.
func (a *Analyzer) grewArgument(res *Result, fn *Function, best *VarVerdict, lengths bool) *VarVerdict {
	tied := []*VarVerdict{best}
	for _, j := range fn.Vars {
		if vv := &res.Variables[j]; vv != best && vv.OK && vv.R == best.R && vv.Default == best.Default {
			tied = append(tied, vv)
		}
	}
	for _, vv := range tied {
		vi := &a.vars[vv.Var]
		if !vv.HasDim || (vv.Dim != DimValue && vv.Dim != DimDelta) || !vi.has[vv.Dim] {
			continue
		}
		if lengths && !strings.HasPrefix(vv.Name, model.StrLenPrefix) {
			continue
		}
		bs := vi.sets[Buggy][vv.Dim]
		if bs == nil || bs.n == 0 {
			continue
		}
		d := bs.dist()
		var above, below, within float64
		distinct := 0
		for i, x := range d.Values {
			switch {
			case x > vi.hi[vv.Dim] || vv.Dim == DimDelta && x < vi.lo[vv.Dim]:
				// a delta beyond the normal range either way is a longer
				// step: a bound moved further, forward or back to the start
				above += d.Counts[i]
				distinct++
			case x < vi.lo[vv.Dim]:
				below += d.Counts[i]
			default:
				within += d.Counts[i]
			}
		}
		if (within > 0 || lengths) && above > below && distinct >= 3 {
			return vv
		}
	}
	return nil
}

// sameIterations returns a loop variable of fn that went wrong in value or
// delta (cand, rule 2's candidate, when it is one), the dimension and the share of its slow samples that lie in the
// normal runs' range, when every loop variable of fn that went wrong in
// value or delta (r below DefaultDiscount there) did so by a test of the
// two distributions (§5's "different distribution") with at least
// DefaultDiscount of its slow samples in the normal runs' range (§8's
// range, its 5% slack included); nil when one of them lies outside it
// more, went wrong by its presence (present only when slow, rare when
// normal: the normal runs did not make that walk, and have no range to
// compare with), or when none of them is a number read in at least half
// as many slow samples as fn's busiest loop variable (a loop variable
// read in a few of them, a position a search returns now and then, is
// not where the function's slow-run time goes, and a few normal samples
// with a sentinel among them, npos, make a range that holds anything),
// or when library functions carry more than 1 - SoleCallee of fn's cost
// (as D225 reads "its own instructions"): an iteration that calls
// memmove or a container's copy can go over more data at the same loop
// values, which the loop's values cannot show (D124, D226).
//
// Rule 2 reads a loop variable whose values or steps differ as a loop
// that goes further, over more data: the thesis' scalability, "the array
// or loop size surpasses the developer's expectations". A loop whose slow
// values are nearly all values the normal runs had did not go further: it
// spent the slow runs' time on iterations the normal runs made too, in
// another mix, more often: the same work repeated with nothing that skips
// it, the thesis' missing constraint, "operations performed uniformly
// instead of discriminating based on some constraint" (decision D347).
// A pointer compared by its pointee (§5) is left out: its values are the
// data it reads, not how far the loop went (D158).
func (a *Analyzer) sameIterations(res *Result, fn *Function, cand *VarVerdict) (loop *VarVerdict, dim string, in float64) {
	o := &a.opt
	if libraryShare(fn) > 1-SoleCallee {
		return nil, "", 0 // an iteration's library call may go over more data (D124)
	}
	_, busiest := a.busiestLoop(res, fn, func(vv *VarVerdict) bool { return vv.OK })
	for _, j := range fn.Vars {
		vv := &res.Variables[j]
		vi := &a.vars[vv.Var]
		if !vv.OK || vv.R >= o.DefaultDiscount || vi.tags&model.TagLoop == 0 {
			continue
		}
		if vv.Reason == ReasonBuggyOnly || vv.Reason == ReasonRare {
			return nil, "", 0
		}
		for _, d := range vv.Dims {
			if (d.Dim != DimValue && d.Dim != DimDelta) || !d.OK || d.R >= o.DefaultDiscount {
				continue
			}
			if vi.mode == modePtrBasic {
				continue // its values are the data read (D158)
			}
			if !d.Tested || d.Reason != ReasonDiffer {
				return nil, "", 0
			}
			share := a.insideShare(vi, d.Dim)
			if share < o.DefaultDiscount {
				return nil, "", 0
			}
			if 2*vv.Buggy < busiest {
				continue // read in few of the walk's samples: not where its time goes
			}
			if loop == nil || vv == cand && loop != cand || vv == cand && d.Dim == vv.Dim {
				loop, dim, in = vv, d.Dim.String(), share
			}
		}
	}
	return loop, dim, in
}

// insideShare is the share of a variable's slow samples in dimension d
// that lie in the normal runs' range with §8's slack (those that are not
// abnormal samples); 0 when it has none there.
func (a *Analyzer) insideShare(vi *varInfo, d Dimension) float64 {
	bs := vi.sets[Buggy][d]
	if bs == nil || bs.n == 0 || !vi.has[d] {
		return 0
	}
	dist := bs.dist()
	var in, all float64
	for i, x := range dist.Values {
		all += dist.Counts[i]
		if x >= vi.lo[d] && x <= vi.hi[d] {
			in += dist.Counts[i]
		}
	}
	if all == 0 {
		return 0
	}
	return in / all
}
