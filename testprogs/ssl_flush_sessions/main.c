/*
 * ssl_flush_sessions - OpenSSL-8687: "Optimize session cache flushing"
 * (https://github.com/openssl/openssl/pull/8687, Todd Short, 2019; in OpenSSL 3.0).
 *
 * The real bug: a server's internal session cache (a hash table plus a list in
 * order of addition) is cleaned by SSL_CTX_flush_sessions(), which ssl_update_cache()
 * calls automatically every 255 handshakes (stats.sess_accept_good & 0xff). Before
 * the fix, the flush walked the whole hash table (lh_SSL_SESSION_doall) calling
 * timeout_cb on every session, to find the few that had expired. With a large cache
 * (nginx "ssl_session_cache builtin:SIZE", a busy site: tens of thousands of
 * sessions) every 255th handshake paid for a walk of the entire cache, under the
 * cache's lock. The fix keeps the list sorted by expiry time and stops at the first
 * session that has not expired ("Iterate over the linked list for timeout, stopping
 * when no more session can be flushed").
 *
 * Here: an nginx-shaped TLS web server (event loop, handshake, request) on an
 * OpenSSL-shaped library (session cache, lhash, SHA-256 key derivation) serving 15
 * minutes of traffic from a population of 60,000 clients, most of them returning
 * visitors who offer the session id they got last time. normal: ssl_session_cache
 * builtin:2000 (the cache holds the last couple of thousand sessions); buggy:
 * builtin:100000 (it holds every session of the last 5 minutes, tens of
 * thousands). The same traffic: with the bigger cache more handshakes are even
 * resumed (cheaper), yet every 255th one walks the whole cache. Session ids are
 * random, seeded per process (so the hash table's layout differs from run to run);
 * the checksum (of the responses, which say whether TLS was resumed) does not.
 *
 * Root cause: SSL_CTX_flush_sessions() (ssl_sess.c), the full walk (ROOT CAUSE); the
 * cost is in OPENSSL_LH_doall_arg (lhash.c) and timeout_cb. Key variables: tp and
 * t (SSL_CTX_flush_sessions), ngx_ssl_conf.session_cache_size and
 * ngx_ssl_ctx->stats.sess_accept_good (#global), the session fields time and timeout.
 * Pattern: missing constraint.
 *
 * Files, as in OpenSSL 1.1.1 (ssl/ssl_sess.c: the root cause; ssl/ssl_lib.c:
 * contexts, handshake, ssl_update_cache; crypto/lhash/lhash.c; crypto/sha:
 * sha256.c; ssl_local.h) and nginx (ngx_event_openssl.c: the TLS configuration;
 * ngx_event.c: the event loop; ngx_http_request.c; ngx_times.c: cached time);
 * main.c (this driver: the clients and their traffic).
 */
#include "ssl_local.h"

struct ngx_arrival {
	uint64_t msec;
	int client;
	unsigned char hello[128];
	size_t hello_len;
	char request[256];
};
typedef void (*ngx_session_cb)(int client, const unsigned char *sid, unsigned int sid_len, int resumed,
			       uint64_t response_hash);
void ngx_process_events_and_timers(struct ngx_arrival *ev, int nevents, ngx_session_cb cb);
extern struct ngx_stat {
	uint64_t accepted, handled, requests, ssl_resumed, ssl_full, active;
} ngx_stat;

#define N_CLIENTS 300000
#define N_CONNECTIONS 150000
#define TRACE_MSEC (15 * 60 * 1000)
#define BATCH 64                        /* connections accepted per event-loop iteration */

struct client {
	unsigned char *sid;                     /* the session id to offer (heap), or NULL */
	unsigned int sid_len;
	char *host;                             /* the site it visits */
};

static struct client clients[N_CLIENTS];
static uint64_t checksum;
static uint64_t rng = 0x853c49e6748fea9bULL;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void on_session(int client, const unsigned char *sid, unsigned int sid_len, int resumed, uint64_t response_hash)
{
	struct client *cl = &clients[client];
	checksum = checksum * 31 + response_hash + (uint64_t)resumed;
	if (!resumed) {
		free(cl->sid);
		cl->sid = malloc(sid_len);
		if (cl->sid == NULL) {
			cl->sid_len = 0;
			return;
		}
		memcpy(cl->sid, sid, sid_len);
		cl->sid_len = sid_len;
	}
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  An nginx-shaped TLS server with OpenSSL's session cache (OpenSSL-8687).\n"
		"  normal: ssl_session_cache builtin:2000; buggy: builtin:100000.\n", argv0);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return usage(argv[0]);
	if (strcmp(argv[1], "normal") == 0)
		ngx_ssl_conf.session_cache_size = 2000;
	else if (strcmp(argv[1], "buggy") == 0)
		ngx_ssl_conf.session_cache_size = 100000;
	else
		return usage(argv[0]);
	ngx_ssl_conf.session_timeout = 86400;   /* ssl_session_timeout 1d */
	if (ngx_ssl_create() != 0) {
		fprintf(stderr, "ngx_ssl_create failed\n");
		return 1;
	}

	static const char *sites[] = { "shop.example.com", "www.example.com", "api.example.com", "static.example.net" };
	for (int i = 0; i < N_CLIENTS; i++)
		clients[i].host = strdup(sites[i % 4]);

	struct ngx_arrival *batch = calloc(BATCH, sizeof(*batch));
	if (batch == NULL)
		return 1;
	int nb = 0;
	for (long k = 0; k < N_CONNECTIONS; k++) {
		struct ngx_arrival *a = &batch[nb++];
		uint64_t r = next_rand();
		/* half the traffic from regulars, half from anyone */
		uint64_t u = r % N_CLIENTS;
		int client = (r >> 40) % 2 == 0 ? (int)u : (int)(u * u / N_CLIENTS * u / N_CLIENTS);
		struct client *cl = &clients[client];
		a->msec = (uint64_t)k * TRACE_MSEC / N_CONNECTIONS;
		a->client = client;
		uint64_t cr = next_rand();
		for (int i = 0; i < 32; i++)
			a->hello[i] = (unsigned char)(cr >> (i % 8 * 8)) ^ (unsigned char)i;
		size_t p = 32;
		a->hello[p++] = (unsigned char)cl->sid_len;
		if (cl->sid_len) {
			memcpy(a->hello + p, cl->sid, cl->sid_len);
			p += cl->sid_len;
		}
		size_t hl = strlen(cl->host);
		a->hello[p++] = (unsigned char)hl;
		memcpy(a->hello + p, cl->host, hl);
		a->hello_len = p + hl;
		snprintf(a->request, sizeof a->request, "GET /u/%d/feed?page=%d HTTP/1.1\r\nHost: %s\r\nUser-Agent: app/3.2\r\n\r\n",
			 client, (int)(r >> 50) % 5, cl->host);
		if (nb == BATCH || k == N_CONNECTIONS - 1) {
			ngx_process_events_and_timers(batch, nb, on_session);
			nb = 0;
		}
	}

	printf("ssl_flush_sessions %s: handled=%llu resumed=%llu checksum=%016llx\n", argv[1],
	       (unsigned long long)ngx_stat.handled, (unsigned long long)ngx_stat.ssl_resumed,
	       (unsigned long long)checksum);
	if (getenv("SSL_FLUSH_DEBUG"))
		fprintf(stderr, "cache=%lu full=%d timeout=%d hits=%d\n", OPENSSL_LH_num_items(ngx_ssl_ctx->sessions),
			ngx_ssl_ctx->stats.sess_cache_full, ngx_ssl_ctx->stats.sess_timeout, ngx_ssl_ctx->stats.sess_hit);
	for (int i = 0; i < N_CLIENTS; i++) {
		free(clients[i].sid);
		free(clients[i].host);
	}
	free(batch);
	return 0;
}
