package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/vprof/vprof/analyze/rank"
)

// TestWritePlaced: a row whose calibrated cost a rule of method.md §7 set
// (D10, D12) is marked in the table and explained under it, and carries
// the reason in the JSON; a row with its own cost is neither.
func TestWritePlaced(t *testing.T) {
	fns := []rank.Function{
		{Rank: 1, Name: "flush", Calibrated: 0.9, Raw: 1, Extra: 1, Placed: "in the place of walk (D10)"},
		{Rank: 2, Name: "walk", Calibrated: 0.5, Raw: 1, Extra: 1, Placed: "in the place of its caller flush (D10)"},
		{Rank: 3, Name: "other", Calibrated: 0.2, Raw: 0.3, Extra: 0.2},
	}
	var b bytes.Buffer
	if err := Write(&b, fns, "table", nil); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"*0.900", "*0.500", "* flush: in the place of walk (D10)", "* walk: in the place of its caller flush (D10)"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "*0.200") || strings.Contains(out, "* other") {
		t.Errorf("a row with its own cost is marked:\n%s", out)
	}
	b.Reset()
	if err := Write(&b, fns, "json", nil); err != nil {
		t.Fatal(err)
	}
	var j JSON
	if err := json.Unmarshal(b.Bytes(), &j); err != nil {
		t.Fatal(err)
	}
	if len(j.Functions) != 3 || j.Functions[0].Placed == "" || j.Functions[2].Placed != "" {
		t.Errorf("JSON placed: %+v", j.Functions)
	}
}

// TestShortReason: the table's pattern cell of a row with no pattern gives
// the reason up to its first ": " or " (" after its first word (issue 14: every top row has a
// pattern or the reason none applies, in the table too). A reason that
// starts with a C++ name (DB::current_memory_tracker->amount, a set 17
// spill_check row) was cut at the name's "::" and the cell read "- (DB)".
func TestShortReason(t *testing.T) {
	for _, c := range []struct{ reason, want string }{
		{"no variable verdict (hist-discounter): nothing to classify", "no variable verdict"},
		{"n went wrong (value) but is neither a loop nor a condition variable", "n went wrong"},
		{"DB::current_memory_tracker->amount went wrong (value) but is neither a loop nor a condition variable", "DB::current_memory_tracker->amount went wrong"},
		{"its variables look normal (cmd: delta, r 0.80)", "its variables look normal"},
		{"std::vector<int>::size went wrong: a count", "std::vector<int>::size went wrong"},
		{"f(int) went wrong (delta)", "f(int) went wrong"},
		{"no rule matched", "no rule matched"},
		{"page_no: absent when slow", "page_no: absent when slow"},
	} {
		if got := shortReason(c.reason); got != c.want {
			t.Errorf("shortReason(%q) = %q, want %q", c.reason, got, c.want)
		}
	}
	fns := []rank.Function{{Rank: 1, Name: "readBlock", Calibrated: 0.4, Raw: 0.5, Extra: 0.4,
		PatternReason: "DB::current_memory_tracker->amount went wrong (value) but is neither a loop nor a condition variable"}}
	var b bytes.Buffer
	if err := Write(&b, fns, "table", nil); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "- (DB::current_memory_tracker->amount went wrong)") {
		t.Errorf("table cell of a row with no pattern lacks its reason:\n%s", out)
	}
}
