package rank

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/proffile"
)

// The deciding caller and the paying callee, told apart by call counts
// (method.md §7, decision D220; D200 found the rule, D202 the counting).
// A caller on the stack at every sample of its callee holds the callee's
// time: when both ran only in the slow runs, or the normal runs sampled
// them too seldom, no sample says which of the two changed. How often each
// was called does: `vprof record --count` stores exact entry counts in a
// profile, and when the normal and the slow runs both hold the counts of a
// caller A and a callee D among the leading rows (D under A for most of
// D's slow-run stack time), with c the calls per run and t D's seconds on
// the stack per call of D:
//   - D's calls per call of A grew (by CountGrowth or more, normal to
//     slow) and t did not grow as much: A decided to call it more often;
//     A ranks above D;
//   - D's calls per call of A did not grow that much, and t did: D's own
//     work per call grew; D ranks above A;
//   - both grew, or neither: the counts do not say; nothing moves.
// A count of zero in the normal runs (D221) leaves no per-call figure to
// compare: a function never called in the normal runs is where the work
// only the slow runs did begins. When A was called in the normal runs
// and D never was, D ranks above A; when A never was, A ranks above D
// (the outermost such frame is the entry of the new work). A count of
// zero in the slow runs for a function the slow samples hold says the
// counted runs are not the sampled ones: nothing moves.
// The leading rows (CountTop) are then reordered in as few moves as the
// verdicts need (a row that must rank above a higher one moves to just
// above it; verdicts that contradict each other, a cycle, move nothing),
// each row taking the calibrated cost of the place it takes. Counts missing in either kind move nothing; when the
// first two rows are such a pair and no counts were recorded, the report
// says what to record (Result.NextStep).

// CountTop is the number of leading rows whose pairs the counts order.
const CountTop = 3

// CountGrowth is the ratio, slow over normal, from which a count per call
// of the caller or a time per call counts as grown: twice, beyond the
// run-to-run spread of a function's sampled time (tens of percent).
const CountGrowth = 2.0

// CountUnder is the share of a callee's slow-run stack time that it must
// spend under a caller for the two to be a caller/callee pair.
const CountUnder = 0.5

// CountPair is what the counts of one caller/callee pair of the leading
// rows were, and what they decided.
type CountPair struct {
	Caller, Callee       string // display names
	CallerKey, CalleeKey string // linkage names (the counted symbols)
	// Calls per run of each (means over the counted runs of the kind);
	// -1 where a kind holds no count of that function.
	CallerNormal, CallerSlow float64
	CalleeNormal, CalleeSlow float64
	// The callee's calls per call of the caller, and its seconds on the
	// stack per call (sampled runs of the kind over the counts); -1 where
	// not defined (no count, or no call).
	PerCallNormal, PerCallSlow   float64
	TimeCallNormal, TimeCallSlow float64
	// Above is "caller" or "callee" (which one the counts put above), or
	// "" when they decide nothing; Why says which reading applied.
	Above string
	Why   string
}

// NextStep is the report's advice when its first two rows are a caller
// and its callee and no counts of them were recorded: the functions to
// count (symbols) and the line to print.
type NextStep struct {
	Count []string
	Text  string
}

// countRun is the counts of one profile given to the report.
type countRun struct {
	kind    Kind
	name    string
	counts  map[string]uint64 // symbol -> calls
	missing string            // why a run recorded with --count has none
	unsure  map[string]string // symbol -> why its count is not read (D257)
}

// countHeader reads the profile's header: whether it was recorded with
// --count.
func countHeader(path string) (bool, error) {
	rd, err := proffile.Open(path)
	if err != nil {
		return false, err
	}
	defer rd.Close()
	return len(rd.Header().Count) > 0, nil
}

// readCounts streams a profile to its trailer for its counts only.
func readCounts(path string) (*model.Trailer, error) {
	rd, err := proffile.Open(path)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	rd.RawStacks = true
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if t, ok := rec.(*model.Trailer); ok {
			return t, nil
		}
	}
}

// addCounts records a trailer's counts (t nil: a profile cut short).
func (a *Analyzer) addCounts(k Kind, name string, t *model.Trailer) {
	cr := countRun{kind: k, name: name, counts: map[string]uint64{}}
	switch {
	case t == nil:
		cr.missing = "the profile has no trailer (cut short)"
	case t.CountError != "":
		cr.missing = t.CountError
	}
	if t != nil {
		for _, c := range t.Counts {
			if c.Unsure != "" { // counted at inlined entries: not read (D257)
				if cr.unsure == nil {
					cr.unsure = map[string]string{}
				}
				cr.unsure[c.Symbol] = c.Unsure
				continue
			}
			cr.counts[c.Symbol] = c.Calls
		}
	}
	a.countRuns = append(a.countRuns, cr)
}

// splitCounted reads which profiles were recorded with --count. Where a
// kind has runs with and without counts, the counted ones give their
// counts only (countOnly): their samples carry a trap per counted call
// (D202: spill_check's slow run 1.3 s of user time against 7.9 s with
// three counters), which would be read as the counted functions' time.
func splitCounted(kinds []Kind, paths []string) (countOnly []bool, err error) {
	counted := make([]bool, len(paths))
	var without [2]bool
	for i, p := range paths {
		if counted[i], err = countHeader(p); err != nil {
			return nil, err
		}
		if !counted[i] {
			without[kinds[i]] = true
		}
	}
	countOnly = make([]bool, len(paths))
	for i := range paths {
		countOnly[i] = counted[i] && without[kinds[i]]
	}
	return countOnly, nil
}

// meanCalls is the mean count of sym over the runs of kind k that hold
// it, and the number of such runs.
func (a *Analyzer) meanCalls(k Kind, sym string) (float64, int) {
	var s float64
	n := 0
	for _, cr := range a.countRuns {
		if c, ok := cr.counts[sym]; ok && cr.kind == k && cr.missing == "" {
			s += float64(c)
			n++
		}
	}
	if n == 0 {
		return -1, 0
	}
	return s / float64(n), n
}

// countMissing says why kind k holds no count of sym.
func (a *Analyzer) countMissing(k Kind, sym string) string {
	for _, cr := range a.countRuns {
		if why, ok := cr.unsure[sym]; ok && cr.kind == k {
			return cr.name + ": " + why
		}
	}
	for _, cr := range a.countRuns {
		if cr.kind == k && cr.missing != "" {
			return cr.name + ": " + cr.missing
		}
	}
	return "no " + kindWord(k) + " run counted it"
}

// leadingPairs yields the caller/callee pairs among the first n rows:
// rows (ia, id) with id's function under ia's for CountUnder or more of
// its slow-run stack time, and not the other way round too. A driver
// frame (main, a thread's start routine: drivers.go) is no caller here:
// every call of the program is under it, so that it "decided" says
// nothing.
func (a *Analyzer) leadingPairs(fns []Function, n int, drivers []bool) [][2]int {
	var out [][2]int
	c := &a.stk
	n = min(n, len(fns))
	under := func(i, j int) bool { // j under i
		fi, fj := int(a.funcIdx[fns[i].Key]), int(a.funcIdx[fns[j].Key])
		if fi < len(drivers) && drivers[fi] {
			return false
		}
		return fj < len(c.on) && c.on[fj] > 0 && c.outside(fi, fj) >= CountUnder*c.on[fj]
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			ij, ji := under(i, j), under(j, i)
			switch {
			case ij && !ji:
				out = append(out, [2]int{i, j})
			case ji && !ij:
				out = append(out, [2]int{j, i})
			}
		}
	}
	return out
}

// countOrder applies D220 and D221 (see above) to the leading rows of
// fns, sorted; it returns the pairs it read.
func (a *Analyzer) countOrder(fns []Function, nNormal, nBuggy int, drivers []bool) []CountPair {
	if len(a.countRuns) == 0 {
		return nil
	}
	pairs := a.leadingPairs(fns, CountTop, drivers)
	var out []CountPair
	above := map[[2]int]bool{} // (i, j): row i must rank above row j
	for _, pr := range pairs {
		ia, id := pr[0], pr[1]
		p := a.countPair(&fns[ia], &fns[id], nNormal, nBuggy)
		switch p.Above {
		case "caller":
			above[[2]int{ia, id}] = true
		case "callee":
			above[[2]int{id, ia}] = true
		}
		out = append(out, p)
	}
	if len(above) == 0 {
		return out
	}
	// A stable topological order of the leading rows: at each place, the
	// first row (in the present order) that no remaining row must precede.
	n := min(CountTop, len(fns))
	left := make([]int, n)
	for i := range left {
		left[i] = i
	}
	var order []int
	for len(left) > 0 {
		pick := -1
		for x, i := range left {
			free := true
			for _, j := range left {
				if above[[2]int{j, i}] {
					free = false
					break
				}
			}
			if free {
				pick = x
				break
			}
		}
		if pick < 0 { // verdicts in a cycle: they contradict each other
			for i := range out {
				if out[i].Above != "" {
					out[i].Why += "; the verdicts of the leading rows contradict each other: nothing moves"
					out[i].Above = ""
				}
			}
			return out
		}
		order = append(order, left[pick])
		left = slices.Delete(left, pick, pick+1)
	}
	// The verdicts hold together. Each row a verdict puts above another
	// that ranks higher moves to just above it, and nothing else moves: a
	// row no verdict names keeps its place relative to the others (D220).
	order = order[:0]
	for i := range n {
		order = append(order, i)
	}
	keys := make([][2]int, 0, len(above))
	for k := range above {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y [2]int) int { return cmp.Or(cmp.Compare(x[1], y[1]), cmp.Compare(x[0], y[0])) })
	for moved, rounds := true, 0; moved && rounds < n*n; rounds++ { // acyclic: each move is upward
		moved = false
		for _, k := range keys {
			x, y := slices.Index(order, k[0]), slices.Index(order, k[1])
			if x > y {
				row := order[x]
				order = slices.Insert(slices.Delete(order, x, x+1), y, row)
				moved = true
			}
		}
	}
	if slices.IsSorted(order) {
		return out
	}
	rows := slices.Clone(fns[:n])
	for place, i := range order {
		if i == place {
			continue
		}
		f := rows[i]
		f.Calibrated = fns[place].Calibrated
		var why []string
		for _, p := range out {
			if p.Above != "" && (p.CallerKey == f.Key || p.CalleeKey == f.Key) {
				why = append(why, p.Why)
			}
		}
		f.Placed = fmt.Sprintf("at rank %d by the call counts of the leading rows (D220): %s", place+1, strings.Join(why, "; "))
		fns[place] = f
	}
	return out
}

// countPair reads the counts of caller fa and callee fd.
func (a *Analyzer) countPair(fa, fd *Function, nNormal, nBuggy int) CountPair {
	p := CountPair{Caller: fa.Name, Callee: fd.Name, CallerKey: fa.Key, CalleeKey: fd.Key,
		PerCallNormal: -1, PerCallSlow: -1, TimeCallNormal: -1, TimeCallSlow: -1}
	p.CallerNormal, _ = a.meanCalls(Normal, fa.Key)
	p.CalleeNormal, _ = a.meanCalls(Normal, fd.Key)
	p.CallerSlow, _ = a.meanCalls(Buggy, fa.Key)
	p.CalleeSlow, _ = a.meanCalls(Buggy, fd.Key)
	for _, m := range []struct {
		v    float64
		k    Kind
		name string
	}{{p.CallerNormal, Normal, fa.Name}, {p.CalleeNormal, Normal, fd.Name}, {p.CallerSlow, Buggy, fa.Name}, {p.CalleeSlow, Buggy, fd.Name}} {
		if m.v < 0 {
			key := fa.Key
			if m.name == fd.Name {
				key = fd.Key
			}
			p.Why = fmt.Sprintf("no count of %s in the %s runs (%s): nothing moves", m.name, kindWord(m.k), a.countMissing(m.k, key))
			return p
		}
	}
	// D's seconds on the stack per run of each kind, over its calls.
	perRun := func(c *stackCover, runs int, f string) float64 {
		i := int(a.funcIdx[f])
		if runs == 0 || i >= len(c.on) {
			return 0
		}
		return c.on[i] / float64(runs)
	}
	if p.CalleeNormal > 0 {
		p.TimeCallNormal = perRun(&a.stkNormal, nNormal, fd.Key) / p.CalleeNormal
	}
	if p.CalleeSlow > 0 {
		p.TimeCallSlow = perRun(&a.stk, nBuggy, fd.Key) / p.CalleeSlow
	}
	if p.CallerNormal > 0 {
		p.PerCallNormal = p.CalleeNormal / p.CallerNormal
	}
	if p.CallerSlow > 0 {
		p.PerCallSlow = p.CalleeSlow / p.CallerSlow
	}
	switch {
	case p.CallerSlow == 0 || p.CalleeSlow == 0:
		p.Why = "a function the slow samples hold was never called in the counted slow runs (not the runs sampled?): nothing moves"
	case p.CallerNormal == 0:
		p.Above = "caller"
		p.Why = fmt.Sprintf("%s was never called in the normal runs (%.0f calls a slow run): the outermost frame of the work only the slow runs did (D221)", fa.Name, p.CallerSlow)
	case p.CalleeNormal == 0:
		p.Above = "callee"
		p.Why = fmt.Sprintf("%s was never called in the normal runs (%.0f calls a slow run) while its caller %s was (%.0f, %.0f when slow): where the work only the slow runs did begins (D221)",
			fd.Name, p.CalleeSlow, fa.Name, p.CallerNormal, p.CallerSlow)
	default:
		calls := p.PerCallSlow / p.PerCallNormal
		tn, ts := p.TimeCallNormal, p.TimeCallSlow
		timeGrew := ts > 0 && (tn <= 0 || ts >= CountGrowth*tn)
		callsGrew := calls >= CountGrowth
		timeRatio := "from none"
		if tn > 0 {
			timeRatio = fmt.Sprintf("x%.2f", ts/tn)
		}
		fig := fmt.Sprintf("%s called %.3g -> %.3g times per call of %s (x%.2f), %.3g -> %.3g ms a call (%s)",
			fd.Name, p.PerCallNormal, p.PerCallSlow, fa.Name, calls, 1e3*math.Max(tn, 0), 1e3*ts, timeRatio)
		switch {
		case callsGrew && !timeGrew:
			p.Above, p.Why = "caller", fig+": the caller decided to call it more often"
		case !callsGrew && timeGrew:
			p.Above, p.Why = "callee", fig+": the callee's own work per call grew"
		case callsGrew:
			p.Why = fig + ": both grew, nothing moves"
		default:
			p.Why = fig + ": neither grew, nothing moves"
		}
	}
	return p
}

// nextStep is the advice when the first two rows are a caller/callee pair
// that carry the same time (the callee PresentShare of the caller's)
// and whose counts were not recorded in both kinds: the functions of the
// leading rows in a pair, and the commands that count them.
func (a *Analyzer) nextStep(fns []Function, normal, buggy []*Run, drivers []bool) *NextStep {
	// Only functions with a symbol can be counted (a lambda that DWARF
	// alone names has none, nor a function inlined at every call).
	var pairs [][2]int
	for _, p := range a.leadingPairs(fns, CountTop, drivers) {
		if a.countable(fns[p[0]].Key) && a.countable(fns[p[1]].Key) {
			pairs = append(pairs, p)
		}
	}
	// The samples cannot order the first two rows when they carry the
	// same time: the callee holds PresentShare of the caller's slow-run
	// stack time (else the caller's own time or other callees tell them
	// apart, and counting says nothing new).
	c := &a.stk
	first := false
	var rows []int
	for _, p := range pairs {
		if p[0] <= 1 && p[1] <= 1 {
			fa, fd := int(a.funcIdx[fns[p[0]].Key]), int(a.funcIdx[fns[p[1]].Key])
			if fa < len(c.on) && c.outside(fa, fd) >= PresentShare*c.on[fa] {
				first = true
			}
		}
		for _, i := range p {
			if !slices.Contains(rows, i) {
				rows = append(rows, i)
			}
		}
	}
	if !first {
		return nil
	}
	slices.Sort(rows)
	var keys []string
	counted := true
	for _, i := range rows {
		keys = append(keys, fns[i].Key)
		for _, k := range []Kind{Normal, Buggy} {
			if _, n := a.meanCalls(k, fns[i].Key); n == 0 {
				counted = false
			}
		}
	}
	if counted || len(normal) == 0 || len(buggy) == 0 {
		return nil
	}
	command := func(r *Run) string {
		args := r.hdr.Args
		if len(args) == 0 {
			args = []string{r.hdr.Target}
		}
		q := make([]string, len(args))
		for i, s := range args {
			q[i] = shellQuote(s)
		}
		return strings.Join(q, " ")
	}
	who := "a caller and its callee"
	if slices.Contains(pairs, [2]int{1, 0}) {
		who = "a callee and its caller"
	}
	text := fmt.Sprintf("next step: the first two rows are %s, ordered by the samples alone; their call counts can confirm the order: vprof record --count %s -o normal-count.vprof -- %s, the same with -o slow-count.vprof -- %s, then report again with those two profiles added to the normal and the slow ones (docs/method.md D220)",
		who, shellQuote(strings.Join(keys, ",")), command(normal[0]), command(buggy[0]))
	return &NextStep{Count: keys, Text: text}
}

func kindWord(k Kind) string {
	if k == Buggy {
		return "slow"
	}
	return "normal"
}

// takeRunCounts adds the counts of the runs fed whole that were recorded
// with --count (every run of their kind was), once.
func (a *Analyzer) takeRunCounts() {
	if a.countsTaken {
		return
	}
	a.countsTaken = true
	for _, r := range a.runs {
		if len(r.hdr.Count) > 0 {
			a.addCounts(r.Kind, r.Name, r.trailer)
		}
	}
}

// countable reports whether record --count can count the function of key:
// a name that can be a symbol, of a function that has out-of-line code
// (record --count refuses a function inlined at every call: it has no
// symbol to probe).
func (a *Analyzer) countable(key string) bool {
	if !isSymbol(key) {
		return false
	}
	i, ok := a.funcIdx[key]
	return !ok || int(i) >= len(a.funcs) || !a.funcs[i].inlineOnly
}

// isSymbol reports whether key can be an ELF symbol that record --count
// resolves: a C identifier or a C++ linkage name, not a name DWARF gives a
// lambda ("...::(lambda at f.cpp:93)::operator()").
func isSymbol(key string) bool {
	if key == "" {
		return false
	}
	for _, r := range key {
		if !(r == '_' || r == '.' || r == '$' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// shellQuote quotes s for a POSIX shell where it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
