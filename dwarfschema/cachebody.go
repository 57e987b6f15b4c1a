package dwarfschema

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/vprof/vprof/runtime/model"
)

// A schema cache file's body (schemaFormat 2): the length of a JSON part
// (uvarint), the schema's JSON without its Locs and Lines, then the Locs
// and the Lines in binary. Those two are most of a schema (on
// redis-server 182,000 locations and 218,000 line rows, three quarters
// of its JSON; on gold, half), and encoding/json read them back about as slowly as Load
// builds them. A body decodes to the schema that a JSON round trip gives
// (an empty Expr is nil; Locs and Lines are nil only where they were),
// so that the profile files written from it are byte-identical.

// encodeSchemaBody encodes s as a cache file's body.
func encodeSchemaBody(s *model.Schema) ([]byte, error) {
	rest := *s
	rest.Locs, rest.Lines = nil, nil
	js, err := json.Marshal(&rest)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(js)+24*len(s.Locs)+8*len(s.Lines)+32)
	b = binary.AppendUvarint(b, uint64(len(js)))
	b = append(b, js...)
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
			if len(r.b) < 2 || r.b[1] > 1 {
				r.fail("loc kind")
				break
			}
			l.Kind, l.BasicTypePtr = model.LocKind(r.b[0]), r.b[1] == 1
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
