/* decoder.c (moonbitlang/async#382) - the gzip reader the application reads decompressed bytes from (the
 * gzip package's Decoder: its read loop over the core state machine). */
#include "gzip.h"

/* Bytes one read asks the source for (the source may return fewer). */
#define DECODER_READ_SIZE (4u << 20)

void gz_reader_init(gz_reader *r, source *inner)
{
	r->inner = inner;
	gz_decoder_init(&r->core);
	r->reads = 0;
	io_buffer_enlarge_to(&inner->in, DECODER_READ_SIZE);
}

static int read_more_input(gz_reader *r)
{
	io_buffer *in = &r->inner->in;
	size_t need = gz_minimum_input_size(&r->core);
	if (need < 1)
		need = 1;
	io_buffer_enlarge_to(in, in->len + (need > DECODER_READ_SIZE ? need : DECODER_READ_SIZE));
	size_t n = source_direct_read(r->inner, in->buf + in->len, in->cap - in->len);
	in->len += n;
	return n > 0;
}

/* Reads decompressed bytes into dst: returns how many, 0 at the end of the stream. */
size_t gz_reader_read(gz_reader *r, unsigned char *dst, size_t max_len)
{
	io_buffer *in = &r->inner->in;
	r->reads++;
	while (!gz_is_finished(&r->core)) {
		while (in->len < gz_minimum_input_size(&r->core))
			if (!read_more_input(r))
				break;
		if (in->len == 0) {
			fprintf(stderr, "gzip: unexpected end of stream\n");
			exit(1);
		}
		size_t produced;
		size_t consumed = gz_decoder_write(&r->core, in->buf, in->len, dst, max_len, &produced);
		io_buffer_drop(in, consumed);
		if (produced > 0)
			return produced;
	}
	return 0;
}
