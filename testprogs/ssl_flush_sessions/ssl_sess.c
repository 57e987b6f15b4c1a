/*
 * ssl_flush_sessions (OpenSSL-8687): ssl_sess.c
 * The server's session cache (ssl/ssl_sess.c, OpenSSL 1.1.1): a hash table of
 * sessions by id, and a list in least-recently-added order used to evict the
 * oldest when the cache is full; SSL_CTX_flush_sessions() drops expired sessions.
 */
#include "ssl_local.h"

typedef struct timeout_param_st {
	SSL_CTX *ctx;
	long time;
	OPENSSL_LHASH *cache;
} TIMEOUT_PARAM;

SSL_SESSION *SSL_SESSION_new(void)
{
	SSL_SESSION *ss = calloc(1, sizeof(*ss));
	if (ss == NULL)
		return NULL;
	ss->references = 1;
	ss->timeout = 60 * 5 + 4;
	return ss;
}

void SSL_SESSION_free(SSL_SESSION *ss)
{
	if (ss == NULL || --ss->references > 0)
		return;
	memset(ss->master_key, 0, sizeof ss->master_key);   /* OPENSSL_cleanse */
	free(ss->peer_name);
	free(ss);
}

unsigned long ssl_session_hash(const void *p)
{
	const SSL_SESSION *a = p;
	const unsigned char *session_id = a->session_id;
	unsigned long l;
	unsigned char tmp_storage[4];

	if (a->session_id_length < sizeof(tmp_storage)) {
		memset(tmp_storage, 0, sizeof(tmp_storage));
		memcpy(tmp_storage, a->session_id, a->session_id_length);
		session_id = tmp_storage;
	}
	l = (unsigned long)((unsigned long)session_id[0]) | ((unsigned long)session_id[1] << 8L) |
	    ((unsigned long)session_id[2] << 16L) | ((unsigned long)session_id[3] << 24L);
	return l;
}

int ssl_session_cmp(const void *pa, const void *pb)
{
	const SSL_SESSION *a = pa, *b = pb;
	if (a->session_id_length != b->session_id_length)
		return 1;
	return memcmp(a->session_id, b->session_id, a->session_id_length);
}

static void SSL_SESSION_list_remove(SSL_CTX *ctx, SSL_SESSION *s)
{
	if ((s->next == NULL) || (s->prev == NULL))
		return;
	if (s->next == (SSL_SESSION *)&(ctx->session_cache_tail)) {
		if (s->prev == (SSL_SESSION *)&(ctx->session_cache_head)) {
			ctx->session_cache_head = NULL;
			ctx->session_cache_tail = NULL;
		} else {
			ctx->session_cache_tail = s->prev;
			s->prev->next = (SSL_SESSION *)&(ctx->session_cache_tail);
		}
	} else {
		if (s->prev == (SSL_SESSION *)&(ctx->session_cache_head)) {
			ctx->session_cache_head = s->next;
			s->next->prev = (SSL_SESSION *)&(ctx->session_cache_head);
		} else {
			s->next->prev = s->prev;
			s->prev->next = s->next;
		}
	}
	s->prev = s->next = NULL;
}

static void SSL_SESSION_list_add(SSL_CTX *ctx, SSL_SESSION *s)
{
	if ((s->next != NULL) && (s->prev != NULL))
		SSL_SESSION_list_remove(ctx, s);
	if (ctx->session_cache_head == NULL) {
		ctx->session_cache_head = s;
		ctx->session_cache_tail = s;
		s->prev = (SSL_SESSION *)&(ctx->session_cache_head);
		s->next = (SSL_SESSION *)&(ctx->session_cache_tail);
	} else {
		s->next = ctx->session_cache_head;
		s->next->prev = s;
		s->prev = (SSL_SESSION *)&(ctx->session_cache_head);
		ctx->session_cache_head = s;
	}
}

static int remove_session_lock(SSL_CTX *ctx, SSL_SESSION *c)
{
	SSL_SESSION *r;
	if ((c == NULL) || (c->session_id_length == 0))
		return 0;
	if ((r = OPENSSL_LH_retrieve(ctx->sessions, c)) != NULL) {
		r = OPENSSL_LH_delete(ctx->sessions, r);
		SSL_SESSION_list_remove(ctx, r);
		c->not_resumable = 1;
		if (ctx->remove_session_cb != NULL)
			ctx->remove_session_cb(ctx, c);
		SSL_SESSION_free(r);
		return 1;
	}
	return 0;
}

int SSL_CTX_add_session(SSL_CTX *ctx, SSL_SESSION *c)
{
	int ret = 0;
	SSL_SESSION *s;

	c->references++;
	s = OPENSSL_LH_insert(ctx->sessions, c);
	if (s != NULL && s != c) {
		SSL_SESSION_list_remove(ctx, s);
		SSL_SESSION_free(s);
		s = NULL;
	} else if (s == NULL && OPENSSL_LH_retrieve(ctx->sessions, c) == NULL) {
		s = c;      /* insertion failed: take back the reference */
	}
	if (s != NULL) {
		SSL_SESSION_free(s);
		ret = 0;
	} else {
		ret = 1;
		if (ctx->session_cache_size > 0) {
			while (OPENSSL_LH_num_items(ctx->sessions) > ctx->session_cache_size) {
				if (!remove_session_lock(ctx, ctx->session_cache_tail))
					break;
				ctx->stats.sess_cache_full++;
			}
		}
	}
	SSL_SESSION_list_add(ctx, c);
	return ret;
}

SSL_SESSION *lookup_sess_in_cache(SSL *s, const unsigned char *sess_id, size_t sess_id_len)
{
	SSL_SESSION *ret = NULL;
	SSL_CTX *ctx = s->session_ctx;

	if ((ctx->session_cache_mode & SSL_SESS_CACHE_SERVER) && sess_id_len <= SSL_MAX_SSL_SESSION_ID_LENGTH) {
		SSL_SESSION data;
		data.session_id_length = (unsigned int)sess_id_len;
		memcpy(data.session_id, sess_id, sess_id_len);
		ret = OPENSSL_LH_retrieve(ctx->sessions, &data);
		if (ret != NULL)
			ret->references++;
	}
	if (ret == NULL)
		return NULL;
	if (ret->time + ret->timeout < ctx->now()) {
		ctx->stats.sess_timeout++;
		remove_session_lock(ctx, ret);
		SSL_SESSION_free(ret);
		return NULL;
	}
	ctx->stats.sess_hit++;
	return ret;
}

static void timeout_cb(void *data, void *arg)
{
	SSL_SESSION *s = data;
	TIMEOUT_PARAM *p = arg;
	if ((p->time == 0) || (p->time > (s->time + s->timeout))) {
		/* the session has timed out */
		(void)OPENSSL_LH_delete(p->cache, s);
		SSL_SESSION_list_remove(p->ctx, s);
		s->not_resumable = 1;
		if (p->ctx->remove_session_cb != NULL)
			p->ctx->remove_session_cb(p->ctx, s);
		SSL_SESSION_free(s);
	}
}

/*
 * Drops the sessions that have timed out at time t. The cache's list is in order
 * of addition, and every session has the same timeout: the expired ones are all
 * at its tail.
 */
void SSL_CTX_flush_sessions(SSL_CTX *s, long t)
{
	unsigned long i;
	TIMEOUT_PARAM tp;

	tp.ctx = s;
	tp.cache = s->sessions;
	if (tp.cache == NULL)
		return;
	tp.time = t;
	i = tp.cache->down_load;
	tp.cache->down_load = 0;
	/* ROOT CAUSE: visits every cached session to find the expired ones at the list's tail */
	OPENSSL_LH_doall_arg(tp.cache, timeout_cb, &tp);
	tp.cache->down_load = i;
}
