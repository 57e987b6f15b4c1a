package cfg

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// assemble assembles Intel-syntax x86-64 code with GNU as and returns the
// image of its .text (at address 0) and its symbols (labels).
func assemble(t *testing.T, src string) (*Image, map[string]uint64) {
	t.Helper()
	if _, err := exec.LookPath("as"); err != nil {
		t.Skip("GNU as not installed")
	}
	dir := t.TempDir()
	s := filepath.Join(dir, "a.s")
	o := filepath.Join(dir, "a.o")
	if err := os.WriteFile(s, []byte(".intel_syntax noprefix\n.text\n"+src+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("as", "--64", "-o", o, s).CombinedOutput(); err != nil {
		t.Fatalf("as: %v\n%s", err, b)
	}
	f, err := elf.Open(o)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	text, err := f.Section(".text").Data()
	if err != nil {
		t.Fatal(err)
	}
	img := &Image{}
	img.Add(0, text)
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]uint64{}
	for _, sym := range syms {
		if sym.Section == elf.SectionIndex(1) || f.Sections[sym.Section].Name == ".text" {
			labels[sym.Name] = sym.Value
		}
	}
	return img, labels
}

// tvar is a test variable: name, where it lives, between which labels.
type tvar struct {
	name     string
	kind     LocKind
	reg      int16
	off      int64
	from, to string
	size     int32
}

type tcall struct {
	ret    string // label right after the call
	params []CallParam
	callee *Signature
}

// tsig is the signature of the function at a label.
type tsig struct {
	at  string
	sig *Signature // nil: a clone
}

func TestTags(t *testing.T) {
	tests := []struct {
		name  string
		asm   string
		vars  []tvar
		calls []tcall
		sigs  []tsig
		fb    FrameBaseRule
		want  map[string]Tags
	}{{
		name: "counted loop: i induction, n bound",
		asm: `
start:	push rbp
	push rbx
	mov ebp, edi
n_rbp:	xor ebx, ebx
head:	mov edi, ebx
	call work
	add ebx, 1
	cmp ebx, ebp
	jl head
	pop rbx
	pop rbp
	ret
end:
work:	ret`,
		vars: []tvar{
			{name: "n", kind: InReg, reg: 5, from: "start", to: "n_rbp"},
			{name: "n", kind: InReg, reg: 6, from: "n_rbp", to: "end"},
			{name: "i", kind: InReg, reg: 3, from: "head", to: "end"},
		},
		want: map[string]Tags{"i": TagLoop | TagCond | TagArgs, "n": TagCond},
	}, {
		name: "if (flag)",
		asm: `
start:	test edi, edi
	je zero
	lea eax, [rsi+rsi*2]
	ret
zero:	lea eax, [rsi+1]
	ret
end:`,
		vars: []tvar{{name: "flag", kind: InReg, reg: 5, from: "start", to: "end"}, {name: "x", kind: InReg, reg: 4, from: "start", to: "end"}},
		want: map[string]Tags{"flag": TagCond},
	}, {
		name: "deadline = now() + grace; while (now() < deadline)",
		asm: `
start:	push rbx
	mov rbx, rdi
g_rbx:	call now
	add rbx, rax
dl:	jmp test
body:	mov edi, 1
	call work
test:	call now
	cmp rax, rbx
	jl body
	pop rbx
	ret
end:
now:	ret
work:	ret`,
		vars: []tvar{
			{name: "grace", kind: InReg, reg: 5, from: "start", to: "g_rbx"},
			{name: "grace", kind: InReg, reg: 3, from: "g_rbx", to: "dl"},
			{name: "deadline", kind: InReg, reg: 3, from: "dl", to: "end"},
		},
		want: map[string]Tags{"grace": TagCond, "deadline": TagCond},
	}, {
		name: "strength-reduced loop: i computed from the pointer",
		asm: `
start:	test esi, esi
	jle zero
	movsxd rsi, esi
	xor eax, eax
	lea rdx, [rdi+rsi*4]
head:	add eax, [rdi]
	add rdi, 4
	cmp rdi, rdx
	jne head
	ret
zero:	xor eax, eax
	ret
end:`,
		vars: []tvar{
			{name: "a", kind: InReg, reg: 5, from: "start", to: "head"},
			{name: "n", kind: InReg, reg: 4, from: "start", to: "head"},
			{name: "i", kind: InDerived, reg: 5, from: "head", to: "end"},
		},
		want: map[string]Tags{"i": TagLoop | TagCond, "n": TagCond, "a": TagCond},
	}, {
		name: "-O0 frame slot, CFA-based frame base",
		asm: `
start:	push rbp
	mov rbp, rsp
	mov [rbp-4], edi
	mov eax, [rbp-4]
	cmp eax, 5
	jg big
	mov eax, 1
	pop rbp
	ret
big:	mov eax, 2
	pop rbp
	ret
end:`,
		fb:   FrameBaseRule{Kind: FrameCFA},
		vars: []tvar{{name: "v", kind: InFrameSlot, off: -20, size: 4, from: "start", to: "end"}},
		want: map[string]Tags{"v": TagCond},
	}, {
		name: "large frame: 32-bit negative displacements (integer and SSE)",
		asm: `
start:	push rbp
	mov rbp, rsp
	sub rsp, 0x400
	mov [rbp-0x200], edi
	movss [rbp-0x300], xmm0
	mov eax, [rbp-0x200]
	cmp eax, 5
	jg big
	movss xmm1, [rbp-0x300]
	ucomiss xmm1, xmm2
	ja big
	leave
	ret
big:	leave
	ret
end:`,
		fb: FrameBaseRule{Kind: FrameCFA},
		vars: []tvar{
			{name: "v", kind: InFrameSlot, off: -0x210, size: 4, from: "start", to: "end"},
			{name: "f", kind: InFrameSlot, off: -0x310, size: 4, from: "start", to: "end"},
		},
		want: map[string]Tags{"v": TagCond, "f": TagCond},
	}, {
		name: "-O0 frame slot, rbp frame base (clang)",
		asm: `
start:	push rbp
	mov rbp, rsp
	mov [rbp-4], edi
	mov eax, [rbp-4]
	cmp eax, 5
	jg big
	mov eax, 1
	pop rbp
	ret
big:	mov eax, 2
	pop rbp
	ret
end:`,
		fb:   FrameBaseRule{Kind: FrameReg, Reg: 6},
		vars: []tvar{{name: "v", kind: InFrameSlot, off: -4, size: 4, from: "start", to: "end"}},
		want: map[string]Tags{"v": TagCond},
	}, {
		name: "-O0 loop: i in a slot, i++ through eax",
		asm: `
start:	push rbp
	mov rbp, rsp
	sub rsp, 16
	mov dword ptr [rbp-4], 0
	jmp test
body:	mov eax, [rbp-4]
	mov edi, eax
	call work
	add dword ptr [rbp-4], 1
test:	mov eax, [rbp-4]
	cmp eax, [rbp-8]
	jl body
	leave
	ret
end:
work:	ret`,
		fb: FrameBaseRule{Kind: FrameCFA},
		vars: []tvar{
			{name: "i", kind: InFrameSlot, off: -20, size: 4, from: "start", to: "end"},
			{name: "n", kind: InFrameSlot, off: -24, size: 4, from: "start", to: "end"},
		},
		want: map[string]Tags{"i": TagLoop | TagCond | TagArgs, "n": TagCond},
	}, {
		name: "switch through a jump table",
		asm: `
start:	cmp edi, 2
	ja dflt
	mov edi, edi
	lea rdx, [rip+table]
	movsxd rax, dword ptr [rdx+rdi*4]
	add rax, rdx
	jmp rax
c0:	mov eax, 10
	ret
c1:	mov eax, 11
	ret
c2:	mov eax, 12
	ret
dflt:	mov eax, -1
	ret
end:
table:	.long c0-table, c1-table, c2-table`,
		vars: []tvar{{name: "k", kind: InReg, reg: 5, from: "start", to: "end"}},
		want: map[string]Tags{"k": TagCond},
	}, {
		name: "a location holds only over its range",
		asm: `
start:	push rbx
	mov ebx, edi
v_rbx:	nop
	mov ebx, 7
w_rbx:	cmp ebx, 3
	je out
out:	pop rbx
	ret
end:`,
		vars: []tvar{
			{name: "v", kind: InReg, reg: 3, from: "v_rbx", to: "w_rbx"},
			{name: "w", kind: InReg, reg: 3, from: "w_rbx", to: "end"},
		},
		want: map[string]Tags{"w": TagCond},
	}, {
		name: "a call clobbers rax: what it returns is not the variable",
		asm: `
start:	push rbx
	mov ebx, edi
	mov eax, ebx
	call f
	test eax, eax
	je out
out:	pop rbx
	ret
end:
f:	ret`,
		vars: []tvar{{name: "v", kind: InReg, reg: 3, from: "start", to: "end"}},
		want: map[string]Tags{},
	}, {
		name: "spilled to the stack and reloaded",
		asm: `
start:	sub rsp, 24
	mov [rsp+8], rdi
	call h
	mov rax, [rsp+8]
	cmp rax, 3
	jne out
out:	add rsp, 24
	ret
end:
h:	ret`,
		vars: []tvar{{name: "v", kind: InReg, reg: 5, from: "start", to: "h"}},
		want: map[string]Tags{"v": TagCond},
	}, {
		name: "call-site record: argument is the caller's entry value",
		asm: `
start:	sub rsp, 8
	call h
	lea rdi, [r12]
	call g
ret_g:	add rsp, 8
	ret
end:
g:	ret
h:	ret`,
		vars: []tvar{
			{name: "p", kind: InReg, reg: 5, from: "start", to: "h"},
			{name: "q", kind: InReg, reg: 4, from: "start", to: "h"},
		},
		calls: []tcall{{ret: "ret_g", params: []CallParam{{
			Loc:   []ExprRef{{Kind: InReg, Reg: 5}},
			Value: []ExprRef{{Kind: InEntryValue, Reg: 5}},
		}}}},
		want: map[string]Tags{"p": TagArgs},
	}, {
		name: "globals: compared, counted, stored",
		asm: `
start:	cmp dword ptr [0x1000], 0
	jne out
head:	mov eax, [0x3000]
	add eax, 1
	mov [0x3000], eax
	cmp eax, 100
	jl head
	mov dword ptr [0x2000], edi
out:	ret
end:`,
		vars: []tvar{
			{name: "g1", kind: AtAddr, off: 0x1000, size: 4},
			{name: "g2", kind: AtAddr, off: 0x2000, size: 4},
			{name: "g3", kind: AtAddr, off: 0x3000, size: 4},
		},
		want: map[string]Tags{"g1": TagCond, "g3": TagLoop | TagCond},
	}, {
		name: "setcc and cmov are conditions",
		asm: `
start:	cmp edi, esi
	setl al
	movzx eax, al
	test edx, edx
	cmove eax, ecx
	ret
end:`,
		vars: []tvar{
			{name: "a", kind: InReg, reg: 5, from: "start", to: "end"},
			{name: "b", kind: InReg, reg: 4, from: "start", to: "end"},
			{name: "c", kind: InReg, reg: 2, from: "start", to: "end"},
			{name: "d", kind: InReg, reg: 1, from: "start", to: "end"},
		},
		want: map[string]Tags{"a": TagCond, "b": TagCond, "d": TagCond},
	}, {
		name: "polling a global without updating it is cond, not loop",
		asm: `
start:	push rbx
head:	mov eax, [0x1000]
	test eax, eax
	jne out
	xor edi, edi
	call work
	jmp head
out:	pop rbx
	ret
end:
work:	ret`,
		vars: []tvar{{name: "done", kind: AtAddr, off: 0x1000, size: 4}},
		want: map[string]Tags{"done": TagCond},
	}, {
		name: "pointer chasing: n = n->next",
		asm: `
start:	push rbx
	mov rbx, rdi
head:	test rbx, rbx
	je out
	mov rdi, [rbx+8]
	call work
	mov rbx, [rbx]
	jmp head
out:	pop rbx
	ret
end:
work:	ret`,
		vars: []tvar{{name: "n", kind: InReg, reg: 3, from: "head", to: "out"}},
		want: map[string]Tags{"n": TagLoop | TagCond | TagArgs},
	}, {
		name: "value computed from a register that holds another variable",
		asm: `
start:	test edi, edi
	je out
	lea eax, [rdi*8]
out:	ret
end:`,
		vars: []tvar{
			{name: "argc", kind: InReg, reg: 5, from: "start", to: "end"},
			{name: "v", kind: InDerived, reg: 5, from: "start", to: "end"},
		},
		want: map[string]Tags{"argc": TagCond},
	}, {
		name: "stack arguments without a call-site record",
		asm: `
start:	push rbp
	push rbx
	sub rsp, 8
	push rdi
	call f
	add rsp, 16
	pop rbx
	pop rbp
	ret
end:
f:	ret`,
		vars: []tvar{{name: "v", kind: InReg, reg: 5, from: "start", to: "f"}},
		want: map[string]Tags{"v": TagArgs},
	}, {
		name: "stack arguments stored relative to rsp in a frame-pointer function",
		asm: `
start:	push rbp
	mov rbp, rsp
	sub rsp, 16
	mov [rbp-8], rdi
	mov rax, [rbp-8]
	mov [rsp], rax
	call f
	leave
	ret
end:
f:	ret`,
		fb:   FrameBaseRule{Kind: FrameCFA},
		vars: []tvar{{name: "v", kind: InFrameSlot, off: -24, from: "start", to: "end"}},
		want: map[string]Tags{"v": TagArgs},
	}, {
		name: "the callee's signature names its argument registers",
		asm: `
start:	push rbx
	mov ebx, esi
w_rbx:	mov rsi, [rdi]
	call f
	mov edx, ebx
	call g
	pop rbx
	ret
end:
f:	ret
g:	ret`,
		vars: []tvar{
			// v stays in rdi, unwritten: only f's signature says it is passed.
			{name: "v", kind: InReg, reg: 5, from: "start", to: "end"},
			// w goes to rdx, but g takes no parameter.
			{name: "w", kind: InReg, reg: 4, from: "start", to: "w_rbx"},
			{name: "w", kind: InReg, reg: 3, from: "w_rbx", to: "end"},
		},
		sigs: []tsig{
			{at: "f", sig: &Signature{Params: []ArgClass{ArgInt, ArgInt}}},
			{at: "g", sig: &Signature{}},
		},
		want: map[string]Tags{"v": TagArgs},
	}, {
		name: "a clone's signature is unknown; a record's callee is used otherwise",
		asm: `
start:	sub rsp, 8
	call f
v_end:	xor edi, edi
	call h
ret_h:	add rsp, 8
	ret
end:
f:	ret
h:	ret`,
		vars: []tvar{
			{name: "v", kind: InReg, reg: 5, from: "start", to: "v_end"},
			{name: "x", kind: InReg, reg: 17, from: "start", to: "end"},
		},
		sigs: []tsig{{at: "f", sig: nil}},
		calls: []tcall{
			{ret: "ret_h", callee: &Signature{Params: []ArgClass{ArgInt, ArgFloat}}},
		},
		want: map[string]Tags{"x": TagArgs},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			img, labels := assemble(t, tc.asm)
			lab := func(s string) uint64 {
				v, ok := labels[s]
				if !ok {
					t.Fatalf("no label %q", s)
				}
				return v
			}
			names := map[int32]string{}
			var locs, globals []VarLoc
			ids := map[string]int32{}
			for _, v := range tc.vars {
				id, ok := ids[v.name]
				if !ok {
					id = int32(len(ids)) * 7 // any numbering of the caller's
					ids[v.name] = id
					names[id] = v.name
				}
				l := VarLoc{Var: id, Kind: v.kind, Reg: v.reg, Off: v.off, Size: v.size}
				if l.Size == 0 {
					l.Size = 8
				}
				if v.kind == AtAddr {
					globals = append(globals, l)
					continue
				}
				l.Lo, l.Hi = lab(v.from), lab(v.to)
				locs = append(locs, l)
			}
			var calls []CallSite
			for _, c := range tc.calls {
				calls = append(calls, CallSite{ReturnPC: lab(c.ret), Params: c.params, Callee: c.callee})
			}
			sigs := &Signatures{}
			for _, sg := range tc.sigs {
				sigs.Add(lab(sg.at), sg.sig)
			}
			sigs.Sort()
			g, err := new(Builder).Build(img, []Range{{lab("start"), lab("end")}})
			if err != nil {
				t.Fatal(err)
			}
			if g.BadBytes != 0 || g.Unresolved != 0 {
				t.Fatalf("bad bytes %d, unresolved %d", g.BadBytes, g.Unresolved)
			}
			in := &Input{Locs: locs, Calls: calls, FrameBase: tc.fb, Globals: NewGlobals(globals), Sigs: sigs}
			got := map[string]Tags{}
			for _, vt := range NewAnalyzer().Analyze(g, in) {
				got[names[vt.Var]] |= vt.Tags &^ TagStored
			}
			for name := range ids {
				if got[name] != tc.want[name] {
					t.Errorf("%s: tags %s, want %s", name, got[name], tc.want[name])
				}
			}
		})
	}
}

func (t Tags) String() string {
	s := ""
	for _, x := range []struct {
		b Tags
		n string
	}{{TagLoop, "loop"}, {TagCond, "cond"}, {TagArgs, "args"}} {
		if t&x.b != 0 {
			if s != "" {
				s += ","
			}
			s += x.n
		}
	}
	if s == "" {
		return "none"
	}
	return s
}

// A function too big for per-block states is analysed block by block:
// what locations say still counts, what flows between blocks is lost.
func TestTagsBlockLocal(t *testing.T) {
	img, labels := assemble(t, `
start:	push rbx
	mov rbx, rdi
g_rbx:	call now
	add rbx, rax
dl:	jmp test
body:	mov edi, 1
	call work
test:	call now
	cmp rax, rbx
	jl body
	pop rbx
	ret
end:
now:	ret
work:	ret`)
	g, err := new(Builder).Build(img, []Range{{labels["start"], labels["end"]}})
	if err != nil {
		t.Fatal(err)
	}
	in := &Input{Locs: []VarLoc{
		{Var: 1, Lo: labels["start"], Hi: labels["g_rbx"], Kind: InReg, Reg: 5},
		{Var: 1, Lo: labels["g_rbx"], Hi: labels["dl"], Kind: InReg, Reg: 3},
		{Var: 2, Lo: labels["dl"], Hi: labels["end"], Kind: InReg, Reg: 3},
	}}
	defer func(n int) { maxStateWords = n }(maxStateWords)
	for _, limit := range []int{1 << 21, 1} {
		maxStateWords = limit
		got := map[int32]Tags{}
		for _, vt := range NewAnalyzer().Analyze(g, in) {
			if t := vt.Tags &^ TagStored; t != 0 {
				got[vt.Var] = t
			}
		}
		want := map[int32]Tags{1: TagCond, 2: TagCond} // grace, deadline
		if limit == 1 {
			want = map[int32]Tags{2: TagCond}
		}
		if len(got) != len(want) || got[1] != want[1] || got[2] != want[2] {
			t.Errorf("limit %d: tags %v, want %v", limit, got, want)
		}
	}
}
