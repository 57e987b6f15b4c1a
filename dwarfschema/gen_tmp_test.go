package dwarfschema

import ("testing"; "os")

func TestGenTmp(t *testing.T) {
	d := os.Getenv("SYNTH_DIR")
	if d == "" { t.Skip() }
	os.MkdirAll(d, 0o755)
	writeSynth(t, d, 20000, 500)
}
