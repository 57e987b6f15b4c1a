package main

import (
	"math"
	"testing"
	"time"

	"github.com/vprof/vprof/sampler"
)

func TestDrainFit(t *testing.T) {
	run := func(drains, samples uint64, perDrain, perSample float64) measure {
		cpu := time.Duration((float64(drains)*perDrain + float64(samples)*perSample) * 1e3)
		res := &sampler.Result{TracerCPU: cpu + 5*time.Millisecond, SetupCPU: 5 * time.Millisecond}
		res.Steps.Drains, res.Steps.Perf = drains, samples
		return measure{res: res}
	}
	ms := []measure{run(1000, 600, 30, 15), run(900, 1700, 30, 15), run(1100, 1000, 30, 15)}
	d, s, ok := drainFit(ms)
	if !ok || math.Abs(d-30) > 0.01 || math.Abs(s-15) > 0.01 {
		t.Errorf("fit %.3f per drain, %.3f per sample, ok %v; want 30, 15", d, s, ok)
	}
	// The same samples per drain in every run: the split is unknown.
	ms = []measure{run(1000, 2000, 30, 15), run(500, 1000, 30, 15), run(700, 1400, 30, 15)}
	if _, _, ok := drainFit(ms); ok {
		t.Errorf("fit of runs with 2 samples per drain in each: ok")
	}
	// Noise beyond the spread: a negative cost, no split.
	ms = []measure{run(1000, 1000, 30, 15), run(1000, 1100, 10, 15), run(1000, 1050, 60, 15)}
	if d, s, ok := drainFit(ms); ok {
		t.Errorf("fit %.1f per drain, %.1f per sample: ok", d, s)
	}
	if _, _, ok := drainFit(ms[:2]); ok {
		t.Errorf("fit of two runs: ok")
	}
}
