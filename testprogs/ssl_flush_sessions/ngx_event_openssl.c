/*
 * ssl_flush_sessions (OpenSSL-8687): ngx_event_openssl.c
 * nginx's TLS setup: the context from the configuration (ssl_session_cache
 * builtin:SIZE, ssl_session_timeout), and the handshake of an accepted
 * connection.
 */
#include "ssl_local.h"

struct ngx_ssl_conf ngx_ssl_conf = {
	.session_cache_size = SSL_SESSION_CACHE_MAX_SIZE_DEFAULT,
	.session_timeout = 300,
	.builtin_cache = true,
};
SSL_CTX *ngx_ssl_ctx;

int ngx_ssl_create(void)
{
	ngx_ssl_ctx = SSL_CTX_new();
	if (ngx_ssl_ctx == NULL)
		return -1;
	ngx_ssl_ctx->now = ngx_time;    /* OpenSSL calls time(NULL); nginx's cached time is the same second */
	if (ngx_ssl_conf.builtin_cache) {
		SSL_CTX_set_session_cache_mode(ngx_ssl_ctx, SSL_SESS_CACHE_SERVER);
		SSL_CTX_sess_set_cache_size(ngx_ssl_ctx, ngx_ssl_conf.session_cache_size);
	} else {
		SSL_CTX_set_session_cache_mode(ngx_ssl_ctx, SSL_SESS_CACHE_OFF);
	}
	SSL_CTX_set_timeout(ngx_ssl_ctx, ngx_ssl_conf.session_timeout);
	return 0;
}

int ngx_ssl_handshake(SSL *ssl)
{
	int n = SSL_do_handshake(ssl);
	if (n != 1) {
		fprintf(stderr, "SSL_do_handshake() failed\n");
		return -1;
	}
	return 0;
}
