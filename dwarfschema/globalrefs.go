package dwarfschema

import (
	"cmp"
	"debug/elf"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"

	"golang.org/x/arch/x86/x86asm"

	"github.com/vprof/vprof/dwarfschema/cfg"

	"github.com/vprof/vprof/runtime/model"
)

// narrowGlobals restricts each global's location, which DWARF makes valid
// over the whole object, to the code of the functions that read it:
// instructions whose memory operand (RIP-relative or absolute) falls in the
// global's storage, other than the destination of a plain store. Code that
// only stores to a global (main setting a configuration value) is not
// shaped by its value; code that reads it (every tag, loop, cond and args,
// is about reads) is.
//
// Why: a global is attributed to every function containing a PC at which it
// was sampled (method.md §5), and the sampler reads a variable in the
// shallowest frame where it is accessible (§3). Were a global accessible
// everywhere, it would always be read in the innermost frame and blamed on
// whatever hot function runs there, never on the function that uses it
// (recovery_budget's srv_buf_pool_instances, read by the caller
// recv_group_scan_log_recs three frames up). Narrowed, it is read in the
// frame of a function that uses it, at any depth, and costs a read only
// there. A global referenced by no instruction (used only through pointers
// only) keeps no location: it is listed, never sampled. In PIC code a
// global is reached through its GOT slot, which is resolved through the
// slot's dynamic relocation.
//
// Functions are source functions, inline-aware (method.md §2: the PCs of an
// inlined body belong to the inlined function): the function reading at an
// instruction is the innermost inlined instance there, and a reader's code
// is every PC where it is the innermost function, out of line or inlined,
// not the bodies of other functions inlined into it. So a global read only
// by a helper inlined into a large caller is sampled, and blamed, in the
// helper, as it would be were the helper not inlined; and a global read by
// a caller is not blamed on the callees inlined into it.
//
// keep, if not nil, says which readers count: with --component, only the
// functions of the component's files (inlined instances included, by the
// inlined function's own file). The thesis gives functions outside the
// monitored component no variable discount at all ("no discount ratio
// being available for functions outside of those program components": the
// hist-discounter ranks them); a component global sampled in such a
// function (main printing a configuration value at its end) would give it
// one, and its whole inclusive time as variable-based cost.
//
// It returns the number of globals narrowed and of those left unsampled.
func narrowGlobals(s *model.Schema, ef *elf.File, keep func(model.FuncID) bool, gl *globalSet) (narrowed, unreferenced int) {
	// The fields of a struct global follow the struct: they are read
	// wherever any of it is (one struct is one unit of reading, and code
	// that reaches it through its address, lea or GOT, names its start).
	var fieldLocs map[model.VarID][]int // struct -> its fields' Locs
	for i := range s.Locs {
		l := &s.Locs[i]
		if !wholeGlobal(s, l) {
			continue
		}
		if f := s.Vars[l.Var].Field; f != nil && !f.Deref && f.Of >= 0 {
			if fieldLocs == nil {
				fieldLocs = map[model.VarID][]int{}
			}
			fieldLocs[f.Of] = append(fieldLocs[f.Of], i)
		}
	}
	// The globals now (dropUntagged dropped the read-only ones), and
	// the reads the tagger found in its graphs, if any.
	var pre *globalSet
	if gl != nil && gl.scanned != nil {
		pre = gl
	}
	gl = newGlobalSet(s, ef, gl)
	gs := gl.gs
	if len(gs) == 0 {
		return 0, 0
	}
	code2fn := innermostFuncs(s)
	// scan finds the readers of each global in the code of functions
	// [from, to): users[g] is the set of functions reading global g.
	scan := func(from, to int) []map[model.FuncID]bool {
		users := make([]map[model.FuncID]bool, len(gs))
		var insts []decoded  // one range's instructions, reused
		var own []globalRead // reads of a function decoded here, reused
		for fi := from; fi < to; fi++ {
			var reads []globalRead
			if pre != nil && pre.scanned[fi] {
				reads = pre.reads[fi] // read by the tagger from its graph
			} else {
				own = own[:0]
				for _, r := range s.Funcs[fi].Ranges {
					b := gl.code(r)
					insts, _ = decodeOld(insts[:0], r.Lo, b, len(b))
					own = gl.appendReads(own, insts, nil)
				}
				reads = own
			}
			for _, rd := range reads {
				g := gl.find(rd.ea)
				if g < 0 || !rd.reads(gs[g].agg) {
					continue
				}
				reader := model.FuncID(fi)
				if j := code2fn.find(rd.pc); j >= 0 {
					reader = code2fn.fn[j]
				}
				if keep != nil && !keep(reader) {
					continue
				}
				if users[g] == nil {
					users[g] = map[model.FuncID]bool{}
				}
				users[g][reader] = true
			}
		}
		return users
	}
	// Functions are scanned in parallel (those the tagger did not read
	// are decoded here), in contiguous runs, and the sets of readers
	// joined.
	nw := min(runtime.GOMAXPROCS(0), 8, max(1, len(s.Funcs)/64))
	parts := make([][]map[model.FuncID]bool, nw)
	var wg sync.WaitGroup
	for w := range nw {
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[w] = scan(w*len(s.Funcs)/nw, (w+1)*len(s.Funcs)/nw)
		}()
	}
	wg.Wait()
	users := parts[0]
	for _, p := range parts[1:] {
		for g, m := range p {
			if users[g] == nil {
				users[g] = m
				continue
			}
			for fn := range m {
				users[g][fn] = true
			}
		}
	}

	// The new Locs are copies of a global's (or its fields') Loc over
	// other ranges: listed as such (no pointers, no copying of Locs as
	// the list grows), made once sorted.
	type addRec struct {
		lo, hi uint64
		src    int32 // the index in s.Locs of the Loc copied
	}
	drop := make([]bool, len(s.Locs))
	var add []addRec
	// The ranges of code2fn by function, each list in address order.
	fnSpans := make([][]int32, len(s.Funcs))
	for j, fn := range code2fn.fn {
		if fn >= 0 && int(fn) < len(fnSpans) {
			fnSpans[fn] = append(fnSpans[fn], int32(j))
		}
	}
	var spans []int32
	// add's size: every reader's ranges, for the global and each field
	// (an upper bound: adjacent ranges merge).
	nadd := 0
	for i, g := range gs {
		n := 0
		for fn := range users[i] {
			if fn >= 0 && int(fn) < len(fnSpans) {
				n += len(fnSpans[fn])
			}
		}
		nadd += n * (1 + len(fieldLocs[g.v]))
	}
	add = make([]addRec, 0, nadd)
	for i, g := range gs {
		drop[g.loc] = true
		for _, fl := range fieldLocs[g.v] {
			drop[fl] = true
		}
		if len(users[i]) == 0 {
			unreferenced++
			continue
		}
		narrowed++
		first := len(add)
		v := s.Locs[g.loc].Var
		// The readers' code, in address order.
		spans = spans[:0]
		for fn := range users[i] {
			if fn >= 0 && int(fn) < len(fnSpans) {
				spans = append(spans, fnSpans[fn]...)
			}
		}
		slices.Sort(spans)
		for _, j := range spans {
			lo, hi := code2fn.lo[j], code2fn.hi[j]
			if n := len(add); n > 0 && s.Locs[add[n-1].src].Var == v && add[n-1].hi == lo {
				add[n-1].hi = hi // adjacent code of readers: one entry
				continue
			}
			add = append(add, addRec{lo, hi, int32(g.loc)})
		}
		last := len(add)
		for _, fl := range fieldLocs[g.v] {
			for _, r := range add[first:last] {
				add = append(add, addRec{r.lo, r.hi, int32(fl)})
			}
		}
	}
	// The Locs kept are sorted by PCStart (Load's invariant): merge the
	// new ones in, after the kept ones of the same PCStart, as a stable
	// sort of kept then new would (sorting them all again was a tenth of
	// Load). The kept ones are read where they are, the dropped skipped,
	// and the new ones made from the Locs they copy as they are merged
	// (compacting the kept ones first, and copying the Locs the new ones
	// copy out of the way of that compaction, were a third of this
	// function's time).
	order := stableOrder(len(add), func(i int32) uint64 { return add[i].lo })
	added := func(n int) model.Loc {
		r := &add[order[n]]
		l := s.Locs[r.src]
		l.PCStart, l.PCEnd = r.lo, r.hi
		return l
	}
	nkept := 0
	sorted := true
	last := uint64(0)
	for i := range s.Locs {
		if drop[i] {
			continue
		}
		if nkept > 0 && last > s.Locs[i].PCStart {
			sorted = false
		}
		last = s.Locs[i].PCStart
		nkept++
	}
	spare := 0
	if gl != nil {
		spare = gl.spareLocs
	}
	out := make([]model.Loc, 0, nkept+len(add)+spare)
	populate(out[:nkept+len(add)]) // the collector runs while it is filled
	if !sorted {
		for i := range s.Locs {
			if !drop[i] {
				out = append(out, s.Locs[i])
			}
		}
		for n := range order {
			out = append(out, added(n))
		}
		s.Locs = out
		slices.SortStableFunc(s.Locs, func(a, b model.Loc) int { return cmp.Compare(a.PCStart, b.PCStart) })
		return narrowed, unreferenced
	}
	// The kept Locs are copied in runs (up to a dropped one or the next
	// new one's place): one copy of a run, not an append per Loc, each
	// with its write barrier while the collector runs (this copy was most
	// of narrow's own time on redis-server).
	j := 0
	for i := 0; i < len(s.Locs); {
		if drop[i] {
			i++
			continue
		}
		for j < len(order) && add[order[j]].lo < s.Locs[i].PCStart {
			out = append(out, added(j))
			j++
		}
		lim := uint64(math.MaxUint64)
		if j < len(order) {
			lim = add[order[j]].lo
		}
		k := i + 1
		for k < len(s.Locs) && !drop[k] && s.Locs[k].PCStart <= lim {
			k++
		}
		out = append(out, s.Locs[i:k]...)
		i = k
	}
	for ; j < len(order); j++ {
		out = append(out, added(j))
	}
	s.Locs = out
	return narrowed, unreferenced
}

// gotTargets maps GOT slots to the link-time address they will hold, from
// the dynamic relocations:
// R_X86_64_GLOB_DAT and R_X86_64_64 name a symbol defined here,
// R_X86_64_RELATIVE holds its target in the addend.
func gotTargets(ef *elf.File) map[uint64]uint64 {
	sec := ef.Section(".rela.dyn")
	if sec == nil || sec.Type != elf.SHT_RELA {
		return nil
	}
	data, err := sec.Data()
	if err != nil {
		return nil
	}
	// Only words in the GOT are slots: a RELATIVE relocation elsewhere is
	// an initialised pointer variable (int *p = &x), whose reads read p.
	var gots []*elf.Section
	for _, name := range []string{".got", ".got.plt"} {
		if g := ef.Section(name); g != nil {
			gots = append(gots, g)
		}
	}
	inGOT := func(a uint64) bool {
		for _, g := range gots {
			if a >= g.Addr && a < g.Addr+g.Size {
				return true
			}
		}
		return false
	}
	syms, _ := ef.DynamicSymbols() // index i+1 in r_info: the null symbol is omitted
	out := map[uint64]uint64{}
	for ; len(data) >= 24; data = data[24:] {
		off := ef.ByteOrder.Uint64(data)
		if !inGOT(off) {
			continue
		}
		info := ef.ByteOrder.Uint64(data[8:])
		addend := int64(ef.ByteOrder.Uint64(data[16:]))
		switch elf.R_X86_64(info & 0xffffffff) {
		case elf.R_X86_64_RELATIVE:
			out[off] = uint64(addend)
		case elf.R_X86_64_GLOB_DAT, elf.R_X86_64_64:
			i := int(info>>32) - 1
			if i >= 0 && i < len(syms) && syms[i].Section != elf.SHN_UNDEF && syms[i].Value != 0 {
				out[off] = syms[i].Value + uint64(addend)
			}
		}
	}
	return out
}

// storeOnly reports whether op's first operand, when in memory, is written
// without being read.
func storeOnly(op x86asm.Op) bool {
	switch op {
	case x86asm.MOV, x86asm.MOVSS, x86asm.MOVSD, x86asm.MOVSD_XMM, x86asm.MOVAPS, x86asm.MOVUPS,
		x86asm.MOVAPD, x86asm.MOVUPD, x86asm.MOVDQA, x86asm.MOVDQU, x86asm.MOVQ, x86asm.MOVD,
		x86asm.MOVNTI, x86asm.MOVNTDQ, x86asm.MOVNTPS, x86asm.MOVNTPD, x86asm.MOVHPS, x86asm.MOVLPS,
		x86asm.POP,
		x86asm.SETA, x86asm.SETAE, x86asm.SETB, x86asm.SETBE, x86asm.SETE, x86asm.SETG, x86asm.SETGE,
		x86asm.SETL, x86asm.SETLE, x86asm.SETNE, x86asm.SETNO, x86asm.SETNP, x86asm.SETNS, x86asm.SETO,
		x86asm.SETP, x86asm.SETS:
		return true
	}
	return false
}

// codeMap maps disjoint PC ranges [lo[i], hi[i]) to the function executing
// there, sorted by lo.
type codeMap struct {
	lo, hi []uint64
	fn     []model.FuncID
}

// find returns the index of the range holding pc, or -1.
func (m *codeMap) find(pc uint64) int {
	i := sort.Search(len(m.lo), func(i int) bool { return m.hi[i] > pc })
	if i < len(m.lo) && pc >= m.lo[i] {
		return i
	}
	return -1
}

// innermostFuncs paints the out-of-line ranges of s.Funcs and the ranges of
// s.Inlines into disjoint ranges, each owned by the deepest instance
// covering it (the innermost inlined function executing there; on equal
// depth, the lower FuncID, for determinism).
func innermostFuncs(s *model.Schema) codeMap {
	type event struct {
		pc    uint64
		fn    model.FuncID
		depth int32
		start bool
	}
	// Sized at once: grown by appends, the events were half of this
	// function's allocations on redis-server.
	nr := 0
	for i := range s.Funcs {
		nr += len(s.Funcs[i].Ranges)
	}
	for i := range s.Inlines {
		nr += len(s.Inlines[i].Ranges)
	}
	ev := make([]event, 0, 2*nr)
	add := func(fn model.FuncID, depth int32, rs []model.PCRange) {
		for _, r := range rs {
			if r.Hi > r.Lo {
				ev = append(ev, event{r.Lo, fn, depth, true}, event{r.Hi, fn, depth, false})
			}
		}
	}
	for i := range s.Funcs {
		add(model.FuncID(i), 0, s.Funcs[i].Ranges)
	}
	for i := range s.Inlines {
		add(s.Inlines[i].Func, s.Inlines[i].Depth, s.Inlines[i].Ranges)
	}
	// By PC, ends before starts at one PC. The order among equal events
	// does not change the map (the deepest, then lowest, FuncID wins),
	// so a radix sort of pc<<1|start serves, when PCs leave the bit.
	radix := true
	for i := range ev {
		if ev[i].pc >= 1<<63 {
			radix = false
			break
		}
	}
	if radix {
		order := stableOrder(len(ev), func(i int32) uint64 {
			k := ev[i].pc << 1
			if ev[i].start {
				k |= 1
			}
			return k
		})
		sorted := make([]event, len(ev))
		for n, i := range order {
			sorted[n] = ev[i]
		}
		ev = sorted
	} else {
		slices.SortFunc(ev, func(a, b event) int {
			switch {
			case a.pc != b.pc:
				return cmp.Compare(a.pc, b.pc)
			case a.start != b.start:
				if !a.start {
					return -1 // ends before starts at one PC
				}
				return 1
			}
			return 0
		})
	}
	type live struct {
		fn    model.FuncID
		depth int32
	}
	var act []live
	// At most one range per event; usually a few times fewer.
	m := codeMap{lo: make([]uint64, 0, len(ev)/4), hi: make([]uint64, 0, len(ev)/4), fn: make([]model.FuncID, 0, len(ev)/4)}
	for k := 0; k < len(ev); {
		pc := ev[k].pc
		for ; k < len(ev) && ev[k].pc == pc; k++ {
			e := ev[k]
			if e.start {
				act = append(act, live{e.fn, e.depth})
			} else if p := slices.Index(act, live{e.fn, e.depth}); p >= 0 {
				act = slices.Delete(act, p, p+1)
			}
		}
		// Close the open range; open the next one.
		if n := len(m.lo); n > 0 && m.hi[n-1] == ^uint64(0) {
			m.hi[n-1] = pc
			if m.hi[n-1] == m.lo[n-1] {
				m.lo, m.hi, m.fn = m.lo[:n-1], m.hi[:n-1], m.fn[:n-1]
			}
		}
		if len(act) == 0 {
			continue
		}
		best := act[0]
		for _, a := range act[1:] {
			if a.depth > best.depth || (a.depth == best.depth && a.fn < best.fn) {
				best = a
			}
		}
		if n := len(m.lo); n > 0 && m.hi[n-1] == pc && m.fn[n-1] == best.fn {
			m.hi[n-1] = ^uint64(0) // same function continues
			continue
		}
		m.lo, m.hi, m.fn = append(m.lo, pc), append(m.hi, ^uint64(0)), append(m.fn, best.fn)
	}
	return m
}

// wholeGlobal reports a Loc of a global or static (or a field of one)
// valid over the whole program: what narrowGlobals narrows.
func wholeGlobal(s *model.Schema, l *model.Loc) bool {
	return l.Kind == model.LocAddr && l.PCStart == 0 && l.PCEnd == ^uint64(0) && s.Vars[l.Var].Func == model.NoFunc
}

// glob is a global narrowGlobals narrows: its storage [lo, hi), its Var
// and whole-program Loc.
type glob struct {
	lo, hi uint64
	v      model.VarID
	loc    int
	agg    bool // an aggregate: code reaches it through its address
}

// globalSet is what narrowGlobals needs to find reads of globals in code:
// the globals by address, the GOT's slots and the text. The tagger makes
// it before tagging and records each function's reads while it has the
// function's instructions decoded (graphReads), so that narrowGlobals
// need not decode the code again.
type globalSet struct {
	gs    []glob // sorted by lo
	sizes map[uint64]uint64
	got   map[uint64]uint64
	text  []*elf.Section
	data  [][]byte

	// scanned[f]: reads[f] are function f's reads (the tagger's).
	scanned []bool
	reads   [][]globalRead

	// spareLocs is room narrowGlobals leaves in its copy of the Locs for
	// those added after it (the walks, D118): an append past the copy's
	// capacity would copy every Loc once more, at the load's peak.
	spareLocs int
}

// globalRead is an instruction at pc reading memory at ea, inside a
// global's storage. An address taken (lea, a GOT slot loaded) is read
// through by the instructions that follow (how: readYes, readNo), or only
// if the global is an aggregate (readIfAggregate, see readsThrough).
type globalRead struct {
	pc, ea uint64
	how    uint8
}

const (
	readYes uint8 = iota
	readNo
	readIfAggregate
)

// reads reports whether r reads a global that is an aggregate or not.
func (r globalRead) reads(aggregate bool) bool {
	return r.how == readYes || (r.how == readIfAggregate && aggregate)
}

// newGlobalSet finds the globals of s (wholeGlobal Locs of Vars that are
// not fields) and their extents: an ELF object symbol's size, else the
// value's size. It takes what does not depend on s from from, if not nil.
func newGlobalSet(s *model.Schema, ef *elf.File, from *globalSet) *globalSet {
	gl := &globalSet{}
	for i := range s.Locs {
		l := &s.Locs[i]
		if !wholeGlobal(s, l) || s.Vars[l.Var].Field != nil {
			continue
		}
		gl.gs = append(gl.gs, glob{lo: l.Addr, hi: l.Addr + 1, v: l.Var, loc: i,
			agg: s.Vars[l.Var].Kind == model.KindAggregate})
	}
	if len(gl.gs) == 0 {
		return gl
	}
	if from != nil && from.sizes != nil {
		gl.sizes, gl.got, gl.text, gl.data = from.sizes, from.got, from.text, from.data
	} else {
		gl.sizes = objectSizes(ef)
		gl.readText(ef)
	}
	sizes := gl.sizes
	gs := gl.gs
	for i := range gs {
		n := sizes[gs[i].lo]
		if n == 0 {
			n = uint64(max(s.Vars[gs[i].v].Size, s.Locs[gs[i].loc].Size, 1))
		}
		gs[i].hi = gs[i].lo + n
	}
	sort.Slice(gs, func(i, j int) bool { return gs[i].lo < gs[j].lo })
	return gl
}

// objectSizes maps the address of each data object of ef's symbol table
// (STT_OBJECT, STT_TLS) to its largest size. It reads the table's entries
// as ef.Symbols would, from the same section, and where Symbols fails
// (no table, a bad length, no string table) it finds none; but it makes
// no names (Symbols' one string per symbol, 14,000 allocations per load of
// redis-server, were read by nothing here).
func objectSizes(ef *elf.File) map[uint64]uint64 {
	sizes := map[uint64]uint64{}
	sec := ef.SectionByType(elf.SHT_SYMTAB)
	if sec == nil {
		return sizes
	}
	data, err := sec.Data()
	if err != nil || len(data) == 0 || len(data)%elf.Sym64Size != 0 {
		return sizes
	}
	if sec.Link <= 0 || int(sec.Link) >= len(ef.Sections) {
		return sizes
	}
	if _, err := ef.Sections[sec.Link].Data(); err != nil {
		return sizes
	}
	bo := ef.ByteOrder
	for data = data[elf.Sym64Size:]; len(data) > 0; data = data[elf.Sym64Size:] {
		if t := elf.ST_TYPE(data[4]); t != elf.STT_OBJECT && t != elf.STT_TLS {
			continue
		}
		value, size := bo.Uint64(data[8:16]), bo.Uint64(data[16:24])
		if size > sizes[value] {
			sizes[value] = size
		}
	}
	return sizes
}

// readText reads the GOT's slots and the executable sections of ef.
func (gl *globalSet) readText(ef *elf.File) {
	gl.got = gotTargets(ef)
	for _, sec := range ef.Sections {
		if sec.Type == elf.SHT_PROGBITS && sec.Flags&elf.SHF_EXECINSTR != 0 {
			gl.text = append(gl.text, sec)
		}
	}
	// The text is read before the workers start (they share it).
	gl.data = make([][]byte, len(gl.text))
	for i, sec := range gl.text {
		gl.data[i], _ = sectionData(sec)
	}
}

// find returns the index in gs of the global holding address a, or -1.
func (gl *globalSet) find(a uint64) int {
	gs := gl.gs
	i := sort.Search(len(gs), func(i int) bool { return gs[i].hi > a })
	if i < len(gs) && a >= gs[i].lo {
		return i
	}
	return -1
}

// code returns the text of r, or nil when r is not in one executable
// section.
func (gl *globalSet) code(r model.PCRange) []byte {
	for i, sec := range gl.text {
		if r.Lo >= sec.Addr && r.Hi <= sec.Addr+sec.Size {
			b := gl.data[i]
			if uint64(len(b)) < r.Hi-sec.Addr {
				return nil
			}
			return b[r.Lo-sec.Addr : r.Hi-sec.Addr]
		}
	}
	return nil
}

// decodeOld appends the instructions of b (at address pc) up to offset
// end, as narrowGlobals has always decoded code: a byte that does not
// decode is skipped. It returns the offset reached.
func decodeOld(dst []decoded, pc uint64, b []byte, end int) ([]decoded, int) {
	off := 0
	for off < end && off < len(b) {
		dst = append(dst, decoded{PC: pc + uint64(off)})
		in := &dst[len(dst)-1].Inst
		if err := cfg.DecodeInto(in, b[off:]); err != nil || in.Len == 0 {
			dst = dst[:len(dst)-1]
			off++
			continue
		}
		off += in.Len
	}
	return dst, off
}

// appendReads appends the reads of globals by insts, one range's
// instructions in order: memory operands (RIP-relative or absolute)
// inside a global's storage, other than a plain store's destination.
// window, if not nil, gives the instructions after insts[k] for
// readsThrough (the tagger's graphs hold endbr64 as one instruction).
func (gl *globalSet) appendReads(dst []globalRead, insts []decoded, window func(k int) []decoded) []globalRead {
	for k := range insts {
		in, pc := &insts[k].Inst, insts[k].PC
		next := pc + uint64(in.Len)
		for ai, a := range in.Args {
			if a == nil {
				break // both decoders fill Args from the first
			}
			m, ok := a.(x86asm.Mem)
			if !ok || (ai == 0 && storeOnly(in.Op)) {
				continue
			}
			// disp32 is sign-extended in 64-bit mode; x86asm
			// v0.32.0 zero-extends it.
			disp := int64(int32(m.Disp))
			var ea uint64
			switch {
			case m.Base == x86asm.RIP:
				ea = next + uint64(disp)
			case m.Base == 0 && m.Index == 0 && m.Segment == 0:
				ea = uint64(disp)
			default:
				continue
			}
			// Taking an address (lea, or loading it from the GOT in
			// PIC code) reads the global only if the address is
			// then read through.
			addrOnly := in.Op == x86asm.LEA
			if t, ok := gl.got[ea]; ok {
				ea, addrOnly = t, true
			}
			if gl.find(ea) < 0 {
				continue
			}
			how := readYes
			if addrOnly {
				reg, isReg := in.Args[0].(x86asm.Reg)
				if !isReg {
					continue
				}
				after := insts[k+1:]
				if window != nil {
					after = window(k)
				}
				how = readsThroughHow(after, reg)
			}
			dst = append(dst, globalRead{pc, ea, how})
		}
	}
	return dst
}

// graphReads appends the reads of globals in g, the tagger's graph of the
// function whose code is ranges, as appendReads finds them in the same
// code decoded apart. It reports false where the two decodings could
// differ (undecodable bytes, ranges merged, code outside the text), and
// the caller leaves the function to narrowGlobals.
func (gl *globalSet) graphReads(dst []globalRead, g *cfg.Graph, ranges []model.PCRange, buf *[]decoded) ([]globalRead, bool) {
	if g.BadBytes > 0 {
		return dst, false
	}
	n := 0
	for _, r := range ranges {
		if r.Hi == r.Lo {
			continue
		}
		if r.Hi < r.Lo {
			return dst, false
		}
		if n >= len(g.Ranges) || g.Ranges[n].Lo != r.Lo || g.Ranges[n].Hi != r.Hi {
			return dst, false
		}
		n++
	}
	if n != len(g.Ranges) {
		return dst, false
	}
	at := 0
	for _, r := range g.Ranges {
		b := gl.code(model.PCRange{Lo: r.Lo, Hi: r.Hi})
		if b == nil {
			return dst, false
		}
		first := at
		for at < len(g.Insts) && g.Insts[at].PC < r.Hi {
			at++
		}
		span := g.Insts[first:at]
		// The graph holds endbr64 as one no-op; decoded apart it is
		// what cfg.DecodeInto makes of its bytes. Both must meet
		// again after it, and neither part be a memory operand.
		endbr := func(i int) bool {
			in := &span[i]
			return in.Op == x86asm.NOP && in.Len == 4 && cfg.IsEndbr(b[in.PC-r.Lo:])
		}
		hasEndbr := false
		for i := range span {
			if !endbr(i) {
				continue
			}
			hasEndbr = true
			off := int(span[i].PC - r.Lo)
			var reached int
			*buf, reached = decodeOld((*buf)[:0], span[i].PC, b[off:], 4)
			if reached != 4 {
				return dst, false
			}
			for _, d := range *buf {
				for _, a := range d.Args {
					if _, ok := a.(x86asm.Mem); ok {
						return dst, false
					}
				}
			}
		}
		insts := span
		var window func(k int) []decoded
		if hasEndbr {
			window = func(k int) []decoded {
				w := (*buf)[:0]
				for j := k + 1; j < len(span) && len(w) < 8; j++ {
					if endbr(j) {
						off := int(span[j].PC - r.Lo)
						w, _ = decodeOld(w, span[j].PC, b[off:], 4)
						continue
					}
					w = append(w, insts[j])
				}
				*buf = w
				return w
			}
		}
		dst = gl.appendReads(dst, insts, window)
	}
	return dst, true
}

// decoded is one instruction at its address.
type decoded = cfg.Inst

// readsThroughHow says whether an address just placed in reg is read
// through by the instructions that follow: the first use of reg as a
// memory base or index within a few instructions decides (a plain store
// through it is no read). An address used otherwise (passed to a call,
// stored) counts as a read of an aggregate, which code reaches through its
// base address, and not of a scalar, whose address is merely taken.
//
// It returns readYes, readNo, or readIfAggregate when no use decides.
func readsThroughHow(after []decoded, reg x86asm.Reg) uint8 {
	for k := 0; k < len(after) && k < 8; k++ {
		in := &after[k].Inst
		for ai, a := range in.Args {
			if m, ok := a.(x86asm.Mem); ok && (m.Base == reg || m.Index == reg) {
				if ai == 0 && storeOnly(in.Op) {
					return readNo
				}
				return readYes
			}
		}
		if d, ok := in.Args[0].(x86asm.Reg); ok && d == reg && in.Op != x86asm.CMP && in.Op != x86asm.TEST {
			break // reg is overwritten before any use as an address
		}
	}
	return readIfAggregate
}
