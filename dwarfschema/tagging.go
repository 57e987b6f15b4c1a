package dwarfschema

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vprof/vprof/dwarfschema/cfg"
)

// GNU DWARF 4 extensions for call sites (gcc before DWARF 5).
const (
	tagCallSiteGNU       dwarf.Tag  = 0x4109
	tagCallSiteParamGNU  dwarf.Tag  = 0x410a
	attrCallSiteValueGNU dwarf.Attr = 0x2111
)

// TagStats says how the tag pass went (for tests and `vprof schema`
// diagnostics).
type TagStats struct {
	Funcs      int // functions with code analysed
	Skipped    int // functions whose code is not in a mapped section
	BadBytes   int // undecodable bytes over all functions
	Unresolved int // indirect jumps whose targets could not be found
	CallSites  int // DWARF call-site records read
	// Time spent: reading call sites, and the whole pass.
	CallSiteTime, Time time.Duration
}

// lastTagStats holds the figures of the latest inferTags run.
var lastTagStats atomic.Pointer[TagStats]

// inferTags sets Var.Tags of s from the binary alone (method.md §2): the
// control-flow graph of each function, back edges, compares feeding
// conditional jumps, argument set-up before calls and DWARF call-site
// parameters. It also fills Func.Blocks. Called by Load once Funcs, Vars and
// Locs are complete; locals without a tag are dropped by Load afterwards.
//
// A function whose code cannot be read is skipped (counted), not an error.
func inferTags(s *Schema, ef *elf.File, d *dwarf.Data) error {
	t0 := time.Now()
	st := &TagStats{}
	defer func() {
		st.Time = time.Since(t0)
		lastTagStats.Store(st)
	}()
	img, err := imageOf(ef)
	if err != nil {
		return err
	}
	calls, err := callSites(d)
	if err != nil {
		return err
	}
	st.CallSites = len(calls)
	st.CallSiteTime = time.Since(t0)

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
		case LocAddr:
			globals = append(globals, cfg.VarLoc{Var: l.Var, Kind: cfg.AtAddr, Off: int64(l.Addr), Size: locSize(s, l)})
		case LocReg, LocFrame, LocRegOff, LocExpr:
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
	gl := cfg.NewGlobals(globals)

	// Analyse functions in parallel; each worker keeps its own builder,
	// analyzer and results, merged at the end (tags only ever gain bits).
	workers := min(runtime.GOMAXPROCS(0), 8, max(1, len(s.Funcs)/64))
	type result struct {
		tags                            []cfg.VarTags
		funcs, skipped, bad, unresolved int
	}
	results := make([]result, workers)
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
			in := cfg.Input{Calls: calls, Globals: gl}
			for {
				f := int(next.Add(1) - 1)
				if f >= len(s.Funcs) {
					return
				}
				fn := &s.Funcs[f]
				if len(fn.Ranges) == 0 {
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
				locs = varLocs(locs[:0], s, byFunc[start[f]:start[f+1]])
				in.Locs = locs
				in.FrameBase = cfg.FrameBase(fn.FrameBase)
				res.tags = append(res.tags, a.Analyze(g, &in)...)
			}
		}(&results[w])
	}
	wg.Wait()
	for _, r := range results {
		st.Funcs += r.funcs
		st.Skipped += r.skipped
		st.BadBytes += r.bad
		st.Unresolved += r.unresolved
		for _, t := range r.tags {
			if int(t.Var) < len(s.Vars) {
				s.Vars[t.Var].Tags |= Tags(t.Tags)
			}
		}
	}
	return nil
}

func locSize(s *Schema, l *Loc) int32 {
	if l.Size == 0 && int(l.Var) < len(s.Vars) {
		return s.Vars[l.Var].Size
	}
	return l.Size
}

// varLocs appends the dataflow's view of the locations s.Locs[idx...].
func varLocs(dst []cfg.VarLoc, s *Schema, idx []int32) []cfg.VarLoc {
	var buf [8]cfg.ExprRef
	for _, i := range idx {
		l := &s.Locs[i]
		vl := cfg.VarLoc{Var: l.Var, Lo: l.PCStart, Hi: l.PCEnd, Size: locSize(s, l)}
		switch l.Kind {
		case LocReg:
			vl.Kind, vl.Reg = cfg.InReg, l.Reg
			dst = append(dst, vl)
		case LocFrame:
			vl.Kind, vl.Off = cfg.InFrameSlot, l.Offset
			dst = append(dst, vl)
		case LocRegOff:
			vl.Kind, vl.Reg, vl.Off = cfg.InRegSlot, l.Reg, l.Offset
			dst = append(dst, vl)
		case LocExpr:
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
		b, err := sec.Data()
		if err != nil {
			return nil, fmt.Errorf("reading section %s: %v", sec.Name, err)
		}
		img.Add(sec.Addr, b)
	}
	return img, nil
}

// callSites reads the DWARF call-site records (DW_TAG_call_site, or
// DW_TAG_GNU_call_site in DWARF 4) with their parameters, sorted by return
// address.
func callSites(d *dwarf.Data) ([]cfg.CallSite, error) {
	var out []cfg.CallSite
	r := d.Reader()
	var cur *cfg.CallSite
	depth, siteDepth := 0, -1
	for {
		e, err := r.Next()
		if err != nil {
			return nil, fmt.Errorf("reading call sites: %v", err)
		}
		if e == nil {
			break
		}
		if e.Tag == 0 {
			depth--
			if depth <= siteDepth {
				siteDepth, cur = -1, nil
			}
			continue
		}
		switch e.Tag {
		case dwarf.TagCallSite, tagCallSiteGNU:
			pc, ok := e.Val(dwarf.AttrCallReturnPC).(uint64)
			if !ok {
				pc, ok = e.Val(dwarf.AttrLowpc).(uint64)
			}
			cur = nil
			if ok {
				out = append(out, cfg.CallSite{ReturnPC: pc})
				cur = &out[len(out)-1]
			}
			if e.Children {
				siteDepth = depth
			}
		case dwarf.TagCallSiteParameter, tagCallSiteParamGNU:
			if cur != nil && depth == siteDepth+1 {
				var p cfg.CallParam
				if b, ok := e.Val(dwarf.AttrLocation).([]byte); ok {
					p.Loc = cfg.ExprRefs(nil, b)
				}
				b, ok := e.Val(dwarf.AttrCallValue).([]byte)
				if !ok {
					b, _ = e.Val(attrCallSiteValueGNU).([]byte)
				}
				p.Value = cfg.ExprRefs(nil, b)
				if len(p.Loc)+len(p.Value) > 0 {
					cur.Params = append(cur.Params, p)
				}
			}
		}
		if e.Children {
			depth++
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ReturnPC < out[j].ReturnPC })
	return out, nil
}
