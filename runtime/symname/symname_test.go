package symname

import (
	"testing"

	"github.com/ianlancetaylor/demangle"
)

func TestStripClone(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"foo", "foo"},
		{"foo.cold", "foo"},
		{"foo.constprop.0", "foo"},
		{"foo.isra.0", "foo"},
		{"foo.part.0", "foo"},
		{"foo.part.1", "foo"},
		{"foo.constprop.0.isra.0", "foo"},
		{"foo.part.0.cold", "foo"},
		{"foo.isra.0.cold", "foo"},
		{"foo.cold.1", "foo"},
		{"foo.lto_priv.0", "foo"},
		{"bar.lto_priv.0", "bar"},
		{"foo.constprop.0.isra", "foo"},
		{"_ZN4shop4Cart5totalEl.cold", "_ZN4shop4Cart5totalEl"},
		{"_ZN1A3fooEv.cold", "_ZN1A3fooEv"},
		{"inner.0", "inner"}, // a gcc nested function
		{"foo.0.cold", "foo"},
		{"__x86.get_pc_thunk.bx", "__x86.get_pc_thunk.bx"},
		{"_GLOBAL__sub_I_main.cpp", "_GLOBAL__sub_I_main.cpp"},
		{"foo.", "foo."},
		{".hidden", ".hidden"},
		{"foo.bar.0", "foo.bar.0"},
		{"foo..cold", "foo."},
		// Where the two rules this one replaces disagreed. The loader's
		// (kept whole any name with a dotted part outside its list)
		// left foo.bar.cold whole; the analyzer's (cut at the first
		// clone word found anywhere) cut foo.coldness and left
		// foo.localalias and foo.clone.0.
		{"foo.bar.cold", "foo.bar"},
		{"foo.coldness", "foo.coldness"},
		{"foo.cold_x.1", "foo.cold_x.1"},
		{"foo.localalias", "foo"},
		{"foo.clone.0", "foo"},
	} {
		if got := StripClone(tc.in); got != tc.want {
			t.Errorf("StripClone(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFuncName(t *testing.T) {
	for in, want := range map[string]string{
		"memcpy@GLIBC_2.14":      "memcpy",
		"foo@@VER_2":             "foo",
		"foo.cold":               "foo",
		"foo.constprop.0@@VER_2": "foo",
		"@weird":                 "@weird",
		"plain":                  "plain",
		"memcpy@plt":             "memcpy@plt",
		"foo.cold@plt":           "foo@plt",
		"@plt":                   "@plt",
		"memcpy@GLIBC_2.14@plt":  "memcpy",
	} {
		if got := FuncName(in); got != want {
			t.Errorf("FuncName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDemangle(t *testing.T) {
	for _, tc := range []struct {
		in   string
		opts []demangle.Option
		want string
	}{
		{"_ZN1A3fooEv", nil, "A::foo()"},
		{"_ZN1A3fooEv.cold", nil, "A::foo() [clone .cold]"},
		{"_ZN1A3fooEv.cold", []demangle.Option{demangle.NoClones}, "A::foo()"},
		{"_ZN4shop4CartIiE5totalEl", []demangle.Option{demangle.NoParams}, "shop::Cart<int>::total"},
		{"_ZN4shop4CartIiE5totalEl", []demangle.Option{demangle.NoParams, demangle.NoTemplateParams}, "shop::Cart::total"},
		{"main", nil, "main"},
		{"_Znot_mangled", nil, "_Znot_mangled"},
		{"_ZN1A3fooEv@plt", nil, "A::foo()@plt"},
		{"_ZN4shop4CartIiE5totalEl@plt", []demangle.Option{demangle.NoParams}, "shop::Cart<int>::total@plt"},
	} {
		if got := Demangle(tc.in, tc.opts...); got != tc.want {
			t.Errorf("Demangle(%q, %v) = %q, want %q", tc.in, tc.opts, got, tc.want)
		}
	}
}

// FuzzStripClone: any name, no panic; the result is a non-empty prefix of
// the name, cut at a dot.
func FuzzStripClone(f *testing.F) {
	for _, s := range []string{"foo.cold", "foo.constprop.0.isra.0", "__x86.get_pc_thunk.bx", ".a", "a.", "a..b", "inner.0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		got := StripClone(name)
		if len(got) > len(name) || name[:len(got)] != got || len(got) < len(name) && name[len(got)] != '.' {
			t.Fatalf("StripClone(%q) = %q: not a prefix cut at a dot", name, got)
		}
		if got != name && got == "" {
			t.Fatalf("StripClone(%q) is empty", name)
		}
	})
}
