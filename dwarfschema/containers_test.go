package dwarfschema

import (
	"strings"
	"testing"

	"github.com/vprof/vprof/runtime/model"
)

// containersCC has a class whose members are libstdc++ containers, one of
// each kind D266 samples the length of, a method that loops while its
// vector is not empty, a function that takes a vector by reference, and a
// global struct holding a map and a vector.
const containersCC = `#include <cstdio>
#include <list>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>
struct Query { long id; int pass; int pad; };
struct Holder { std::map<int, int> m; std::vector<int> v; long n; };
Holder g_holder;
__attribute__((noipa)) void issue(long) {}
class Profiler {
 public:
	__attribute__((noipa)) long drain() {
		long s = 0;
		while (!m_queries.empty()) { s += m_queries.front().id; m_queries.erase(m_queries.begin()); issue(s); }
		return s + (long)m_name.size() + (long)m_set.size() + (long)m_list.size() + (long)m_map.size() + (long)m_bits.size();
	}
	std::vector<Query> m_queries;
	std::string m_name;
	std::set<int> m_set;
	std::list<int> m_list;
	std::unordered_map<int, int> m_map;
	std::vector<bool> m_bits;
	long m_frames;
};
__attribute__((noipa)) long total(const std::vector<Query> &qs) {
	long s = 0;
	for (size_t i = 0; i < qs.size(); i++) s += qs[i].id;
	return s;
}
int main(int argc, char **) {
	Profiler p;
	for (int i = 0; i < 100 * argc; i++) p.m_queries.push_back(Query{i, 0, 0});
	long t = total(p.m_queries);
	g_holder.m[argc] = 1;
	g_holder.v.push_back(argc);
	std::printf("%ld %ld %zu\n", t, p.drain(), g_holder.m.size() + g_holder.v.size());
}
`

// TestContainerLengths: each container member gives one length field,
// named NAME.size(), at the offset of its count (a vector: of its begin
// pointer, with the element size), in place of its nested members; a
// vector behind a reference gives qs.size(); a vector in a struct in
// memory gives none (its length is read behind a pointer only), a map
// there does; std::vector<bool> (a bit iterator, no element pointers)
// gives none.
func TestContainerLengths(t *testing.T) {
	dir := t.TempDir()
	bin := build(t, dir, "g++", ".cc", containersCC, "-g", "-O2")
	s, err := Load(bin, Options{All: true})
	if err != nil {
		t.Fatal(err)
	}
	drain, _ := funcByName(s, "Profiler::drain()")
	if drain < 0 {
		t.Fatal("no Profiler::drain")
	}
	this, _ := varByName(s, drain, "this")
	if this < 0 {
		t.Fatal("Profiler::drain: no this")
	}
	gdb := map[string]string{}
	for _, c := range []struct {
		name, gdb string
		elem      int64
	}{
		{"this->m_queries.size()", "(long)&((Profiler *)0)->m_queries._M_impl._M_start", 16},
		{"this->m_name.size()", "(long)&((Profiler *)0)->m_name._M_string_length", 0},
		{"this->m_set.size()", "(long)&((Profiler *)0)->m_set._M_t._M_impl._M_node_count", 0},
		{"this->m_list.size()", "(long)&((Profiler *)0)->m_list._M_impl._M_node._M_size", 0},
		{"this->m_map.size()", "(long)&((Profiler *)0)->m_map._M_h._M_element_count", 0},
	} {
		_, fv := varByName(s, drain, c.name)
		if fv == nil || fv.Field == nil || !fv.Field.Deref || fv.Field.Of != this || fv.Field.Elem != c.elem || fv.Kind != model.KindUint || fv.Size != 8 {
			t.Errorf("%s: %+v (field %+v), want a uint64 behind this, element size %d", c.name, fv, fieldOf(fv), c.elem)
			continue
		}
		gdb[c.name] = c.gdb
	}
	if _, fv := varByName(s, drain, "this->m_queries.size()"); fv != nil && fv.Tags&(model.TagLoop|model.TagCond) == 0 {
		t.Errorf("this->m_queries.size(): tags %v, want loop or cond (while (!m_queries.empty()))", fv.Tags)
	}
	if _, fv := varByName(s, drain, "this->m_frames"); fv == nil {
		t.Error("this->m_frames: gone")
	}
	for _, v := range s.Vars {
		if v.Func == drain && (strings.Contains(v.Name, "_M_") || strings.Contains(v.Name, "m_bits")) {
			t.Errorf("a container's nested member, or vector<bool>'s length: %s", v.Name)
		}
	}
	tot, _ := funcByName(s, "total(std::vector<Query, std::allocator<Query> > const&)")
	qs, _ := varByName(s, tot, "qs")
	if _, fv := varByName(s, tot, "qs.size()"); tot < 0 || qs < 0 || fv == nil || fv.Field.Of != qs || fv.Field.Offset != 0 || fv.Field.Elem != 16 {
		t.Errorf("total's qs.size() (%d, %d): %+v", tot, qs, fv)
	}
	_, mv := varByName(s, model.NoFunc, "g_holder.m.size()")
	if mv == nil || mv.Field == nil || mv.Field.Deref || mv.Field.Elem != 0 {
		t.Errorf("g_holder.m.size(): %+v", mv)
	}
	if _, vv := varByName(s, model.NoFunc, "g_holder.v.size()"); vv != nil {
		t.Errorf("g_holder.v.size() in memory: %+v, want none", vv)
	}
	checkFieldsWithGDB(t, bin, s, gdb)
}

func fieldOf(v *model.Var) *model.Field {
	if v == nil {
		return nil
	}
	return v.Field
}
