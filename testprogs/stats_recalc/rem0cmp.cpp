/*
 * stats_recalc (MySQL-98546): rem0cmp.cpp
 * Record comparison (storage/innobase/rem/rem0cmp.cc): integer fields as
 * big-endian bytes, CHAR fields through the latin1_swedish_ci sort order
 * with trailing spaces ignored (my_strnncollsp_simple).
 */
#include "stats_recalc.h"

/* utf8mb4_0900_ai_ci (strings/ctype-uca.cc): characters are decoded from
UTF-8 (my_mb_wc_utf8mb4), their collation elements looked up in a table of
pages of 256 code points, each with up to 3 weights per level; a character
that can start a contraction is checked against the contraction list; the
comparison walks both strings through scanners level by level (primary:
accent- and case-insensitive). The table here covers Latin-1. */
struct uca_info_t {
	uint16_t *weights[256];	/* by page: lengths[page] weights per code */
	byte lengths[256];
	bool contraction_head[256];
	std::vector<std::pair<uint32_t, uint32_t>> contractions;	/* head, tail */
	bool ready;
};
static uca_info_t uca;
static uint16_t uca_page0[256 * 3];

static void init_uca()
{
	for (int i = 0; i < 256; i++) {
		uint16_t w;
		if (i >= '0' && i <= '9')
			w = 0x1c3d + (i - '0') * 3;
		else if (i >= 'a' && i <= 'z')
			w = 0x1c47 + (i - 'a') * 8;
		else if (i >= 'A' && i <= 'Z')
			w = 0x1c47 + (i - 'A') * 8;
		else if (i >= 0xc0 && i <= 0xff)
			w = 0x1c47 + ((i & 0x1f) % 26) * 8;	/* accented letters */
		else if (i < 0x20)
			w = 0;	/* ignorable */
		else
			w = 0x0200 + i;	/* variable weight: spaces, punctuation */
		uca_page0[i * 3] = w;
		uca_page0[i * 3 + 1] = w ? 0x20 : 0;
		uca_page0[i * 3 + 2] = (i >= 'A' && i <= 'Z') ? 0x1d : 0x02;
	}
	for (int p = 0; p < 256; p++) {
		uca.weights[p] = p == 0 ? uca_page0 : nullptr;
		uca.lengths[p] = 3;
	}
	/* the contractions of the Latin script: ch, ll (traditional Spanish), dz */
	uca.contractions = { { 'c', 'h' }, { 'l', 'l' }, { 'd', 'z' } };
	for (auto &c : uca.contractions)
		uca.contraction_head[c.first] = true;
	uca.ready = true;
}

static int my_mb_wc_utf8mb4(uint32_t *wc, const byte *s, const byte *e)
{
	if (s >= e)
		return 0;
	byte c = s[0];
	if (c < 0x80) {
		*wc = c;
		return 1;
	}
	if (c < 0xe0 && s + 1 < e) {
		*wc = ((uint32_t)(c & 0x1f) << 6) | (s[1] & 0x3f);
		return 2;
	}
	if (c < 0xf0 && s + 2 < e) {
		*wc = ((uint32_t)(c & 0x0f) << 12) | ((uint32_t)(s[1] & 0x3f) << 6) | (s[2] & 0x3f);
		return 3;
	}
	*wc = 0xfffd;
	return 1;
}

struct uca_scanner_900 {
	const byte *sbeg, *send;
	const uint16_t *wbeg;	/* the current character's weights */
	int wlen;
	int level;

	/* next_raw(): the next weight of this level, or -1 at the end */
	int next()
	{
		for (;;) {
			if (wlen > 0) {
				wlen--;
				uint16_t w = *wbeg;
				wbeg += 1;
				if (w)
					return w;
				continue;
			}
			uint32_t wc;
			int mblen = my_mb_wc_utf8mb4(&wc, sbeg, send);
			if (mblen <= 0)
				return -1;
			sbeg += mblen;
			if (wc < 256 && uca.contraction_head[wc] && sbeg < send) {
				for (auto &c : uca.contractions)
					if (c.first == wc && *sbeg == c.second) {
						sbeg++;	/* the contraction sorts as its head */
						break;
					}
			}
			uint32_t page = wc >> 8, code = wc & 0xff;
			const uint16_t *weights = uca.weights[page < 256 ? page : 0];
			if (!weights) {
				/* implicit weights for unassigned characters */
				static uint16_t implicit[3];
				implicit[0] = (uint16_t)(0xfb80 + (wc >> 15));
				implicit[1] = 0x20;
				implicit[2] = 0x02;
				wbeg = implicit;
			} else {
				wbeg = weights + code * uca.lengths[page] + level;
			}
			wlen = 1;
		}
	}
};

static int my_strnncollsp_uca_900(const byte *a, ulint a_len, const byte *b, ulint b_len)
{
	for (int level = 0; level < 2; level++) {
		uca_scanner_900 sa = { a, a + a_len, nullptr, 0, level };
		uca_scanner_900 sb = { b, b + b_len, nullptr, 0, level };
		for (;;) {
			int wa = sa.next(), wb = sb.next();
			if (wa != wb) {
				/* NO PAD: a string that ended sorts first */
				if (wa < 0)
					return -1;
				if (wb < 0)
					return 1;
				return wa - wb;
			}
			if (wa < 0)
				break;
		}
	}
	return 0;
}

static int cmp_data(field_type_t type, const byte *a, const byte *b, ulint len)
{
	if (type == DATA_INT)
		return memcmp(a, b, len);
	/* CHAR columns are stored space-padded; find the data length */
	ulint a_len = len, b_len = len;
	while (a_len && a[a_len - 1] == ' ')
		a_len--;
	while (b_len && b[b_len - 1] == ' ')
		b_len--;
	return my_strnncollsp_uca_900(a, a_len, b, b_len);
}

/* rec_get_offsets(): the end offset of each field and the data length of
each CHAR field (multi-byte CHAR columns are variable-length in InnoDB) */
ulint rec_get_offsets(const dict_index_t *index, const byte *rec, ulint *offsets)
{
	ulint off = 0, extra = 0;
	for (ulint i = 0; i < index->fields.size(); i++) {
		const dict_field_t &f = index->fields[i];
		ulint len = f.len;
		if (f.type == DATA_CHAR)
			while (len && rec[off + len - 1] == ' ')
				len--;
		off += f.len;
		offsets[i] = off;
		extra += f.len - len;
	}
	return extra;
}

/* cmp_rec_rec_with_match(): compares two index records and returns in
matched_fields how many leading fields are equal */
int cmp_rec_rec(const dict_index_t *index, const byte *a, const byte *b, ulint *matched_fields)
{
	if (!uca.ready)
		init_uca();
	ulint off = 0, i = 0;
	int ret = 0;
	for (; i < index->fields.size(); i++) {
		const dict_field_t &f = index->fields[i];
		ret = cmp_data(f.type, a + off, b + off, f.len);
		if (ret)
			break;
		off += f.len;
	}
	if (matched_fields)
		*matched_fields = i;
	return ret;
}

/* row_build_index_entry(): the index record of a row image */
void rec_from_row(const dict_index_t *index, const byte *row, byte *rec)
{
	ulint off = 0;
	for (const dict_field_t &f : index->fields) {
		memcpy(rec + off, row + f.offset, f.len);
		off += f.len;
	}
	if (off < index->rec_size)
		memcpy(rec + off, row + off, index->rec_size - off);	/* the clustered index stores the whole row */
}
