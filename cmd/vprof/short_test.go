package main

import "testing"

// TestShortAll: overloads whose short forms read alike keep their
// parameters (template arguments dropped), or their whole names where
// that is not enough; other names are shortened as short does.
func TestShortAll(t *testing.T) {
	const (
		s     = "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >"
		load2 = "DyndepLoader::LoadDyndeps(Node*, " + s + "*) const"
		load3 = "DyndepLoader::LoadDyndeps(Node*, DyndepFile*, " + s + "*) const"
		parse = "DyndepParser::Parse(" + s + " const&, " + s + " const&, " + s + "*)"
		tmplA = "Box<int>::get(" + s + " const&, " + s + " const&)"
		tmplB = "Box<long>::get(" + s + " const&, " + s + " const&)"
	)
	got := shortAll([]string{load3, parse, load2, "main", tmplA, tmplB})
	want := []string{
		"DyndepLoader::LoadDyndeps(Node*, DyndepFile*, std::__cxx11::basic_string<...>*) const",
		"DyndepParser::Parse(...)",
		"DyndepLoader::LoadDyndeps(Node*, std::__cxx11::basic_string<...>*) const",
		"main",
		tmplA, // Box<...>::get(...) both, and alike without template arguments too
		tmplB,
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("shortAll[%d] = %q, want %q", i, got[i], want[i])
		}
	}
	seen := map[string]bool{}
	for _, g := range got {
		if seen[g] {
			t.Errorf("two rows read %q", g)
		}
		seen[g] = true
	}
}
