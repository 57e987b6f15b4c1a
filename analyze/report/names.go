package report

import "strings"

// cellMax bounds a table cell: C++ template names run to thousands of
// characters. The JSON output keeps them whole.
const cellMax = 60

// Short fits a function or type name in a table cell: C++ names lose their
// template arguments and parameters first, then the middle.
func Short(s string) string {
	if len(s) <= cellMax {
		return s
	}
	s = dropNested(s)
	if len(s) <= cellMax {
		return s
	}
	return s[:cellMax/2-2] + "..." + s[len(s)-(cellMax/2-1):]
}

// ShortAll shortens names as short does, except names whose short forms
// would read alike though the names differ (overloads: f(Node*) and
// f(Node*, File*) both read f(...)): those keep their parameters, with
// template arguments dropped, and whole where that still does not tell
// them apart. A row must name one function.
func ShortAll(names []string) []string {
	out := make([]string, len(names))
	full := map[string]map[string]bool{} // short form -> the names giving it
	for i, n := range names {
		out[i] = Short(n)
		if full[out[i]] == nil {
			full[out[i]] = map[string]bool{}
		}
		full[out[i]][n] = true
	}
	for i, n := range names {
		if len(full[out[i]]) < 2 {
			continue
		}
		out[i] = dropTemplates(n)
		for m := range full[Short(n)] {
			if m != n && dropTemplates(m) == out[i] {
				out[i] = n
				break
			}
		}
	}
	return out
}

// dropNested replaces the contents of <...> and (...) with "..."; empty
// ones stay empty: f() stays f().
func dropNested(s string) string { return dropPairs(s, "<(", ">)") }

// dropTemplates replaces the contents of <...> only.
func dropTemplates(s string) string { return dropPairs(s, "<", ">") }

// dropPairs replaces the contents of the bracket pairs opening with a byte
// of open and closing with a byte of close by "...".
func dropPairs(s, open, close string) string {
	var b strings.Builder
	depth := 0
	empty := false // inside a pair, nothing seen yet
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case strings.IndexByte(open, c) >= 0:
			if depth == 0 {
				b.WriteByte(c)
				empty = true
			} else if empty {
				b.WriteString("...")
				empty = false
			}
			depth++
			continue
		case strings.IndexByte(close, c) >= 0:
			if depth > 0 {
				depth--
				if depth == 0 {
					b.WriteByte(c)
				}
				continue
			}
		}
		if depth == 0 {
			b.WriteByte(c)
		} else if empty {
			b.WriteString("...")
			empty = false
		}
	}
	return b.String()
}
