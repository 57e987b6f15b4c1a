package dwarfschema

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/vprof/vprof/runtime/model"
)

// A schema cache file's body (schemaFormat 2): the length of a JSON part
// (uvarint), the schema's JSON without its Funcs, Inlines, Vars, Locs and
// Lines, then those in binary. Those two are most of a schema (on
// redis-server 182,000 locations and 218,000 line rows, three quarters
// of its JSON; on gold, half), and encoding/json read them back about as slowly as Load
// builds them. A body decodes to the schema that a JSON round trip gives
// (an empty Expr is nil; Locs and Lines are nil only where they were),
// so that the profile files written from it are byte-identical.

// encodeSchemaBody encodes s as a cache file's body.
func encodeSchemaBody(s *model.Schema) ([]byte, error) {
	rest := *s
	rest.Locs, rest.Lines, rest.Vars, rest.Funcs, rest.Inlines = nil, nil, nil, nil, nil
	js, err := json.Marshal(&rest)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(js)+24*len(s.Locs)+8*len(s.Lines)+32)
	b = binary.AppendUvarint(b, uint64(len(js)))
	b = append(b, js...)
	b = appendPresence(b, s.Funcs == nil, len(s.Funcs))
	for i := range s.Funcs {
		f := &s.Funcs[i]
		b = appendString(b, f.Name)
		b = appendString(b, f.Display)
		b = binary.AppendVarint(b, int64(f.File))
		b = binary.AppendVarint(b, int64(f.Line))
		b = appendRanges(b, f.Ranges)
		b = binary.AppendUvarint(b, uint64(len(f.Blocks)))
		var prev uint64
		for _, x := range f.Blocks {
			b = binary.AppendVarint(b, int64(x-prev))
			prev = x
		}
		b = appendString(b, string(f.FrameBase))
	}
	b = appendPresence(b, s.Inlines == nil, len(s.Inlines))
	for i := range s.Inlines {
		in := &s.Inlines[i]
		b = binary.AppendVarint(b, int64(in.Func))
		b = appendRanges(b, in.Ranges)
		b = binary.AppendVarint(b, int64(in.Depth))
		b = binary.AppendVarint(b, int64(in.CallFile))
		b = binary.AppendVarint(b, int64(in.CallLine))
	}
	b = appendPresence(b, s.Vars == nil, len(s.Vars))
	for i := range s.Vars {
		v := &s.Vars[i]
		b = appendString(b, v.Name)
		b = binary.AppendVarint(b, int64(v.Func))
		b = binary.AppendVarint(b, int64(v.File))
		b = binary.AppendVarint(b, int64(v.Line))
		b = appendString(b, v.Type)
		flags := byte(0)
		if v.Param {
			flags |= 1
		}
		if v.Static {
			flags |= 2
		}
		if v.Field != nil {
			flags |= 4
		}
		if v.Field != nil && v.Field.Deref {
			flags |= 8
		}
		if v.Field != nil && v.Field.Elem != 0 {
			flags |= 16
		}
		b = append(b, byte(v.Kind), byte(v.Tags), byte(v.PointeeKind), flags)
		b = binary.AppendVarint(b, int64(v.Size))
		b = binary.AppendVarint(b, int64(v.PointeeSize))
		if v.Field != nil {
			b = binary.AppendVarint(b, int64(v.Field.Of))
			b = binary.AppendVarint(b, v.Field.Offset)
			if v.Field.Elem != 0 {
				b = binary.AppendVarint(b, v.Field.Elem)
			}
		}
	}
	b = appendPresence(b, s.Locs == nil, len(s.Locs))
	var pc uint64
	for i := range s.Locs {
		l := &s.Locs[i]
		b = binary.AppendVarint(b, int64(l.Var))
		b = binary.AppendVarint(b, int64(l.PCStart-pc))
		b = binary.AppendVarint(b, int64(l.PCEnd-l.PCStart))
		pc = l.PCStart
		flags := byte(0)
		if l.BasicTypePtr {
			flags = 1
		}
		if l.StrLen {
			flags |= 2
		}
		b = append(b, byte(l.Kind), flags)
		b = binary.AppendVarint(b, int64(l.Reg))
		b = binary.AppendVarint(b, l.Offset)
		b = binary.AppendUvarint(b, l.Addr)
		b = binary.AppendVarint(b, int64(l.Size))
		b = binary.AppendUvarint(b, uint64(len(l.Expr)))
		b = append(b, l.Expr...)
	}
	b = appendPresence(b, s.Lines == nil, len(s.Lines))
	pc = 0
	for _, r := range s.Lines {
		b = binary.AppendVarint(b, int64(r.PC-pc))
		pc = r.PC
		b = binary.AppendVarint(b, int64(r.File))
		b = binary.AppendVarint(b, int64(r.Line))
	}
	return b, nil
}

func appendString(b []byte, x string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(x))), x...)
}

// appendRanges appends rs, nil or not.
func appendRanges(b []byte, rs []model.PCRange) []byte {
	b = appendPresence(b, rs == nil, len(rs))
	var prev uint64
	for _, r := range rs {
		b = binary.AppendVarint(b, int64(r.Lo-prev))
		b = binary.AppendVarint(b, int64(r.Hi-r.Lo))
		prev = r.Lo
	}
	return b
}

// appendPresence appends 0 for a nil slice, else 1 and its length.
func appendPresence(b []byte, isNil bool, n int) []byte {
	if isNil {
		return append(b, 0)
	}
	return binary.AppendUvarint(append(b, 1), uint64(n))
}

var errBody = errors.New("bad schema body")

// bodyReader reads a body's binary part; the first error sticks.
type bodyReader struct {
	b   []byte
	err error
}

func (r *bodyReader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", errBody, what)
	}
	r.b = nil
}

func (r *bodyReader) varint(what string) int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail(what)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *bodyReader) uvarint(what string) uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail(what)
		return 0
	}
	r.b = r.b[n:]
	return v
}

// bytes reads a length and as many bytes (in r.b).
func (r *bodyReader) bytes(what string) []byte {
	k := r.uvarint(what)
	if r.err != nil || k > uint64(len(r.b)) {
		r.fail(what)
		return nil
	}
	x := r.b[:k]
	r.b = r.b[k:]
	return x
}

// ranges reads what appendRanges wrote, into blk where it fits.
func (r *bodyReader) ranges(what string, blk *[]model.PCRange) []model.PCRange {
	n := r.count(what, 2)
	if n < 0 {
		return nil
	}
	if cap(*blk)-len(*blk) < n {
		*blk = make([]model.PCRange, 0, max(1024, n))
	}
	start := len(*blk)
	var prev uint64
	for range n {
		lo := prev + uint64(r.varint(what))
		hi := lo + uint64(r.varint(what))
		prev = lo
		*blk = append(*blk, model.PCRange{Lo: lo, Hi: hi})
	}
	return (*blk)[start:len(*blk):len(*blk)]
}

// count reads a slice's presence and length: -1 for nil. Each element
// takes at least min bytes, so a length beyond what is left is damage.
func (r *bodyReader) count(what string, min int) int {
	if len(r.b) == 0 || r.b[0] > 1 {
		r.fail(what)
		return -1
	}
	present := r.b[0] == 1
	r.b = r.b[1:]
	if !present {
		return -1
	}
	n := r.uvarint(what)
	if r.err != nil || n > uint64(len(r.b)/min) {
		r.fail(what + " count")
		return -1
	}
	return int(n)
}

// decodeSchemaBody decodes what encodeSchemaBody wrote.
func decodeSchemaBody(body []byte) (*model.Schema, error) {
	r := &bodyReader{b: body}
	n := r.uvarint("JSON length")
	if r.err != nil || n > uint64(len(r.b)) {
		return nil, fmt.Errorf("%w: JSON part", errBody)
	}
	s := new(model.Schema)
	if err := json.Unmarshal(r.b[:n], s); err != nil {
		return nil, fmt.Errorf("bad schema: %v", err)
	}
	r.b = r.b[n:]
	var rblk []model.PCRange // the Funcs' and Inlines' ranges, cut from blocks
	if nf := r.count("funcs", 7); nf >= 0 {
		s.Funcs = make([]model.Func, nf)
		for i := range s.Funcs {
			f := &s.Funcs[i]
			f.Name = string(r.bytes("func name"))
			f.Display = string(r.bytes("func display"))
			f.File = int32(r.varint("func file"))
			f.Line = int32(r.varint("func line"))
			f.Ranges = r.ranges("func ranges", &rblk)
			nb := r.uvarint("func blocks")
			if r.err != nil || nb > uint64(len(r.b)) {
				r.fail("func blocks")
				break
			}
			if nb > 0 {
				f.Blocks = make([]uint64, nb)
				var prev uint64
				for k := range f.Blocks {
					prev += uint64(r.varint("func block"))
					f.Blocks[k] = prev
				}
			}
			if fb := r.bytes("func frame base"); len(fb) > 0 {
				f.FrameBase = append([]byte(nil), fb...)
			}
			if r.err != nil {
				break
			}
		}
	}
	// Inlines is omitted from the JSON when empty: nil, as JSON gives it.
	if ni := r.count("inlines", 5); ni > 0 && r.err == nil {
		s.Inlines = make([]model.Inline, ni)
		for i := range s.Inlines {
			in := &s.Inlines[i]
			in.Func = model.FuncID(r.varint("inline func"))
			in.Ranges = r.ranges("inline ranges", &rblk)
			in.Depth = int32(r.varint("inline depth"))
			in.CallFile = int32(r.varint("inline call file"))
			in.CallLine = int32(r.varint("inline call line"))
			if r.err != nil {
				break
			}
		}
	}
	if nv := r.count("vars", 10); nv >= 0 && r.err == nil {
		s.Vars = make([]model.Var, nv)
		types := map[string]string{} // type spellings repeat: one string each
		var fblk []model.Field
		for i := range s.Vars {
			v := &s.Vars[i]
			v.Name = string(r.bytes("var name"))
			v.Func = model.FuncID(r.varint("var func"))
			v.File = int32(r.varint("var file"))
			v.Line = int32(r.varint("var line"))
			if t := r.bytes("var type"); r.err == nil {
				if x, ok := types[string(t)]; ok {
					v.Type = x
				} else {
					v.Type = string(t)
					types[v.Type] = v.Type
				}
			}
			if len(r.b) < 4 || r.b[3] > 31 {
				r.fail("var kind")
				break
			}
			v.Kind, v.Tags, v.PointeeKind = model.Kind(r.b[0]), model.Tags(r.b[1]), model.Kind(r.b[2])
			flags := r.b[3]
			r.b = r.b[4:]
			v.Param, v.Static = flags&1 != 0, flags&2 != 0
			v.Size = int32(r.varint("var size"))
			v.PointeeSize = int32(r.varint("var pointee size"))
			if flags&4 != 0 {
				if len(fblk) == 0 {
					fblk = make([]model.Field, 1024)
				}
				fld := &fblk[0]
				fblk = fblk[1:]
				*fld = model.Field{Of: model.VarID(r.varint("field of")), Offset: r.varint("field offset"), Deref: flags&8 != 0}
				if flags&16 != 0 {
					fld.Elem = r.varint("field element size")
				}
				v.Field = fld
			} else if flags&24 != 0 {
				r.fail("var flags")
			}
			if r.err != nil {
				break
			}
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if nl := r.count("locs", 10); nl >= 0 {
		s.Locs = make([]model.Loc, nl)
		var exprs []byte // the expressions, copied into one block
		var pc uint64
		for i := range s.Locs {
			l := &s.Locs[i]
			l.Var = model.VarID(r.varint("loc var"))
			l.PCStart = pc + uint64(r.varint("loc start"))
			l.PCEnd = l.PCStart + uint64(r.varint("loc end"))
			pc = l.PCStart
			if len(r.b) < 2 || r.b[1] > 3 {
				r.fail("loc kind")
				break
			}
			l.Kind, l.BasicTypePtr, l.StrLen = model.LocKind(r.b[0]), r.b[1]&1 != 0, r.b[1]&2 != 0
			r.b = r.b[2:]
			l.Reg = int16(r.varint("loc reg"))
			l.Offset = r.varint("loc offset")
			l.Addr = r.uvarint("loc addr")
			l.Size = int32(r.varint("loc size"))
			k := r.uvarint("loc expr")
			if r.err != nil || k > uint64(len(r.b)) {
				r.fail("loc expr")
				break
			}
			if k > 0 {
				if cap(exprs)-len(exprs) < int(k) {
					exprs = make([]byte, 0, max(64<<10, int(k)))
				}
				exprs = append(exprs, r.b[:k]...)
				l.Expr = exprs[len(exprs)-int(k) : len(exprs) : len(exprs)]
				r.b = r.b[k:]
			}
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if nl := r.count("lines", 3); nl >= 0 {
		s.Lines = make([]model.LineRow, nl)
		var pc uint64
		for i := range s.Lines {
			pc += uint64(r.varint("line pc"))
			s.Lines[i] = model.LineRow{PC: pc, File: int32(r.varint("line file")), Line: int32(r.varint("line"))}
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(r.b) > 0 {
		return nil, fmt.Errorf("%w: %d bytes after the lines", errBody, len(r.b))
	}
	return s, nil
}
