package cfg

import "testing"

// TestWalks checks findWalks on hand-written loops: a cursor that a loop
// writes only by loads through itself, or by copies of a register loaded
// through it, is a walk's (method.md §2, D118); any other write to it, or
// a call that clobbers it, is not a step along a structure.
func TestWalks(t *testing.T) {
	tests := []struct {
		name string
		asm  string
		reg  int16 // DWARF register of the walk, -1 for none
		locs []VarLoc
		// named: how many of the walk's Named ranges
		named int
	}{
		{"self chase", `
start:	mov rax, [rdi]
head:	test rax, rax
	je out
	cmp dword ptr [rax+8], esi
	je out
	mov rax, [rax]
	jmp head
out:	ret
end:`, 0, nil, 0},
		{"load then copy", `
start:	mov rax, [rdi]
head:	cmp dword ptr [rax+8], esi
	je out
	mov rdx, [rax+16]
	test rdx, rdx
	je out
	mov rax, rdx
	jmp head
out:	ret
end:`, 0, nil, 0},
		{"callee-saved across a call", `
start:	push rbx
	mov rbx, [rdi]
head:	test rbx, rbx
	je out
	mov rdi, rbx
	call work
	mov rbx, [rbx+8]
	jmp head
out:	pop rbx
	ret
end:
work:	ret`, 3, nil, 0},
		{"caller-saved across a call", `
start:	mov rax, [rdi]
head:	test rax, rax
	je out
	call work
	mov rax, [rax+8]
	jmp head
out:	ret
end:
work:	ret`, -1, nil, 0},
		{"an index, not a walk", `
start:	xor eax, eax
head:	cmp rax, rsi
	jae out
	add rax, 8
	mov rdx, [rax]
	jmp head
out:	ret
end:`, -1, nil, 0},
		{"copy of a register loaded elsewhere", `
start:	mov rax, [rdi]
head:	test rax, rax
	je out
	mov rdx, [rsi+8]
	mov rax, rdx
	jmp head
out:	ret
end:`, -1, nil, 0},
		{"named by a variable", `
start:	mov rax, [rdi]
head:	test rax, rax
	je out
	mov rax, [rax]
	jmp head
out:	ret
end:`, 0, []VarLoc{{Var: 7, Kind: InReg, Reg: 0}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img, labels := assemble(t, tt.asm)
			g, err := new(Builder).Build(img, []Range{{labels["start"], labels["end"]}})
			if err != nil {
				t.Fatal(err)
			}
			in := &Input{}
			for _, l := range tt.locs {
				l.Lo, l.Hi, l.Size = labels["start"], labels["end"], 8
				in.Locs = append(in.Locs, l)
			}
			a := NewAnalyzer()
			a.Analyze(g, in)
			ws := a.Walks()
			if tt.reg < 0 {
				if len(ws) != 0 {
					t.Fatalf("walks %+v, want none", ws)
				}
				return
			}
			if len(ws) != 1 {
				t.Fatalf("walks %+v, want one on register %d", ws, tt.reg)
			}
			w := ws[0]
			if w.Reg != tt.reg {
				t.Errorf("register %d, want %d", w.Reg, tt.reg)
			}
			if len(w.Ranges) == 0 || w.Ranges[0].Lo != labels["head"] {
				t.Errorf("ranges %x, want the loop's from head %#x", w.Ranges, labels["head"])
			}
			if w.Load < labels["head"] || w.Load >= labels["out"] {
				t.Errorf("load at %#x, outside the loop [%#x, %#x)", w.Load, labels["head"], labels["out"])
			}
			if len(w.Named) != tt.named {
				t.Errorf("named %+v, want %d", w.Named, tt.named)
			}
		})
	}
}
