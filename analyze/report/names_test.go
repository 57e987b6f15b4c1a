package report

import (
	"strings"
	"testing"
)

// TestShortAll: overloads whose short forms read alike keep their
// parameters (template arguments dropped), or their whole names where
// that is not enough; other names are shortened as Short does.
func TestShortAll(t *testing.T) {
	const (
		s     = "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >"
		load2 = "DyndepLoader::LoadDyndeps(Node*, " + s + "*) const"
		load3 = "DyndepLoader::LoadDyndeps(Node*, DyndepFile*, " + s + "*) const"
		parse = "DyndepParser::Parse(" + s + " const&, " + s + " const&, " + s + "*)"
		tmplA = "Box<int>::get(" + s + " const&, " + s + " const&)"
		tmplB = "Box<long>::get(" + s + " const&, " + s + " const&)"
	)
	got := ShortAll([]string{load3, parse, load2, "main", tmplA, tmplB})
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

// TestShort: table cells keep short names whole, drop C++ template
// arguments and parameters of long ones, and cut the middle of what is
// still too long.
func TestShort(t *testing.T) {
	long := strings.Repeat("x", 80)
	tests := []struct{ in, want string }{
		{"app::Store::find()", "app::Store::find()"},
		{"innodb::row_upd_del_mark_clust_rec(innodb::upd_node_t*, innodb::trx_t*)", "innodb::row_upd_del_mark_clust_rec(...)"},
		{"std::_Rb_tree_const_iterator<std::pair<std::pair<std::__cxx11::basic_string<char>, unsigned long> const, bool> >::operator++()",
			"std::_Rb_tree_const_iterator<...>::operator++()"},
		{long, strings.Repeat("x", cellMax/2-2) + "..." + strings.Repeat("x", cellMax/2-1)},
	}
	for _, tt := range tests {
		got := Short(tt.in)
		if got != tt.want {
			t.Errorf("Short(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if len(got) > cellMax {
			t.Errorf("Short(%q) is %d long, over %d", tt.in, len(got), cellMax)
		}
	}
}
