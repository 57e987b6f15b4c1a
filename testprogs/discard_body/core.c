/*
 * discard_body (HTTPD-52914): core.c
 * The handler (server/core.c's default handler).
 */
#include "discard_body.h"

uint64_t handle_request(request_rec *r)
{
	unsigned char out[RESPONSE_SIZE];
	uint64_t s = 0x9e3779b97f4a7c15ull;
	for (const char *p = r->uri; *p; p++)
		s = (s ^ (unsigned char)*p) * 0x100000001b3ull;
	for (size_t i = 0; i < RESPONSE_SIZE; i++) {
		s ^= s << 13; s ^= s >> 7; s ^= s << 17;
		out[i] = "<html><body>item list</body></html>"[s % 35] ^ (unsigned char)((s >> 40) & 1);
	}
	return deflate_out_filter(out, RESPONSE_SIZE);
}
