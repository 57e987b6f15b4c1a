package dwarfschema

import (
	"bytes"
	"strings"
	"testing"

	"github.com/go-delve/delve/pkg/dwarf/op"

	"github.com/vprof/vprof/runtime/dwarfexpr"
	"github.com/vprof/vprof/runtime/model"
)

// TestFieldLoc: a field of a struct held in registers or pieces is where
// the one piece covering all its bytes is (method.md §2, D325): a
// register (shifted right past its low bytes), memory at the piece's
// address + the field's offset in it, a constant; nowhere when no single
// piece covers it or the piece is empty, computed or a bit piece.
func TestFieldLoc(t *testing.T) {
	piece := func(n uint64) []byte { return dwarfexpr.AppendUleb([]byte{byte(op.DW_OP_piece)}, n) }
	reg := func(r byte) []byte { return []byte{byte(op.DW_OP_reg0) + r} }
	cat := func(bs ...[]byte) []byte { return bytes.Join(bs, nil) }
	shr := func(r uint64, bits uint64) []byte {
		e := dwarfexpr.AppendUleb(append(dwarfexpr.Breg(r, 0), byte(op.DW_OP_constu)), bits)
		return append(e, byte(op.DW_OP_shr), byte(op.DW_OP_stack_value))
	}
	// zlib-ng's struct match {uint16 match_start, match_length, strstart, orgstart}.
	zlib := cat(piece(2), reg(13), piece(2), dwarfexpr.Fbreg(-76), piece(2), reg(14), piece(2))
	for _, c := range []struct {
		name      string
		kind      model.LocKind // the struct's
		reg       int16
		val       uint64
		expr      []byte
		off, size int64
		want      model.LocKind // 0: not placed
		wreg      int16
		wval      uint64
		wexpr     []byte
	}{
		{"piece reg", model.LocExpr, 0, 0, zlib, 2, 2, model.LocReg, 13, 0, reg(13)},
		{"piece frame", model.LocExpr, 0, 0, zlib, 4, 2, model.LocFrame, 0, uint64(0xffffffffffffffb4), dwarfexpr.Fbreg(-76)},
		{"last piece", model.LocExpr, 0, 0, zlib, 6, 2, model.LocReg, 14, 0, reg(14)},
		{"empty piece", model.LocExpr, 0, 0, zlib, 0, 2, 0, 0, 0, nil},
		{"across pieces", model.LocExpr, 0, 0, zlib, 2, 4, 0, 0, 0, nil},
		{"inside a reg piece", model.LocExpr, 0, 0, cat(piece(4), reg(4), piece(4)), 6, 2, model.LocExpr, 0, 0, shr(4, 16)},
		{"inside a frame piece", model.LocExpr, 0, 0, cat(dwarfexpr.Fbreg(-32), piece(8), reg(1), piece(8)), 4, 4, model.LocFrame, 0, uint64(0xffffffffffffffe4), dwarfexpr.Fbreg(-28)},
		{"breg piece", model.LocExpr, 0, 0, cat(reg(3), piece(8), dwarfexpr.Breg(7, 16), piece(8)), 8, 8, model.LocRegOff, 7, 16, dwarfexpr.Breg(7, 16)},
		{"const piece", model.LocExpr, 0, 0, cat(reg(3), piece(8), []byte{byte(op.DW_OP_lit0) + 7, byte(op.DW_OP_stack_value)}, piece(8)), 8, 8, model.LocConst, 0, 7, dwarfexpr.Const(7)},
		{"computed piece", model.LocExpr, 0, 0, cat(reg(5), piece(8), dwarfexpr.Breg(5, 0), []byte{byte(op.DW_OP_lit1), byte(op.DW_OP_shl), byte(op.DW_OP_stack_value)}, piece(8)), 8, 8, 0, 0, 0, nil},
		{"value piece", model.LocExpr, 0, 0, cat(dwarfexpr.Breg(3, -1), []byte{byte(op.DW_OP_stack_value)}, piece(8), reg(12), piece(8)), 0, 8, 0, 0, 0, nil},
		{"past the pieces", model.LocExpr, 0, 0, cat(reg(3), piece(8)), 8, 8, 0, 0, 0, nil},
		{"bit piece", model.LocExpr, 0, 0, []byte{byte(op.DW_OP_reg3), byte(op.DW_OP_bit_piece), 4, 0}, 0, 1, 0, 0, 0, nil},
		{"no pieces", model.LocExpr, 0, 0, []byte{byte(dwarfexpr.DW_OP_entry_value), 1, byte(op.DW_OP_reg5), byte(op.DW_OP_stack_value)}, 0, 2, 0, 0, 0, nil},
		{"whole reg, first field", model.LocReg, 5, 0, reg(5), 0, 2, model.LocReg, 5, 0, reg(5)},
		{"whole reg, shifted", model.LocReg, 5, 0, reg(5), 2, 2, model.LocExpr, 0, 0, shr(5, 16)},
		{"whole reg, past 8 bytes", model.LocReg, 5, 0, reg(5), 8, 8, 0, 0, 0, nil},
		{"whole xmm, shifted", model.LocReg, 17, 0, dwarfexpr.AppendUleb([]byte{byte(op.DW_OP_regx)}, 17), 8, 8, 0, 0, 0, nil},
		{"whole const", model.LocConst, 0, 0x0003000200010000, dwarfexpr.Const(0x0003000200010000), 4, 2, model.LocConst, 0, 2, dwarfexpr.Const(2)},
	} {
		l := &loader{exprs: map[string]int32{}}
		r := locRec{lo: 0x1000, hi: 0x1010, kind: c.kind, reg: c.reg, val: c.val, expr: l.expr(c.expr), v: 3}
		f, ok := l.fieldLoc(r, c.off, c.size)
		if c.want == 0 {
			if ok {
				t.Errorf("%s: placed at %+v (%s), want nowhere", c.name, f, dwarfexpr.Format(l.exprList[f.expr]))
			}
			continue
		}
		if !ok {
			t.Errorf("%s: not placed, want %v", c.name, c.want)
			continue
		}
		if f.kind != c.want || f.reg != c.wreg || f.val != c.wval || f.lo != r.lo || f.hi != r.hi || f.v != r.v || !bytes.Equal(l.exprList[f.expr], c.wexpr) {
			t.Errorf("%s: %+v (%s), want %v reg %d val %#x (%s)", c.name, f, dwarfexpr.Format(l.exprList[f.expr]), c.want, c.wreg, c.wval, dwarfexpr.Format(c.wexpr))
		}
	}
}

// byValueC passes structs by value in registers: insert's 8-byte match
// in one register (its fields shifted out of it) whose match_length a
// condition reads, walk's two-word span in two registers (pieces) whose
// hi bounds the loop; neither function stores the field it reads.
const byValueC = `#include <stdio.h>
#include <stdlib.h>
struct match { unsigned short match_start, match_length, strstart, orgstart; };
struct span { long lo; long hi; };
long tab[256];
__attribute__((noipa)) long insert(struct match m, long cap) {
	long s = 0;
	if (m.match_length <= cap) {
		for (unsigned i = 0; i < m.match_length; i++)
			s += tab[(m.strstart + i) & 255];
	} else
		s = m.strstart;
	return s;
}
__attribute__((noipa)) long walk(struct span sp) {
	long s = 0;
	for (long i = sp.lo; i < sp.hi; i++)
		s += tab[i & 255];
	return s;
}
int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 1000;
	long s = 0;
	for (long k = 0; k < n; k++) {
		struct match m = { k & 7, (k % 300), k & 255, 0 };
		s += insert(m, 200);
		struct span sp = { k & 3, 100 + (k & 7) };
		s += walk(sp);
	}
	printf("%ld\n", s);
	return 0;
}
`

// TestFieldsByValue: the scalar fields of a struct parameter passed by
// value in registers are variables (method.md §2, D325), where a piece of
// the struct holds them, with their own tags where the function reads
// but does not store them; before D325 walk's sp.hi (its loop's bound)
// and insert's m.match_length were not monitored.
func TestFieldsByValue(t *testing.T) {
	dir := t.TempDir()
	bin := build(t, dir, "gcc", ".c", byValueC, "-g", "-O2")
	s, err := Load(bin, Options{})
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		fn, st, field string
		off           int64
		// the field's register in a struct Loc, from its expression:
		// whole register (shift in bytes), or the register of piece k
		piece int // -1: the struct whole in one register
	}
	for _, c := range []want{
		{"walk", "sp", "sp.hi", 8, 1},
		{"walk", "sp", "sp.lo", 0, 0},
		{"insert", "m", "m.match_length", 2, -1},
	} {
		fn, _ := funcByName(s, c.fn)
		sv, st := varByName(s, fn, c.st)
		fv, f := varByName(s, fn, c.field)
		if st == nil || f == nil {
			t.Errorf("%s: %s %v, %s %v: want both monitored", c.fn, c.st, st, c.field, f)
			continue
		}
		if f.Field == nil || f.Field.Deref || f.Field.Of != sv || f.Field.Offset != c.off || f.Tags&model.TagCond == 0 {
			t.Errorf("%s: %+v %+v, want a field of %s at %d tagged cond", c.field, f, f.Field, c.st, c.off)
		}
		// Each Loc of the field is the piece of a Loc of the struct
		// over the same code.
		sl := locsOf(s, sv)
		fl := locsOf(s, fv)
		if len(fl) == 0 {
			t.Errorf("%s: no location", c.field)
		}
		for _, l := range fl {
			var from *model.Loc
			for k := range sl {
				if sl[k].PCStart == l.PCStart && sl[k].PCEnd == l.PCEnd {
					from = &sl[k]
				}
			}
			if from == nil {
				t.Errorf("%s: loc %+v over code where %s has none", c.field, l, c.st)
				continue
			}
			if c.piece < 0 {
				if from.Kind != model.LocReg {
					t.Errorf("%s: %s at %s, want one register", c.field, c.st, dwarfexpr.Format(from.Expr))
					continue
				}
				want := dwarfexpr.Format(dwarfexpr.Breg(uint64(from.Reg), 0)) + "; DW_OP_constu: 16; DW_OP_shr; DW_OP_stack_value"
				if l.Kind != model.LocExpr || dwarfexpr.Format(l.Expr) != want {
					t.Errorf("%s: %v %s, want %s", c.field, l.Kind, dwarfexpr.Format(l.Expr), want)
				}
				continue
			}
			// Two 8-byte register pieces: DW_OP_regN DW_OP_piece 8 twice.
			parts := strings.Split(dwarfexpr.Format(from.Expr), "; ")
			if len(parts) != 4 || parts[1] != "DW_OP_piece: 8" || parts[3] != "DW_OP_piece: 8" {
				t.Logf("%s: %s at %s: not two register pieces, skipped", c.field, c.st, dwarfexpr.Format(from.Expr))
				continue
			}
			if l.Kind != model.LocReg || dwarfexpr.Format(l.Expr) != parts[2*c.piece] {
				t.Errorf("%s: %v %s, want %s (piece %d of %s)", c.field, l.Kind, dwarfexpr.Format(l.Expr), parts[2*c.piece], c.piece, dwarfexpr.Format(from.Expr))
			}
		}
	}
}

// inlinedPtrC passes a pointer to a local struct to a static function
// that gcc inlines (cmark's handle_pointy_brace(subj) in
// cmark_parse_inlines): the inlined copy's pointer is the local's frame
// address, held in a callee-saved register set in another block (`mov
// %rsp,%rbx`), while the code reads the fields at rsp+k, never through
// that register.
const inlinedPtrC = `#include <stdio.h>
#include <stdlib.h>
struct subject { const unsigned char *data; int len; int pos; unsigned flags; int line; };
__attribute__((noipa)) int scan(const unsigned char *d, int from, int len) {
	int i = from;
	while (i < len && d[i] != '>') i++;
	return i < len ? i - from + 1 : 0;
}
__attribute__((noipa)) void advance(struct subject *s) { s->pos++; }
static int handle(struct subject *subj, long *out) {
	if (subj->pos + 1 < subj->len && subj->data[subj->pos + 1] == '!' && (subj->flags & 4) == 0) {
		int m = scan(subj->data, subj->pos + 1, subj->len);
		if (m == 0) {
			*out += subj->len - subj->pos;
			return 0;
		}
		subj->pos += m;
		return 1;
	}
	return 0;
}
__attribute__((noipa)) long parse(const unsigned char *d, int len) {
	struct subject subj = { d, len, 0, 0, 1 };
	long out = 0;
	while (subj.pos < subj.len) {
		if (subj.data[subj.pos] == '<')
			out += handle(&subj, &out);
		advance(&subj);
	}
	return out;
}
int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 20000;
	unsigned char *d = malloc(n);
	for (int i = 0; i < n; i++) d[i] = (i % 7 == 0) ? '<' : (i % 7 == 1) ? '!' : 'a';
	long s = 0;
	for (int k = 0; k < 20; k++) s += parse(d, n);
	printf("%ld\n", s);
	return 0;
}
`

// TestFieldsBehindInlinedPointer: the fields behind the pointer parameter
// of an inlined function are read where an operand's address is the
// pointer's value plus their offset, from whichever register it is
// formed, a frame address held in a register carried across blocks
// (method.md §2, D357). Before D357 handle's subj->pos and subj->flags,
// which its conditions read, had no tag (a field counted only through a
// register holding the pointer in the same block), and only the host's
// local subj.pos did.
func TestFieldsBehindInlinedPointer(t *testing.T) {
	dir := t.TempDir()
	bin := build(t, dir, "gcc", ".c", inlinedPtrC, "-g", "-O2")
	s, err := Load(bin, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		fn, ptr, field string
		off            int64
		deref          bool
		tags           model.Tags
	}{
		{"handle", "subj", "subj->pos", 12, true, model.TagCond},
		{"handle", "subj", "subj->flags", 16, true, model.TagCond},
		{"parse", "subj", "subj.pos", 12, false, model.TagCond | model.TagLoop},
	} {
		fn, f := funcByName(s, c.fn)
		if f == nil {
			t.Fatalf("%s: no function", c.fn)
		}
		pv, p := varByName(s, fn, c.ptr)
		_, v := varByName(s, fn, c.field)
		if p == nil || v == nil {
			t.Errorf("%s: %s %v, %s %v: want both", c.fn, c.ptr, p, c.field, v)
			continue
		}
		if v.Field == nil || v.Field.Deref != c.deref || v.Field.Of != pv || v.Field.Offset != c.off || v.Tags&c.tags != c.tags {
			t.Errorf("%s: %s %+v tags %v, want a field of %s at %d (deref %v) tagged %v", c.fn, c.field, v.Field, v.Tags, c.ptr, c.off, c.deref, c.tags)
		}
	}
}
