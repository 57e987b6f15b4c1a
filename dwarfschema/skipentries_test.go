package dwarfschema

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vprof/vprof/testprogs"
)

// anonSrc is a C program whose structs hold anonymous unions and structs
// (clang nests their types inside the struct's entry; gcc puts them at
// file scope), nested structs, enumerations and function pointers, read
// through globals, locals, parameters and pointers: the records the walk
// skips and neededMembers reads again.
const anonSrc = `#include <stdlib.h>
enum state { IDLE, BUSY, DONE };
struct inner { int a; long b; };
struct aux { int x, y, z; };
struct node {
	struct node *next;
	union { int i; float f; };
	struct { short lo, hi; } range;
	struct inner in;
	enum state st;
	int (*cmp)(const struct node *, const struct node *);
	struct aux *aux; /* behind a member pointer: no field reaches it */
};
struct node table[4];
static int by_i(const struct node *a, const struct node *b) { return a->i - b->i; }
__attribute__((noinline)) int walk(struct node *n, int limit) {
	int sum = 0;
	for (; n && limit > 0; n = n->next, limit--) {
		if (n->st == BUSY && n->cmp(n, table) > 0)
			sum += n->range.hi + n->in.a;
	}
	return sum;
}
int main(int argc, char **argv) {
	struct inner local = { argc, 2 };
	for (int k = 0; k < 4; k++) {
		table[k].next = k < 3 ? &table[k + 1] : NULL;
		table[k].i = k * argc;
		table[k].st = (enum state)(k % 3);
		table[k].cmp = by_i;
		table[k].in = local;
	}
	return walk(table, atoi(argc > 1 ? argv[1] : "4"));
}
`

// TestSkippedEntriesSame checks that what the walk and the call-site scan
// skip changes nothing: a C record's members read after the walk only for
// the records that fields can reach (neededMembers), and the scan's skips
// of C records' members, enumerators and function types' parameters. The
// whole schema (its JSON: functions, variables, tags, locations, call
// sites, tail calls, lines) is compared with the one the eager walk and
// the full scan give, by default and with All, on C and C++ testprogs,
// dwz'd files (partial units; a supplementary file, whose records
// readMembers reads from it), gcc and clang builds of anonSrc and
// $VPROF_BENCH_BINARY. It fails if anonSrc's struct aux, which no field
// reaches, had its members read (the skip not exercised).
func TestSkippedEntriesSame(t *testing.T) {
	bins := map[string]string{}
	for _, name := range []string{"values", "vhost_lookup", "lru_scan", "recovery_budget", "stats_recalc", "overlap_sort"} {
		bins[name] = testprogs.Path(t, name)
	}
	d := t.TempDir()
	run := func(args ...string) bool {
		t.Helper()
		if _, err := exec.LookPath(args[0]); err != nil {
			t.Logf("%s not found: its case skipped", args[0])
			return false
		}
		if b, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, b)
		}
		return true
	}
	src := filepath.Join(d, "anon.c")
	if err := os.WriteFile(src, []byte(anonSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cc := range []string{"gcc", "clang"} {
		out := filepath.Join(d, "anon-"+cc)
		if run(cc, "-g", "-O2", "-o", out, src) {
			bins["anon/"+cc] = out
		}
	}
	dwzCopies(t, d, bins, []string{"vhost_lookup"}, "lru_scan")
	if b := os.Getenv("VPROF_BENCH_BINARY"); b != "" {
		bins["VPROF_BENCH_BINARY"] = b
	}
	load := func(t *testing.T, bin string, eager bool, opt Options) []byte {
		t.Helper()
		eagerMembers, scanEveryEntry = eager, eager
		defer func() { eagerMembers, scanEveryEntry = false, false }()
		s, err := Load(bin, opt)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for name, bin := range bins {
		t.Run(name, func(t *testing.T) {
			left := lazyLeft.Load()
			for _, opt := range []Options{{}, {All: true}} {
				eager, lazy := load(t, bin, true, opt), load(t, bin, false, opt)
				if !bytes.Equal(eager, lazy) {
					t.Errorf("All=%v: the schema with entries skipped differs from the full walk's (%d and %d bytes of JSON)", opt.All, len(lazy), len(eager))
				}
			}
			left = lazyLeft.Load() - left
			t.Logf("records whose members were never read: %d", left)
			if left == 0 && strings.HasPrefix(name, "anon/") {
				t.Error("every C record's members were read: the skip is not tested")
			}
		})
	}
}
