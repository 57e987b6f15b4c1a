/*
 * discard_body (HTTPD-52914): http_core.c
 * The connection's request loop (modules/http/http_core.c).
 */
#include "discard_body.h"

/* The httpd child: serves the whole connection; returns the result checksum. */
uint64_t child_serve(unsigned long *timeouts)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
	size_t len, *body_off;
	char *stream = client_stream(&len, &body_off);
	conn_rec c = { .buf = stream, .len = len };
	request_rec r;
	ap_filter_t core = { core_input_filter, NULL, NULL, &c };
	ap_filter_t http_in = { ap_http_filter, &core, &r, &c };
	ap_filter_t dumpio = { dumpio_input_filter, &http_in, NULL, &c };
	uint64_t sum = 0;

	for (int i = 0; i < N_REQUESTS; i++) {
		if (ap_read_request(&c, &r) != 0) {
			fprintf(stderr, "request %d: bad request head\n", i);
			exit(4);
		}
		r.connection = &c;
		r.input_filters = &dumpio;
		/* a stalled client: half of the body now, the rest STALL_READS reads later */
		if (client_stall_every && i % client_stall_every == client_stall_every - 1) {
			c.stall_at = body_off[i] + (size_t)r.clength / 2;
			c.stall = STALL_READS;
		} else {
			c.stall = 0;
		}
		sum = sum * 1000003 + handle_request(&r);
		if (ap_discard_request_body(&r) != 0) {
			fprintf(stderr, "request %d: body lost\n", i);
			exit(5);
		}
		c.stall = 0;
	}
	*timeouts = (unsigned long)c.timeouts;
	free(stream);
	free(body_off);
	return sum;
}
