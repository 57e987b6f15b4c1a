package dwarfschema

import "testing"

// TestReadOnlyFields: the fields of a const global or static struct are
// not monitored, as the const struct itself is not (decision D343): a
// member of a const object is const; nor is a const member of a writable
// global struct. The fields of writable structs stay, and so does a
// pointer to const data. Each case fails without the rule.
func TestReadOnlyFields(t *testing.T) {
	cases := []struct {
		name, cc, src string
		want          map[string]bool // variable -> monitored
	}{
		{"C", "gcc", `
#include <stdio.h>
struct ops { const char *name; int (*run)(int); unsigned size; };
static int twice(int x) { return 2 * x; }
const struct ops table_ops = {"twice", twice, 16};
static const struct ops local_ops = {"local", twice, 8};
struct ops live_ops = {"live", twice, 4};
struct cfg { const int limit; int used; } cfg = {10, 0};
const struct ops *cur = &table_ops;
__attribute__((noinline)) int run(int n) {
	static const struct ops inner = {"inner", twice, 2};
	const struct ops *o = n > 2 ? &table_ops : n > 1 ? &local_ops : &inner;
	live_ops.size += o->size;
	cfg.used += cfg.limit;
	cur = o;
	return o->run(n) + (int)live_ops.size + (int)cur->size + (int)table_ops.size + (int)inner.size;
}
int main(int argc, char **argv) { (void)argv; printf("%d\n", run(argc)); return 0; }
`, map[string]bool{
			"table_ops.name": false, "table_ops.run": false, "table_ops.size": false,
			"local_ops.size": false, "inner.size": false, "cfg.limit": false,
			"live_ops.name": true, "live_ops.size": true, "cfg.used": true, "cur": true,
		}},
		{"C++", "g++", `
#include <cstdio>
struct Limits { int most; const char *unit; struct { int lo, hi; } range; };
extern const Limits limits;
const Limits limits = {5, "ms", {1, 9}};
struct Live { int hits; const int cap; } live = {0, 64};
__attribute__((noinline)) int run(int n) {
	live.hits += n;
	return limits.most + limits.range.hi + live.cap + live.hits + (limits.unit[0] == 'm');
}
int main(int argc, char **argv) { (void)argv; std::printf("%d\n", run(argc)); return 0; }
`, map[string]bool{
			"limits.most": false, "limits.unit": false, "limits.range.hi": false, "live.cap": false,
			"live.hits": true,
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bin := buildWith(t, c.cc, c.src, "-O2")
			s, err := Load(bin, Options{})
			if err != nil {
				t.Fatal(err)
			}
			have := map[string]bool{}
			for _, v := range s.Vars {
				have[v.Name] = true
			}
			for name, want := range c.want {
				if have[name] != want {
					t.Errorf("%s monitored %v, want %v", name, have[name], want)
				}
			}
			// With --all nothing is dropped: the fields exist, so that
			// the rule, not their absence, is what the test sees.
			all, err := Load(bin, Options{All: true})
			if err != nil {
				t.Fatal(err)
			}
			in := map[string]bool{}
			for _, v := range all.Vars {
				in[v.Name] = true
			}
			for name := range c.want {
				if !in[name] {
					t.Errorf("%s not in the schema even with All", name)
				}
			}
		})
	}
}
