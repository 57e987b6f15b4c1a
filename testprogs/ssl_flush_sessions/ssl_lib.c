/*
 * ssl_flush_sessions (OpenSSL-8687): ssl_lib.c
 * Contexts and connections, and the server side of a (much reduced) handshake:
 * a ClientHello offering a session id is resumed from the cache (an abbreviated
 * handshake: two HMACs), otherwise a full handshake derives a new master secret
 * (the key exchange's cost, as rounds of SHA-256) and the new session goes into
 * the cache (ssl_update_cache, which also flushes expired sessions every 255
 * handshakes).
 */
#include "ssl_local.h"

static uint64_t sid_state;      /* session ids: random, seeded per process */

static uint64_t rand_u64(void)
{
	uint64_t x = sid_state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	sid_state = x;
	return x;
}

static long default_now(void)
{
	return (long)time(NULL);
}

SSL_CTX *SSL_CTX_new(void)
{
	SSL_CTX *ctx = calloc(1, sizeof(*ctx));
	if (ctx == NULL)
		return NULL;
	ctx->sessions = OPENSSL_LH_new(ssl_session_hash, ssl_session_cmp);
	if (ctx->sessions == NULL) {
		free(ctx);
		return NULL;
	}
	ctx->session_cache_mode = SSL_SESS_CACHE_SERVER;
	ctx->session_cache_size = SSL_SESSION_CACHE_MAX_SIZE_DEFAULT;
	ctx->session_timeout = 300;
	ctx->now = default_now;
	sid_state = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL);
	for (int i = 0; i < 32; i++)
		ctx->ticket_key[i] = (unsigned char)rand_u64();
	return ctx;
}

void SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, uint32_t mode)
{
	ctx->session_cache_mode = mode;
}

void SSL_CTX_sess_set_cache_size(SSL_CTX *ctx, unsigned long size)
{
	ctx->session_cache_size = size;
}

void SSL_CTX_set_timeout(SSL_CTX *ctx, long t)
{
	ctx->session_timeout = t;
}

SSL *SSL_new(SSL_CTX *ctx)
{
	SSL *s = calloc(1, sizeof(*s));
	if (s == NULL)
		return NULL;
	s->session_ctx = ctx;
	return s;
}

void SSL_free(SSL *s)
{
	if (s == NULL)
		return;
	SSL_SESSION_free(s->session);
	free(s);
}

void ssl_update_cache(SSL *s, int mode)
{
	int i;

	if (s->session->session_id_length == 0)
		return;
	i = s->session_ctx->session_cache_mode;
	if ((i & mode) != 0 && !s->hit)
		SSL_CTX_add_session(s->session_ctx, s->session);

	/* auto flush every 255 connections */
	if ((!(i & SSL_SESS_CACHE_NO_AUTO_CLEAR)) && ((i & mode) == mode)) {
		int *stat = (mode & SSL_SESS_CACHE_CLIENT) ? &s->session_ctx->stats.sess_connect_good
							   : &s->session_ctx->stats.sess_accept_good;
		if ((*stat & 0xff) == 0xff)
			SSL_CTX_flush_sessions(s->session_ctx, s->session_ctx->now());
	}
}

/* The key exchange and the master secret of a full handshake. */
static void tls_derive_master(SSL *s, SSL_SESSION *ss)
{
	uint8_t pms[32], seed[72];
	SHA256_CTX c;

	/* ECDHE: the scalar multiplications, as rounds of hashing */
	memcpy(pms, s->client_random, 32);
	for (int round = 0; round < 2; round++) {
		SHA256_Init(&c);
		SHA256_Update(&c, pms, 32);
		SHA256_Update(&c, s->server_random, 32);
		SHA256_Final(pms, &c);
	}
	memcpy(seed, "master secret", 13);
	memcpy(seed + 13, s->client_random, 32);
	memcpy(seed + 45, s->server_random, 27);
	HMAC_SHA256(pms, 32, seed, sizeof seed, ss->master_key);
	memcpy(ss->master_key + 32, pms, 16);
	ss->master_key_length = 48;
}

static void tls_finished(SSL *s)
{
	uint8_t msg[64 + 15];
	memcpy(msg, "server finished", 15);
	memcpy(msg + 15, s->client_random, 32);
	memcpy(msg + 47, s->server_random, 32);
	HMAC_SHA256(s->session->master_key, s->session->master_key_length, msg, sizeof msg, s->finished);
}

/*
 * The ClientHello here: 32 bytes of client random, a session id (length byte and
 * bytes), the server name (length byte and bytes).
 */
int SSL_do_handshake(SSL *s)
{
	const unsigned char *p = s->client_hello;
	size_t left = s->client_hello_len;
	SSL_CTX *ctx = s->session_ctx;

	if (left < 34)
		return -1;
	memcpy(s->client_random, p, 32);
	p += 32;
	left -= 32;
	size_t sid_len = *p++;
	left--;
	if (sid_len > SSL_MAX_SSL_SESSION_ID_LENGTH || sid_len + 1 > left)
		return -1;
	const unsigned char *sid = p;
	p += sid_len;
	left -= sid_len;
	size_t sni_len = *p++;
	left--;
	if (sni_len > left)
		return -1;
	for (int i = 0; i < 4; i++) {
		uint64_t r = rand_u64();
		memcpy(s->server_random + 8 * i, &r, 8);
	}

	ctx->stats.sess_accept++;
	SSL_SESSION *ss = sid_len ? lookup_sess_in_cache(s, sid, sid_len) : NULL;
	if (ss != NULL) {
		s->hit = 1;
		s->session = ss;
	} else {
		if (sid_len)
			ctx->stats.sess_miss++;
		ss = SSL_SESSION_new();
		if (ss == NULL)
			return -1;
		ss->session_id_length = SSL_MAX_SSL_SESSION_ID_LENGTH;
		for (int i = 0; i < 4; i++) {
			uint64_t r = rand_u64();
			memcpy(ss->session_id + 8 * i, &r, 8);
		}
		ss->peer_name = strndup((const char *)p, sni_len);
		ss->time = ctx->now();
		ss->timeout = ctx->session_timeout;
		tls_derive_master(s, ss);
		s->session = ss;
	}
	tls_finished(s);
	ctx->stats.sess_accept_good++;
	ssl_update_cache(s, SSL_SESS_CACHE_SERVER);
	return 1;
}
