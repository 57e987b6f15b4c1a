package export

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Collapsed writes one `root;...;leaf count` line per distinct stack, the
// input of flamegraph.pl and inferno. Lines are sorted by stack so output
// is deterministic. Each sample counts once.
func Collapsed(w io.Writer, path string) error {
	counts := map[string]int64{}
	var sb strings.Builder
	_, _, _, err := Walk(path, func(st *Stack) error {
		sb.Reset()
		for i := len(st.Frames) - 1; i >= 0; i-- {
			if sb.Len() > 0 {
				sb.WriteByte(';')
			}
			sb.WriteString(collapsedName(st.Frames[i].Display))
		}
		counts[sb.String()]++
		return nil
	})
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	bw := bufio.NewWriter(w)
	for _, k := range keys {
		fmt.Fprintf(bw, "%s %d\n", k, counts[k])
	}
	return bw.Flush()
}

// collapsedName keeps a frame name in its field: flamegraph.pl splits a
// line at its last space, so spaces inside names are fine (C++ names have
// them); ';' separates frames and a newline ends the line, so those go.
func collapsedName(s string) string {
	if s == "" {
		return "[unknown]"
	}
	return strings.NewReplacer(";", ":", "\n", " ").Replace(s)
}
