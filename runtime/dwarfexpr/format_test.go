package dwarfexpr

import "testing"

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		e    []byte
		want string
	}{
		{[]byte{0x55}, "DW_OP_reg5 (rdi)"},
		{[]byte{0x91, 0xd0, 0x7d}, "DW_OP_fbreg: -304"},
		{[]byte{0x77, 0x08, 0x06}, "DW_OP_breg7 (rsp): 8; DW_OP_deref"},
		{[]byte{0xa3, 0x01, 0x55, 0x9f}, "DW_OP_entry_value(DW_OP_reg5 (rdi)); DW_OP_stack_value"},
		{[]byte{0xf3, 0x01, 0x54, 0x23, 0x03, 0x9f}, "DW_OP_GNU_entry_value(DW_OP_reg4 (rsi)); DW_OP_plus_uconst: 3; DW_OP_stack_value"},
		{[]byte{0x03, 0x28, 0x40, 0, 0, 0, 0, 0, 0}, "DW_OP_addr: 0x4028"},
		{[]byte{0x35, 0x9f}, "DW_OP_lit5; DW_OP_stack_value"},
		{[]byte{0x0b, 0xfe, 0xff, 0x9f}, "DW_OP_const2s: -2; DW_OP_stack_value"},
		{[]byte{0x50, 0x93, 0x08, 0x61, 0x93, 0x08}, "DW_OP_reg0 (rax); DW_OP_piece: 8; DW_OP_reg17 (xmm0); DW_OP_piece: 8"},
		{[]byte{0x9e, 0x02, 0xab, 0xcd}, "DW_OP_implicit_value: abcd"},
		{[]byte{0x92, 0x07, 0x10}, "DW_OP_bregx: 7 (rsp), 16"},
		{[]byte{0xa5, 0x11, 0x2a}, "DW_OP_regval_type: 17 (xmm0), 42"},
		{[]byte{0x2f, 0xfd, 0xff}, "DW_OP_skip: -3"},
		{[]byte{0x03, 0x28}, "DW_OP_addr <truncated>"},
		{[]byte{0xa3, 0x05, 0x55}, "DW_OP_entry_value <truncated>"},
		{[]byte{0x91}, "DW_OP_fbreg <truncated>"},
		{[]byte{0x01, 0x55}, "DW_OP_<0x1>"},
		{nil, ""},
	} {
		if got := Format(tc.e); got != tc.want {
			t.Errorf("Format(%x) = %q, want %q", tc.e, got, tc.want)
		}
	}
}

func TestRegister(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    []byte
		reg  int16
		ok   bool
	}{
		{"reg0", []byte{0x50}, 0, true},
		{"reg5", []byte{0x55}, 5, true},
		{"reg31", []byte{0x6f}, 31, true},
		{"regx 17", []byte{0x90, 17}, 17, true},
		{"regx 300", []byte{0x90, 0xac, 0x02}, 300, true},
		{"empty", nil, 0, false},
		{"reg then more", []byte{0x55, 0x9f}, 0, false},
		{"breg", []byte{0x73, 0}, 0, false},
		{"fbreg", []byte{0x91, 0x68}, 0, false},
		{"regx truncated", []byte{0x90}, 0, false},
		{"regx unterminated", []byte{0x90, 0x80}, 0, false},
		{"regx trailing", []byte{0x90, 3, 0x9f}, 0, false},
		{"regx too big", []byte{0x90, 0x80, 0x80, 0x02}, 0, false},
	} {
		reg, ok := Register(tc.e)
		if reg != tc.reg || ok != tc.ok {
			t.Errorf("%s: Register(% x) = %d, %v; want %d, %v", tc.name, tc.e, reg, ok, tc.reg, tc.ok)
		}
	}
}

// FuzzRegister: any bytes, no panic; a register found is what Format
// spells as the whole expression.
func FuzzRegister(f *testing.F) {
	for _, seed := range [][]byte{{0x55}, {0x90, 17}, {0x90, 0xac, 0x02}, {0x73, 0}, {0x90}} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, e []byte) {
		reg, ok := Register(e)
		if !ok {
			return
		}
		want := "DW_OP_reg"
		if e[0] == 0x90 {
			want = "DW_OP_regx"
		}
		if got := Format(e); len(got) < len(want) || got[:len(want)] != want || reg < 0 {
			t.Fatalf("Register(% x) = %d but Format says %q", e, reg, got)
		}
	})
}
