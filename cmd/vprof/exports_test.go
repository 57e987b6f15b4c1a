package main

import (
	"encoding/json"
	"github.com/vprof/vprof/analyze/debugsyms"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/vprof/vprof/testprogs"
)

// recordTestprog records one normal run of recovery_budget with the vprof
// binary (its checksum code is inlined; it calls memcpy in libc).
func recordTestprog(t *testing.T, dir string) string {
	t.Helper()
	bin := testprogs.Path(t, "recovery_budget")
	data := filepath.Join(dir, "run.data")
	if r := execVprof(t, dir, nil, "record", "-q", "-o", data, "--", bin, "normal"); r.code != 0 {
		t.Fatalf("record: exit %d: %s", r.code, r.stderr)
	}
	return data
}

// TestExportsReadWhole: the exports as other tools read them. pprof: go
// tool pprof's -raw shows the mappings with their runtime start and limit,
// file offset, file and build-id; -top names library code (from the
// library's separate debug file when installed); -traces carries the
// state label. speedscope: one frame per function. Chrome: timestamps to
// the microsecond and finer, not whole milliseconds.
func TestExportsReadWhole(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command for go tool pprof")
	}
	dir := t.TempDir()
	data := recordTestprog(t, dir)
	pb := filepath.Join(dir, "run.pb.gz")
	if r := execVprof(t, dir, nil, "export", "--format", "pprof", "-o", pb, data); r.code != 0 {
		t.Fatalf("export: %s", r.stderr)
	}
	pprof := func(flag string) string {
		out, err := exec.Command(gobin, "tool", "pprof", flag, pb).CombinedOutput()
		if err != nil {
			t.Fatalf("go tool pprof %s: %v\n%s", flag, err, out)
		}
		return string(out)
	}
	raw := pprof("-raw")
	_, maps, _ := strings.Cut(raw, "\nMappings\n")
	mline := regexp.MustCompile(`(?m)^\d+: 0x([0-9a-f]+)/0x([0-9a-f]+)/0x([0-9a-f]+) (\S+) ([0-9a-f]+)`)
	libcID := ""
	progOK := false
	for _, m := range mline.FindAllStringSubmatch(maps, -1) {
		start, _ := strconv.ParseUint(m[1], 16, 64)
		limit, _ := strconv.ParseUint(m[2], 16, 64)
		if start == 0 || limit <= start {
			t.Errorf("mapping %q: start %#x limit %#x", m[0], start, limit)
		}
		if strings.HasSuffix(m[4], "/recovery_budget") {
			progOK = true
		}
		if strings.Contains(m[4], "libc.so") {
			libcID = m[5]
		}
	}
	if !progOK || libcID == "" {
		t.Fatalf("go tool pprof -raw mappings, want the program and libc with start, limit, offset, file, build-id:\n%s", maps)
	}
	_, err = os.Stat(filepath.Join(debugsyms.Dir, ".build-id", libcID[:2], libcID[2:]+".debug"))
	libcDebug := err == nil
	// libc's PLT stubs have no symbol in libc nor in its debug file, but
	// names all the same (__tunable_get_val@plt, a sample while ld.so
	// starts the program; dwarfschema/plt.go): no libc code is unnamed.
	top := pprof("-top")
	if regexp.MustCompile(`\[libc\.so\.6\+0x`).MatchString(top) {
		if libcDebug {
			t.Errorf("libc code unnamed although its debug file is installed:\n%s", top)
		} else {
			t.Logf("libc's debug file is not installed (make debug-tools installs libc6-dbg): its local functions stay unnamed")
		}
	}
	if !strings.Contains(top, "ut_crc32_sw") {
		t.Errorf("-top:\n%s", top)
	}
	if traces := pprof("-traces"); !strings.Contains(traces, "state:  running") {
		t.Errorf("-traces without the state label:\n%.2000s", traces)
	}
	if r := execVprof(t, dir, nil, "export", "--help"); !strings.Contains(r.stdout, "state") {
		t.Errorf("export --help no longer names the state label")
	}

	r := execVprof(t, dir, nil, "export", "--format", "speedscope", data)
	var ss struct {
		Shared struct {
			Frames []struct {
				Name string `json:"name"`
				Line int    `json:"line"`
			} `json:"frames"`
		} `json:"shared"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &ss); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range ss.Shared.Frames {
		if seen[f.Name] {
			t.Errorf("speedscope: function %s has several frames (one bar per line)", f.Name)
		}
		seen[f.Name] = true
	}

	r = execVprof(t, dir, nil, "export", "--format", "chrome", data)
	var ch struct {
		TraceEvents []struct {
			Ph string  `json:"ph"`
			Ts float64 `json:"ts"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &ch); err != nil {
		t.Fatal(err)
	}
	if libcDebug && strings.Contains(r.stdout, `"name":"[libc.so.6]"`) {
		t.Errorf("chrome: libc code unnamed although its debug file is installed")
	}
	fine, n := 0, 0
	for _, e := range ch.TraceEvents {
		if e.Ph == "X" {
			n++
			if math.Mod(e.Ts, 1000) != 0 {
				fine++
			}
		}
	}
	if n == 0 || fine < n/2 {
		t.Errorf("chrome: %d of %d call timestamps finer than a millisecond", fine, n)
	}
}
