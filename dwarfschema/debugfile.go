package dwarfschema

import (
	"bytes"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
)

// defaultDebugDir is where Debian (and most distributions) install
// separate debug files.
const defaultDebugDir = "/usr/lib/debug"

// findDWARF returns the DWARF of the binary at path: its own sections, or a
// separate debug file found by build-id (<dir>/.build-id/xx/yyyy.debug) or
// by .gnu_debuglink (next to the binary, in .debug/ beside it, or under
// <dir>/<binary's directory>/). It returns nil when there is none. The
// second result is the path of the file the DWARF came from.
func findDWARF(path string, ef *elf.File, id string, dirs []string) (*dwarfFile, string, error) {
	w, p, err := findMainDWARF(path, ef, id, dirs)
	if err != nil || w == nil {
		return w, p, err
	}
	if w.sup, err = findSup(p, w.ef, dirs); err != nil {
		w.close()
		return nil, "", err
	}
	return w, p, nil
}

func findMainDWARF(path string, ef *elf.File, id string, dirs []string) (*dwarfFile, string, error) {
	w, err := loadDWARF(path, ef)
	if err != nil || w != nil {
		if w != nil {
			w.hasCode = true
		}
		return w, path, err
	}
	if len(dirs) == 0 {
		dirs = []string{defaultDebugDir}
	}
	type cand struct {
		path   string
		byLink bool // found by .gnu_debuglink: check its CRC
	}
	var cands []cand
	if len(id) > 2 {
		for _, d := range dirs {
			cands = append(cands, cand{filepath.Join(d, ".build-id", id[:2], id[2:]+".debug"), false})
		}
	}
	link, crc, hasLink := debugLink(ef)
	if hasLink {
		dir := filepath.Dir(path)
		abs, _ := filepath.Abs(dir)
		cands = append(cands, cand{filepath.Join(dir, link), true}, cand{filepath.Join(dir, ".debug", link), true})
		for _, d := range dirs {
			cands = append(cands, cand{filepath.Join(d, abs, link), true})
		}
	}
	self, _ := os.Stat(path)
	for _, c := range cands {
		st, err := os.Stat(c.path)
		if err != nil || st.IsDir() || (self != nil && os.SameFile(self, st)) {
			continue
		}
		w, err := openDebugFile(c.path, id, c.byLink, crc)
		if err != nil {
			return nil, "", err
		}
		if w != nil {
			return w, c.path, nil
		}
	}
	return nil, "", nil
}

// openDebugFile opens a candidate separate debug file. A candidate that does
// not belong to the binary (other build-id, other CRC) or has no DWARF is
// skipped (nil, nil); one that belongs to it but is broken is an error.
func openDebugFile(path, id string, checkCRC bool, crc uint32) (*dwarfFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil
	}
	if checkCRC {
		h := crc32.NewIEEE()
		if _, err := io.Copy(h, f); err != nil || h.Sum32() != crc {
			f.Close()
			return nil, nil
		}
	}
	ef, err := openELF(path, f, st.Size())
	if err != nil {
		f.Close()
		return nil, nil
	}
	if id != "" {
		if did := buildID(ef); did != "" && did != id {
			f.Close()
			return nil, nil
		}
	}
	w, err := loadDWARF(path, ef)
	if err != nil || w == nil {
		f.Close()
		return nil, err
	}
	w.osf = f
	return w, nil
}

// debugLink reads .gnu_debuglink: a file name, NUL, padding to 4, CRC32.
func debugLink(ef *elf.File) (name string, crc uint32, ok bool) {
	s := ef.Section(".gnu_debuglink")
	if s == nil {
		return "", 0, false
	}
	b, err := s.Data()
	if err != nil {
		return "", 0, false
	}
	n := bytes.IndexByte(b, 0)
	if n <= 0 {
		return "", 0, false
	}
	off := int(align4(uint64(n + 1)))
	if off+4 > len(b) {
		return "", 0, false
	}
	name = string(b[:n])
	if filepath.Base(name) != name { // a name, never a path
		return "", 0, false
	}
	return name, ef.ByteOrder.Uint32(b[off:]), true
}

// findSup opens the supplementary DWARF file that dwz (Debian's -dbgsym
// packages) moves shared types and declarations to: named by
// .gnu_debugaltlink (file name, NUL, build-id) or DWARF 5 .debug_sup
// (version, flag, file name, NUL, checksum). It is looked for at that name
// (relative names from the directory of the file that names it), by
// build-id under the debug directories, and under <dir>/.dwz/. No link: nil,
// nil. A link that cannot be followed is an error: without the file, names
// and types are missing.
func findSup(path string, ef *elf.File, dirs []string) (*dwarfFile, error) {
	var name string
	var id []byte
	if s := ef.Section(".gnu_debugaltlink"); s != nil {
		b, err := s.Data()
		if err != nil {
			return nil, fmt.Errorf("%s: reading .gnu_debugaltlink: %w", path, err)
		}
		n := bytes.IndexByte(b, 0)
		if n <= 0 {
			return nil, fmt.Errorf("%s: malformed .gnu_debugaltlink", path)
		}
		name, id = string(b[:n]), b[n+1:]
	} else if s := ef.Section(".debug_sup"); s != nil {
		b, err := s.Data()
		if err != nil {
			return nil, fmt.Errorf("%s: reading .debug_sup: %w", path, err)
		}
		if len(b) < 4 || b[2] != 0 { // is_supplementary 1: this is the supplementary file itself
			return nil, nil
		}
		n := bytes.IndexByte(b[3:], 0)
		if n <= 0 {
			return nil, fmt.Errorf("%s: malformed .debug_sup", path)
		}
		name = string(b[3 : 3+n])
	} else {
		return nil, nil
	}
	if len(dirs) == 0 {
		dirs = []string{defaultDebugDir}
	}
	hexID := hex.EncodeToString(id)
	var cands []string
	if filepath.IsAbs(name) {
		cands = append(cands, name)
	} else {
		cands = append(cands, filepath.Join(filepath.Dir(path), name))
	}
	for _, d := range dirs {
		if len(hexID) > 2 {
			cands = append(cands, filepath.Join(d, ".build-id", hexID[:2], hexID[2:]+".debug"))
		}
		cands = append(cands, filepath.Join(d, ".dwz", filepath.Base(name)))
	}
	for _, c := range cands {
		f, err := os.Open(c)
		if err != nil {
			continue
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			continue
		}
		sef, err := openELFKind(c, f, st.Size(), true)
		if err != nil || (hexID != "" && buildID(sef) != hexID) {
			f.Close()
			continue
		}
		w, err := loadDWARF(c, sef)
		if err != nil || w == nil {
			f.Close()
			if err != nil {
				return nil, err
			}
			continue
		}
		w.osf = f
		return w, nil
	}
	return nil, fmt.Errorf("%s: its DWARF refers to the supplementary debug file %s (dwz), which is not installed: "+
		"install the package's debug symbols completely, or put the file in %s", path, name, filepath.Join(dirs[0], ".dwz"))
}
