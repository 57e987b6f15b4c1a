package dwarfschema

import (
	"sync/atomic"
	"syscall"
	"time"
)

// loadPhases are the steps of Load, in order, for the figures of
// BenchmarkLoadBinary: where the time goes on a real binary.
var loadPhases = [...]string{"open", "walk", "build", "tags", "narrow"}

// phaseTimes records Load's wall and process CPU time per phase. CPU time
// is the whole process's (getrusage): a phase's own goroutines and the
// collector's, and the call-site scan that runs beside the walk.
type phaseTimes struct {
	wall, cpu [len(loadPhases)]time.Duration

	n            int
	lastW, lastC time.Duration
	t0           time.Time
}

// lastPhases holds the figures of the latest Load.
var lastPhases atomic.Pointer[phaseTimes]

func startPhases() *phaseTimes {
	return &phaseTimes{t0: time.Now(), lastC: processCPU()}
}

// end closes phase name, the next of loadPhases (a phase out of order
// is not recorded: the figures are for benchmarks).
func (p *phaseTimes) end(name string) {
	if p.n >= len(loadPhases) || loadPhases[p.n] != name {
		return
	}
	w, c := time.Since(p.t0), processCPU()
	p.wall[p.n], p.cpu[p.n] = w-p.lastW, c-p.lastC
	p.lastW, p.lastC = w, c
	p.n++
	if p.n == len(loadPhases) {
		lastPhases.Store(p)
	}
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
