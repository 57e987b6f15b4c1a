package rank

import (
	"debug/elf"
	"encoding/hex"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vprof/vprof/analyze/debugsyms"
	"github.com/vprof/vprof/runtime/model"
)

// TestLockWake: the futex wake that a release of a contended lock makes
// counts for no function's cost, as a wait does (method.md §4, D44),
// whether the library's own symbols name it or, in a stripped C library,
// its debug file does; the release's own code (nobody waited) and library
// code that is no wake stay the caller's.
func TestLockWake(t *testing.T) {
	libcID, wakeAt := realLibcWake(t)
	for _, c := range []struct {
		name     string
		buildID  string
		at       uint64 // link-time PC of the 30 library samples
		named    string // the schema's name for the code at at, "" none
		wake     bool
		needLibc bool
	}{
		{"named by the library's symbols", "c1", 0x5310, "__lll_lock_wake", true, false},
		{"the unlock's own code", "c1", 0x5310, "pthread_mutex_unlock", false, false},
		{"unnamed, no debug file", "c1", 0x5310, "", false, false},
		{"unnamed, named a wake by libc's debug file", libcID, wakeAt, "", true, true},
		{"unnamed, named other code by libc's debug file", libcID, wakeAt - 1, "", false, true},
	} {
		if c.needLibc && libcID == "" {
			t.Logf("%s: skipped: no C library with a debug file under %s", c.name, debugsyms.Dir)
			continue
		}
		lo := c.at &^ 0xfff
		lib := &model.Schema{Path: "/lib/libc.so.6", BuildID: c.buildID, Type: "dyn"}
		if c.named != "" {
			lib.Funcs = []model.Func{{Name: c.named, Display: c.named, File: -1, Ranges: []model.PCRange{{Lo: lo, Hi: lo + 0x1000}}}}
			lib.Symbols = []model.Symbol{{Name: c.named, Value: lo, Size: 0x1000}}
		}
		hdr := header()
		hdr[1] = &model.Object{ID: 1, Path: "/lib/libc.so.6", BuildID: c.buildID, Schema: lib}
		hdr[3] = &model.Mapping{PID: 1, Start: libBias + lo, End: libBias + lo + 0x1000, Bias: libBias, Obj: 1}

		a := New(DefaultOptions())
		var buggy []ev
		for range 30 {
			addEv(&buggy, []uint64{L(c.at), P(pcWork), P(pcMain)})
		}
		for range 5 {
			addEv(&buggy, []uint64{P(pcWork), P(pcMain)})
		}
		for range 40 {
			addEv(&buggy, []uint64{P(pcMain)})
		}
		feedWith(t, a, Normal, "n", hdr, workCallsHelper(40))
		feedWith(t, a, Buggy, "b", hdr, buggy)
		res := a.Result()
		want := 0.035
		if c.wake {
			want = 0.005
		}
		if w := findFunc(t, res, "work"); !near(w.PCCost, want) {
			t.Errorf("%s: work's PC cost %g, want %g", c.name, w.PCCost, want)
		}
		note := false
		for _, s := range res.Warnings {
			note = note || strings.Contains(s, "D44")
		}
		if note != c.wake {
			t.Errorf("%s: warnings %q: want a note of the wakes: %v", c.name, res.Warnings, c.wake)
		}
	}
}

// realLibcWake returns the build-id of this machine's C library and the
// link-time address of its lock wake, when its debug file is installed.
func realLibcWake(t *testing.T) (string, uint64) {
	ef, err := elf.Open("/lib/x86_64-linux-gnu/libc.so.6")
	if err != nil {
		return "", 0
	}
	defer ef.Close()
	sec := ef.Section(".note.gnu.build-id")
	if sec == nil {
		return "", 0
	}
	b, err := sec.Data()
	if err != nil || len(b) < 16 {
		return "", 0
	}
	nameSz, descSz := ef.ByteOrder.Uint32(b[0:4]), ef.ByteOrder.Uint32(b[4:8])
	off := 12 + (nameSz+3)&^3
	if uint32(len(b)) < off+descSz {
		return "", 0
	}
	id := hex.EncodeToString(b[off : off+descSz])
	dbg, err := elf.Open(filepath.Join(debugsyms.Dir, ".build-id", id[:2], id[2:]+".debug"))
	if err != nil {
		return "", 0
	}
	defer dbg.Close()
	syms, _ := dbg.Symbols()
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && wakeName(s.Name) && s.Value != 0 {
			return id, s.Value
		}
	}
	t.Logf("no lock wake in %s's debug file", id)
	return "", 0
}

func TestWakeName(t *testing.T) {
	for name, want := range map[string]bool{
		"__lll_lock_wake": true, "__GI___lll_lock_wake": true, "__lll_lock_wake_private": true, "futex_wake": true,
		"pthread_mutex_unlock": false, "__lll_lock_wait": false, "[libc.so.6]": false, "": false,
	} {
		if got := wakeName(name); got != want {
			t.Errorf("wakeName(%q) = %v, want %v", name, got, want)
		}
	}
}
