/*
 * ssl_flush_sessions (OpenSSL-8687): ngx_event.c
 * The worker's event loop: each iteration updates the cached time, accepts the
 * connections that arrived, runs their TLS handshake and request, and closes them
 * (ngx_process_events_and_timers, ngx_event_accept, ngx_http_ssl_handshake).
 */
#include "ssl_local.h"

uint64_t ngx_http_process_request(const char *buf, int resumed);

struct ngx_arrival {
	uint64_t msec;                          /* when the connection arrives */
	int client;
	unsigned char hello[128];
	size_t hello_len;
	char request[256];
};

struct ngx_connection {
	int fd;
	SSL *ssl;
	char *addr_text;                        /* the peer's address, for the log (heap) */
	uint64_t start_msec;
	uint64_t response_hash;
};

/* ngx_stat_*: the stub_status counters */
struct ngx_stat {
	uint64_t accepted;
	uint64_t handled;
	uint64_t requests;
	uint64_t ssl_resumed;
	uint64_t ssl_full;
	uint64_t active;
} ngx_stat;

/* A handshake's outcome, for the client: the session id it may offer next time. */
typedef void (*ngx_session_cb)(int client, const unsigned char *sid, unsigned int sid_len, int resumed,
			       uint64_t response_hash);

void ngx_process_events_and_timers(struct ngx_arrival *ev, int nevents, ngx_session_cb cb)
{
	for (int i = 0; i < nevents; i++) {
		struct ngx_arrival *a = &ev[i];
		struct ngx_connection *c = calloc(1, sizeof(*c));
		char addr[32];

		ngx_time_update(a->msec);
		if (c == NULL)
			continue;
		ngx_stat.accepted++;
		ngx_stat.active++;
		c->fd = 10 + (int)(ngx_stat.accepted % 1000);
		snprintf(addr, sizeof addr, "10.%d.%d.%d", (a->client >> 16) & 255, (a->client >> 8) & 255, a->client & 255);
		c->addr_text = strdup(addr);
		c->start_msec = ngx_current_msec;
		c->ssl = SSL_new(ngx_ssl_ctx);
		if (c->ssl == NULL || c->addr_text == NULL) {
			free(c->addr_text);
			free(c);
			continue;
		}
		c->ssl->client_hello = a->hello;
		c->ssl->client_hello_len = a->hello_len;
		if (ngx_ssl_handshake(c->ssl) == 0) {
			ngx_stat.handled++;
			if (c->ssl->hit)
				ngx_stat.ssl_resumed++;
			else
				ngx_stat.ssl_full++;
			c->response_hash = ngx_http_process_request(a->request, c->ssl->hit);
			ngx_stat.requests++;
			cb(a->client, c->ssl->session->session_id, c->ssl->session->session_id_length,
			   c->ssl->hit, c->response_hash);
		}
		SSL_free(c->ssl);
		free(c->addr_text);
		free(c);
		ngx_stat.active--;
	}
}
