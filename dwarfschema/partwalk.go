package dwarfschema

import (
	"debug/dwarf"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/vprof/vprof/runtime/model"
)

// The DIE walk by runs of units, on several cores at once.
//
// The records point at each other by DIE offset (subAt, varAt, types), and
// each run's records are in offset order, so the runs' records put one
// after the other in unit order are what one walk makes. What a walk
// numbers as it goes is made in unit order at the join: the indices of
// records (a variable's function, a Loc's variable, a variable's unit)
// are shifted by the records before the run; file names and
// expressions, which each run interns in its own tables, are interned
// again in the main loader in the order the run met them, the way one
// walk would have; the first unit's producer wins. A run cannot know
// what the units before it hold: where its walk depended on that (a
// unit's language taken from those before it, a file name met before
// with another directory, the name of a function defined in an earlier
// unit), the join finds it and walks that run and the rest again in one
// pass, as before. So the schema is the same for any number of cores;
// with GOMAXPROCS=1 it is the one walk.

// partInfo is what a run's loader keeps for the join.
type partInfo struct {
	start    dieOff // offset of the run's first DIE (with the loader's base)
	anyCPP   bool   // the units before the run hold C++ (its walk assumed so)
	interned []internCall
	inexact  bool // the walk looked for a record of an earlier unit
}

// internCall is the first intern of a name in a run, and its index in
// the run's own files.
type internCall struct {
	name, compDir string
	i             int32
}

// joinStats counts, over all loads, the runs joined and the walks taken
// again in one pass (for tests: both must keep the schema the same).
var joinStats struct{ merged, rewalked atomic.Int64 }

// runsPerWorker is the number of runs per worker. More runs than
// workers, taken largest first, would balance the workers better (units
// are of very different sizes, and the call-site scan shares the cores),
// but each run costs memory of its own until the join: with 4 per worker
// vprof schema's peak RSS on redis-server was 71-74 MB against 61-63
// before the split (gdb's 68); with 1, 62-64 MB.
const runsPerWorker = 1

// walk walks the DIEs of l.w into l's records: in runs of units on
// min(GOMAXPROCS, runs) workers, or in one pass.
func (l *loader) walk() error {
	units := l.w.dies.units
	runs := splitUnits(units, runtime.GOMAXPROCS(0))
	if len(runs) < 2 {
		_, err := l.walkUnits(0, len(units))
		return err
	}
	return l.walkRuns(runs, min(runtime.GOMAXPROCS(0), len(runs)))
}

// splitUnits cuts the units into contiguous runs of about equal size in
// .debug_info, runsPerWorker per worker, each starting on a unit with
// entries; nil for one worker or one unit.
func splitUnits(units []dieUnit, workers int) [][2]int {
	if workers < 2 {
		return nil
	}
	var total uint64
	n := 0
	for _, u := range units {
		if u.off < u.end {
			total += u.end - u.base
			n++
		}
	}
	want := min(n, runsPerWorker*workers)
	if want < 2 {
		return nil
	}
	target := total / uint64(want)
	var runs [][2]int
	start, size := 0, uint64(0)
	for i, u := range units {
		if i > start && u.off < u.end && size >= target {
			runs = append(runs, [2]int{start, i})
			start, size = i, 0
		}
		size += u.end - u.base
	}
	return append(runs, [2]int{start, len(units)})
}

// walkRuns walks the runs, the first into l and each other into a loader
// of its own, then joins them in order.
func (l *loader) walkRuns(runs [][2]int, workers int) error {
	units := l.w.dies.units
	cpp := l.cppBefore(runs)
	parts := make([]*loader, len(runs))
	stops := make([]int, len(runs))
	errs := make([]error, len(runs))
	// Largest first, so that no large run is left for the end.
	order := make([]int, len(runs))
	for i := range order {
		order[i] = i
	}
	size := func(i int) uint64 { return units[runs[i][1]-1].end - units[runs[i][0]].base }
	slices.SortStableFunc(order, func(a, b int) int {
		sa, sb := size(a), size(b)
		switch {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return 0
	})
	var next atomic.Int64
	var wg sync.WaitGroup
	// Read before any worker runs: the one that walks the first run sets
	// l's to its own.
	lNames, lQualified, lAltStrs := l.names, l.qualified, l.altStrs
	for w := range workers {
		// Each worker keeps its own tables of names (a walk's most
		// frequent look-up); the first takes over l's.
		names, qualified, altStrs := lNames, lQualified, lAltStrs
		if w > 0 {
			names, qualified, altStrs = map[string]string{}, map[[2]string]string{}, map[uint64]string{}
		}
		wg.Go(func() {
			for {
				k := int(next.Add(1) - 1)
				if k >= len(order) {
					return
				}
				i := order[k]
				p := l
				if i > 0 {
					p = l.newPart(runs[i][0], cpp[i])
				}
				p.names, p.qualified, p.altStrs = names, qualified, altStrs
				stops[i], errs[i] = p.walkUnits(runs[i][0], runs[i][1])
				parts[i] = p
			}
		})
	}
	wg.Wait()
	return l.join(runs, parts, stops, errs)
}

// newPart returns a loader for the run starting at unit a, sharing l's
// sections.
func (l *loader) newPart(a int, anyCPP bool) *loader {
	return &loader{
		s: &model.Schema{}, opt: l.opt, w: l.w, base: l.base,
		units: l.units, addrSec: l.addrSec,
		fileIdx: map[string]int32{},
		exprs:   map[string]int32{},
		anyCPP:  anyCPP,
		part:    &partInfo{start: l.base + dieOff(l.w.dies.units[a].off), anyCPP: anyCPP},
	}
}

// cppBefore tells for each run whether a unit before it is C++ (the
// language a partial unit without one takes): from each unit's own DIE,
// a guess that join checks.
func (l *loader) cppBefore(runs [][2]int) []bool {
	d := l.w.dies
	out := make([]bool, len(runs))
	any := l.anyCPP
	var e die
	k := 0
	for i, r := range runs {
		for ; k < r[0]; k++ {
			u := &d.units[k]
			if any || u.off >= u.end {
				continue
			}
			if _, err := d.decode(&e, u, u.off); err != nil || (e.tag != dwarf.TagCompileUnit && e.tag != dwarf.TagPartialUnit) {
				continue
			}
			if lang, ok := e.int(dwarf.AttrLanguage); ok && cppLang(lang) {
				any = true
			}
		}
		out[i] = any
	}
	return out
}

// join adds the runs' records to l's in unit order. The first run was
// walked into l; a run that did not stop cleanly at the next one's first
// unit, failed, or whose walk depended on the units before it, is walked
// again in one pass into l from its start to the end, the later runs
// dropped.
func (l *loader) join(runs [][2]int, parts []*loader, stops []int, errs []error) error {
	units := len(l.w.dies.units)
	for i, r := range runs {
		if i == 0 {
			// l itself, walked from the start as the one walk does.
			if errs[0] != nil || stops[0] == units {
				return errs[0]
			}
			continue
		}
		p := parts[i]
		parts[i] = nil
		if errs[i] != nil || stops[i] != r[1] || !l.merge(p) {
			joinStats.rewalked.Add(1)
			_, err := l.walkUnits(r[0], units)
			return err
		}
		joinStats.merged.Add(1)
	}
	return nil
}

// merge adds the records of run p after l's, or reports false, adding
// nothing but the files interned so far, where p's walk differs from what
// one walk would have done. (Those files are the ones the walk of p's
// units in l interns first, in the same order: walking them again in l
// gives one walk's files.)
func (l *loader) merge(p *loader) bool {
	if p.part.inexact || p.part.anyCPP != l.anyCPP {
		return false
	}
	// Files: each name's first intern in p, again in l, in p's order. One
	// walk gives each of p's files one file of l, and p's walk compared
	// them by index (the line rows) and took their base names (the names
	// of lambdas): the map must be one to one and keep base names.
	files := make([]int32, len(p.s.Files))
	for i := range files {
		files[i] = -1
	}
	owner := make(map[int32]int32, len(p.s.Files))
	for _, c := range p.part.interned {
		g := l.intern(c.name, c.compDir)
		if f := files[c.i]; f >= 0 {
			if f != g {
				return false
			}
			continue
		}
		if _, dup := owner[g]; dup {
			return false
		}
		if filepath.Base(p.s.Files[c.i]) != filepath.Base(l.s.Files[g]) {
			return false
		}
		files[c.i], owner[g] = g, c.i
	}
	if slices.Contains(files, -1) {
		return false
	}
	file := func(f int32) int32 {
		if f >= 0 {
			return files[f]
		}
		return f
	}
	// Expressions: interned by content, in the order p met them.
	exprs := make([]int32, len(p.exprList))
	for i, b := range p.exprList {
		exprs[i] = l.expr(b)
	}

	nSub, nInl, nVar, nCU := int32(l.subs.len()), int32(l.inls.len()), int32(l.vars.len()), int32(len(l.cus))
	for _, ch := range p.subs.chunks {
		for j := range ch {
			ch[j].file = file(ch[j].file)
		}
	}
	l.subs.takeAll(&p.subs)
	for _, ch := range p.inls.chunks {
		for j := range ch {
			ch[j].callFile = file(ch[j].callFile)
		}
	}
	l.inls.takeAll(&p.inls)
	for _, ch := range p.vars.chunks {
		for j := range ch {
			v := &ch[j]
			v.file = file(v.file)
			v.cu += nCU
			switch c := v.container; {
			case c >= 0:
				v.container = c + nSub
			case c != noContainer:
				v.container = c - nInl // -(index)-1
			}
		}
	}
	l.vars.takeAll(&p.vars)
	l.types.takeAll(&p.types)
	for _, ch := range p.locs.chunks {
		for j := range ch {
			ch[j].v += nVar
			ch[j].expr = exprs[ch[j].expr]
		}
	}
	l.locs.takeAll(&p.locs)
	for _, ch := range p.rows.chunks {
		for j := range ch {
			ch[j].File = file(ch[j].File)
		}
	}
	l.rows.takeAll(&p.rows)
	for _, ps := range p.pending {
		ps.loc.v += nVar
		ps.loc.expr = exprs[ps.loc.expr]
		l.pending = append(l.pending, ps)
	}
	for _, ci := range p.cus {
		for j, f := range ci.fileMap {
			ci.fileMap[j] = file(f)
		}
		l.cus = append(l.cus, ci)
	}
	l.maxVersion = max(l.maxVersion, p.maxVersion)
	l.anyCPP = p.anyCPP
	if l.s.Producer == "" {
		l.s.Producer = p.s.Producer
	}
	return true
}
