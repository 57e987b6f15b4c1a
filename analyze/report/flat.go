package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/vprof/vprof/analyze/rank"
)

// WriteFlat prints the flat profile fl of the recording at path, its top
// functions (0: all), in format: "table" (a title line, then a Boxed
// table), "markdown" or "csv".
func WriteFlat(w io.Writer, path string, fl *rank.Flat, top int, format string) error {
	entries := fl.Entries
	if top > 0 && len(entries) > top {
		entries = entries[:top]
	}
	pct := func(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
	if format == "csv" {
		cw := csv.NewWriter(w)
		cw.Write([]string{"percent_time", "cumulative_s", "self_s", "name"})
		for _, e := range entries {
			cw.Write([]string{pct(e.Percent), fmtG(e.Cumulative), fmtG(e.Self), e.Name})
		}
		cw.Flush()
		return cw.Error()
	}
	if format == "table" {
		fmt.Fprintf(w, "Flat profile of %s: %d samples, %.3f s sampled.\n\n", path, fl.Samples, fl.Total)
	}
	rows := make([][]string, 0, len(entries))
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name
	}
	names = ShortAll(names)
	for i, e := range entries {
		rows = append(rows, []string{pct(e.Percent), secs(e.Cumulative), secs(e.Self), names[i]})
	}
	return WriteTable(w, StyleOf(format), []string{"% time", "cumulative s", "self s", "name"}, rows, []Align{Right, Right, Right, Left})
}
