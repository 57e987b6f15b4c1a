package dwarfschema

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/vprof/vprof/runtime/model"
)

// SchemaVersion is the version of what Load makes of a binary. Bump it
// whenever Load's output for the same binary and options changes (a new
// field, another tagging rule): cached schemas of other versions are then
// not used.
const SchemaVersion = 17 // 13: PLT stubs named (plt.go); 14: C++ container lengths (D266); 15: fields of structs in registers and pieces (D325); 16: fields behind a pointer read at its value + offset from any register, frame addresses across blocks (D357); 17: no fields of const globals (D343)

// cacheMagic starts every cache file; the version follows it.
const cacheMagic = "vprof schema cache "

// Cache keeps schemas on disk by build-id, so that recording the same
// binary again does not build its schema again (for a large C++ program,
// seconds and gigabytes).
//
// A file holds one schema: a header line (magic, SchemaVersion, the
// build-id and options it was built for, the vprof build that wrote it,
// the length, CRC-32C and format of the body), then the schema: its large
// slices in binary, the rest as JSON (cachebody.go), decoding to what
// the JSON of profile files gives. Files are written to a temporary file
// in Dir and renamed into place, so that concurrent writers (two
// recordings of one binary) and readers only ever see whole files. A file
// of another SchemaVersion, body format or vprof build is rebuilt and
// replaced; one that is damaged or of another binary, the same with a
// warning. Beside it, the same header over D85's scan of the binary's
// code (LoadIndirect).
type Cache struct {
	Dir string
	// Warn receives the warnings (a damaged cache file, a directory that
	// cannot be written). Nil drops them.
	Warn func(string)
}

// DefaultCacheDir is where schemas are cached: $XDG_CACHE_HOME/vprof, else
// ~/.cache/vprof; "" when neither is known.
func DefaultCacheDir() string {
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "vprof")
	}
	if h, err := os.UserHomeDir(); err == nil && h != "" {
		return filepath.Join(h, ".cache", "vprof")
	}
	return ""
}

// cacheHeader is the first line of a cache file.
type cacheHeader struct {
	BuildID string `json:"build_id"`
	Options string `json:"options"`
	// Vprof is the Go build ID of the vprof that wrote the file: a vprof
	// built from other code may make another schema of the same binary
	// even where SchemaVersion was not bumped (while developing the
	// loader, say), so a file of another vprof build is rebuilt.
	Vprof  string `json:"vprof"`
	Length int64  `json:"length"`
	CRC    uint32 `json:"crc32c"`
	// Format is the body's encoding (schemaFormat for schemas; 0 for
	// the indirect-call scan, whose version says it).
	Format int `json:"format,omitempty"`
}

// schemaFormat is the encoding of a schema file's body: 2, the schema's
// JSON without its Locs and Lines, then those in binary (cacheBody);
// 0 (before), all JSON.
const schemaFormat = 3

// vprofBuild is the Go build ID of the running executable (its
// .note.go.buildid), "" where it cannot be read: then SchemaVersion alone
// tells schemas apart.
var vprofBuild = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	ef, err := elf.Open(exe)
	if err != nil {
		return ""
	}
	defer ef.Close()
	sec := ef.Section(".note.go.buildid")
	if sec == nil {
		return ""
	}
	b, err := sec.Data()
	if err != nil {
		return ""
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:12])
})

// errStale is a cache file of another SchemaVersion or vprof build:
// replaced without a warning.
var errStale = errors.New("stale")

// optionsKey spells the options that change what Load returns.
func optionsKey(opt Options) string {
	var b strings.Builder
	for _, c := range opt.Components {
		b.WriteString("component=" + strconv.Quote(c) + "\n")
	}
	if opt.FuncRegex != nil {
		b.WriteString("func=" + strconv.Quote(opt.FuncRegex.String()) + "\n")
	}
	for _, d := range opt.DebugDirs {
		b.WriteString("debugdir=" + strconv.Quote(d) + "\n")
	}
	fmt.Fprintf(&b, "all=%v\nnofields=%v\n", opt.All, opt.NoFields)
	if opt.StrLens {
		b.WriteString("strlens=true\n")
	}
	return b.String()
}

// file is the cache file of a build-id and options: one per combination,
// named by the build-id (so that they are easy to find and remove) and a
// digest of the options and SchemaVersion.
func (c *Cache) file(buildID string, opt Options) string {
	h := sha256.Sum256([]byte(strconv.Itoa(SchemaVersion) + "\n" + optionsKey(opt)))
	return filepath.Join(c.Dir, buildID+"-"+hex.EncodeToString(h[:8])+".schema")
}

func (c *Cache) warn(format string, args ...any) {
	if c.Warn != nil {
		c.Warn(fmt.Sprintf(format, args...))
	}
}

// Load is Load(path, opt) through the cache: the schema of a binary with a
// build-id and DWARF is read from the cache when it is there, and written
// to it when it is not. cached says the schema came from the cache. A nil
// Cache, or one without Dir, is plain Load.
func (c *Cache) Load(path string, opt Options) (s *model.Schema, cached bool, err error) {
	if c == nil || c.Dir == "" {
		s, err = Load(path, opt)
		return s, false, err
	}
	id, err := fileBuildID(path)
	if err != nil || id == "" {
		// Unreadable: Load says why. Without a build-id nothing tells
		// one build from the next.
		s, err = Load(path, opt)
		return s, false, err
	}
	name := c.file(id, opt)
	if s, err := c.read(name, id, opt); err == nil {
		s.Path = path
		return s, true, nil
	} else if !errors.Is(err, errNoCacheFile) && !errors.Is(err, errStale) {
		c.warn("ignoring schema cache file %s: %v; building the schema again", name, err)
	}
	s, err = Load(path, opt)
	if err != nil || !s.HasDWARF {
		return s, false, err
	}
	if werr := c.write(name, id, opt, s); werr != nil {
		c.warn("cannot cache the schema of %s: %v", path, werr)
	}
	return s, false, nil
}

// fileBuildID reads the build-id of the ELF file at path.
func fileBuildID(path string) (string, error) {
	f, ef, err := openPath(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return buildID(ef), nil
}

// read returns the schema cached in file name for build-id id and opt.
func (c *Cache) read(name, id string, opt Options) (*model.Schema, error) {
	body, err := readCacheFile(name, cacheMagic, SchemaVersion, schemaFormat, id, optionsKey(opt))
	if err != nil {
		return nil, err
	}
	return decodeSchemaBody(body)
}

// readCacheFile returns the body of cache file name, whose header line
// must be magic and version, and name build-id id, the options opts and
// this vprof build.
func readCacheFile(name, magic string, version, format int, id, opts string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, errNoCacheFile // not there, or no directory: a miss, not damage
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("no header line")
	}
	rest, ok := strings.CutPrefix(line, magic)
	if !ok {
		return nil, fmt.Errorf("not a %sfile", magic)
	}
	ver, hdr, ok := strings.Cut(rest, " ")
	if !ok {
		return nil, fmt.Errorf("bad header")
	}
	if ver != strconv.Itoa(version) {
		return nil, fmt.Errorf("%w: version %s, want %d", errStale, ver, version)
	}
	var h cacheHeader
	if err := json.Unmarshal([]byte(hdr), &h); err != nil {
		return nil, fmt.Errorf("bad header: %v", err)
	}
	if h.BuildID != id || h.Options != opts {
		return nil, fmt.Errorf("made for build-id %s and other options", h.BuildID)
	}
	if h.Vprof != vprofBuild() {
		return nil, fmt.Errorf("%w: written by another build of vprof", errStale)
	}
	if h.Format != format {
		return nil, fmt.Errorf("%w: body format %d, want %d", errStale, h.Format, format)
	}
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if h.Length < 0 || h.Length > st.Size() {
		return nil, fmt.Errorf("truncated: the header says %d bytes of body, the file has %d in all", h.Length, st.Size())
	}
	body := make([]byte, h.Length)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("truncated: %v", err)
	}
	if n, _ := r.Read(make([]byte, 1)); n > 0 {
		return nil, fmt.Errorf("longer than its header says")
	}
	if crc32.Checksum(body, castagnoli) != h.CRC {
		return nil, fmt.Errorf("checksum mismatch (damaged)")
	}
	return body, nil
}

var errNoCacheFile = errors.New("no cache file")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// write stores s in file name: whole, through a temporary file renamed
// into place.
func (c *Cache) write(name, id string, opt Options, s *model.Schema) error {
	body, err := encodeSchemaBody(s)
	if err != nil {
		return err
	}
	return c.writeFile(name, cacheMagic, SchemaVersion, schemaFormat, id, optionsKey(opt), body)
}

// writeFile stores body in cache file name under a header line of magic,
// version, build-id id and options opts: whole, through a temporary file
// renamed into place.
func (c *Cache) writeFile(name, magic string, version, format int, id, opts string, body []byte) error {
	hdr, err := json.Marshal(cacheHeader{BuildID: id, Options: opts, Vprof: vprofBuild(), Length: int64(len(body)), CRC: crc32.Checksum(body, castagnoli), Format: format})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(c.Dir, ".tmp-*"+filepath.Ext(name))
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "%s%d %s\n", magic, version, hdr)
	_, err = tmp.Write(buf.Bytes())
	if err == nil {
		_, err = tmp.Write(body)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), name)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
