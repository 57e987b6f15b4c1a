package dwarfexpr

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/go-delve/delve/pkg/dwarf/leb128"
	"github.com/go-delve/delve/pkg/dwarf/op"
)

func TestLEB128(t *testing.T) {
	for _, tc := range []struct {
		b    []byte
		u    uint64
		s    int64
		n    int
		name string
	}{
		{[]byte{0x02}, 2, 2, 1, "small"},
		{[]byte{0x7f}, 127, -1, 1, "sign bit of one byte"},
		{[]byte{0x80, 0x01}, 128, 128, 2, "two bytes"},
		{[]byte{0xe5, 0x8e, 0x26}, 624485, 624485, 3, "DWARF spec example"},
		{[]byte{0xc0, 0xbb, 0x78}, 0x1e1dc0, -123456, 3, "negative"},
		{[]byte{0x80, 0x7f}, 0x3f80, -128, 2, "-128"},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, math.MaxUint64, -1, 10, "64 bits"},
		// Bits past the 64th are dropped, however long the number.
		{[]byte{0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, 1, 1, 12, "overlong"},
		{nil, 0, 0, 0, "empty"},
		{[]byte{0x80}, 0, 0, 0, "cut"},
		{[]byte{0xe5, 0x8e}, 0, 0, 0, "cut after two bytes"},
	} {
		if u, n := Uleb(tc.b); u != tc.u || n != tc.n {
			t.Errorf("%s: Uleb(% x) = %d, %d; want %d, %d", tc.name, tc.b, u, n, tc.u, tc.n)
		}
		if s, n := Sleb(tc.b); s != tc.s || n != tc.n {
			t.Errorf("%s: Sleb(% x) = %d, %d; want %d, %d", tc.name, tc.b, s, n, tc.s, tc.n)
		}
	}
}

// FuzzLEB128: what Append* writes, Uleb/Sleb read back whole, byte for
// byte as delve's leb128 writes it.
func FuzzLEB128(f *testing.F) {
	for _, v := range []int64{0, 1, -1, 63, 64, -64, -65, 624485, math.MinInt64, math.MaxInt64} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v int64) {
		b := AppendUleb(nil, uint64(v))
		if u, n := Uleb(b); u != uint64(v) || n != len(b) {
			t.Fatalf("Uleb(AppendUleb(%d)) = %d, %d of %d bytes", uint64(v), u, n, len(b))
		}
		var d bytes.Buffer
		leb128.EncodeUnsigned(&d, uint64(v))
		if !bytes.Equal(b, d.Bytes()) {
			t.Fatalf("AppendUleb(%d) = % x, delve writes % x", uint64(v), b, d.Bytes())
		}
		b = AppendSleb(nil, v)
		if s, n := Sleb(b); s != v || n != len(b) {
			t.Fatalf("Sleb(AppendSleb(%d)) = %d, %d of %d bytes", v, s, n, len(b))
		}
		d.Reset()
		leb128.EncodeSigned(&d, v)
		if !bytes.Equal(b, d.Bytes()) {
			t.Fatalf("AppendSleb(%d) = % x, delve writes % x", v, b, d.Bytes())
		}
	})
}

func TestNext(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    []byte
		want Op
		rest int // bytes left
		err  error
	}{
		{"lit7", []byte{0x37, 0x9f}, Op{Code: op.DW_OP_lit7, U: 7}, 1, nil},
		{"reg5", []byte{0x55}, Op{Code: op.DW_OP_reg5, U: 5}, 0, nil},
		{"breg7 -8", []byte{0x77, 0x78, 0x06}, Op{Code: op.DW_OP_breg7, U: 7, S: -8}, 1, nil},
		{"fbreg -304", []byte{0x91, 0xd0, 0x7d}, Op{Code: op.DW_OP_fbreg, S: -304}, 0, nil},
		{"regx 300", []byte{0x90, 0xac, 0x02}, Op{Code: op.DW_OP_regx, U: 300}, 0, nil},
		{"bregx 7 16", []byte{0x92, 0x07, 0x10}, Op{Code: op.DW_OP_bregx, U: 7, S: 16}, 0, nil},
		{"addr", []byte{0x03, 0x28, 0x40, 0, 0, 0, 0, 0, 0}, Op{Code: op.DW_OP_addr, U: 0x4028}, 0, nil},
		{"const1u", []byte{0x08, 0xff}, Op{Code: op.DW_OP_const1u, U: 255}, 0, nil},
		{"const1s", []byte{0x09, 0xff}, Op{Code: op.DW_OP_const1s, S: -1}, 0, nil},
		{"const2s", []byte{0x0b, 0xfe, 0xff}, Op{Code: op.DW_OP_const2s, S: -2}, 0, nil},
		{"const4u", []byte{0x0c, 1, 2, 3, 4}, Op{Code: op.DW_OP_const4u, U: 0x04030201}, 0, nil},
		{"const8s", []byte{0x0f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, Op{Code: op.DW_OP_const8s, S: -1}, 0, nil},
		{"consts", []byte{0x11, 0x7f}, Op{Code: op.DW_OP_consts, S: -1}, 0, nil},
		{"skip -3", []byte{0x2f, 0xfd, 0xff}, Op{Code: op.DW_OP_skip, S: -3}, 0, nil},
		{"piece 8", []byte{0x93, 0x08, 0x50}, Op{Code: op.DW_OP_piece, U: 8}, 1, nil},
		{"bit_piece 32 8", []byte{0x9d, 0x20, 0x08}, Op{Code: op.DW_OP_bit_piece, U: 32, U2: 8}, 0, nil},
		{"implicit_value", []byte{0x9e, 0x02, 0xab, 0xcd, 0x9f}, Op{Code: op.DW_OP_implicit_value, Block: []byte{0xab, 0xcd}}, 1, nil},
		{"entry_value", []byte{0xa3, 0x01, 0x55, 0x9f}, Op{Code: DW_OP_entry_value, Block: []byte{0x55}}, 1, nil},
		{"GNU_entry_value", []byte{0xf3, 0x01, 0x54}, Op{Code: DW_OP_GNU_entry_value, Block: []byte{0x54}}, 0, nil},
		{"const_type", []byte{0xa4, 0x2a, 0x02, 0x01, 0x02}, Op{Code: DW_OP_const_type, U: 42, Block: []byte{1, 2}}, 0, nil},
		{"regval_type", []byte{0xa5, 0x11, 0x2a}, Op{Code: DW_OP_regval_type, U: 17, U2: 42}, 0, nil},
		{"deref_type", []byte{0xa6, 0x04, 0x2a}, Op{Code: DW_OP_deref_type, U: 4, U2: 42}, 0, nil},
		{"implicit_pointer", []byte{0xa0, 0x10, 0, 0, 0, 0x7c}, Op{Code: DW_OP_implicit_pointer, U: 0x10, S: -4}, 0, nil},
		{"stack_value", []byte{0x9f}, Op{Code: op.DW_OP_stack_value}, 0, nil},
		{"empty", nil, Op{}, 0, ErrTruncated},
		{"cut breg", []byte{0x77}, Op{Code: op.DW_OP_breg7, U: 7}, 0, ErrTruncated},
		{"cut addr", []byte{0x03, 0x28}, Op{Code: op.DW_OP_addr}, 0, ErrTruncated},
		{"cut bregx offset", []byte{0x92, 0x07}, Op{Code: op.DW_OP_bregx, U: 7}, 0, ErrTruncated},
		{"entry_value past the end", []byte{0xa3, 0x05, 0x55}, Op{Code: DW_OP_entry_value}, 0, ErrTruncated},
		{"const_type past the end", []byte{0xa4, 0x2a, 0x09, 0x01}, Op{Code: DW_OP_const_type, U: 42}, 0, ErrTruncated},
		{"unknown", []byte{0x01, 0x55}, Op{Code: 0x01}, 0, ErrUnknownOp},
		{"GNU_encoded_addr", []byte{0xf1, 0x00}, Op{Code: 0xf1}, 0, ErrUnknownOp},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, rest, err := Next(tc.e)
			if err != tc.err {
				t.Fatalf("Next(% x): err %v, want %v", tc.e, err, tc.err)
			}
			if err != nil {
				if o.Code != tc.want.Code || rest != nil {
					t.Errorf("Next(% x) = %+v, rest % x; want code %#x, no rest", tc.e, o, rest, tc.want.Code)
				}
				return
			}
			if !reflect.DeepEqual(o, tc.want) || len(rest) != tc.rest {
				t.Errorf("Next(% x) = %+v, %d bytes left; want %+v, %d", tc.e, o, len(rest), tc.want, tc.rest)
			}
		})
	}
}

// TestOpTable checks the operation table against delve's: every DWARF 2-4
// operation delve names is known here, by the same name.
func TestOpTable(t *testing.T) {
	var buf bytes.Buffer
	n := 0
	for c := 0; c < 256; c++ {
		buf.Reset()
		op.PrettyPrint(&buf, []byte{byte(c)}, nil)
		delve := strings.Fields(buf.String())
		if len(delve) == 0 || !strings.HasPrefix(delve[0], "DW_OP_") {
			continue // not a delve name
		}
		n++
		if got := "DW_OP_" + ops[c].name; ops[c].name == "" || got != delve[0] {
			t.Errorf("opcode %#x: delve says %s, the table %s", c, delve[0], got)
		}
	}
	if n < 150 {
		t.Errorf("delve names %d operations; it named 154", n)
	}
}

// FuzzNext: any bytes, no panic; an operation decoded is a prefix of its
// input, and Format spells every operation Next decodes.
func FuzzNext(f *testing.F) {
	for _, seed := range [][]byte{
		{0x77, 0x08, 0x06}, {0xa3, 0x01, 0x55, 0x9f}, {0x9e, 0x02, 0xab, 0xcd}, {0xa4, 0x2a, 0x02, 0x01, 0x02},
		{0x92, 0x07, 0x10}, {0x03, 0x28}, {0x0f, 0xff, 0xff}, {0x50, 0x93, 0x08, 0x61, 0x93, 0x08},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, e []byte) {
		for b := e; len(b) > 0; {
			o, rest, err := Next(b)
			if err != nil {
				break
			}
			if len(rest) >= len(b) || !bytes.Equal(b[len(b)-len(rest):], rest) {
				t.Fatalf("Next(% x): rest % x is not a suffix", b, rest)
			}
			if o.Block != nil && len(o.Block) > len(b) {
				t.Fatalf("Next(% x): block of %d bytes", b, len(o.Block))
			}
			b = rest
		}
		Format(e)
	})
}

// TestBuilt: the expressions the loader writes for constants and fixed
// addresses decode to what they were made of.
func TestBuilt(t *testing.T) {
	for _, v := range []int64{0, 5, -1, 1 << 40, math.MinInt64} {
		e := Const(v)
		o, rest, err := Next(e)
		if c, ok := o.Constant(); err != nil || !ok || c != v || len(rest) != 1 || op.Opcode(rest[0]) != op.DW_OP_stack_value {
			t.Errorf("Const(%d) = % x: %+v %v, rest % x", v, e, o, err, rest)
		}
	}
	for _, v := range [][]byte{{}, {1, 2, 3}, make([]byte, 200)} {
		o, rest, err := Next(ImplicitValue(v))
		if err != nil || o.Code != op.DW_OP_implicit_value || !bytes.Equal(o.Block, v) || len(rest) != 0 {
			t.Errorf("ImplicitValue(% x): %+v %v, rest % x", v, o, err, rest)
		}
	}
	if o, rest, err := Next(Addr(0x1122334455667788)); err != nil || o.Code != op.DW_OP_addr || o.U != 0x1122334455667788 || len(rest) != 0 {
		t.Errorf("Addr: %+v %v, rest % x", o, err, rest)
	}
	for _, tc := range []struct {
		e    []byte
		v    int64
		isOK bool
	}{
		{[]byte{0x30}, 0, true}, {[]byte{0x4f}, 31, true}, {[]byte{0x08, 0xff}, 255, true}, {[]byte{0x09, 0xff}, -1, true},
		{[]byte{0x10, 0x80, 0x01}, 128, true}, {[]byte{0x11, 0x7f}, -1, true},
		{[]byte{0x0e, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, -1, true},
		{[]byte{0x50}, 0, false}, {[]byte{0x91, 0x10}, 0, false},
	} {
		o, _, _ := Next(tc.e)
		if v, ok := o.Constant(); v != tc.v || ok != tc.isOK {
			t.Errorf("Constant of % x = %d, %v; want %d, %v", tc.e, v, ok, tc.v, tc.isOK)
		}
	}
}
