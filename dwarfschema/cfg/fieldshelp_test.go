package cfg

// Test helpers: the tagger builds its index with NewFieldList alone.

// NewFields indexes fields: m[key] is the variable of the field key.
func NewFields(m map[FieldKey]int32) *Fields {
	list := make([]FieldVar, 0, len(m))
	for k, v := range m {
		list = append(list, FieldVar{k, v})
	}
	return NewFieldList(list)
}

// Add adds field key as variable v: it indexes all again.
func (f *Fields) Add(key FieldKey, v int32) {
	var list []FieldVar
	for p := int32(0); int(p) < len(f.ptrs)*64; p++ {
		if !f.isPtr(p) {
			continue
		}
		r := f.rankOf(p)
		for i := f.start[r]; i < f.start[r+1]; i++ {
			list = append(list, FieldVar{FieldKey{p, f.offs[i]}, f.vars[i]})
		}
	}
	*f = *NewFieldList(append(list, FieldVar{key, v}))
}
