/*
 * ssl_flush_sessions (OpenSSL-8687): ssl_local.h - the declarations the files of this
 * program share (ssl/ssl_local.h, include/openssl/lhash.h, sha.h of OpenSSL, and
 * ngx_event_openssl.h of nginx). The program is described in main.c.
 */
#ifndef SSL_FLUSH_SESSIONS_SSL_LOCAL_H
#define SSL_FLUSH_SESSIONS_SSL_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* lhash.c: OpenSSL's dynamic hash table (linear hashing) */
typedef struct lhash_node_st {
	void *data;
	struct lhash_node_st *next;
	unsigned long hash;
} OPENSSL_LH_NODE;

typedef unsigned long (*OPENSSL_LH_HASHFUNC)(const void *);
typedef int (*OPENSSL_LH_COMPFUNC)(const void *, const void *);
typedef void (*OPENSSL_LH_DOALL_FUNCARG)(void *, void *);

typedef struct lhash_st {
	OPENSSL_LH_NODE **b;
	OPENSSL_LH_COMPFUNC comp;
	OPENSSL_LH_HASHFUNC hash;
	unsigned int num_nodes;
	unsigned int num_alloc_nodes;
	unsigned int p;
	unsigned int pmax;
	unsigned long up_load;      /* load factor * 256 */
	unsigned long down_load;
	unsigned long num_items;
	unsigned long num_expands;
	unsigned long num_contracts;
	unsigned long num_retrieve;
	unsigned long num_retrieve_miss;
	int error;
} OPENSSL_LHASH;

OPENSSL_LHASH *OPENSSL_LH_new(OPENSSL_LH_HASHFUNC h, OPENSSL_LH_COMPFUNC c);
void *OPENSSL_LH_insert(OPENSSL_LHASH *lh, void *data);
void *OPENSSL_LH_delete(OPENSSL_LHASH *lh, const void *data);
void *OPENSSL_LH_retrieve(OPENSSL_LHASH *lh, const void *data);
void OPENSSL_LH_doall_arg(OPENSSL_LHASH *lh, OPENSSL_LH_DOALL_FUNCARG func, void *arg);
unsigned long OPENSSL_LH_num_items(const OPENSSL_LHASH *lh);

/* sha256.c */
typedef struct {
	uint32_t h[8];
	uint64_t len;
	uint8_t buf[64];
	size_t nbuf;
} SHA256_CTX;
void SHA256_Init(SHA256_CTX *c);
void SHA256_Update(SHA256_CTX *c, const void *data, size_t len);
void SHA256_Final(uint8_t *md, SHA256_CTX *c);
void HMAC_SHA256(const uint8_t *key, size_t keylen, const uint8_t *msg, size_t msglen, uint8_t *out);

#define SSL_MAX_SSL_SESSION_ID_LENGTH 32
#define SSL_MAX_MASTER_KEY_LENGTH 48

#define SSL_SESS_CACHE_OFF 0x0000
#define SSL_SESS_CACHE_CLIENT 0x0001
#define SSL_SESS_CACHE_SERVER 0x0002
#define SSL_SESS_CACHE_NO_AUTO_CLEAR 0x0080
#define SSL_SESSION_CACHE_MAX_SIZE_DEFAULT (1024 * 20)

typedef struct ssl_session_st {
	unsigned int session_id_length;
	unsigned char session_id[SSL_MAX_SSL_SESSION_ID_LENGTH];
	size_t master_key_length;
	unsigned char master_key[SSL_MAX_MASTER_KEY_LENGTH];
	char *peer_name;                        /* the client's SNI host (heap) */
	long time;                              /* when created (seconds) */
	long timeout;                           /* lifetime (seconds) */
	int references;
	int not_resumable;
	struct ssl_session_st *prev, *next;     /* the cache's LRU list */
} SSL_SESSION;

struct ssl_ctx_stats {
	int sess_connect;
	int sess_connect_good;
	int sess_accept;
	int sess_accept_good;
	int sess_miss;
	int sess_timeout;
	int sess_cache_full;
	int sess_hit;
	int sess_cb_hit;
};

typedef struct ssl_ctx_st {
	OPENSSL_LHASH *sessions;
	unsigned long session_cache_size;
	SSL_SESSION *session_cache_head;
	SSL_SESSION *session_cache_tail;
	uint32_t session_cache_mode;
	long session_timeout;
	struct ssl_ctx_stats stats;
	void (*remove_session_cb)(struct ssl_ctx_st *ctx, SSL_SESSION *sess);
	unsigned char ticket_key[32];
	long (*now)(void);                      /* the time source (time(NULL)) */
} SSL_CTX;

typedef struct ssl_st {
	SSL_CTX *session_ctx;
	SSL_SESSION *session;
	int hit;                                /* the session was resumed */
	const unsigned char *client_hello;      /* the peer's first flight */
	size_t client_hello_len;
	unsigned char client_random[32];
	unsigned char server_random[32];
	unsigned char finished[32];
} SSL;

/* ssl_lib.c */
SSL_CTX *SSL_CTX_new(void);
SSL *SSL_new(SSL_CTX *ctx);
void SSL_free(SSL *s);
int SSL_do_handshake(SSL *s);
void ssl_update_cache(SSL *s, int mode);
void SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, uint32_t mode);
void SSL_CTX_sess_set_cache_size(SSL_CTX *ctx, unsigned long size);
void SSL_CTX_set_timeout(SSL_CTX *ctx, long t);

/* ssl_sess.c */
SSL_SESSION *SSL_SESSION_new(void);
void SSL_SESSION_free(SSL_SESSION *ss);
int SSL_CTX_add_session(SSL_CTX *ctx, SSL_SESSION *c);
SSL_SESSION *lookup_sess_in_cache(SSL *s, const unsigned char *sess_id, size_t sess_id_len);
void SSL_CTX_flush_sessions(SSL_CTX *s, long t);
unsigned long ssl_session_hash(const void *a);
int ssl_session_cmp(const void *a, const void *b);

/* ngx_event_openssl.c */
struct ngx_ssl_conf {
	unsigned long session_cache_size;       /* ssl_session_cache builtin:SIZE */
	long session_timeout;                   /* ssl_session_timeout */
	bool builtin_cache;
};
extern struct ngx_ssl_conf ngx_ssl_conf;
extern SSL_CTX *ngx_ssl_ctx;
int ngx_ssl_create(void);
int ngx_ssl_handshake(SSL *ssl);

/* ngx_times.c */
extern volatile long ngx_cached_time_sec;   /* the event loop's cached time */
extern volatile uint64_t ngx_current_msec;
long ngx_time(void);
void ngx_time_update(uint64_t msec);

#endif
