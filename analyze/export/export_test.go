package export

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/vprof/vprof/analyze/trace"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/proffile"
)

// makeProfile writes a small profile: main -> work (with inlined helper)
// -> qsort in libc, and main -> idle, on two threads.
func makeProfile(t *testing.T) string {
	prog := &model.Schema{
		Path: "/bin/app", HasDWARF: true, Files: []string{"app.c"},
		Funcs: []model.Func{
			{Name: "main", Display: "main", Ranges: []model.PCRange{{Lo: 0x1000, Hi: 0x1100}}},
			{Name: "_Z4workv", Display: "work()", Ranges: []model.PCRange{{Lo: 0x1100, Hi: 0x1200}}},
			{Name: "helper", Display: "helper", Ranges: nil},
			{Name: "idle;x", Display: "idle;x", Ranges: []model.PCRange{{Lo: 0x1200, Hi: 0x1300}}},
		},
		Inlines: []model.Inline{{Func: 2, Depth: 1, Ranges: []model.PCRange{{Lo: 0x1180, Hi: 0x11a0}}}},
		Vars:    []model.Var{{Name: "n", Func: 1, Kind: model.KindInt, Size: 4}},
		Lines:   []model.LineRow{{PC: 0x1000, Line: 10}, {PC: 0x1100, Line: 20}, {PC: 0x1180, Line: 30}, {PC: 0x1200, Line: 40}, {PC: 0x1300}},
	}
	libc := &model.Schema{Path: "/lib/libc.so.6", Symbols: []model.Symbol{{Name: "qsort", Value: 0x500, Size: 0x100}}}
	path := filepath.Join(t.TempDir(), "p.data")
	w, err := proffile.Create(path, model.Header{Target: "/bin/app", IntervalNS: 1e6, Clock: model.ClockCPU})
	if err != nil {
		t.Fatal(err)
	}
	w.AddObject(&model.Object{ID: 0, Path: "/bin/app", Program: true, Schema: prog})
	w.AddObject(&model.Object{ID: 1, Path: "/lib/libc.so.6", Schema: libc})
	w.AddMapping(model.Mapping{PID: 5, Start: 0x401000, End: 0x402000, Bias: 0x400000, Obj: 0})
	w.AddMapping(model.Mapping{PID: 5, Start: 0x7f0000, End: 0x7f1000, Bias: 0x7f0000, Obj: 1})
	for i := 0; i < 10; i++ {
		// work -> qsort, called from main (return addresses point after calls)
		w.AddSample(5, 5, &model.Sample{Tick: uint64(i), TimeNS: int64(i+1) * 1e6, WeightNS: 1e6, Syscall: -1,
			Stack:  []uint64{0x7f0510, 0x401150, 0x401020},
			Values: []model.Value{{Frame: 1, Obj: 0, Var: 0, Bits: 7}}})
		// helper inlined in work, called from main
		w.AddSample(5, 6, &model.Sample{Tick: uint64(i), TimeNS: int64(i+1) * 1e6, WeightNS: 2e6, Syscall: -1,
			Stack: []uint64{0x401185, 0x401020}})
	}
	w.AddSample(5, 6, &model.Sample{Tick: 11, TimeNS: 12e6, WeightNS: 1e6, Syscall: -1, Stack: []uint64{0x401210, 0x401030}})
	if err := w.Close(model.Trailer{}); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCollapsed(t *testing.T) {
	var b bytes.Buffer
	if err := Collapsed(&b, makeProfile(t)); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	exp := strings.Join([]string{
		"main;idle:x 1",
		"main;work();helper 10",
		"main;work();qsort 10",
	}, "\n") + "\n"
	if got != exp {
		t.Fatalf("collapsed:\n%s\nwant:\n%s", got, exp)
	}
}

func TestPprof(t *testing.T) {
	var b bytes.Buffer
	if err := Pprof(&b, makeProfile(t)); err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sample) != 21 || p.SampleType[1].Type != "cpu" || p.SampleType[1].Unit != "nanoseconds" {
		t.Fatalf("%d samples, types %v", len(p.Sample), p.SampleType)
	}
	var total int64
	sawInline, sawLabel := false, false
	for _, s := range p.Sample {
		total += s.Value[1]
		for _, l := range s.Location {
			if len(l.Line) == 2 && l.Line[0].Function.Name == "helper" && l.Line[1].Function.Name == "work()" &&
				l.Line[0].Line == 30 {
				sawInline = true
			}
		}
		if s.NumLabel["tid"][0] == 6 && s.NumLabel["pid"][0] != 5 {
			t.Fatalf("labels %v", s.NumLabel)
		}
		if _, ok := s.NumLabel["n"]; ok {
			sawLabel = true // n is read in frame 1, not the innermost: must not be a label
		}
	}
	if total != 10e6+20e6+1e6 {
		t.Errorf("total cpu %d", total)
	}
	if !sawInline {
		t.Error("inlined frame not folded into its caller's location")
	}
	if sawLabel {
		t.Error("caller-frame value exported as an innermost-frame label")
	}
}

func TestSpeedscope(t *testing.T) {
	var b bytes.Buffer
	if err := Speedscope(&b, makeProfile(t)); err != nil {
		t.Fatal(err)
	}
	var f struct {
		Schema string `json:"$schema"`
		Shared struct {
			Frames []struct{ Name string } `json:"frames"`
		} `json:"shared"`
		Profiles []struct {
			Type     string    `json:"type"`
			Name     string    `json:"name"`
			Samples  [][]int   `json:"samples"`
			Weights  []float64 `json:"weights"`
			EndValue float64   `json:"endValue"`
		} `json:"profiles"`
	}
	if err := json.Unmarshal(b.Bytes(), &f); err != nil {
		t.Fatal(err)
	}
	if f.Schema != "https://www.speedscope.app/file-format-schema.json" || len(f.Profiles) != 2 {
		t.Fatalf("%+v", f)
	}
	p := f.Profiles[0]
	if p.Type != "sampled" || len(p.Samples) != 10 || len(p.Weights) != 10 || p.EndValue != 10e6 {
		t.Fatalf("profile %+v", p)
	}
	root, leaf := f.Shared.Frames[p.Samples[0][0]].Name, f.Shared.Frames[p.Samples[0][2]].Name
	if root != "main" || leaf != "qsort" {
		t.Errorf("stack order: root %q leaf %q, want main ... qsort", root, leaf)
	}
}

func TestChromeRoundTrip(t *testing.T) {
	path := makeProfile(t)
	var b bytes.Buffer
	if err := Chrome(&b, path, ChromeOptions{}); err != nil {
		t.Fatal(err)
	}
	var f struct {
		TraceEvents []struct {
			Name string  `json:"name"`
			Ph   string  `json:"ph"`
			Ts   float64 `json:"ts"`
			Dur  float64 `json:"dur"`
			Tid  int     `json:"tid"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(b.Bytes(), &f); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b.String())
	}
	want, _, err := trace.ReadProfile(path, trace.ProfileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	x, meta := 0, 0
	for _, e := range f.TraceEvents {
		switch e.Ph {
		case "X":
			x++
			if e.Dur <= 0 {
				t.Errorf("call %q with duration %v", e.Name, e.Dur)
			}
		case "M":
			meta++
		}
	}
	if x != want.Calls() || meta != len(want.Threads) || x == 0 {
		t.Fatalf("%d X events and %d thread names; profile has %d calls on %d threads", x, meta, want.Calls(), len(want.Threads))
	}
	// What Perfetto and chrome://tracing read, our own importer reads too.
	back, err := trace.ReadChrome(bytes.NewReader(b.Bytes()), "export.json")
	if err != nil {
		t.Fatal(err)
	}
	if back.Calls() != want.Calls() {
		t.Fatalf("re-imported %d calls, exported %d", back.Calls(), want.Calls())
	}
}
