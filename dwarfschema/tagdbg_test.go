package dwarfschema

import (
	"fmt"
	"os"
	"testing"
)

func TestTagDebug(t *testing.T) {
	p := os.Getenv("TAGBIN")
	if p == "" {
		t.Skip()
	}
	s, err := Load(p, Options{All: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range s.Vars {
		fn := "#global"
		if v.Func >= 0 {
			fn = s.Funcs[v.Func].Name
		}
		if os.Getenv("TAGALL") == "" && v.Func < 0 {
			continue
		}
		fmt.Printf("%-20s %-16s %s\n", fn, v.Name, v.Tags)
	}
	fmt.Printf("%+v\n", *lastTagStats.Load())
}
