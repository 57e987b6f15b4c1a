package dwarfschema

import (
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// unsetSrc: len's address is taken, so it lives in one frame slot over its
// whole scope; fill, the first call, writes it. While fill runs, the slot
// still holds whatever the stack held before (D182); while use runs, it
// holds what fill wrote.
const unsetSrc = `#include <stdlib.h>
__attribute__((noinline)) void fill(long *p) { *p = random(); }
__attribute__((noinline)) long use(long *p) { return *p + 1; }
__attribute__((noinline)) long run(int n) {
	long len;
	fill(&len);
	long s = 0;
	for (int i = 0; i < n; i++)
		s += use(&len);
	return s + len;
}
int main(int argc, char **argv) { (void)argv; return (int)run(argc); }
`

// TestUnsetSlot (D182): the locations of an address-taken local do not
// cover the instructions before anything can have written its slot (the
// call that fills it included), and do cover a later call's.
func TestUnsetSlot(t *testing.T) {
	for _, opt := range []string{"-O0", "-O2"} {
		s, err := Load(buildC(t, unsetSrc, opt), Options{All: true})
		if err != nil {
			t.Fatal(err)
		}
		var run model.FuncID = -1
		for i := range s.Funcs {
			if s.Funcs[i].Name == "run" {
				run = model.FuncID(i)
			}
		}
		v := model.VarID(-1)
		for i := range s.Vars {
			if s.Vars[i].Func == run && s.Vars[i].Name == "len" {
				v = model.VarID(i)
			}
		}
		if run < 0 || v < 0 {
			t.Fatalf("%s: no run or no len", opt)
		}
		covered := func(pc uint64) bool {
			for _, l := range s.Locs {
				if l.Var == v && pc >= l.PCStart && pc < l.PCEnd {
					return true
				}
			}
			return false
		}
		in := func(pc uint64) bool {
			for _, r := range s.Funcs[run].Ranges {
				if pc >= r.Lo && pc < r.Hi {
					return true
				}
			}
			return false
		}
		var fillRows, useRows int
		for _, r := range s.Lines {
			if !in(r.PC) {
				continue
			}
			switch r.Line {
			case 6: // fill(&len)
				fillRows++
				if covered(r.PC) {
					t.Errorf("%s: len's location covers %#x (line 6, before fill wrote it)", opt, r.PC)
				}
			case 9: // s += use(&len)
				if covered(r.PC) {
					useRows++
				}
			}
		}
		if fillRows == 0 || useRows == 0 {
			t.Errorf("%s: %d rows of line 6, %d of line 9 covered by len's location: want both > 0", opt, fillRows, useRows)
		}
	}
}
