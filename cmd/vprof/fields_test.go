package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// takeC and queueCC spend a call's work, pending thousand iterations of an
// asm loop (no variable of its own), behind a struct pointer: a C
// parameter, a C++ this. Nothing else they read changes from call to call
// (a counter's delta would follow the speed of the run).
const takeC = `#include <stdio.h>
#include <stdlib.h>
struct queue { long pending; int flags; };
__attribute__((noipa)) long take(struct queue *q) {
	asm volatile("imul $1000, %0, %%rcx\n1: dec %%rcx\njnz 1b" : : "r"(q->pending) : "rcx", "cc");
	return q->flags;
}
int main(int argc, char **argv) {
	struct queue q = { atol(argv[1]), 1 };
	long t = 0;
	for (long k = 0; k < atol(argv[2]); k++) t += take(&q);
	printf("%ld\n", t);
}
`

const queueCC = `#include <cstdio>
#include <cstdlib>
class Queue {
 public:
	explicit Queue(long n) : pending(n), flags(1) {}
	__attribute__((noipa)) long step() {
		asm volatile("imul $1000, %0, %%rcx\n1: dec %%rcx\njnz 1b" : : "r"(pending) : "rcx", "cc");
		return flags;
	}
	long pending;
	int flags;
};
int main(int argc, char **argv) {
	Queue q(atol(argv[1]));
	long t = 0;
	for (long k = 0; k < atol(argv[2]); k++) t += q.step();
	std::printf("%ld\n", t);
}
`

// vectorCC is queueCC with the work per call in the length of a
// std::vector member (D266): this->m_items.size().
const vectorCC = `#include <cstdio>
#include <cstdlib>
#include <vector>
class Queue {
 public:
	explicit Queue(long n) : m_items(n, 1), flags(1) {}
	__attribute__((noipa)) long step() {
		asm volatile("imul $1000, %0, %%rcx\n1: dec %%rcx\njnz 1b" : : "r"(m_items.size()) : "rcx", "cc");
		return flags;
	}
	std::vector<long> m_items;
	int flags;
};
int main(int argc, char **argv) {
	Queue q(atol(argv[1]));
	long t = 0;
	for (long k = 0; k < atol(argv[2]); k++) t += q.step();
	std::printf("%ld\n", t);
}
`

// TestReportFieldSource records a program twice, the slow run differing
// from the normal one only in a field behind a struct pointer (the work
// per call), and checks that vprof report names that field as the source
// of the slow function's discount: q->pending for a C parameter,
// this->pending for a C++ method, this->m_items.size() for the length of
// a std::vector member (D266).
func TestReportFieldSource(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, cc, src, fn, field string
	}{
		{"c", "gcc", takeC, "take", "q->pending"},
		{"c++", "g++", queueCC, `Queue::step\(\)`, "this->pending"},
		{"vector", "g++", vectorCC, `Queue::step\(\)`, "this->m_items.size()"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := exec.LookPath(c.cc); err != nil {
				t.Skip(c.cc + " not installed")
			}
			src := filepath.Join(dir, "queue.c")
			if c.cc == "g++" {
				src += "c"
			}
			if err := os.WriteFile(src, []byte(c.src), 0o644); err != nil {
				t.Fatal(err)
			}
			bin := filepath.Join(dir, c.name+".bin")
			if out, err := exec.Command(c.cc, "-g", "-O2", "-o", bin, src).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", c.cc, err, out)
			}
			// The metadata says where a field behind a pointer is read.
			if c.cc == "gcc" {
				code, out, stderr := runVprof("schema", "--metadata", bin)
				if code != 0 || !regexp.MustCompile(`take::q->pending\s+deref:q\s+0\s+8\s`).MatchString(out) {
					t.Errorf("schema --metadata: exit %d, no take::q->pending deref:q row:\n%s%s", code, out, stderr)
				}
			}
			rec := func(name, pending string) string {
				out := filepath.Join(dir, c.name+"-"+name+".vprof")
				if code, _, stderr := runVprof("record", "-o", out, "--", bin, pending, "100000"); code != 0 {
					t.Fatalf("record %s: exit %d\n%s", name, code, stderr)
				}
				return out
			}
			normal, buggy := rec("normal", "1"), rec("buggy", "10")
			code, out, stderr := runVprof("report", "--top", "5", normal, buggy)
			if code != 0 {
				t.Fatalf("report: exit %d\n%s", code, stderr)
			}
			row := regexp.MustCompile(`│\s+\d+ │ ` + c.fn + `\s.*│ ` + regexp.QuoteMeta(c.field) + ` \(value\)\s+│`)
			if !row.MatchString(out) {
				t.Errorf("%s's discount does not come from %s (value):\n%s", c.fn, c.field, out)
			}
		})
	}
}
