/*
 * evasive_hash - mod_evasive-63: the prefork MPM (server/mpm/prefork/prefork.c
 * in httpd): the parent forks StartServers children and supervises them;
 * each child serves its share of the connections, one request each, through
 * the module hooks. The bug is in the children.
 */
#include "evasive_hash.h"
#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

struct child_result {
	uint64_t checksum;
	long served;
	unsigned long blocked;
};

static uint64_t rnd_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The client of a connection: a few regular clients make most of the
 * requests; the rest come from the whole address space of the traffic. */
static void client_address(conn_rec *c, uint64_t *seed)
{
	unsigned long client;
	uint64_t x = rnd_next(seed);
	if ((x & 3) == 0)
		client = (unsigned long)(x >> 8) % 64;
	else
		client = (unsigned long)(x >> 8) % ap_server_conf.n_clients;
	snprintf(c->client_ip, sizeof c->client_ip, "%lu.%lu.%lu.%lu", 10 + client / 16777216 % 200,
		 client / 65536 % 256, client / 256 % 256, client % 256);
}

static uint64_t process_connection(conn_rec *c, uint64_t *seed, apr_time_t now)
{
	static const char *agents[] = { "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
					"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
					"curl/8.5.0" };
	char raw[1024];
	request_rec r;
	unsigned int page = (unsigned int)(rnd_next(seed) % ap_server_conf.n_pages);
	int len = snprintf(raw, sizeof raw,
			   "GET /catalog/item-%u.html HTTP/1.1\nHost: shop.example.org\nUser-Agent: %s\n"
			   "Accept: text/html,application/xhtml+xml\nAccept-Language: en-US,en;q=0.5\n"
			   "Accept-Encoding: gzip, deflate, br\nConnection: keep-alive\nCookie: sid=%016llx\n\n",
			   page, agents[page % 3], (unsigned long long)rnd_next(seed));
	memset(&r, 0, sizeof r);
	r.connection = c;
	r.request_time = now;
	if (ap_read_request(&r, raw, (size_t)len) != 0)
		return 0;
	r.status = access_checker(&r);
	if (r.status == DECLINED)
		r.status = OK;
	return ap_send_response(&r) + r.bytes_sent;
}

/* A child: serve requests_per_child connections, report to the parent. */
static void child_main(int slot, int fd)
{
	struct child_result res = { 0, 0, 0 };
	uint64_t seed = 0x853c49e6748fea9bull * (uint64_t)(slot + 1);
	conn_rec c;
	apr_time_t now = ap_server_conf.start_time;
	long i;

	evasive_child_init();
	for (i = 0; i < ap_server_conf.requests_per_child; i++) {
		memset(&c, 0, sizeof c);
		c.id = i * ap_server_conf.start_servers + slot;
		client_address(&c, &seed);
		now += 2000 + (apr_time_t)(rnd_next(&seed) % 2000); /* the traffic's request times */
		res.checksum = res.checksum * 1000003 + process_connection(&c, &seed, now);
		res.served++;
	}
	res.blocked = evasive_blocked();
	if (write(fd, &res, sizeof res) != (ssize_t)sizeof res)
		_exit(1);
	/* clean_child_exit: exit() as httpd's children do (atexit handlers
	 * run: a -pg build writes the child's gmon.out) */
	exit(0);
}

/* The parent: fork the children, then wait for them as the supervisor. */
int ap_mpm_run(uint64_t *checksum, long *served, unsigned long *blocked)
{
	int fds[64][2];
	pid_t pids[64];
	int n = ap_server_conf.start_servers, i, status;

	for (i = 0; i < n; i++) {
		if (pipe(fds[i]) != 0)
			return -1;
		pids[i] = fork();
		if (pids[i] < 0)
			return -1;
		if (pids[i] == 0) {
			close(fds[i][0]);
			child_main(i, fds[i][1]);
		}
		close(fds[i][1]);
	}
	*checksum = 0;
	*served = 0;
	*blocked = 0;
	for (i = 0; i < n; i++) {
		struct child_result res;
		ssize_t got;
		do
			got = read(fds[i][0], &res, sizeof res);
		while (got < 0 && errno == EINTR);
		close(fds[i][0]);
		if (waitpid(pids[i], &status, 0) != pids[i] || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
		    got != (ssize_t)sizeof res)
			return -1;
		*checksum ^= res.checksum + (uint64_t)i;
		*served += res.served;
		*blocked += res.blocked;
	}
	return 0;
}
