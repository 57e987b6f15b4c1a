package dwarfschema

import (
	"runtime/debug"
	"testing"
)

// TestGCGoal: Load's steps set the collector's goal and put it back, but
// leave paused collections alone. A recording pauses them (GOGC -1 under a
// heap limit) while it starts and loads the program's schema; when a
// collection forced by the limit ends the pause during a step (GOGC back
// to 100), the step must not put the -1 back, or collections stay off with
// no limit for the rest of the recording.
func TestGCGoal(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, c := range []struct {
		name   string
		before int // GOGC when the step starts
		resume int // set during the step (-2: nothing)
		during int // GOGC during the step
		after  int // GOGC after it
	}{
		{"usual pacing", 100, -2, 200, 100},
		{"paused", -1, -2, -1, -1},
		{"paused, resumed during the step", -1, 100, -1, 100},
	} {
		debug.SetGCPercent(c.before)
		restore := gcGoal(200)
		if got := debug.SetGCPercent(-1); got != c.during {
			t.Errorf("%s: GOGC during the step %d, want %d", c.name, got, c.during)
		}
		debug.SetGCPercent(c.during)
		if c.resume != -2 {
			debug.SetGCPercent(c.resume)
		}
		restore()
		if got := debug.SetGCPercent(100); got != c.after {
			t.Errorf("%s: GOGC after the step %d, want %d", c.name, got, c.after)
		}
	}
}
