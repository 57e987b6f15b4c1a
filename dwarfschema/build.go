package dwarfschema

import (
	"cmp"
	"debug/dwarf"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/ianlancetaylor/demangle"

	"github.com/vprof/vprof/runtime/dwarfexpr"
	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/symname"
)

// maxOriginChain bounds abstract-origin/specification chains (a cycle is
// bad input).
const maxOriginChain = 16

// funcKey identifies a source function: its linkage name (or name), and
// where it is declared, so that two file-local functions of one name stay
// apart while the copies of one inline function from several units merge.
type funcKey struct {
	name string
	file int32
	line int32
}

type varKey struct {
	fn   model.FuncID
	name string
	file int32
	line int32
}

type builder struct {
	*loader
	funcIdx map[funcKey]model.FuncID
}

func (l *loader) subAt(off dieOff) int {
	n := l.subs.len()
	i := sort.Search(n, func(i int) bool { return l.subs.at(i).off >= off })
	if i < n && l.subs.at(i).off == off {
		return i
	}
	return -1
}

func (l *loader) varAt(off dieOff) int {
	n := l.vars.len()
	i := sort.Search(n, func(i int) bool { return l.vars.at(i).off >= off })
	if i < n && l.vars.at(i).off == off {
		return i
	}
	return -1
}

// funcOf returns the source function of subprogram record i, creating it
// on first use; -1 if there is none.
func (b *builder) funcOf(i int) model.FuncID {
	if i < 0 {
		return -1
	}
	if fn := b.subs.at(i).fn; fn != -1 {
		if fn == -2 {
			return -1
		}
		return fn
	}
	var name, linkage string
	file, line := int32(-1), int32(0)
	for j, n := i, 0; j >= 0 && n < maxOriginChain; n++ {
		sr := b.subs.at(j)
		if name == "" {
			name = sr.name
		}
		if sr.linkage != "" {
			// The most abstract linkage name: C++ constructor variants
			// (C1, C2) of one source constructor share the unified C4.
			linkage = sr.linkage
		}
		// A definition that repeats its declaration's file omits it.
		if line == 0 {
			line = sr.line
		}
		if file < 0 {
			file = sr.file
		}
		if sr.origin == 0 {
			break
		}
		j = b.subAt(sr.origin)
	}
	key := funcKey{name: linkage, file: file, line: line}
	if key.name == "" {
		key.name = name
	}
	if key.name == "" {
		key.name = fmt.Sprintf("<DIE %#x>", b.subs.at(i).off)
	}
	fn, ok := b.funcIdx[key]
	if !ok {
		fn = model.FuncID(len(b.s.Funcs))
		f := model.Func{Name: key.name, Display: key.name, File: file, Line: line}
		if linkage != "" {
			f.Display = symname.Demangle(linkage)
		} else if name != "" {
			f.Display = name
		}
		b.s.Funcs = append(b.s.Funcs, f)
		b.funcIdx[key] = fn
	}
	b.subs.at(i).fn = fn
	return fn
}

func (l *loader) build() error {
	b := &builder{loader: l, funcIdx: map[funcKey]model.FuncID{}}
	s := l.s
	s.DWARFVersion = l.maxVersion

	// Functions: every subprogram with code, then the targets of inlining.
	for i := range l.subs.len() {
		sr := l.subs.at(i)
		if sr.ranges == nil {
			continue
		}
		fn := b.funcOf(i)
		f := &s.Funcs[fn]
		f.Ranges = append(f.Ranges, sr.ranges...)
		if f.FrameBase == nil {
			f.FrameBase = sr.frameBase
		}
	}
	inlFunc := make([]model.FuncID, l.inls.len())
	for i := range inlFunc {
		inlFunc[i] = -1
		if ir := l.inls.at(i); ir.origin != 0 && ir.ranges != nil {
			inlFunc[i] = b.funcOf(l.subAt(ir.origin))
		}
	}
	varFunc := make([]model.FuncID, l.vars.len())
	for i := range varFunc {
		c := l.vars.at(i).container
		switch {
		case c == noContainer:
			varFunc[i] = model.NoFunc
		case c >= 0:
			varFunc[i] = b.funcOf(int(c))
			if varFunc[i] < 0 {
				varFunc[i] = -2 // in no function we can name: dropped
			}
		default:
			varFunc[i] = -2
			if fn := inlFunc[-c-1]; fn >= 0 {
				varFunc[i] = fn
			}
		}
	}

	nameFromSymbols(s.Funcs, s.Symbols)

	// Code the DWARF does not describe (crt files, assembly, clones of
	// functions compiled without -g) gets functions from the symbol table.
	s.Funcs = funcsFromSymbols(s.Funcs, s.Symbols)

	// Order functions by address; those with only inlined code last.
	for i := range s.Funcs {
		s.Funcs[i].Ranges = mergeRanges(s.Funcs[i].Ranges)
	}
	perm := make([]model.FuncID, len(s.Funcs))
	for i := range perm {
		perm[i] = model.FuncID(i)
	}
	slices.SortStableFunc(perm, func(a, c model.FuncID) int { return compareFuncs(&s.Funcs[a], &s.Funcs[c]) })
	newID := make([]model.FuncID, len(perm))
	funcs := make([]model.Func, len(perm))
	for n, old := range perm {
		newID[old] = model.FuncID(n)
		funcs[n] = s.Funcs[old]
	}
	s.Funcs = funcs
	remap := func(fn model.FuncID) model.FuncID {
		if fn < 0 {
			return fn
		}
		return newID[fn]
	}

	// Inlined instances. Their ranges are copied into one array, each
	// list's capacity clipped, not cloned one by one (18,000 allocations
	// per load of redis-server).
	nr := 0
	for i := range l.inls.len() {
		if inlFunc[i] >= 0 {
			nr += len(l.inls.at(i).ranges)
		}
	}
	rblk := make([]model.PCRange, 0, nr)
	for i := range l.inls.len() {
		if ir, fn := l.inls.at(i), inlFunc[i]; fn >= 0 {
			var rs []model.PCRange
			if ir.ranges != nil {
				start := len(rblk)
				rblk = append(rblk, ir.ranges...)
				rs = mergeRanges(rblk[start:len(rblk):len(rblk)])
				rblk = rblk[:start+len(rs)]
			}
			s.Inlines = append(s.Inlines, model.Inline{Func: remap(fn), Ranges: rs, Depth: ir.depth, CallFile: ir.callFile, CallLine: ir.callLine})
		}
	}
	slices.SortStableFunc(s.Inlines, func(a, c model.Inline) int {
		if x := cmp.Compare(a.Ranges[0].Lo, c.Ranges[0].Lo); x != 0 {
			return x
		}
		return cmp.Compare(a.Depth, c.Depth)
	})

	l.buildVars(varFunc, remap)
	l.buildLines()
	return nil
}

func compareFuncs(a, b *model.Func) int {
	switch {
	case len(a.Ranges) > 0 && len(b.Ranges) > 0:
		if x := cmp.Compare(a.Ranges[0].Lo, b.Ranges[0].Lo); x != 0 {
			return x
		}
	case len(a.Ranges) > 0:
		return -1
	case len(b.Ranges) > 0:
		return 1
	}
	if x := strings.Compare(a.Name, b.Name); x != 0 {
		return x
	}
	if x := cmp.Compare(a.File, b.File); x != 0 {
		return x
	}
	return cmp.Compare(a.Line, b.Line)
}

// mergeRanges sorts ranges and joins overlapping or touching ones.
func mergeRanges(rs []model.PCRange) []model.PCRange {
	if len(rs) < 2 {
		return rs
	}
	slices.SortFunc(rs, func(a, b model.PCRange) int { return cmp.Compare(a.Lo, b.Lo) })
	out := rs[:1]
	for _, r := range rs[1:] {
		p := &out[len(out)-1]
		if r.Lo <= p.Hi {
			p.Hi = max(p.Hi, r.Hi)
			continue
		}
		out = append(out, r)
	}
	return slices.Clip(out)
}

// buildVars resolves variable records to Vars (one per function, name and
// declaration), applies the filters, and gives the Locs their VarIDs.
func (l *loader) buildVars(varFunc []model.FuncID, remap func(model.FuncID) model.FuncID) {
	s := l.s
	memo := map[dieOff]typeInfo{}
	idx := make(map[varKey]model.VarID, l.vars.len()/2)
	vid := make([]model.VarID, l.vars.len())
	funcSel := make([]int8, len(s.Funcs)) // 0 unknown, 1 selected, -1 not
	globalSel := l.opt.FuncRegex == nil || l.opt.FuncRegex.MatchString(model.GlobalFunc)
	s.Vars = make([]model.Var, 0, l.vars.len())
	var cands []fieldCand
	for i := range vid {
		vid[i] = -1
		vr := l.vars.at(i)
		fn := varFunc[i]
		if vr.decl || fn == -2 {
			continue
		}
		fn = remap(fn)
		// The abstract variable carries name, declaration and type.
		name, file, line := vr.name, vr.file, vr.line
		typ, hasType, cu := vr.typ, vr.hasType, vr.cu
		for j, n := vr.origin, 0; j != 0 && n < maxOriginChain; n++ {
			k := l.varAt(j)
			if k < 0 {
				break
			}
			o := l.vars.at(k)
			if name == "" {
				name = o.name
			}
			if line == 0 {
				line = o.line
			}
			if file < 0 {
				file = o.file
			}
			if !hasType && o.hasType {
				typ, hasType, cu = o.typ, true, o.cu
			}
			j = o.origin
		}
		if name == "" {
			continue
		}
		if file < 0 && fn >= 0 {
			file = s.Funcs[fn].File // artificial parameters (this) have no declaration
		}
		if fn == model.NoFunc {
			if !globalSel {
				continue
			}
		} else if l.opt.FuncRegex != nil {
			if funcSel[fn] == 0 {
				funcSel[fn] = -1
				if f := &s.Funcs[fn]; l.opt.FuncRegex.MatchString(f.Name) || l.opt.FuncRegex.MatchString(f.Display) {
					funcSel[fn] = 1
				}
			}
			if funcSel[fn] < 0 {
				continue
			}
		}
		if len(l.opt.Components) > 0 {
			f := file
			if f < 0 && fn >= 0 {
				f = s.Funcs[fn].File
			}
			if !l.inComponent(f) {
				continue
			}
		}
		key := varKey{fn: fn, name: name, file: file, line: line}
		v, ok := idx[key]
		if !ok {
			v = model.VarID(len(s.Vars))
			idx[key] = v
			ti := l.resolveType(typ, hasType, l.cus[cu].cpp, memo)
			s.Vars = append(s.Vars, model.Var{
				Name: name, Func: fn, File: file, Line: line,
				Type: ti.spell, Kind: ti.kind, Size: ti.size, Param: vr.param,
				PointeeKind: ti.pkind, PointeeSize: ti.psize,
			})
			if hasType && !l.opt.NoFields && (ti.kind == model.KindAggregate || ti.kind == model.KindPointer) {
				cands = append(cands, fieldCand{v: v, typ: typ, cpp: l.cus[cu].cpp})
			}
		}
		if vr.static {
			s.Vars[v].Static = true
		}
		vid[i] = v
	}

	inMemFields := l.expandFields(cands, memo)

	// Fixed-address variables of functions without code of their own hold
	// over all the code of the function, out-of-line and inlined.
	var codeOf map[model.FuncID][]model.PCRange
	for _, p := range l.pending {
		v := vid[p.loc.v]
		if v < 0 {
			continue
		}
		if codeOf == nil {
			codeOf = map[model.FuncID][]model.PCRange{}
			for _, in := range s.Inlines {
				codeOf[in.Func] = append(codeOf[in.Func], in.Ranges...)
			}
		}
		fn := s.Vars[v].Func
		l.scopeLocs(s.Funcs[fn].Ranges, p.loc)
		l.scopeLocs(codeOf[fn], p.loc)
	}

	// The records of DIEs are all used: dropped before the Locs are made
	// (they were a third of the live heap at build's peak).
	l.subs, l.inls, l.vars, l.types = chunked[subRec]{}, chunked[inlRec]{}, chunked[varRec]{}, chunked[typeRec]{}
	l.recordByName = nil
	runtime.GC()

	// A global without storage anywhere (a constant folded away, a C++
	// constexpr from a header) is nothing to sample: drop it. (A local
	// without a location stays listed, method.md §2.)
	hasLoc := make([]bool, len(s.Vars))
	for _, ch := range l.locs.chunks {
		for i := range ch {
			if v := vid[ch[i].v]; v >= 0 {
				hasLoc[v] = true
			}
		}
	}
	// A struct local's field is placed where the struct is in memory (a
	// frame slot, a register + offset: at the struct's location + its
	// offset) and where one piece of the struct in registers holds it
	// (fieldLoc, D325); a field placed nowhere is not listed.
	var placed []bool
	for _, ch := range l.locs.chunks {
		for i := range ch {
			v := vid[ch[i].v]
			if v < 0 || inMemFields[v] == nil {
				continue
			}
			if placed == nil {
				placed = make([]bool, len(s.Vars))
			}
			for _, fv := range inMemFields[v] {
				if placed[fv] {
					continue
				}
				if memLoc(ch[i].kind) {
					placed[fv] = true
				} else if f := s.Vars[fv].Field; f != nil {
					_, placed[fv] = l.fieldLoc(ch[i], f.Offset, int64(s.Vars[fv].Size))
				}
			}
		}
	}
	for i := range s.Vars {
		// A field is placed by its struct or pointer (which precedes it).
		if f := s.Vars[i].Field; f != nil {
			hasLoc[i] = hasLoc[f.Of]
			if !f.Deref && s.Vars[f.Of].Func != model.NoFunc && !s.Vars[f.Of].Static && (placed == nil || !placed[i]) {
				hasLoc[i] = false
				s.Vars[i].Func = model.NoFunc // dropped below, with the globals without storage
			}
		}
	}
	// Order Vars (globals first, then by function, file, line, name) and
	// give Locs their final VarIDs.
	perm := make([]model.VarID, 0, len(s.Vars))
	for i := range s.Vars {
		if s.Vars[i].Func != model.NoFunc || hasLoc[i] {
			perm = append(perm, model.VarID(i))
		}
	}
	sortVarIDs(perm, s.Vars)
	newV := make([]model.VarID, len(s.Vars))
	if len(l.extras) > 0 {
		for i := range newV {
			newV[i] = -1
		}
	}
	replaced := make([]bool, len(perm))
	var decl []int32
	if l.fieldDecl != nil {
		decl = make([]int32, len(perm))
	}
	for n, old := range perm {
		newV[old] = model.VarID(n)
		replaced[n] = int(old) < len(l.replaced) && l.replaced[old]
		if decl != nil && int(old) < len(l.fieldDecl) {
			decl[n] = l.fieldDecl[old]
		}
	}
	// In place, not into a new array: the Vars are the largest array
	// made here but the Locs, and a new one is that many fresh pages to
	// fault in (the faults, not the copying, are most of its cost).
	s.Vars = gatherInPlace(s.Vars, perm, newV)
	vars := s.Vars
	l.replaced = replaced
	l.fieldDecl = decl
	ex := l.extras[:0]
	for _, e := range l.extras {
		if e.ptr = newV[e.ptr]; e.ptr >= 0 {
			ex = append(ex, e)
		}
	}
	l.extras = slices.Clip(ex)
	for i := range vars {
		if f := vars[i].Field; f != nil {
			f.Of = newV[f.Of]
		}
	}
	// Sort the compact records (half the size of a Loc), then expand.
	n := 0 // the records, and those of the fields of structs in memory
	for _, ch := range l.locs.chunks {
		for i := range ch {
			if v := vid[ch[i].v]; v >= 0 {
				n++
				n += len(inMemFields[v]) // at most: fieldLoc may place fewer
			}
		}
	}
	recs := make([]locRec, 0, n)
	populate(recs[:n])
	for _, ch := range l.locs.chunks {
		for _, r := range ch {
			v := vid[r.v]
			if v < 0 {
				continue
			}
			r.v = newV[v]
			recs = append(recs, r)
			if !memLoc(r.kind) {
				// The struct in registers or pieces: each field where
				// one piece holds it (fieldLoc), else nowhere here.
				for _, fv := range inMemFields[v] {
					nv := newV[fv]
					if nv < 0 || int(nv) >= len(s.Vars) || s.Vars[nv].Field == nil {
						continue
					}
					if f, ok := l.fieldLoc(r, s.Vars[nv].Field.Offset, int64(s.Vars[nv].Size)); ok {
						f.v = nv
						recs = append(recs, f)
					}
				}
				continue
			}
			// The fields of a struct in memory (at a fixed address, in
			// a frame slot, at a register + offset): at its address +
			// their offset, over the same code.
			for _, fv := range inMemFields[v] {
				f := r
				f.v = newV[fv]
				f.val = r.val + uint64(s.Vars[f.v].Field.Offset)
				switch r.kind {
				case model.LocAddr:
					f.expr = l.expr(dwarfexpr.Addr(f.val))
				case model.LocFrame:
					f.expr = l.expr(dwarfexpr.Fbreg(int64(f.val)))
				case model.LocRegOff:
					f.expr = l.expr(dwarfexpr.Breg(uint64(r.reg), int64(f.val)))
				}
				recs = append(recs, f)
			}
		}
	}
	l.locs = chunked[locRec]{}
	order := locOrder(recs)
	locs := make([]model.Loc, len(recs))
	populate(locs) // the collector runs while it is filled
	for i, k := range order {
		r := &recs[k]
		v := &s.Vars[r.v]
		// Field by field into the zeroed array: a whole Loc stored at
		// once is a bulk write barrier over it while the collector
		// runs, one pointer write here (Expr).
		loc := &locs[i]
		loc.Var, loc.PCStart, loc.PCEnd, loc.Kind, loc.Reg = r.v, r.lo, r.hi, r.kind, r.reg
		loc.Expr, loc.Size, loc.BasicTypePtr = l.exprList[r.expr], v.Size, v.PointeeKind != 0
		switch r.kind {
		case model.LocAddr:
			loc.Addr = r.val
		case model.LocFrame, model.LocRegOff, model.LocConst:
			loc.Offset = int64(r.val)
		}
	}
	s.Locs = locs
}

// locOrder returns the indices of recs ordered by start, variable and
// end; records equal in all three (one variable over one range at two
// locations: two DIEs of one source variable, seen in inlined C++
// destructors) keep the order they were read in, their DIEs' order in
// .debug_info (a stable sort: the sampler takes a variable's first Loc
// at a PC, so the first DIE's location wins, whatever the sort's
// internals). Two stable radix sorts (end, then start and variable
// packed in one key) replace a comparison sort of the 40-byte records,
// and the Locs are expanded in this order, with no record moved.
func locOrder(recs []locRec) []int32 {
	order := make([]int32, len(recs))
	for i := range order {
		order[i] = int32(i)
	}
	if len(recs) < 2 {
		return order
	}
	minLo, maxLo := recs[0].lo, recs[0].lo
	for i := range recs {
		minLo, maxLo = min(minLo, recs[i].lo), max(maxLo, recs[i].lo)
	}
	if maxLo-minLo >= 1<<32 {
		// Code over 4 GB: starts and variables do not fit in one key.
		slices.SortStableFunc(order, func(a, b int32) int {
			x, y := &recs[a], &recs[b]
			if x.lo != y.lo {
				return cmp.Compare(x.lo, y.lo)
			}
			if x.v != y.v {
				return cmp.Compare(x.v, y.v)
			}
			return cmp.Compare(x.hi, y.hi)
		})
		return order
	}
	keys := make([]uint64, len(recs))
	for i := range recs {
		keys[i] = recs[i].hi
	}
	radixOrder(order, keys)
	for i := range recs {
		keys[i] = (recs[i].lo-minLo)<<32 | uint64(uint32(recs[i].v))
	}
	radixOrder(order, keys)
	return order
}

// fieldCand is a variable that may have fields: a struct, or a pointer.
type fieldCand struct {
	v   model.VarID
	typ dieOff
	cpp bool
}

// expandFields adds the field variables of the candidates (method.md §2):
// the scalar fields of structs (globals, statics, locals and parameters),
// and those behind pointers to structs (any variable). It returns, per
// struct, its field variables, whose Locs buildVars derives from the
// struct's where the struct is in memory (memLoc).
func (l *loader) expandFields(cands []fieldCand, memo map[dieOff]typeInfo) map[model.VarID][]model.VarID {
	s := l.s
	fmemo := map[dieOff]*fieldSet{}
	var fixed map[model.VarID][]model.VarID
	// The field sets first, so that s.Vars grows once (its doublings
	// were the loader's largest allocation on redis-server).
	type expansion struct {
		fs    *fieldSet
		sep   string
		deref bool
	}
	exps := make([]expansion, len(cands))
	total, nextra := 0, 0
	for k, c := range cands {
		pv := &s.Vars[c.v]
		var fs *fieldSet
		sep, deref := ".", false
		switch {
		case pv.Kind == model.KindAggregate:
			fs = l.fieldsOf(c.typ, c.cpp, memo, fmemo)
			// A struct local's hash stays: where it is held in
			// registers (pieces) its fields are not read.
			if fs.complete && len(fs.fields) <= MaxFields && (pv.Func == model.NoFunc || pv.Static) {
				if int(c.v) >= len(l.replaced) {
					l.replaced = append(l.replaced, make([]bool, int(c.v)+1-len(l.replaced))...)
				}
				l.replaced[c.v] = true
			}
		case pv.Kind == model.KindPointer:
			pt, ok := l.pointeeRecord(c.typ)
			if !ok {
				continue
			}
			fs = l.fieldsOf(pt, c.cpp, memo, fmemo)
			if fs.self && pv.Name == "this" {
				// The container's own methods (the library's code,
				// inlined where the program calls them) get no length:
				// their this would take the reads of the length that
				// the caller's field names (this->m_queries.size()).
				continue
			}
			deref = true
			if t := l.strip(c.typ); t != nil && t.tag == dwarf.TagPointerType {
				sep = "->"
			}
		default:
			continue
		}
		if !deref && fs.vectors {
			// A vector's length is read behind a pointer only (its two
			// pointers at once); in a struct in memory its fields are
			// Locs of their own.
			fs = fs.scalarsOnly()
		}
		exps[k] = expansion{fs, sep, deref}
		if deref && len(fs.fields) > MaxFields {
			nextra += len(fs.fields) - MaxFields
			total += MaxFields
			continue
		}
		total += len(fs.fields)
	}
	// The fields past the budget behind a pointer are candidates only
	// (extraField): trimFields writes those the code reads over the
	// unread ones. Counted first: 80,000 on redis-server, whose
	// doublings were a tenth of build's CPU time.
	l.extras = slices.Grow(l.extras[:0:0], nextra)
	for k, c := range cands {
		if e := exps[k]; e.deref && len(e.fs.fields) > MaxFields {
			for fi := MaxFields; fi < len(e.fs.fields); fi++ {
				l.extras = append(l.extras, extraField{ptr: c.v, def: &e.fs.fields[fi], decl: int32(fi), arrow: e.sep == "->"})
			}
		}
	}
	// s.Vars grows once, to its size.
	vars := make([]model.Var, len(s.Vars), len(s.Vars)+total)
	populate(vars[:cap(vars)]) // all of it is filled below
	copy(vars, s.Vars)
	s.Vars = vars
	// The Fields are cut from one array, and the names of one variable's
	// fields from one string: two allocations per field were a quarter
	// of Load's allocations on redis-server.
	fblk := make([]model.Field, total)
	var nb []byte
	for k, c := range cands {
		fs, sep, deref := exps[k].fs, exps[k].sep, exps[k].deref
		if fs == nil {
			continue
		}
		pv := s.Vars[c.v] // a copy: s.Vars grows below
		fields := fs.fields
		if deref && len(fields) > MaxFields {
			fields = fields[:MaxFields]
		}
		nb = nb[:0]
		for _, f := range fields {
			nb = append(append(append(nb, pv.Name...), sep...), f.name...)
		}
		names := string(nb)
		for fi, f := range fields {
			n := len(pv.Name) + len(sep) + len(f.name)
			name := names[:n]
			names = names[n:]
			fld := &fblk[0]
			fblk = fblk[1:]
			fld.Of, fld.Offset, fld.Deref, fld.Elem = c.v, f.off, deref, f.elem
			// Field by field into the zeroed capacity (s.Vars does not
			// grow here): a whole Var appended is a bulk write barrier
			// over it while the collector runs, three pointer writes here.
			id := model.VarID(len(s.Vars))
			s.Vars = s.Vars[:id+1]
			fv := &s.Vars[id]
			fv.Name, fv.Func, fv.File, fv.Line = name, pv.Func, pv.File, pv.Line
			fv.Type, fv.Kind, fv.Size, fv.Static = f.ti.spell, f.ti.kind, f.ti.size, pv.Static
			fv.Field = fld
			if !deref {
				// A pointer field of a struct global: its pointee is read
				// like any pointer global's. Behind a pointer, one level
				// of memory is the budget.
				fv.PointeeKind, fv.PointeeSize = f.ti.pkind, f.ti.psize
			}
			if fi > 0 {
				if int(id) >= len(l.fieldDecl) {
					if cap(l.fieldDecl) < cap(s.Vars) { // once, to the Vars' final size
						l.fieldDecl = slices.Grow(l.fieldDecl, cap(s.Vars)-len(l.fieldDecl))
					}
					l.fieldDecl = append(l.fieldDecl, make([]int32, int(id)+1-len(l.fieldDecl))...)
				}
				l.fieldDecl[id] = int32(fi)
			}
			if !deref {
				if fixed == nil {
					fixed = map[model.VarID][]model.VarID{}
				}
				fixed[c.v] = append(fixed[c.v], id)
			}
		}
	}
	return fixed
}

// sortVarIDs sorts ids stably by compareVars of their Vars. Function,
// file and line packed in one key are radix sorted (stableOrder), then the
// names within each run of equal keys: the order of a stable comparison
// sort, at a fraction of its cost (it was a tenth of build's CPU time on
// redis-server).
func sortVarIDs(ids []model.VarID, vars []model.Var) {
	const fnBits, fileBits, lineBits = 22, 21, 21
	fits := func(x int32, bits uint) bool { return x >= -1 && int64(x)+1 < 1<<bits }
	for _, id := range ids {
		v := &vars[id]
		if !fits(int32(v.Func), fnBits) || !fits(v.File, fileBits) || !fits(v.Line, lineBits) {
			slices.SortStableFunc(ids, func(a, b model.VarID) int { return compareVars(&vars[a], &vars[b]) })
			return
		}
	}
	key := func(id model.VarID) uint64 {
		v := &vars[id]
		return uint64(v.Func+1)<<(fileBits+lineBits) | uint64(v.File+1)<<lineBits | uint64(v.Line+1)
	}
	order := stableOrder(len(ids), func(i int32) uint64 { return key(ids[i]) })
	sorted := make([]model.VarID, len(ids))
	for n, i := range order {
		sorted[n] = ids[i]
	}
	for i := 0; i < len(sorted); {
		j, k := i+1, key(sorted[i])
		for j < len(sorted) && key(sorted[j]) == k {
			j++
		}
		if j-i > 1 {
			slices.SortStableFunc(sorted[i:j], func(a, b model.VarID) int { return strings.Compare(vars[a].Name, vars[b].Name) })
		}
		i = j
	}
	copy(ids, sorted)
}

// memLoc reports a location kind that places a variable in memory at an
// address the sampler computes, where its fields lie at an offset.
func memLoc(k model.LocKind) bool {
	return k == model.LocAddr || k == model.LocFrame || k == model.LocRegOff
}

func compareVars(a, b *model.Var) int {
	if x := cmp.Compare(a.Func, b.Func); x != 0 {
		return x
	}
	if x := cmp.Compare(a.File, b.File); x != 0 {
		return x
	}
	if x := cmp.Compare(a.Line, b.Line); x != 0 {
		return x
	}
	return strings.Compare(a.Name, b.Name)
}

func sortLocs(locs []model.Loc) {
	slices.SortFunc(locs, func(a, b model.Loc) int {
		if x := cmp.Compare(a.PCStart, b.PCStart); x != 0 {
			return x
		}
		if x := cmp.Compare(a.Var, b.Var); x != 0 {
			return x
		}
		return cmp.Compare(a.PCEnd, b.PCEnd)
	})
}

// inComponent reports whether Schema.Files[f] lies in one of the
// --component paths (MatchComponent), as its path or relative to the
// compilation directory of the unit that named the file.
func (l *loader) inComponent(f int32) bool {
	if f < 0 || int(f) >= len(l.s.Files) {
		return false
	}
	p := l.s.Files[f]
	if model.MatchComponent(p, l.opt.Components) {
		return true
	}
	if cd := l.fileCompDir[f]; cd != "" {
		if rel, err := filepath.Rel(cd, p); err == nil && !strings.HasPrefix(rel, "../") && model.MatchComponent(rel, l.opt.Components) {
			return true
		}
	}
	return false
}

// buildLines sorts the line table by PC and keeps one row per PC: the last
// real row at that PC (an end of sequence loses to code that starts there),
// dropping rows that repeat the previous file and line.
func (l *loader) buildLines() {
	rows := l.rows.slice()
	l.rows = chunked[model.LineRow]{}
	if !slices.IsSortedFunc(rows, func(a, b model.LineRow) int { return cmp.Compare(a.PC, b.PC) }) {
		slices.SortStableFunc(rows, func(a, b model.LineRow) int { return cmp.Compare(a.PC, b.PC) })
	}
	out := rows[:0]
	for i := 0; i < len(rows); {
		j := i
		pick := rows[i]
		for ; j < len(rows) && rows[j].PC == rows[i].PC; j++ {
			if rows[j].File >= 0 || pick.File < 0 {
				pick = rows[j]
			}
		}
		i = j
		if n := len(out); n > 0 && out[n-1].File == pick.File && out[n-1].Line == pick.Line {
			continue
		}
		if len(out) == 0 && pick.File < 0 {
			continue
		}
		out = append(out, pick)
	}
	l.s.Lines = out
}

// funcsFromSymbols adds to funcs the code that funcs do not cover, one Func
// per symbol name with compiler clone suffixes and symbol versions removed
// (foo.cold, foo.constprop.0 and foo.isra.0 all belong to foo, and to the
// DWARF function foo if there is one; memcpy@GLIBC_2.14 is memcpy). Of
// several symbols for one range (aliases) only the best name counts
// (aliasName).
func funcsFromSymbols(funcs []model.Func, syms []model.Symbol) []model.Func {
	var covered []model.PCRange
	byName := make(map[string]int, len(funcs))
	for i := range funcs {
		covered = append(covered, funcs[i].Ranges...)
		if _, ok := byName[funcs[i].Name]; !ok {
			byName[funcs[i].Name] = i
		}
	}
	covered = mergeRanges(covered)
	overlaps := func(lo, hi uint64) bool {
		k := sort.Search(len(covered), func(k int) bool { return covered[k].Hi > lo })
		return k < len(covered) && covered[k].Lo < hi
	}
	for i, sy := range syms {
		if sy.Size == 0 || overlaps(sy.Value, sy.Value+sy.Size) {
			continue
		}
		name, ok := aliasName(syms, i)
		if !ok {
			continue
		}
		i, ok := byName[name]
		if !ok {
			i = len(funcs)
			funcs = append(funcs, model.Func{Name: name, Display: symname.Demangle(name), File: -1})
			byName[name] = i
		}
		funcs[i].Ranges = append(funcs[i].Ranges, model.PCRange{Lo: sy.Value, Hi: sy.Value + sy.Size})
	}
	if len(covered) == 0 {
		// No DWARF: the functions need merged, sorted ranges too.
		for i := range funcs {
			funcs[i].Ranges = mergeRanges(funcs[i].Ranges)
		}
		slices.SortStableFunc(funcs, func(a, b model.Func) int { return compareFuncs(&a, &b) })
	}
	return funcs
}

// dropUntagged removes locals and parameters without a tag (method.md §2),
// keeping globals and function-scope statics, and renumbers Locs. A pointer
// is kept when one of the fields behind it is, for it is where they are
// read. A const global or static is removed, and so are its fields and a
// global's const members (readOnlyField).
func dropUntagged(s *model.Schema) []model.VarID {
	keep := make([]bool, len(s.Vars))
	for i := range s.Vars {
		v := &s.Vars[i]
		keep[i] = v.Func == model.NoFunc || v.Tags != 0 || v.Static
		if (v.Func == model.NoFunc || v.Static) && v.Field == nil && readOnly(v.Type) {
			// A const global or static (a table, __func__) cannot change:
			// it carries no evidence, only the presence of its readers.
			keep[i] = false
		}
		if readOnlyField(s, v) {
			// Its fields cannot change either; kept, with their struct
			// gone, they were read at every tick in whatever frame ran
			// (no reader narrows them).
			keep[i] = false
		}
	}
	for i := range s.Vars {
		if f := s.Vars[i].Field; f != nil && f.Deref && keep[i] {
			keep[f.Of] = true
		}
	}
	return keepVars(s, keep)
}

// readOnly reports whether a type spelling is that of a const object
// ("const int", "const char [32]", "char * const"), not of a pointer to
// const data ("const char *"), which can change.
func readOnly(typ string) bool {
	if strings.HasSuffix(typ, " const") {
		return true
	}
	return strings.HasPrefix(typ, "const ") && !strings.ContainsAny(typ, "*&")
}

// readOnlyField reports whether v is a field of a global or static struct
// (at its address, not behind a pointer) that the program cannot write: a
// field of a const struct (C11 6.5.2.3: a member of a const-qualified
// object is const-qualified; its own type, `unsigned int`, does not say
// so), or a const member. The compiler puts such an object in .rodata, or
// in .data.rel.ro where it holds addresses, which the dynamic loader
// relocates and then makes read-only: its only change in any run is that
// relocation, when a tick reads it before the loader is done (the link-time
// address, then the run-time one), and its durations say how long the
// process ran, not how the program behaved (decision D343). As for a whole
// const object, a C++ mutable member is not told apart (neither gcc nor
// clang marks it in DWARF). A field behind a pointer to const data stays:
// the pointer can point elsewhere.
func readOnlyField(s *model.Schema, v *model.Var) bool {
	f := v.Field
	if f == nil || f.Deref || v.Func != model.NoFunc && !v.Static {
		return false
	}
	if readOnly(v.Type) {
		return true
	}
	return f.Of >= 0 && int(f.Of) < len(s.Vars) && readOnly(s.Vars[f.Of].Type)
}

// keepVars removes the variables not kept, renumbering Vars, Locs and
// Field.Of (-1 where a field's struct is gone; a field behind a pointer
// goes with its pointer). It returns each old VarID's new one, -1 for
// the removed.
func keepVars(s *model.Schema, keep []bool) []model.VarID {
	newV := make([]model.VarID, len(s.Vars))
	for i := range s.Vars {
		if f := s.Vars[i].Field; f != nil && f.Deref && !keep[f.Of] {
			keep[i] = false
		}
	}
	n := model.VarID(0)
	for i := range s.Vars {
		newV[i] = -1
		if keep[i] {
			newV[i] = n
			n++
		}
	}
	vars := s.Vars[:0]
	for i, v := range s.Vars {
		if !keep[i] {
			continue
		}
		// Each field variable has a Field of its own (expandFields,
		// useExtras rewrites them in place too): renumbered in place,
		// not copied (a new Field per field at each call: 67,000 of
		// Load's 405,000 allocations on redis-server).
		if f := v.Field; f != nil && f.Of >= 0 {
			f.Of = newV[f.Of]
		}
		vars = append(vars, v)
	}
	s.Vars = slices.Clip(vars)
	locs := s.Locs[:0]
	for _, loc := range s.Locs {
		if v := newV[loc.Var]; v >= 0 {
			loc.Var = v
			locs = append(locs, loc)
		}
	}
	s.Locs = locs // compacted in place: its spare room is kept (narrowGlobals' spareLocs)
	return newV
}

// renumber moves per-variable flags to the VarIDs keepVars gave.
func renumber(flags []bool, newV []model.VarID) []bool {
	var out []bool
	for old, v := range newV {
		if v >= 0 && old < len(flags) && flags[old] {
			if int(v) >= len(out) {
				out = append(out, make([]bool, int(v)+1-len(out))...)
			}
			out[v] = true
		}
	}
	return out
}

// nameFromSymbols gives their linkage names to C++ functions whose DWARF
// has none (gcc omits DW_AT_linkage_name for functions with internal
// linkage, e.g. static functions in a namespace): the mangled symbol at the
// start of one of the function's ranges, when it demangles to the
// function's qualified name. Name is then the key the symbol table and
// other tools use, and Display shows the parameters like other C++
// functions.
func nameFromSymbols(funcs []model.Func, syms []model.Symbol) {
	for i := range funcs {
		f := &funcs[i]
		if strings.HasPrefix(f.Name, "_Z") || !strings.Contains(f.Name, "::") {
			continue
		}
		for _, r := range f.Ranges {
			k := sort.Search(len(syms), func(k int) bool { return syms[k].Value >= r.Lo })
			for ; k < len(syms) && syms[k].Value == r.Lo; k++ {
				name := symname.StripClone(syms[k].Name)
				if !strings.HasPrefix(name, "_Z") {
					continue
				}
				if symname.Demangle(name, demangle.NoParams, demangle.NoTemplateParams) == f.Name ||
					symname.Demangle(name, demangle.NoParams) == f.Name {
					f.Name, f.Display = name, symname.Demangle(name)
					break
				}
			}
			if strings.HasPrefix(f.Name, "_Z") {
				break
			}
		}
	}
}

// stableOrder returns the indices 0..n-1 ordered by key, equal keys in
// index order: a stable sort of large records through an index, with no
// record moved (sort.SliceStable's reflected swaps of the call sites
// were a twentieth of Load's CPU time).
func stableOrder(n int, key func(int32) uint64) []int32 {
	order := make([]int32, n)
	keys := make([]uint64, n)
	for i := range order {
		order[i] = int32(i)
		keys[i] = key(int32(i))
	}
	radixOrder(order, keys)
	return order
}

// radixOrder stably sorts order (indices into keys) by keys[order[i]]:
// an LSD radix sort a byte at a time, skipping the bytes all keys share
// (addresses differ in their low three or four bytes), several times
// faster than a comparison sort of the indices.
func radixOrder(order []int32, keys []uint64) {
	n := len(order)
	if n < 2 {
		return
	}
	var or, and uint64 = 0, ^uint64(0)
	sorted := true
	for i, k := range order {
		or |= keys[k]
		and &= keys[k]
		if i > 0 && keys[k] < keys[order[i-1]] {
			sorted = false
		}
	}
	if sorted {
		return
	}
	differ := or &^ and // bits that are not the same in every key
	tmp := make([]int32, n)
	src, dst := order, tmp
	for shift := uint(0); shift < 64; shift += 8 {
		if (differ>>shift)&0xff == 0 {
			continue
		}
		var count [257]int
		for _, k := range src {
			count[(keys[k]>>shift)&0xff+1]++
		}
		for b := 1; b < 257; b++ {
			count[b] += count[b-1]
		}
		for _, k := range src {
			b := (keys[k] >> shift) & 0xff
			dst[count[b]] = k
			count[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &order[0] {
		copy(order, src)
	}
}

// gatherInPlace reorders xs so that xs[n] is the old xs[perm[n]], for
// each n of perm (perm lists distinct indices; those it leaves out are
// dropped), and returns xs[:len(perm)]. to is perm's inverse (to[perm[n]]
// == n). Each element is moved along its chain of destinations (old
// place i goes to to[i], whose element goes on to to[to[i]], ...) until
// the chain reaches a place whose element is dropped or already moved.
func gatherInPlace[T any](xs []T, perm []model.VarID, to []model.VarID) []T {
	moved := make([]bool, len(xs)) // the element first at i has gone to to[i]
	for _, start := range perm {
		if moved[start] {
			continue
		}
		carry := xs[start]
		moved[start] = true
		for q := to[start]; ; {
			next := xs[q]
			xs[q] = carry
			if moved[q] || to[q] < 0 || perm[to[q]] != model.VarID(q) {
				break // q's own element is gone already, or dropped
			}
			moved[q] = true
			carry, q = next, to[q]
		}
	}
	var zero T
	for i := len(perm); i < len(xs); i++ {
		xs[i] = zero // no pointers kept past the end
	}
	return xs[:len(perm)]
}
