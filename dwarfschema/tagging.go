package dwarfschema

import (
	"cmp"
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vprof/vprof/dwarfschema/cfg"
	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/symname"
)

// GNU DWARF 4 extensions for call sites (gcc before DWARF 5).
const (
	tagCallSiteGNU       dwarf.Tag  = 0x4109
	tagCallSiteParamGNU  dwarf.Tag  = 0x410a
	attrCallSiteValueGNU dwarf.Attr = 0x2111
)

// tagStats says how the tag pass went (for tests and benchmarks).
type tagStats struct {
	Funcs      int // functions with code analysed
	Skipped    int // functions whose code is not in a mapped section
	BadBytes   int // undecodable bytes over all functions
	Unresolved int // indirect jumps whose targets could not be found
	CallSites  int // DWARF call-site records read
	// Time spent: reading call sites, and the whole pass.
	CallSiteTime, Time time.Duration
}

// lastTagStats holds the figures of the latest inferTags run.
var lastTagStats atomic.Pointer[tagStats]

// inferTagsWith sets Var.Tags of s from the binary alone (method.md §2):
// the control-flow graph of each function, back edges, compares feeding
// conditional jumps, argument set-up before calls and DWARF call-site
// parameters, the last read by ci (startCallInfo). It also fills
// Func.Blocks. Called by Load once Funcs, Vars and Locs are complete;
// locals without a tag are dropped by Load afterwards.
//
// A function whose code cannot be read is skipped (counted), not an error.
// callInfoResult is callInfo's, computed in the background (startCallInfo).
type callInfoResult struct {
	done  chan struct{}
	calls []cfg.CallSite
	sigs  *cfg.Signatures
	sites []model.CallSite
	tails []model.CallEdge
	err   error
	time  time.Duration
}

// startCallInfo starts reading the call sites of d. It needs only the DWARF
// and the symbols, so Load starts it before its own walk of the DIEs and
// the two run at once (for binutils' gold, 4 s of CPU each).
func startCallInfo(d *dieData, syms []model.Symbol) *callInfoResult {
	r := &callInfoResult{done: make(chan struct{})}
	t0 := time.Now()
	go func() {
		defer close(r.done)
		r.calls, r.sigs, r.sites, r.tails, r.err = callInfo(d, syms)
		r.time = time.Since(t0)
	}()
	return r
}

// gl, if not nil, gets each function's reads of globals from its graph
// (globalSet.graphReads), for narrowGlobals.
func inferTagsWith(s *model.Schema, ef *elf.File, ci *callInfoResult, gl *globalSet, extras []extraField) (stored, read []bool, xtags []cfg.Tags, walks []funcWalk, err error) {
	t0 := time.Now()
	st := &tagStats{}
	defer func() {
		st.Time = time.Since(t0)
		lastTagStats.Store(st)
	}()
	img, err := imageOf(ef)
	if err != nil {
		<-ci.done
		return nil, nil, nil, nil, err
	}
	<-ci.done
	if ci.err != nil {
		return nil, nil, nil, nil, ci.err
	}
	calls, sigs, sites := ci.calls, ci.sigs, ci.sites
	s.CallSites = sites
	s.TailCalls, s.TailCallsRead = ci.tails, true
	st.CallSites = len(calls)
	st.CallSiteTime = ci.time

	// Index every function range, then sort the locations by function.
	type frange struct {
		lo, hi uint64
		f      int32
	}
	var fr []frange
	for i := range s.Funcs {
		for _, r := range s.Funcs[i].Ranges {
			if r.Hi > r.Lo {
				fr = append(fr, frange{r.Lo, r.Hi, int32(i)})
			}
		}
	}
	sort.Slice(fr, func(i, j int) bool { return fr[i].lo < fr[j].lo })
	funcAt := func(pc uint64) int32 {
		i := sort.Search(len(fr), func(i int) bool { return fr[i].lo > pc }) - 1
		if i >= 0 && pc < fr[i].hi {
			return fr[i].f
		}
		return -1
	}
	// Which function each location belongs to; globals and statics (fixed
	// addresses) apart. Converting a function's locations is left to the
	// worker that analyses it.
	var globals []cfg.VarLoc
	owner := make([]int32, len(s.Locs))
	for i := range s.Locs {
		l := &s.Locs[i]
		owner[i] = -1
		switch l.Kind {
		case model.LocAddr:
			globals = append(globals, cfg.VarLoc{Var: l.Var, Kind: cfg.AtAddr, Off: int64(l.Addr), Size: locSize(s, l)})
		case model.LocReg, model.LocFrame, model.LocRegOff, model.LocExpr:
			owner[i] = funcAt(l.PCStart)
		}
	}
	// Group location indices by function (a counting sort keeps each
	// function's locations in order).
	start := make([]int32, len(s.Funcs)+1)
	for _, f := range owner {
		if f >= 0 {
			start[f+1]++
		}
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	byFunc := make([]int32, start[len(s.Funcs)])
	fill := append([]int32(nil), start[:len(s.Funcs)]...)
	for i, f := range owner {
		if f >= 0 {
			byFunc[fill[f]] = int32(i)
			fill[f]++
		}
	}
	cgl := cfg.NewGlobals(globals)
	var fields *cfg.Fields
	nf := 0
	for i := range s.Vars {
		if f := s.Vars[i].Field; f != nil && f.Deref {
			nf++
		}
	}
	if nf > 0 {
		// A list, in the Vars' order (the last of equal keys counts), not
		// a map: building a map of redis-server's 50,000 fields behind
		// pointers was a sixth of this function's own time.
		list := make([]cfg.FieldVar, 0, nf+len(extras))
		// The candidates past the budget, by virtual VarIDs (D130), first:
		// a field variable of the same key, later in the list, counts; of
		// two candidates of one key the first counts, so they go in reverse.
		for k := len(extras) - 1; k >= 0; k-- {
			e := extras[k]
			list = append(list, cfg.FieldVar{Key: cfg.FieldKey{Ptr: int32(e.ptr), Off: e.def.off}, Var: int32(len(s.Vars) + k)})
			if e.def.elem > 0 {
				list = append(list, cfg.FieldVar{Key: cfg.FieldKey{Ptr: int32(e.ptr), Off: e.def.off + 8}, Var: int32(len(s.Vars) + k)})
			}
		}
		for i := range s.Vars {
			if f := s.Vars[i].Field; f != nil && f.Deref {
				list = append(list, cfg.FieldVar{Key: cfg.FieldKey{Ptr: f.Of, Off: f.Offset}, Var: int32(i)})
				if f.Elem > 0 {
					// A vector's length is read where its begin or its
					// end is: empty() and size() read both, push_back
					// and erase the end only (D266).
					list = append(list, cfg.FieldVar{Key: cfg.FieldKey{Ptr: f.Of, Off: f.Offset + 8}, Var: int32(i)})
				}
			}
		}
		fields = cfg.NewFieldList(list)
	}

	// Analyse functions in parallel; each worker keeps its own builder,
	// analyzer and results, merged at the end (tags only ever gain bits).
	workers := min(runtime.GOMAXPROCS(0), 8, max(1, len(s.Funcs)/64))
	type result struct {
		tags                            []cfg.VarTags
		walks                           []funcWalk
		funcs, skipped, bad, unresolved int
	}
	results := make([]result, workers)
	if gl != nil && len(gl.gs) > 0 {
		gl.scanned = make([]bool, len(s.Funcs))
		gl.reads = make([][]globalRead, len(s.Funcs))
	} else {
		gl = nil
	}
	inl := newInlineIndex(s)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func(res *result) {
			defer wg.Done()
			var b cfg.Builder
			a := cfg.NewAnalyzer()
			var ranges []cfg.Range
			var locs []cfg.VarLoc
			var plocs []cfg.PtrLoc
			var reads []globalRead
			var rbuf []decoded
			in := cfg.Input{Calls: calls, Globals: cgl, Sigs: sigs, Fields: fields, Reads: true}
			for {
				f := int(next.Add(1) - 1)
				if f >= len(s.Funcs) {
					return
				}
				fn := &s.Funcs[f]
				if len(fn.Ranges) == 0 {
					continue
				}
				// A PLT stub (plt.go) is one jump through the GOT: no
				// variables, a jump no graph resolves, one block.
				if symname.IsPLT(fn.Name) {
					fn.Blocks = []uint64{fn.Ranges[0].Lo}
					continue
				}
				ranges = ranges[:0]
				for _, r := range fn.Ranges {
					ranges = append(ranges, cfg.Range{Lo: r.Lo, Hi: r.Hi})
				}
				g, err := b.Build(img, ranges)
				if err != nil {
					res.skipped++
					continue
				}
				res.funcs++
				res.bad += g.BadBytes
				res.unresolved += g.Unresolved
				blocks := make([]uint64, len(g.Blocks))
				for i := range g.Blocks {
					blocks[i] = g.Blocks[i].Start
				}
				fn.Blocks = blocks
				if gl != nil {
					var ok bool
					if reads, ok = gl.graphReads(reads[:0], g, fn.Ranges, &rbuf); ok {
						gl.reads[f] = slices.Clip(slices.Clone(reads))
						gl.scanned[f] = true
					}
				}
				locs = varLocs(locs[:0], s, byFunc[start[f]:start[f+1]])
				in.Locs = locs
				plocs = ptrLocs(plocs[:0], s, fields, byFunc[start[f]:start[f+1]])
				in.PtrLocs = plocs
				in.FrameBase = cfg.FrameBase(fn.FrameBase)
				res.tags = append(res.tags, a.Analyze(g, &in)...)
				for _, w := range a.Walks() {
					if fw, ok := ownWalk(s, inl, int32(f), w); ok {
						res.walks = append(res.walks, fw)
					}
				}
			}
		}(&results[w])
	}
	wg.Wait()
	tags := make([][]cfg.VarTags, len(results))
	for i, r := range results {
		st.Funcs += r.funcs
		st.Skipped += r.skipped
		st.BadBytes += r.bad
		st.Unresolved += r.unresolved
		tags[i] = r.tags
		walks = append(walks, r.walks...)
	}
	stored, read, xtags = joinTags(s, tags, len(extras))
	return stored, read, xtags, walks, nil
}

// joinTags adds the tagger's results (each worker's list) to s.Vars and
// returns which variables the functions' own code stores into (nil if
// none). It joins in two passes, so that the tags do not depend on which
// worker analysed which function: a variable whose locations lie in
// several functions (inlined copies) can be a counter in one and read by
// a condition in another, and a counter is a loop's count if a condition
// reads the variable in any of them (countsIterations reads the TagCond
// that all of them have given by then). In one pass the result depended
// on the order the lists were joined in.
func joinTags(s *model.Schema, tags [][]cfg.VarTags, nextra int) (stored, read []bool, xtags []cfg.Tags) {
	for _, ts := range tags {
		for _, t := range ts {
			if x := int(t.Var) - len(s.Vars); x >= 0 && x < nextra {
				if xtags == nil {
					xtags = make([]cfg.Tags, nextra)
				}
				xtags[x] |= t.Tags
				continue
			}
			if int(t.Var) < len(s.Vars) {
				s.Vars[t.Var].Tags |= model.Tags(t.Tags &^ (cfg.TagStored | cfg.TagCounter | cfg.TagRead))
				if t.Tags&cfg.TagRead != 0 && s.Vars[t.Var].Field != nil {
					if read == nil {
						read = make([]bool, len(s.Vars))
					}
					read[t.Var] = true
				}
				if t.Tags&cfg.TagStored != 0 {
					if stored == nil {
						stored = make([]bool, len(s.Vars))
					}
					stored[t.Var] = true
				}
			}
		}
	}
	for _, ts := range tags {
		for _, t := range ts {
			if int(t.Var) < len(s.Vars) && t.Tags&cfg.TagCounter != 0 && countsIterations(&s.Vars[t.Var]) {
				s.Vars[t.Var].Tags |= model.TagLoop
			}
		}
	}
	return stored, read, xtags
}

func locSize(s *model.Schema, l *model.Loc) int32 {
	if l.Size == 0 && int(l.Var) < len(s.Vars) {
		return s.Vars[l.Var].Size
	}
	return l.Size
}

// varLocs appends the dataflow's view of the locations s.Locs[idx...].
func varLocs(dst []cfg.VarLoc, s *model.Schema, idx []int32) []cfg.VarLoc {
	var buf [8]cfg.ExprRef
	for _, i := range idx {
		l := &s.Locs[i]
		vl := cfg.VarLoc{Var: l.Var, Lo: l.PCStart, Hi: l.PCEnd, Size: locSize(s, l)}
		switch l.Kind {
		case model.LocReg:
			vl.Kind, vl.Reg = cfg.InReg, l.Reg
			dst = append(dst, vl)
		case model.LocFrame:
			vl.Kind, vl.Off = cfg.InFrameSlot, l.Offset
			dst = append(dst, vl)
		case model.LocRegOff:
			vl.Kind, vl.Reg, vl.Off = cfg.InRegSlot, l.Reg, l.Offset
			dst = append(dst, vl)
		case model.LocExpr:
			for _, r := range cfg.ExprRefs(buf[:0], l.Expr) {
				if r.Kind != cfg.InEntryValue {
					vl.Kind, vl.Reg, vl.Off = r.Kind, r.Reg, r.Off
					dst = append(dst, vl)
				}
			}
		}
	}
	return dst
}

// ptrLocs appends the locations s.Locs[idx...] of the pointers that have
// fields, as expressions (cfg.PtrLoc).
func ptrLocs(dst []cfg.PtrLoc, s *model.Schema, fields *cfg.Fields, idx []int32) []cfg.PtrLoc {
	if fields == nil {
		return dst
	}
	for _, i := range idx {
		l := &s.Locs[i]
		if len(l.Expr) > 0 && l.PCEnd > l.PCStart && fields.HasFields(int32(l.Var)) {
			dst = append(dst, cfg.PtrLoc{Var: int32(l.Var), Lo: l.PCStart, Hi: l.PCEnd, Expr: l.Expr})
		}
	}
	return dst
}

// imageOf maps the allocated sections of ef: code to decode and read-only
// data holding jump tables.
func imageOf(ef *elf.File) (*cfg.Image, error) {
	img := &cfg.Image{}
	for _, sec := range ef.Sections {
		if sec.Flags&elf.SHF_ALLOC == 0 || sec.Type == elf.SHT_NOBITS || sec.Size == 0 {
			continue
		}
		// Only code and read-only data: writable data cannot hold a jump
		// table and need not be read.
		if sec.Flags&elf.SHF_WRITE != 0 {
			continue
		}
		b, err := sectionData(sec)
		if err != nil {
			return nil, fmt.Errorf("reading section %s: %w", sec.Name, err)
		}
		img.Add(sec.Addr, b)
	}
	return img, nil
}

type csSub struct {
	origin   dwarf.Offset
	params   []dwarf.Offset
	variadic bool
	proto    bool
	entry    uint64
	hasEntry bool
}

type csParam struct{ typ, origin dwarf.Offset }

type csType struct {
	tag  dwarf.Tag
	next dwarf.Offset
	enc  int64
	size int64
}

// offTable holds records by DIE offset, added in increasing offset order
// (the order of the walk), so that a lookup is a binary search. (Maps of
// every subprogram, parameter and type DIE were a sixth of Load's CPU
// time and a hundred megabytes for binutils' gold.) Both lists are
// chunked: growing them by doubling copied every record once or twice
// into fresh memory, and merging the workers' tables copied them all
// again (on redis-server, with the call-site records, a fifth of `vprof
// schema`'s page faults, each some 10 us on a virtual machine; the
// workers' chunks are now adopted, not copied).
type offTable[T any] struct {
	offs chunked[dwarf.Offset]
	vals chunked[T]
}

func (t *offTable[T]) add(off dwarf.Offset, v T) {
	t.offs.add(off)
	t.vals.add(v)
}

func (t *offTable[T]) len() int { return t.offs.len() }

// off returns the offset of record i.
func (t *offTable[T]) off(i int) dwarf.Offset { return *t.offs.at(i) }

// at returns record i.
func (t *offTable[T]) at(i int) *T { return t.vals.at(i) }

// index returns the position of off, or -1. Every chunk but the last is
// full (chunked's invariant), so the chunk is found by its first offset.
func (t *offTable[T]) index(off dwarf.Offset) int {
	cs := t.offs.chunks
	k := sort.Search(len(cs), func(k int) bool { return cs[k][0] > off }) - 1
	if k < 0 {
		return -1
	}
	i, ok := slices.BinarySearch(cs[k], off)
	if !ok {
		return -1
	}
	return k<<chunkBits + i
}

// get returns the record of off, or the zero T.
func (t *offTable[T]) get(off dwarf.Offset) T {
	if i := t.index(off); i >= 0 {
		return *t.vals.at(i)
	}
	var zero T
	return zero
}

// merge appends o, whose offsets follow t's, leaving o empty.
func (t *offTable[T]) merge(o *offTable[T]) {
	t.offs.takeAll(&o.offs)
	t.vals.takeAll(&o.vals)
}

// sort sorts by offset, for a walk that went back (damaged DWARF).
func (t *offTable[T]) sort() {
	offs := t.offs.slice()
	if slices.IsSorted(offs) {
		return
	}
	vals := t.vals.slice()
	idx := make([]int, len(offs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(offs[a], offs[b]) })
	*t = offTable[T]{}
	for _, i := range idx {
		t.add(offs[i], vals[i])
	}
}

// callScan is what scanCalls collects from a run of units.
type callScan struct {
	calls   []cfg.CallSite
	origins []dwarf.Offset // per call: DW_AT_call_origin
	subs    offTable[csSub]
	params  offTable[csParam]
	types   offTable[csType]

	// sites are the calls' register parameters as raw expressions, for
	// Schema.CallSites (callsites.go); siteCall is the index in calls of
	// the last one.
	sites    []model.CallSite
	siteCall int

	// edges are the direct calls, for Schema.TailCalls (callsites.go).
	edges []rawEdge

	// The calls' parameters and their expressions' references are cut
	// from blocks (a call's parameters are read together), not
	// allocated one small slice at a time: three allocations per
	// parameter were a fifth of Load's allocations on redis-server.
	callParams []cfg.CallParam
	paramCall  int               // the call whose parameters end callParams, -1: none
	siteParams []model.CallParam // the same for sites' parameters
	refs       []cfg.ExprRef
	// The subprograms' parameters likewise (13,000 allocations per
	// load of redis-server, one slice grown per function).
	subParams []dwarf.Offset
	paramSub  int // the subprogram whose parameters end subParams, -1: none
}

// paramBlock and refBlock are the sizes of the blocks of
// callScan.callParams and callScan.refs.
const paramBlock, refBlock = 1024, 4096

// addParam appends p to the parameters of call i.
func (c *callScan) addParam(i int, p cfg.CallParam) {
	cs := &c.calls[i]
	cs.Params = blockAppend(&c.callParams, cs.Params, c.paramCall == i, p)
	c.paramCall = i
}

// blockAppend returns list with x appended, cut from the block *blk (a
// new one when it is full): list ends *blk where last says so, else it
// is copied to its end first.
func blockAppend[T any](blk *[]T, list []T, last bool, x T) []T {
	n := len(list)
	if !last || len(*blk) == cap(*blk) {
		if len(*blk)+n+1 > cap(*blk) {
			*blk = make([]T, 0, max(paramBlock, 2*(n+1)))
		}
		*blk = append(*blk, list...)
	}
	*blk = append(*blk, x)
	k := len(*blk)
	return (*blk)[k-n-1 : k : k]
}

// exprRefs returns the references of expr (cfg.ExprRefs), in c.refs.
func (c *callScan) exprRefs(expr []byte) []cfg.ExprRef {
	if cap(c.refs)-len(c.refs) < 64 {
		c.refs = make([]cfg.ExprRef, 0, refBlock)
	}
	start := len(c.refs)
	c.refs = cfg.ExprRefs(c.refs, expr)
	if len(c.refs) == start {
		return nil
	}
	return c.refs[start:len(c.refs):len(c.refs)]
}

func newCallScan() *callScan {
	return &callScan{siteCall: -1, paramCall: -1, paramSub: -1}
}

func (c *callScan) merge(o *callScan) {
	c.calls = append(c.calls, o.calls...)
	c.origins = append(c.origins, o.origins...)
	c.sites = append(c.sites, o.sites...)
	c.edges = append(c.edges, o.edges...)
	c.subs.merge(&o.subs)
	c.params.merge(&o.params)
	c.types.merge(&o.types)
}

// scanCalls reads the entries from offset from up to offset stop.
func scanCalls(d *dieData, syms []model.Symbol, from, stop uint64) (*callScan, error) {
	c := newCallScan()
	var (
		stack     []int // enclosing subprogram per depth, index in c.subs (-1: other DIE)
		siteDepth = -1
		cur       = -1 // index of the call site whose parameters follow
	)
	r := d.reader(from, stop)
	var rs [][2]uint64
	cUnit := false // the unit is C: its types' children are members and enumerators
	for {
		e, err := r.next()
		if err != nil {
			return nil, fmt.Errorf("reading call sites: %w", err)
		}
		if e == nil {
			break
		}
		if e.tag == 0 {
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			if len(stack) <= siteDepth {
				siteDepth, cur = -1, -1
			}
			continue
		}
		parent := -1
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		self := -1
		switch e.tag {
		case dwarf.TagCompileUnit, dwarf.TagPartialUnit:
			lang, ok := e.int(dwarf.AttrLanguage)
			cUnit = ok && cLang(lang)
		case dwarf.TagSubroutineType:
			// A function type's parameters belong to no subprogram
			// (c.params is looked up by a subprogram's parameters and
			// their abstract origins): skipped.
			if !scanEveryEntry {
				r.skipChildren()
				continue
			}
		case dwarf.TagSubprogram:
			si := csSub{}
			si.origin, _ = e.offset(dwarf.AttrAbstractOrigin)
			if si.origin == 0 {
				si.origin, _ = e.offset(dwarf.AttrSpecification)
			}
			si.proto = e.flag(dwarf.AttrPrototyped)
			if pc, ok := e.uint64(dwarf.AttrLowpc); ok {
				si.entry, si.hasEntry = pc, true
			} else if e.has(dwarf.AttrRanges) {
				// Hot and cold parts: the entry is the part that has the
				// function's own symbol.
				var err error
				if rs, err = d.rangesOf(e, rs[:0]); err == nil {
					for _, rg := range rs {
						if name, ok := symbolAt(syms, rg[0]); ok && !isClone(name) {
							si.entry, si.hasEntry = rg[0], true
							break
						}
					}
				}
			}
			self = c.subs.len()
			c.subs.add(e.off, si)
		case dwarf.TagFormalParameter:
			t, _ := e.offset(dwarf.AttrType)
			o, _ := e.offset(dwarf.AttrAbstractOrigin)
			c.params.add(e.off, csParam{t, o})
			if parent >= 0 {
				p := c.subs.at(parent)
				p.params = blockAppend(&c.subParams, p.params, c.paramSub == parent, e.off)
				c.paramSub = parent
			}
		case dwarf.TagUnspecifiedParameters:
			if parent >= 0 {
				c.subs.at(parent).variadic = true
			}
		case dwarf.TagCallSite, tagCallSiteGNU:
			pc, ok := e.uint64(dwarf.AttrCallReturnPC)
			if !ok {
				pc, ok = e.uint64(dwarf.AttrLowpc)
			}
			o, _ := e.offset(dwarf.AttrCallOrigin)
			if o == 0 {
				o, _ = e.offset(dwarf.AttrAbstractOrigin)
			}
			cur = -1
			if ok {
				c.calls = append(c.calls, cfg.CallSite{ReturnPC: pc})
				c.origins = append(c.origins, o)
				cur = len(c.calls) - 1
			}
			c.addEdge(e, pc, ok, o, stack)
			if e.children {
				siteDepth = len(stack)
			}
		case dwarf.TagCallSiteParameter, tagCallSiteParamGNU:
			if cur >= 0 && len(stack) == siteDepth+1 {
				var p cfg.CallParam
				loc, _ := e.bytes(dwarf.AttrLocation)
				p.Loc = c.exprRefs(loc)
				b, ok := e.bytes(dwarf.AttrCallValue)
				if !ok {
					b, _ = e.bytes(attrCallSiteValueGNU)
				}
				p.Value = c.exprRefs(b)
				if len(p.Loc)+len(p.Value) > 0 {
					c.addParam(cur, p)
				}
				c.addCallParam(cur, c.calls[cur].ReturnPC, loc, b)
			}
		case dwarf.TagBaseType, dwarf.TagTypedef, dwarf.TagConstType, dwarf.TagVolatileType,
			dwarf.TagRestrictType, dwarf.TagAtomicType, dwarf.TagPointerType, dwarf.TagReferenceType,
			dwarf.TagRvalueReferenceType, dwarf.TagPtrToMemberType, dwarf.TagEnumerationType,
			dwarf.TagStructType, dwarf.TagUnionType, dwarf.TagClassType, dwarf.TagArrayType:
			t := csType{tag: e.tag}
			t.next, _ = e.offset(dwarf.AttrType)
			t.enc, _ = e.int(dwarf.AttrEncoding)
			t.size, _ = e.int(dwarf.AttrByteSize)
			c.types.add(e.off, t)
			if cUnit && e.tag != dwarf.TagArrayType && !scanEveryEntry {
				// In C a struct's or union's children are its members
				// (gcc defines nested types at file scope; clang nests
				// only anonymous ones, which no parameter names) and an
				// enumeration's its enumerators: nothing the scan reads,
				// and 44% of nginx's entries. Skipped, by DW_AT_sibling
				// where there is one.
				r.skipChildren()
				continue
			}
		}
		if e.children {
			stack = append(stack, self)
		}
	}
	return c, nil
}

// callInfo reads what DWARF says about calls: the call-site records
// (DW_TAG_call_site, or DW_TAG_GNU_call_site in DWARF 4) with their
// parameters, sorted by return address, and the signature of every
// function (by entry address, for direct calls) and of every callee a
// record names (DW_AT_call_origin). Symbols (sorted by Value) tell gcc's
// clones, whose signatures differ from their source function's.
//
// The third result is the calls' register parameters as Schema.CallSites,
// the fourth Schema.TailCalls. The units are independent: contiguous runs
// of them are scanned in parallel.
func callInfo(d *dieData, syms []model.Symbol) ([]cfg.CallSite, *cfg.Signatures, []model.CallSite, []model.CallEdge, error) {
	units := make([]uint64, len(d.units))
	for i := range d.units {
		units[i] = d.units[i].off
	}
	nw := min(runtime.GOMAXPROCS(0), 8, max(1, len(units)))
	scans := make([]*callScan, nw)
	errs := make([]error, nw)
	var wg sync.WaitGroup
	for w := range nw {
		lo, hi := w*len(units)/nw, (w+1)*len(units)/nw
		if lo == hi {
			scans[w] = newCallScan()
			continue
		}
		stop := uint64(math.MaxUint64)
		if hi < len(units) {
			stop = units[hi]
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			scans[w], errs[w] = scanCalls(d, syms, units[lo], stop)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, nil, nil, err
		}
	}
	all := scans[0]
	// The flat lists grow once, to their total (append would double
	// them, copying into fresh memory once more).
	var nCalls, nSites, nEdges int
	for _, sc := range scans[1:] {
		nCalls += len(sc.calls)
		nSites += len(sc.sites)
		nEdges += len(sc.edges)
	}
	all.calls = slices.Grow(all.calls, nCalls)
	all.origins = slices.Grow(all.origins, nCalls)
	all.sites = slices.Grow(all.sites, nSites)
	all.edges = slices.Grow(all.edges, nEdges)
	for _, sc := range scans[1:] {
		all.merge(sc)
	}
	all.subs.sort()
	all.params.sort()
	all.types.sort()
	subs, params, types := &all.subs, &all.params, &all.types
	calls, origins := all.calls, all.origins

	classMemo := map[dwarf.Offset]cfg.ArgClass{}
	classOf := func(t dwarf.Offset) cfg.ArgClass {
		if c, ok := classMemo[t]; ok {
			return c
		}
		c := cfg.ArgInt // unknown types: the common case
		for hop, x := 0, t; hop < 16; hop++ {
			k := types.index(x)
			if k < 0 {
				break
			}
			tr := types.at(k)
			switch tr.tag {
			case dwarf.TagTypedef, dwarf.TagConstType, dwarf.TagVolatileType, dwarf.TagRestrictType, dwarf.TagAtomicType:
				x = tr.next
				continue
			case dwarf.TagBaseType:
				const ateFloat, ateComplexFloat = 0x4, 0x3
				switch {
				case (tr.enc == ateFloat || tr.enc == ateComplexFloat) && tr.size <= 8:
					c = cfg.ArgFloat
				case tr.enc == ateFloat || tr.enc == ateComplexFloat:
					c = cfg.ArgMemory // long double, complex double: x87 or memory
				case tr.size > 8:
					c = cfg.ArgInt2 // __int128
				}
			case dwarf.TagStructType, dwarf.TagUnionType, dwarf.TagClassType, dwarf.TagArrayType:
				switch {
				case tr.size > 16:
					c = cfg.ArgMemory
				case tr.size > 8:
					c = cfg.ArgInt2
				}
			}
			break
		}
		classMemo[t] = c
		return c
	}
	sigMemo := map[dwarf.Offset]*cfg.Signature{}
	var sigBlk []cfg.Signature
	var argBlk []cfg.ArgClass
	var sigOf func(off dwarf.Offset, depth int) *cfg.Signature
	sigOf = func(off dwarf.Offset, depth int) *cfg.Signature {
		if sig, ok := sigMemo[off]; ok {
			return sig
		}
		k := subs.index(off)
		if k < 0 || depth > 4 {
			return nil
		}
		si := subs.at(k)
		var sig *cfg.Signature
		switch {
		case len(si.params) == 0 && !si.variadic && si.origin != 0:
			sig = sigOf(si.origin, depth+1)
		case len(si.params) == 0 && !si.variadic && !si.proto:
			// f() in C says nothing of the parameters (nor does a C++
			// function without any, which gcc does not mark prototyped).
		default:
			// The signatures and their parameters are cut from blocks,
			// not allocated one by one (16,000 allocations per load of
			// redis-server).
			if len(sigBlk) == cap(sigBlk) {
				sigBlk = make([]cfg.Signature, 0, 256)
			}
			sigBlk = append(sigBlk, cfg.Signature{Variadic: si.variadic})
			sig = &sigBlk[len(sigBlk)-1]
			if n := len(si.params); n > 0 {
				if cap(argBlk)-len(argBlk) < n {
					argBlk = make([]cfg.ArgClass, 0, max(1024, n))
				}
				start := len(argBlk)
				for _, p := range si.params {
					pr := params.get(p)
					t := pr.typ
					for hop := 0; t == 0 && pr.origin != 0 && hop < 4; hop++ {
						pr = params.get(pr.origin)
						t = pr.typ
					}
					argBlk = append(argBlk, classOf(t))
				}
				sig.Params = argBlk[start:len(argBlk):len(argBlk)]
			}
		}
		sigMemo[off] = sig
		return sig
	}
	sigs := &cfg.Signatures{}
	for k := range subs.len() {
		off, si := subs.off(k), subs.at(k)
		if !si.hasEntry {
			continue
		}
		if name, ok := symbolAt(syms, si.entry); ok && isClone(name) {
			sigs.Add(si.entry, nil)
		} else if sig := sigOf(off, 0); sig != nil {
			sigs.Add(si.entry, sig)
		}
	}
	sigs.Sort()
	for i := range calls {
		if origins[i] != 0 {
			calls[i].Callee = sigOf(origins[i], 0)
		}
	}
	// Stable by ReturnPC, through an index (stableOrder).
	order := stableOrder(len(calls), func(i int32) uint64 { return calls[i].ReturnPC })
	sorted := make([]cfg.CallSite, len(calls))
	for n, i := range order {
		sorted[n] = calls[i]
	}
	calls = sorted
	return calls, sigs, finishCallSites(all.sites), tailCalls(d, syms, subs, all.edges), nil
}

// symbolAt returns the name of a function symbol at exactly addr.
func symbolAt(syms []model.Symbol, addr uint64) (string, bool) {
	i := sort.Search(len(syms), func(i int) bool { return syms[i].Value >= addr })
	for ; i < len(syms) && syms[i].Value == addr; i++ {
		if isClone(syms[i].Name) {
			return syms[i].Name, true
		}
		if i+1 == len(syms) || syms[i+1].Value != addr {
			return syms[i].Name, true
		}
	}
	return "", false
}

// isClone reports gcc's names for clones and split parts of a function
// (foo.constprop.0, foo.isra.0, foo.part.0, foo.cold: see
// symname.StripClone), whose calling convention may differ from the
// source function's. Any dotted name counts: the other compiler-made
// symbols (__x86.get_pc_thunk.bx) have no source signature either.
func isClone(name string) bool {
	return strings.Contains(name, ".")
}

// countsIterations reports whether a counter of a loop whose bound lives
// in memory (cfg.TagCounter) stands for the loop's dimension (D96): an
// integer local or parameter of the function, read by a condition. A
// field, a global or a pointer updated in such a loop is state the loop
// changes, not a count of its iterations.
func countsIterations(v *model.Var) bool {
	return v.Field == nil && v.Func != model.NoFunc && !v.Static &&
		(v.Kind == model.KindInt || v.Kind == model.KindUint) &&
		v.Tags&model.TagCond != 0
}
