package export

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/vprof/vprof/analyze/debugsyms"
	"io"
	"math"
	"strconv"

	"github.com/vprof/vprof/analyze/timeline"
	"github.com/vprof/vprof/analyze/trace"
	"github.com/vprof/vprof/runtime/model"
	"github.com/vprof/vprof/runtime/symname"
)

// ChromeOptions tunes Chrome.
type ChromeOptions struct {
	// Vars, if set, are the variables given counter tracks (report.Vars
	// gives the most anomalous ones of an analysis).
	Vars []timeline.VarRef
}

// Chrome writes the profile as Chrome trace-event JSON (the format of
// chrome://tracing and the Perfetto UI): per thread, the calls rebuilt from
// the samples (method.md §9) as complete ("X") events, thread names as
// metadata, and the sampled values of opt.Vars as counter ("C") events.
// Times are the samples' own, in microseconds to the nanosecond
// (trace.ProfileOptions.SampleTime), not whole ticks.
func Chrome(w io.Writer, path string, opt ChromeOptions) error {
	var (
		tr     *trace.Trace
		tracks map[*trace.Thread][]timeline.Track
		err    error
	)
	var dbg debugsyms.Table
	popt := trace.ProfileOptions{SampleTime: true, NameCode: func(o *model.Object, link uint64) (string, bool) {
		name, ok := dbg.Name(o.BuildID, link)
		return symname.Demangle(name), ok
	}}
	if len(opt.Vars) > 0 {
		tr, tracks, err = timeline.ReadProfileTracks(path, opt.Vars, popt)
	} else {
		tr, _, err = trace.ReadProfile(path, popt)
	}
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	names := make([][]byte, len(tr.Funcs)) // JSON-quoted once
	for i, f := range tr.Funcs {
		names[i], _ = json.Marshal(f)
	}
	var b []byte
	first := true
	emit := func() {
		if first {
			bw.WriteString("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n")
			first = false
		} else {
			bw.WriteString(",\n")
		}
		bw.Write(b)
	}
	// Timestamps are microseconds; keep nanosecond precision as decimals.
	us := func(b []byte, ns int64) []byte {
		b = strconv.AppendInt(b, ns/1000, 10)
		if r := ns % 1000; r != 0 {
			b = append(b, '.')
			b = append(b, fmt.Sprintf("%03d", r)...)
		}
		return b
	}
	for _, th := range tr.Threads {
		name, _ := json.Marshal(th.Name)
		b = fmt.Appendf(b[:0], `{"name":"thread_name","ph":"M","pid":%d,"tid":%d,"args":{"name":%s}}`, th.PID, th.TID, name)
		emit()
		for i := range th.Calls {
			c := &th.Calls[i]
			b = append(b[:0], `{"name":`...)
			b = append(b, names[c.Func]...)
			b = append(b, `,"ph":"X","ts":`...)
			b = us(b, c.Start)
			b = append(b, `,"dur":`...)
			b = us(b, c.Dur())
			b = fmt.Appendf(b, `,"pid":%d,"tid":%d}`, th.PID, th.TID)
			emit()
		}
		for _, tk := range tracks[th] {
			// Counters are per process in the format: name them per thread.
			cname, _ := json.Marshal(fmt.Sprintf("%s [tid %d]", tk.Name, th.TID))
			for i, t := range tk.Times {
				if math.IsInf(tk.Values[i], 0) || math.IsNaN(tk.Values[i]) {
					continue // JSON has no spelling for them
				}
				b = append(b[:0], `{"name":`...)
				b = append(b, cname...)
				b = append(b, `,"ph":"C","ts":`...)
				b = us(b, t)
				b = fmt.Appendf(b, `,"pid":%d,"args":{"value":%s}}`, th.PID, strconv.FormatFloat(tk.Values[i], 'g', -1, 64))
				emit()
			}
		}
	}
	if first {
		bw.WriteString("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n")
	}
	bw.WriteString("\n]}\n")
	return bw.Flush()
}
