package dwarfschema

import (
	"cmp"
	"debug/dwarf"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/vprof/vprof/dwarfschema/cfg"
	"github.com/vprof/vprof/runtime/model"
)

// MaxFields bounds the field variables of one struct variable (method.md
// §2, D130): the scalar fields its functions' code reads or writes first,
// then the others in declaration order, nested structs (one level) and
// C++ base classes flattened in place. With the sampler's per-sample cap
// (sampler.MaxFieldReads) it is the per-sample budget of fields.
const MaxFields = 16

// maxCandFields bounds the fields of one struct variable that the tagger
// sees before MaxFields of them are kept (useExtras, trimFields); a
// struct's fields past it are never sampled. On redis-server no field
// past the 128th is among those kept, a bound of 64 loses 94 tagged ones,
// and 1024 keeps the same as 128 (D130). Those of a struct in memory are
// variables while the tagger runs (their Locs are the struct's); those
// behind a pointer past the first MaxFields are extraFields only.
const maxCandFields = 128

// fieldDef is one scalar field of a struct type.
type fieldDef struct {
	name string // "n_free", "stat.n_conn", "m_queries.size()"
	off  int64
	ti   typeInfo
	elem int64 // a std::vector's length: its element size (model.Field.Elem)
}

// fieldSet is the scalar fields of a struct type; complete when they cover
// every data member (no bitfield, array, deeper struct or member past the
// cap was left out).
type fieldSet struct {
	fields   []fieldDef
	complete bool
	vectors  bool // some field is a vector's length (elem > 0)
	self     bool // the record is a container: its one field is its length
	scalars  *fieldSet
}

// scalarsOnly returns fs without its vector lengths (memoized).
func (fs *fieldSet) scalarsOnly() *fieldSet {
	if !fs.vectors {
		return fs
	}
	if fs.scalars == nil {
		fs.scalars = &fieldSet{complete: fs.complete}
		for _, f := range fs.fields {
			if f.elem == 0 {
				fs.scalars.fields = append(fs.scalars.fields, f)
			}
		}
	}
	return fs.scalars
}

// isRecord reports a struct, class or union type.
func isRecord(t *typeRec) bool {
	return t != nil && (t.tag == dwarf.TagStructType || t.tag == dwarf.TagClassType || t.tag == dwarf.TagUnionType)
}

// definition returns the complete type for a declaration-only struct
// (a class defined in another unit), found by name; t itself otherwise.
func (l *loader) definition(t *typeRec) *typeRec {
	if t.size >= 0 || len(t.members) > 0 || t.name == "" {
		return t
	}
	if l.recordByName == nil {
		l.recordByName = map[recordKey]int32{}
		for i := range l.types.len() {
			r := l.types.at(i)
			if isRecord(r) && r.size > 0 && r.name != "" {
				k := recordKey{r.tag, r.name}
				if _, ok := l.recordByName[k]; !ok {
					l.recordByName[k] = int32(i)
				}
			}
		}
	}
	if i, ok := l.recordByName[recordKey{t.tag, t.name}]; ok {
		return l.types.at(int(i))
	}
	return t
}

type recordKey struct {
	tag  dwarf.Tag
	name string
}

// fieldsOf lists the scalar fields of the struct, class or union type at
// off (none for any other type), memoized.
func (l *loader) fieldsOf(off dieOff, cpp bool, tmemo map[dieOff]typeInfo, fmemo map[dieOff]*fieldSet) *fieldSet {
	if fs, ok := fmemo[off]; ok {
		return fs
	}
	fs := &fieldSet{complete: true}
	fmemo[off] = fs
	t := l.strip(off)
	if !isRecord(t) {
		fs.complete = false
		return fs
	}
	t = l.definition(t)
	if d, ok := l.containerLen(t); ok {
		// A pointer or reference to a container itself: `v->size()`.
		d.name = strings.TrimPrefix(model.ContainerSize, ".")
		fs.fields = append(fs.fields, d)
		fs.complete, fs.vectors, fs.self = false, d.elem > 0, true
		return fs
	}
	l.addFields(fs, t, "", 0, 0, cpp, tmemo)
	if len(fs.fields) == 0 {
		fs.complete = false
	}
	return fs
}

// addFields appends the scalar members of record t at offset base, named
// with prefix; depth counts the nested structs entered (one level).
func (l *loader) addFields(fs *fieldSet, t *typeRec, prefix string, base int64, depth int, cpp bool, tmemo map[dieOff]typeInfo) {
	for _, m := range t.members {
		if len(fs.fields) == maxCandFields {
			fs.complete = false
			return
		}
		if m.bits || !m.hasType {
			fs.complete = false
			continue
		}
		k, size := l.kindOf(m.typ)
		off := base + m.off
		if k == model.KindAggregate {
			st := l.strip(m.typ)
			if !isRecord(st) {
				fs.complete = false // arrays, complex numbers
				continue
			}
			st = l.definition(st)
			if d, ok := l.containerLen(st); ok && m.name != "" && !m.inherit {
				// A C++ container member: its length, in place of its
				// pointers and nested counts (D266).
				d.name, d.off = prefix+m.name+model.ContainerSize, off+d.off
				fs.fields = append(fs.fields, d)
				fs.complete, fs.vectors = false, fs.vectors || d.elem > 0
				continue
			}
			switch {
			case m.inherit || m.name == "":
				// A base class's members, and those of an anonymous
				// struct or union, are named as the outer struct's.
				if depth < 2 {
					l.addFields(fs, st, prefix, off, depth+1, cpp, tmemo)
					continue
				}
			case depth == 0:
				l.addFields(fs, st, prefix+m.name+".", off, 1, cpp, tmemo)
				continue
			}
			fs.complete = false
			continue
		}
		if m.name == "" || size <= 0 || size > 16 {
			fs.complete = false
			continue
		}
		fs.fields = append(fs.fields, fieldDef{name: prefix + m.name, off: off, ti: l.resolveType(m.typ, true, cpp, tmemo)})
	}
}

// pointeeRecord returns the type a pointer or reference type at off
// points to when it is a struct, class or union; false otherwise.
func (l *loader) pointeeRecord(off dieOff) (dieOff, bool) {
	t := l.strip(off)
	if t == nil || !t.hasType {
		return 0, false
	}
	switch t.tag {
	case dwarf.TagPointerType, dwarf.TagReferenceType, dwarf.TagRvalueReferenceType:
	default:
		return 0, false
	}
	if !isRecord(l.strip(t.typ)) {
		return 0, false
	}
	return t.typ, true
}

// inheritFieldTags gives each field of a struct global its struct's tags,
// on top of its own (method.md §2). A field behind a pointer keeps its own
// tags only, so that it is monitored where the function itself compares
// it, loops on it or passes it on (clients->len in the function whose
// loop runs clients->len times), not wherever a pointer to its struct is
// passed or tested: inherited, every field of a pointer passed to a call
// is monitored in the caller too, and the callers and callees of the root
// cause get r = 0 from the sizes of shared structures (vprof-eval, 7
// programs x 3 trials: the root cause 1st in 8 of 21 with inherited tags,
// 13 of 21 with own tags, as without fields; docs/method.md, Decisions).
//
// A field of a struct local or parameter (held in a frame slot) counts
// only where the function's own code stores it (stored, by VarID, from
// the tagger): then it has the struct's tags on top of its own; a field
// only callees fill (an out-parameter: a brigade, a link's attributes
// filled by the call it is passed to) holds their results, not values
// the function made, and is not monitored (method.md D30). That holds
// where the struct lies in memory, whose address a callee can be given;
// a field of a struct parameter passed by value (its caller's value, an
// input of the function as a scalar parameter is) or of a struct local
// held only in registers (no callee can fill them) that the function
// does not store keeps its own tags, as a field behind a pointer does
// (method.md D325): `match.match_length` compared by the function.
func inheritFieldTags(s *model.Schema, stored []bool) {
	var inMem []bool // struct locals with a location in memory
	for i := range s.Vars {
		f := s.Vars[i].Field
		if f == nil || f.Of < 0 || f.Deref {
			continue
		}
		if of := &s.Vars[f.Of]; of.Func != model.NoFunc && !of.Static {
			if i >= len(stored) || !stored[i] {
				if of.Param {
					continue
				}
				if inMem == nil {
					inMem = make([]bool, len(s.Vars))
					for k := range s.Locs {
						if memLoc(s.Locs[k].Kind) {
							inMem[s.Locs[k].Var] = true
						}
					}
				}
				if !inMem[f.Of] {
					continue
				}
				s.Vars[i].Tags = 0
				continue
			}
		}
		s.Vars[i].Tags |= s.Vars[f.Of].Tags
	}
}

// dropReplaced removes the struct globals whose fields cover every member
// (replaced, by VarID): the fields carry all their value, each in all three
// dimensions, where the struct's hash had duration only.
func dropReplaced(s *model.Schema, replaced []bool) {
	keep := make([]bool, len(s.Vars))
	any := false
	for i := range s.Vars {
		r := i < len(replaced) && replaced[i]
		keep[i] = !r
		any = any || r
	}
	if any {
		keepVars(s, keep)
	}
}

// trimFields keeps MaxFields fields of each struct variable (method.md §2,
// D130): those the code reads or writes (read, by VarID, from the tagger:
// through the pointer, or at the struct's address), then the others in
// declaration order (decl, by VarID). The evidence of a loop's exit test
// often sits in a field past a large struct's first 16 (libuv's
// loop->time at 0x220). It returns each old VarID's new one (keepVars),
// nil if nothing was removed.
func trimFields(s *model.Schema, read []bool, decl []int32) []model.VarID {
	count := make([]int32, len(s.Vars)) // fields per struct or pointer
	for i := range s.Vars {
		if f := s.Vars[i].Field; f != nil && f.Of >= 0 {
			count[f.Of]++
		}
	}
	groups := map[model.VarID][]model.VarID{}
	for i := range s.Vars {
		if f := s.Vars[i].Field; f != nil && f.Of >= 0 && count[f.Of] > MaxFields {
			groups[f.Of] = append(groups[f.Of], model.VarID(i))
		}
	}
	if len(groups) == 0 {
		return nil
	}
	keep := make([]bool, len(s.Vars))
	for i := range keep {
		keep[i] = true
	}
	isRead := func(v model.VarID) bool { return int(v) < len(read) && read[v] }
	at := func(v model.VarID) int32 {
		if int(v) < len(decl) {
			return decl[v]
		}
		return 0
	}
	for _, g := range groups {
		slices.SortStableFunc(g, func(a, b model.VarID) int {
			if ra, rb := isRead(a), isRead(b); ra != rb {
				if ra {
					return -1
				}
				return 1
			}
			return cmp.Compare(at(a), at(b))
		})
		for _, v := range g[MaxFields:] {
			keep[v] = false
		}
	}
	return keepVars(s, keep)
}

// useExtras writes the candidate fields behind pointers past the first
// MaxFields (extras, tagged by virtual VarIDs: xtags) that the code reads
// over the pointer's fields it does not read, latest in declaration order
// first (D130), and updates read and decl with them. A pointer's fields
// have no Locs and are the contiguous run of the names it prefixes, so
// they are rewritten in place and the run sorted by name again: no
// VarID changes. It returns read.
func useExtras(s *model.Schema, read []bool, decl []int32, extras []extraField, xtags []cfg.Tags) []bool {
	if len(xtags) == 0 || len(decl) < len(s.Vars) {
		return read
	}
	byPtr := map[model.VarID][]int{}
	for k := range extras {
		if xtags[k]&cfg.TagRead != 0 {
			byPtr[extras[k].ptr] = append(byPtr[extras[k].ptr], k)
		}
	}
	if len(byPtr) == 0 {
		return read
	}
	if len(read) < len(s.Vars) {
		read = append(read, make([]bool, len(s.Vars)-len(read))...)
	}
	slots := map[model.VarID][]model.VarID{}
	for i := range s.Vars {
		if f := s.Vars[i].Field; f != nil && f.Deref && len(byPtr[f.Of]) > 0 {
			slots[f.Of] = append(slots[f.Of], model.VarID(i))
		}
	}
	at := func(v model.VarID) int32 {
		if int(v) < len(decl) {
			return decl[v]
		}
		return 0
	}
	isRead := func(v model.VarID) bool { return int(v) < len(read) && read[v] }
	for ptr, xs := range byPtr {
		sl := slots[ptr]
		// The unread fields, latest first, give way to the read extras
		// (in declaration order) while there are both.
		var free []model.VarID
		for _, v := range sl {
			if !isRead(v) {
				free = append(free, v)
			}
		}
		slices.SortFunc(free, func(a, b model.VarID) int { return cmp.Compare(at(b), at(a)) })
		slices.SortFunc(xs, func(a, b int) int { return cmp.Compare(extras[a].decl, extras[b].decl) })
		pv := &s.Vars[ptr]
		for i := 0; i < len(xs) && i < len(free); i++ {
			e, v := &extras[xs[i]], &s.Vars[free[i]]
			v.Name = pv.Name + e.sep() + e.def.name
			v.Type, v.Kind, v.Size = e.def.ti.spell, e.def.ti.kind, e.def.ti.size
			v.Field.Offset, v.Field.Elem = e.def.off, e.def.elem
			v.Tags = model.Tags(xtags[xs[i]] &^ (cfg.TagStored | cfg.TagCounter | cfg.TagRead))
			read[free[i]] = true
			decl[free[i]] = e.decl
		}
		// The run in name order again (sortVarIDs' order within one
		// function, file and line).
		vs := make([]model.Var, len(sl))
		type aux struct {
			read bool
			decl int32
		}
		ax := make([]aux, len(sl))
		idx := make([]int, len(sl))
		for i, v := range sl {
			vs[i], ax[i], idx[i] = s.Vars[v], aux{isRead(v), at(v)}, i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return strings.Compare(vs[a].Name, vs[b].Name) })
		for i, v := range sl {
			s.Vars[v] = vs[idx[i]]
			read[v], decl[v] = ax[idx[i]].read, ax[idx[i]].decl
		}
	}
	return read
}

// containerKinds names the libstdc++ containers whose length a field
// holds (method.md §2, D266), by their class template's name in
// namespace std (or std::__cxx11), with the
// data member that holds it: a count that the container keeps, or, for
// std::vector, "" for its begin and end pointers (_M_start, _M_finish).
// std::deque (a map of blocks) has neither and is left out.
var containerKinds = []struct{ prefix, count string }{
	{"vector<", ""},
	{"basic_string<", "_M_string_length"},
	{"list<", "_M_size"},
	{"map<", "_M_node_count"},
	{"multimap<", "_M_node_count"},
	{"set<", "_M_node_count"},
	{"multiset<", "_M_node_count"},
	{"unordered_map<", "_M_element_count"},
	{"unordered_multimap<", "_M_element_count"},
	{"unordered_set<", "_M_element_count"},
	{"unordered_multiset<", "_M_element_count"},
}

// maxContainerDepth bounds the nested members and base classes searched
// for a container's count: std::map keeps it four levels down
// (_M_t._M_impl._Rb_tree_header._M_node_count).
const maxContainerDepth = 5

// containerLen recognises a libstdc++ container from DWARF, by its
// class's name and its members' names (D266), and returns its length
// field at the container's offset 0 (no name yet): the count member's
// offset and type, or for a std::vector the offset of _M_start and the
// element size, _M_finish being the next word. The schema flattens one
// level of nested structs; a container nests its count two to four, and
// a vector has none, only pointers, which are compared as null or not:
// the length that a loop over the container walks was never sampled.
func (l *loader) containerLen(t *typeRec) (fieldDef, bool) {
	if t == nil || !isRecord(t) || t.size <= 0 {
		return fieldDef{}, false
	}
	// Qualified (std::vector<...>, std::__cxx11::basic_string<...>).
	name, ok := strings.CutPrefix(t.name, "std::")
	if !ok {
		return fieldDef{}, false
	}
	name = strings.TrimPrefix(name, "__cxx11::")
	for _, k := range containerKinds {
		if !strings.HasPrefix(name, k.prefix) {
			continue
		}
		if k.count != "" {
			m, off, ok := l.findMember(t, k.count, 0, 0)
			if !ok {
				return fieldDef{}, false
			}
			kd, size := l.kindOf(m.typ)
			if kd != model.KindUint && kd != model.KindInt || size != 8 {
				return fieldDef{}, false
			}
			return fieldDef{off: off, ti: typeInfo{kind: model.KindUint, size: 8, spell: "size_t"}}, true
		}
		ms, so, ok1 := l.findMember(t, "_M_start", 0, 0)
		mf, fo, ok2 := l.findMember(t, "_M_finish", 0, 0)
		if !ok1 || !ok2 || fo != so+8 {
			return fieldDef{}, false
		}
		ps, pf := l.strip(ms.typ), l.strip(mf.typ)
		if ps == nil || pf == nil || ps.tag != dwarf.TagPointerType || pf.tag != dwarf.TagPointerType || ps.size > 0 && ps.size != 8 || !ps.hasType {
			return fieldDef{}, false
		}
		et := l.strip(ps.typ)
		if et != nil && et.size <= 0 {
			et = l.definition(et)
		}
		if et == nil || et.size <= 0 {
			return fieldDef{}, false
		}
		return fieldDef{off: so, ti: typeInfo{kind: model.KindUint, size: 8, spell: "size_t"}, elem: et.size}, true
	}
	return fieldDef{}, false
}

// findMember finds the data member named name in record t or in its
// members and base classes that are records, depth first, at most
// maxContainerDepth levels down; off is its offset in t.
func (l *loader) findMember(t *typeRec, name string, base int64, depth int) (memberRec, int64, bool) {
	if depth > maxContainerDepth || t == nil {
		return memberRec{}, 0, false
	}
	for _, m := range t.members {
		if m.bits || !m.hasType {
			continue
		}
		if !m.inherit && m.name == name {
			return m, base + m.off, true
		}
	}
	for _, m := range t.members {
		if m.bits || !m.hasType {
			continue
		}
		if st := l.strip(m.typ); isRecord(st) {
			if r, off, ok := l.findMember(l.definition(st), name, base+m.off, depth+1); ok {
				return r, off, true
			}
		}
	}
	return memberRec{}, 0, false
}

// Test hooks: eagerMembers makes the walk read every C record's members
// (as before neededMembers), scanEveryEntry makes the call-site scan read
// every entry; lazyLeft counts the records whose members were never read.
var (
	eagerMembers, scanEveryEntry bool
	lazyLeft                     atomic.Int64
)

// neededMembers reads the members the walk skipped (typeRec.lazy) of the
// records that expandFields can reach: those of a variable's type or its
// pointee (fieldsOf), their definitions by name (definition), and the
// records among their members, at any depth (addFields' nested structs,
// containerLen's findMember). A superset of what build reads, so that
// build sees the members the eager walk gave; the rest of a C program's
// repeated struct definitions are never decoded (nginx: 4,343 of 6,175).
// It runs after the walk, while the sections are still held.
func (l *loader) neededMembers() error {
	var queue []*typeRec
	add := func(t *typeRec) {
		if isRecord(t) && !t.seen {
			t.seen = true
			queue = append(queue, t)
		}
	}
	for i := range l.vars.len() {
		vr := l.vars.at(i)
		if !vr.hasType {
			continue
		}
		t := l.strip(vr.typ)
		if t == nil {
			continue
		}
		switch t.tag {
		case dwarf.TagPointerType, dwarf.TagReferenceType, dwarf.TagRvalueReferenceType:
			if t.hasType {
				add(l.strip(t.typ))
			}
		default:
			add(t)
		}
	}
	var rd [2]*dieReader // of the main file, of the supplementary file
	for len(queue) > 0 {
		t := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if t.lazy {
			if err := l.readMembers(t, &rd); err != nil {
				return err
			}
		}
		if d := l.definition(t); d != t {
			add(d)
		}
		for _, m := range t.members {
			if m.hasType {
				add(l.strip(m.typ))
			}
		}
	}
	left := 0
	for i := range l.types.len() {
		t := l.types.at(i)
		t.seen = false
		if t.lazy {
			left++
		}
	}
	lazyLeft.Add(int64(left))
	return nil
}

// readMembers reads the members of a record the walk skipped, with rd's
// reader of its file (made on first use).
func (l *loader) readMembers(t *typeRec, rd *[2]*dieReader) error {
	t.lazy = false
	w, base := l.w, l.base
	defer func() { l.w, l.base = w, base }()
	k := 0
	l.base = 0
	if t.off >= supBase {
		if l.w.sup == nil {
			return nil
		}
		k, l.w, l.base = 1, l.w.sup, supBase
	}
	if rd[k] == nil {
		rd[k] = l.w.dies.reader(0, math.MaxUint64)
	}
	r := rd[k]
	if !r.seek(uint64(t.off - l.base)) {
		return nil
	}
	e, err := r.next()
	if err != nil {
		return fmt.Errorf("reading DWARF: %w", err)
	}
	if e == nil || l.base+dieOff(e.off) != t.off || !e.children {
		return nil
	}
	budget := len(l.w.info) + 1
	return l.cMembers(r, t, &budget)
}
