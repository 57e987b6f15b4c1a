/*
 * record_scan - libphenom-26 (facebookarchive/libphenom#26): the session's
 * read callback (a ph_sock's callback in libphenom) and the line protocol's
 * commands: "SET key value\r\n" and "GET key\r\n".
 */
#include "record_scan.h"

static uint32_t word(const uint8_t *p, uint64_t len)
{
	uint32_t n = 0;
	while (n < len && p[n] != ' ' && p[n] != '\r')
		n++;
	return n;
}

uint64_t ph_dispatch_record(ph_sock_t *sock, const uint8_t *rec, uint64_t len)
{
	uint64_t body = len - 2; /* the CRLF */
	uint32_t cmd = word(rec, body);
	if (cmd >= body)
		return 0;
	const uint8_t *key = rec + cmd + 1;
	uint32_t klen = word(key, body - cmd - 1);
	if (cmd == 3 && memcmp(rec, "SET", 3) == 0) {
		const uint8_t *val = key + klen + 1;
		uint64_t vlen = rec + body > val ? (uint64_t)(rec + body - val) : 0;
		return kv_set(key, klen, val, vlen);
	}
	if (cmd == 3 && memcmp(rec, "GET", 3) == 0)
		return kv_get(key, klen);
	(void)sock;
	return 0;
}

void ph_sock_on_readable(ph_sock_t *sock)
{
	uint64_t nread;
	ph_buf_t *rec;

	if (!ph_bufq_stm_read(sock->rbuf, &sock->stream, &nread)) {
		sock->closed = true;
		return;
	}
	sock->bytes += nread;
	while ((rec = ph_bufq_consume_record(sock->rbuf, "\r\n", 2)) != NULL) {
		sock->digest = sock->digest * 31 + ph_dispatch_record(sock, rec->mem, rec->len);
		sock->records++;
		ph_buf_delref(rec);
	}
}
