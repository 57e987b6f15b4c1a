package dwarfschema

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// writeSynth writes a C program of nfuncs functions (loops, branches, a
// switch, calls, inlined helpers, globals) spread over files of perFile
// functions each, the shape of testprogs' generator, and builds it with
// gcc -g -O2 into dir/synth. Files compile in parallel.
func writeSynth(tb testing.TB, dir string, nfuncs, perFile int) string {
	tb.Helper()
	nfiles := (nfuncs + perFile - 1) / perFile
	var objs []string
	var mu sync.Mutex
	var firstErr error
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for f := 0; f < nfiles; f++ {
		var b strings.Builder
		fmt.Fprintf(&b, "struct rec%d { long key; int n; struct rec%d *next; };\n", f, f)
		fmt.Fprintf(&b, "long g_total%d;\nstatic int g_count%d;\n", f, f)
		fmt.Fprintf(&b, "static inline long mix%d(long x, int k) { long y = x * 31 + k; return y ^ (y >> 7); }\n", f)
		lo, hi := f*perFile, min((f+1)*perFile, nfuncs)
		for i := lo; i < hi; i++ {
			fmt.Fprintf(&b, "long fn%d(long n, const int *a, struct rec%d *r);\n", i+1, f)
		}
		for i := lo; i < hi; i++ {
			next := ""
			if i+1 < hi {
				next = fmt.Sprintf("if (n > 3 && (acc & %d) == 0) acc += fn%d(n / 2, a, r);", 1+i%7, i+1)
			}
			fmt.Fprintf(&b, `long fn%[1]d(long n, const int *a, struct rec%[2]d *r) {
	long acc = %[1]d;
	int limit = a[%[3]d] + (int)n;
	for (long i = 0; i < n; i++) {
		if (a[i & 15] > limit) acc += mix%[2]d(acc, a[i & 15]);
		else acc -= i;
		while (acc > %[4]d) acc >>= 1;
	}
	for (struct rec%[2]d *p = r; p && p->key != n; p = p->next) g_count%[2]d++;
	switch (n & 3) { case 0: acc++; break; case 1: acc += r ? r->n : 0; break; default: acc ^= n; }
	%[5]s
	g_total%[2]d += acc;
	return acc;
}
`, i, f, i%16, 1000+i, next)
		}
		src := filepath.Join(dir, fmt.Sprintf("s%d.c", f))
		if err := os.WriteFile(src, []byte(b.String()), 0o644); err != nil {
			tb.Fatal(err)
		}
		obj := strings.TrimSuffix(src, ".c") + ".o"
		objs = append(objs, obj)
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out, err := exec.Command("gcc", "-g", "-O2", "-c", src, "-o", obj).CombinedOutput()
			if err != nil {
				mu.Lock()
				firstErr = fmt.Errorf("gcc %s: %v\n%s", src, err, out)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		tb.Fatal(firstErr)
	}
	var m strings.Builder
	m.WriteString("#include <stdio.h>\n")
	for f := 0; f < nfiles; f++ {
		fmt.Fprintf(&m, "struct rec%d;\nlong fn%d(long, const int *, struct rec%d *);\n", f, f*perFile, f)
	}
	m.WriteString("int main(int argc, char **argv) {\n\tint a[16] = {0};\n\tlong s = 0;\n")
	for f := 0; f < nfiles; f++ {
		fmt.Fprintf(&m, "\ts += fn%d(argc, a, 0);\n", f*perFile)
	}
	m.WriteString("\tprintf(\"%ld\\n\", s);\n\treturn 0;\n}\n")
	msrc := filepath.Join(dir, "main.c")
	if err := os.WriteFile(msrc, []byte(m.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	bin := filepath.Join(dir, "synth")
	args := append([]string{"-g", "-O2", "-o", bin, msrc}, objs...)
	if out, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		tb.Fatalf("gcc link: %v\n%s", err, out)
	}
	return bin
}
