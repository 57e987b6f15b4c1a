package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/proffile"
	"github.com/vprof/vprof/testprogs"
)

// TestSoak records testprogs/soak (1,000 short-lived threads, 20 forked
// children) at 5 kHz: no thread or process is lost, none is left a zombie,
// the target's output is a plain run's, and its exit status (3) is passed
// through.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("soak test")
	}
	bin := testprogs.Path(t, "soak")
	plain := exec.Command(bin)
	want, err := plain.Output()
	if plain.ProcessState == nil || plain.ProcessState.ExitCode() != 3 {
		t.Fatalf("plain run: %v (exit %v), want exit 3", err, plain.ProcessState)
	}

	data := filepath.Join(t.TempDir(), "soak.data")
	// The target writes to the test's stdout through a pipe we read.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = w
	var se bytes.Buffer
	code := mainStatus([]string{"record", "--interval", "200us", "-o", data, "--", bin}, io.Discard, &se)
	os.Stdout = saved
	w.Close()
	got, _ := io.ReadAll(r)
	r.Close()
	if code != 3 {
		t.Fatalf("vprof record exit %d, want the target's 3\n%s", code, se.String())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output under vprof %q, plain %q", got, want)
	}
	if z := zombies(t); len(z) > 0 {
		t.Errorf("zombie children left: %v", z)
	}

	pr, err := proffile.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	root := pr.Header().PID
	started, exited := map[int32]bool{}, map[int32]bool{}
	forks, procExits := 0, map[int32]bool{}
	samples := 0
	var trailer *model.Trailer
	for {
		rec, err := pr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch e := rec.(type) {
		case *model.ThreadEvent:
			if e.PID != root {
				continue
			}
			if e.Exit {
				exited[e.TID] = true
			} else {
				started[e.TID] = true
			}
		case *model.ProcEvent:
			switch e.Kind {
			case model.ProcFork:
				if e.PPID == root {
					forks++
				}
			case model.ProcExit:
				procExits[e.PID] = true
			}
		case *model.Block:
			samples += len(e.Samples)
		case *model.Trailer:
			trailer = e
		}
	}
	if !pr.Recovery().Complete || trailer == nil {
		t.Fatalf("profile incomplete: %v", pr.Recovery())
	}
	// The main thread plus 1,000 workers, each seen to start and to end.
	workers := 0
	for tid := range started {
		if tid != root {
			workers++
		}
		if tid != root && !exited[tid] {
			t.Errorf("thread %d: start recorded, no exit", tid)
		}
	}
	if workers != 1000 {
		t.Errorf("%d worker threads recorded, want 1000", workers)
	}
	if forks != 20 || len(procExits) != 21 {
		t.Errorf("%d forks and %d process exits recorded, want 20 and 21", forks, len(procExits))
	}
	if trailer.ExitStatus != 3 {
		t.Errorf("trailer exit status %d, want 3", trailer.ExitStatus)
	}
	t.Logf("%d samples, %d threads, %d children", samples, len(started), forks)
}

// zombies lists this process's children that have exited unreaped.
func zombies(t *testing.T) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	me := os.Getpid()
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces; cut at the last ')'.
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 && f[0] == "Z" {
			if ppid, _ := strconv.Atoi(f[1]); ppid == me {
				out = append(out, pid)
			}
		}
	}
	return out
}
