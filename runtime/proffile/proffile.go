// Package proffile is the vprof profile file: a versioned, self-describing,
// streamed record of one run.
//
// Layout: an 8-byte magic ("VPROF\x00" + version u16 LE), then records. Each
// record is kind (1 byte), payload length (uvarint), payload, CRC-32C of
// kind+payload (4 bytes LE). The first record is the Header; objects (their
// schema: the layout log), mappings, process and thread events and
// per-thread sample blocks follow in the order they happened; a Trailer ends
// a complete file. An object's record holds the object's JSON without its
// schema, then the schema's JSON deflated (RFC 1951): a large program's
// schema is tens of megabytes of JSON that deflate to an eighth, and most
// of a short run's profile. A file cut anywhere (recorder killed) still yields every
// complete record before the cut; the reader reports how much it recovered.
package proffile

// Version is the format version written by this package. Version 1 wrote
// an object's record as plain JSON, schema included; this package reads
// both. Call counts (vprof record --count) are optional fields of the
// header's and trailer's JSON (model.Header.Count, model.Trailer.Counts):
// profiles without them read as before, and a reader that predates them
// ignores them.
const Version = 2
