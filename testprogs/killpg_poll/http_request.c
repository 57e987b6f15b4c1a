/*
 * killpg_poll (HTTPD-54852): http_request.c
 * Request handling (modules/http/http_request.c).
 */
#include "killpg_poll.h"

static uint64_t rnd(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13; x ^= x >> 7; x ^= x << 17;
	return *s = x;
}

/* Builds a response body for the URI and returns its checksum (Adler-32 plus a
 * 64-bit mix, as mod_deflate and an ETag computation would touch every byte). */
uint64_t ap_handle_request(const char *uri, long content_length)
{
	static unsigned char body[BODY_SIZE];
	uint64_t s = 0x9e3779b97f4a7c15ull;
	for (const char *p = uri; *p; p++)
		s = (s ^ (unsigned char)*p) * 0x100000001b3ull;
	s ^= (uint64_t)content_length;
	for (size_t i = 0; i < BODY_SIZE; i += 8) {
		uint64_t v = rnd(&s);
		memcpy(body + i, &v, 8);
	}
	uint32_t a = 1, b = 0;
	uint64_t etag = 0;
	for (size_t i = 0; i < BODY_SIZE; i++) {
		a = (a + body[i]) % 65521;
		b = (b + a) % 65521;
		etag = (etag << 5 | etag >> 59) ^ body[i];
	}
	return ((uint64_t)b << 16 | a) ^ etag;
}
