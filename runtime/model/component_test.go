package model

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMatchComponent(t *testing.T) {
	wd, _ := os.Getwd()
	for _, c := range []struct {
		file string
		comp string
		want bool
	}{
		{"/src/lib/busy.c", "lib", true},
		{"/src/lib/busy.c", "lib/", true},
		{"/src/lib/busy.c", "./lib", true},
		{"/src/lib/busy.c", "src/lib/busy.c", true},
		{"/src/lib/busy.c", "busy.c", true},
		{"/src/lib/busy.c", "usy.c", false},
		{"/src/library.c", "lib", false},
		{"/src/lib/busy.c", "/src/lib", true},
		{"/src/lib/busy.c", "/src/li", false},
		{"/src/lib/busy.c", "/src/lib/", true},
		{"/src/lib/busy.c", "/", true},
		{"/src/lib/busy.c", "/other/lib", false},
		{"/src/lib/busy.c", ".", true},
		{"/src/lib/busy.c", "", false},
		{"storage/buf/buf0lru.c", "buf", true},
		{filepath.Join(filepath.Dir(wd), "x", "a.c"), "../x", true},
		{"/elsewhere/x/a.c", "../x", false},
	} {
		if got := MatchComponent(c.file, []string{c.comp}); got != c.want {
			t.Errorf("MatchComponent(%q, %q) = %v, want %v", c.file, c.comp, got, c.want)
		}
	}
}

func TestCheckComponents(t *testing.T) {
	files := []string{"/src/app.c", "/src/lib/busy.c"}
	if err := CheckComponents([]string{"lib", "app.c"}, "/bin/app", files); err != nil {
		t.Errorf("matching components: %v", err)
	}
	err := CheckComponents([]string{"lib", "ap.c"}, "/bin/app", files)
	if err == nil || !strings.Contains(err.Error(), "--component ap.c matches no source file of /bin/app; it could match files /src/app.c, /src/lib/busy.c") {
		t.Errorf("typo: %v", err)
	}
	var many []string
	for _, d := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"} {
		many = append(many, "/s/"+d+"/x.c", "/s/"+d+"/y.c")
	}
	many = append(many, "/s/a/z.c")
	err = CheckComponents([]string{"q"}, "/bin/app", many)
	if err == nil || !strings.Contains(err.Error(), "it could match 19 files in directories /s/a/, /s/b/") || !strings.Contains(err.Error(), "(1 more)") {
		t.Errorf("many files: %v", err)
	}
}
