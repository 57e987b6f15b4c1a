package dwarfschema

import (
	"fmt"
	"os"
	"testing"

	"encoding/json"
)

func TestKeyVarsTmp(t *testing.T) {
	if os.Getenv("KEYVARS") == "" {
		t.Skip()
	}
	var m struct {
		Programs []struct {
			Name, Pattern string
			KeyVariables  []struct{ Name, Function string } `json:"key_variables"`
		}
	}
	b, _ := os.ReadFile("../testprogs/manifest.json")
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Programs {
		s, err := Load("../testprogs/bin/"+p.Name, Options{All: true})
		if err != nil {
			t.Fatal(err)
		}
		st := lastTagStats.Load()
		fmt.Printf("== %s (%s) funcs=%d bad=%d unres=%d calls=%d %v\n", p.Name, p.Pattern, st.Funcs, st.BadBytes, st.Unresolved, st.CallSites, st.Time)
		for _, k := range p.KeyVariables {
			n := 0
			for id, v := range s.Vars {
				f := GlobalFunc
				if v.Func != NoFunc {
					f = s.Funcs[v.Func].Name
				}
				if f != k.Function || v.Name != k.Name {
					continue
				}
				nl := 0
				for _, l := range s.Locs {
					if int(l.Var) == id {
						nl++
					}
				}
				n++
				fmt.Printf("   %-20s %-30.30s tags=%-14s locs=%d\n", k.Name, k.Function, v.Tags, nl)
			}
			if n == 0 {
				fmt.Printf("   %-20s %-30.30s MISSING\n", k.Name, k.Function)
			}
		}
	}
}
