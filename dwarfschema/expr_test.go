package dwarfschema

import "testing"

func TestFormatExpr(t *testing.T) {
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
		if got := FormatExpr(tc.e); got != tc.want {
			t.Errorf("FormatExpr(%x) = %q, want %q", tc.e, got, tc.want)
		}
	}
}
