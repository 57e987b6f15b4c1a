package main

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/vprof/vprof/analyze/export"
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

// TestInlinedOneRule: flat, report and the exports charge the code of an
// inlined function to the inlined function (the innermost at the PC), so
// one run gives the same function costs in each: flat's self time, the
// report's PC cost less what library callees carried ("via"), the pprof
// and speedscope leaf frames' weights.
func TestInlinedOneRule(t *testing.T) {
	dir := t.TempDir()
	data := recordTestprog(t, dir)

	flat := map[string]float64{}
	r := execVprof(t, dir, nil, "flat", "--format", "csv", data)
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if r.code != 0 || err != nil || len(rows) < 2 {
		t.Fatalf("flat: exit %d, %v: %s", r.code, err, r.stderr)
	}
	for _, row := range rows[1:] {
		flat[row[3]], _ = strconv.ParseFloat(row[2], 64)
	}

	r = execVprof(t, dir, nil, "report", "-q", "--format", "json", "--top", "0", data, data)
	var rep reportJSON
	if err := json.Unmarshal([]byte(r.stdout), &rep); r.code != 0 || err != nil {
		t.Fatalf("report: exit %d, %v: %s", r.code, err, r.stderr)
	}

	pb := filepath.Join(dir, "run.pb.gz")
	if r := execVprof(t, dir, nil, "export", "--format", "pprof", "-o", pb, data); r.code != 0 {
		t.Fatalf("export: %s", r.stderr)
	}
	f, err := os.Open(pb)
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	leafPprof := map[string]float64{}
	inlinedLeaf := map[string]bool{} // functions sampled in code inlined into another
	for _, s := range p.Sample {
		l := s.Location[0]
		leafPprof[l.Line[0].Function.Name] += float64(s.Value[1]) / 1e9
		if len(l.Line) > 1 {
			inlinedLeaf[l.Line[0].Function.Name] = true
		}
	}

	r = execVprof(t, dir, nil, "export", "--format", "speedscope", data)
	var ss struct {
		Shared struct {
			Frames []struct{ Name string } `json:"frames"`
		} `json:"shared"`
		Profiles []struct {
			Samples [][]int `json:"samples"`
			Weights []int64 `json:"weights"`
		} `json:"profiles"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &ss); err != nil {
		t.Fatal(err)
	}
	leafSS := map[string]float64{}
	for _, pr := range ss.Profiles {
		for i, st := range pr.Samples {
			leafSS[ss.Shared.Frames[st[len(st)-1]].Name] += float64(pr.Weights[i]) / 1e9
		}
	}

	checked, inlined := 0, 0
	for _, fn := range rep.Functions {
		own := fn.PCCost
		for _, v := range fn.Via {
			own -= v.Share * fn.PCCost
		}
		if own < 1e-9 {
			continue
		}
		checked++
		if inlinedLeaf[fn.Function] {
			inlined++
		}
		for what, got := range map[string]float64{"flat": flat[fn.Function], "pprof": leafPprof[fn.Function], "speedscope": leafSS[fn.Function]} {
			if math.Abs(got-own) > 1e-6 {
				t.Errorf("%s: report's own PC cost %.6f s, %s %.6f s", fn.Function, own, what, got)
			}
		}
	}
	if checked < 3 || inlined == 0 {
		t.Errorf("%d functions compared, %d of them inlined (%v); flat %v", checked, inlined, inlinedLeaf, flat)
	}
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
	_, err = os.Stat(filepath.Join(export.DebugDir, ".build-id", libcID[:2], libcID[2:]+".debug"))
	libcDebug := err == nil
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
