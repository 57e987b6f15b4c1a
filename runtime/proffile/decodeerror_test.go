package proffile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"strings"
	"testing"
)

// frame is one record as the writer frames it: kind, uvarint length,
// payload, CRC-32C.
func frame(kind byte, payload []byte) []byte {
	b := binary.AppendUvarint([]byte{kind}, uint64(len(payload)))
	b = append(b, payload...)
	crc := crc32.Update(0, castagnoli, []byte{kind})
	crc = crc32.Update(crc, castagnoli, payload)
	return binary.LittleEndian.AppendUint32(b, crc)
}

// TestDecodeError: each way a file can fail to decode gives a
// *DecodeError that says what, where (the byte where that part starts)
// and why, with its cause for errors.Is; damage stops Next at io.EOF with
// the error in Recovery, a record that does not decode stops it with the
// error.
func TestDecodeError(t *testing.T) {
	head := append(magic[:], 2, 0)
	hdr := frame(recHeader, []byte(`{"version":2,"clock":"cpu","interval_ns":1000000}`))
	mapping := frame(recMapping, []byte{2, 0x10, 0x20, 0, 0, 0}) // pid 1, [0x10, 0x20)
	at := int64(len(head) + len(hdr))                            // the first record after the header
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, tc := range []struct {
		name   string
		file   []byte
		open   bool // NewReader fails
		next   bool // Next returns the error (else io.EOF, the error in Recovery)
		what   string
		offset int64
		cause  error  // errors.Is
		msg    string // in the message
	}{
		{"empty", nil, true, false, "magic", 0, ErrNotProfile, "file too short"},
		{"short", []byte("VPRO"), true, false, "magic", 0, ErrNotProfile, "file too short"},
		{"ELF", []byte("\x7fELF\x02\x01\x01\x00"), true, false, "magic", 0, ErrNotProfile, `bad magic "\x7fELF\x02\x01"`},
		{"version", append(magic[:], 9, 0), true, false, "version", 6, nil, "profile format version 9, this vprof reads versions 1 to 2"},
		{"no header", head, true, false, "header", 8, ErrTruncated, "no header"},
		{"header cut", cat(head, hdr[:10]), true, false, "header", 8, ErrTruncated, "truncated"},
		{"header not first", cat(head, mapping), true, false, "header", 8, nil, "first record is kind 3, not a header"},
		{"header JSON", cat(head, frame(recHeader, []byte(`{"clock":`))), true, false, "header", 8, nil, "unexpected end of JSON input"},
		{"record cut", cat(head, hdr, mapping[:5]), false, false, "record 0", at, ErrTruncated, "(3 of 10 bytes present)"},
		{"length cut", cat(head, hdr, []byte{recMapping, 0x80}), false, false, "record 0", at, ErrTruncated, "truncated length"},
		{"implausible length", cat(head, hdr, []byte{recMapping, 0xff, 0xff, 0xff, 0xff, 0x0f}), false, false, "record 0", at, ErrDamaged, "length 4294967295 is implausible"},
		{"checksum", cat(head, hdr, mapping[:len(mapping)-1], []byte{0}), false, false, "record 0", at, ErrDamaged, "checksum mismatch"},
		{"second record", cat(head, hdr, mapping, mapping[:len(mapping)-1], []byte{0}), false, false, "record 1", at + int64(len(mapping)), ErrDamaged, "checksum mismatch"},
		{"unknown kind", cat(head, hdr, mapping, frame(99, nil)), false, true, "record 1", at + int64(len(mapping)), nil, "unknown record kind 99"},
		{"mapping reversed", cat(head, hdr, frame(recMapping, []byte{2, 0x20, 0x10, 0, 0, 0})), false, true, "record 0", at, nil, "mapping end 0x10 below start 0x20"},
		{"block cut inside", cat(head, hdr, frame(recBlock, []byte{2, 2, 1, 1})), false, true, "record 0", at, nil, "sample 0: truncated"},
		{"process JSON", cat(head, hdr, frame(recProc, []byte(`{"pid":"x"}`))), false, true, "record 0", at, nil, "cannot unmarshal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			r, oerr := NewReader(bytes.NewReader(tc.file), "f.data")
			switch {
			case tc.open:
				err = oerr
			case oerr != nil:
				t.Fatalf("NewReader: %v", oerr)
			default:
				for err == nil {
					_, err = r.Next()
				}
				if tc.next == (err == io.EOF) {
					t.Fatalf("Next: %v", err)
				}
				if rec := r.Recovery(); rec.Err == nil || rec.Complete || !strings.HasSuffix(rec.Err.Error(), rec.Reason) {
					t.Fatalf("recovery %+v", rec)
				}
				if err == io.EOF {
					err = r.Recovery().Err
				} else if err != r.Recovery().Err {
					t.Errorf("Next's error %v, Recovery's %v", err, r.Recovery().Err)
				}
			}
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("%v (%T), want a *DecodeError", err, err)
			}
			if de.Name != "f.data" || de.What != tc.what || de.Offset != tc.offset {
				t.Errorf("%q %s at %d, want %s at %d", de.Name, de.What, de.Offset, tc.what, tc.offset)
			}
			if tc.cause != nil && !errors.Is(err, tc.cause) {
				t.Errorf("%v is not %v", err, tc.cause)
			}
			if !strings.Contains(err.Error(), tc.msg) || !strings.HasPrefix(err.Error(), "f.data: "+tc.what+" at byte ") {
				t.Errorf("message %q, want f.data: %s at byte ... %s", err, tc.what, tc.msg)
			}
		})
	}
}
