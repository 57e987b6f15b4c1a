/*
 * slab_mover_spin - memcached-1239: "slab_rebalance_thread taking lot of CPU"
 * (memcached 1.6.38, https://github.com/memcached/memcached/issues/1239; the page
 * mover's rescans of busy pages: https://github.com/memcached/memcached/pull/542,
 * https://github.com/memcached/memcached/pull/608).
 *
 * The real bug: the slab page mover (slab_reassign, run by the automover) empties a
 * page by walking all its chunks, rescuing live items into other chunks. An item a
 * connection still references (a client that has not read the whole response yet)
 * is "busy" and cannot move, so the mover walks the page again later, after a
 * back-off sleep. In the report a server whose clients held items for long
 * (large items, slow readers) showed slab_reassign_busy_items at 6e13 and the
 * rebalancer thread pinning a core: "There is a sleep backoff that's supposed to
 * stop the thread from pinning CPU if there's a busy item... it shouldn't be 100%
 * of a core if the backoff is working properly." The fix (1.6.39) reworked the
 * back-off ("increase the max backoff time but slow the ramp time").
 *
 * Here: a memcached-shaped server (ASCII protocol, slab allocator, LRU, crawler,
 * automover, page mover) in one event loop, and its clients: 12 web servers and 4
 * API gateways that fetch 100 user sessions at a time. Sessions live 3 seconds, so
 * once a second the crawler frees thousands of chunks and the automover returns a
 * page to the global pool, which the page mover empties while the gateways read
 * their responses. normal: the gateways are on the LAN and read a response at once;
 * buggy: they sit behind slow links (256 bytes per event-loop iteration), so the
 * sessions on the page being moved stay referenced for dozens of iterations, the
 * back-off never ramps up, and the mover walks the whole 1 MB page at every
 * iteration. Same server code, same requests: only the clients' read speed differs.
 * Each run's file descriptors and start time differ; the checksum (of every byte
 * the clients receive) does not.
 *
 * Root cause: slab_rebalance_event() (slabs.c), the back-off condition (ROOT CAUSE):
 * it is cheap; the cost is in slab_rebalance_move(), the page walk it lets run at
 * every iteration. Key variables: backoff_iters, slab_rebal.busy_items,
 * slab_rebal.busy_loops (#global, slabs.c), stats.slab_reassign_passes (#global).
 * Pattern: wrong constraint.
 *
 * Files, as in memcached: memcached.c (settings, connections, drive_machine, the
 * event loop, clock_handler), proto_text.c (the ASCII protocol), items.c (items,
 * LRU), slabs.c (slab allocator and page mover: the root cause), slab_automove.c
 * (the automover), crawler.c (the LRU crawler), assoc.c (the hash table), hash.c
 * (MurmurHash3), memcached.h (shared declarations); main.c (this driver: the
 * clients and their network, one second of requests at a time).
 */
#include "memcached.h"

extern unsigned long loop_iter;

#define N_WEB 12
#define N_GW 4
#define N_CONNS (N_WEB + N_GW)
#define SECONDS 60
#define USER_KEYS 40000
#define SESSIONS_PER_SEC 5000
#define SESSION_TTL 3
#define GW_BATCHES_PER_SEC 4
#define GW_KEYS_PER_GET 250
#define WEB_REQS_PER_SEC 260

struct client {
	netsock sock;
	conn *c;
	size_t rcvwnd;          /* bytes read per event-loop iteration */
	size_t stall_every;     /* a zero-window stall after this many bytes (0: none) */
	unsigned int stall_iters;
	size_t since_stall;
	unsigned int stalled;
	uint64_t sum;           /* FNV-1a of every byte received */
	uint64_t received;
};

static struct client clients[N_CONNS];
static uint64_t rng = 0x2545f4914f6cdd1dULL;
static char value_buf[4096];

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void sock_append(netsock *s, const char *buf, size_t len)
{
	if (s->in_len + len > s->in_cap) {
		size_t cap = s->in_cap ? s->in_cap : 65536;
		while (cap < s->in_len + len)
			cap *= 2;
		s->in = realloc(s->in, cap);
		s->in_cap = cap;
	}
	if (s->in == NULL) {
		perror("realloc");
		exit(1);
	}
	memcpy(s->in + s->in_len, buf, len);
	s->in_len += len;
}

static void send_set(struct client *cl, const char *key, int exptime, int vlen, uint64_t seed)
{
	char line[128];
	int n = snprintf(line, sizeof line, "set %s %u %d %d\r\n", key, (unsigned)(seed & 0xffff), exptime, vlen);
	sock_append(&cl->sock, line, n);
	for (int i = 0; i < vlen; i++)
		value_buf[i] = 'a' + (seed >> (i & 31) ^ i) % 26;
	sock_append(&cl->sock, value_buf, vlen);
	sock_append(&cl->sock, "\r\n", 2);
}

/* One second of requests for every client. */
static void generate_second(int sec)
{
	char line[64 * GW_KEYS_PER_GET];
	char key[32];

	/* new sessions, spread over the web servers */
	for (int i = 0; i < SESSIONS_PER_SEC; i++) {
		struct client *cl = &clients[i % N_WEB];
		snprintf(key, sizeof key, "sess:%d:%d", sec, i);
		send_set(cl, key, SESSION_TTL, 330 + rnd() % 80, rnd());
	}
	/* page views: user objects, mostly reads, zipf-ish */
	for (int w = 0; w < N_WEB; w++) {
		struct client *cl = &clients[w];
		for (int r = 0; r < WEB_REQS_PER_SEC; r++) {
			uint64_t x = rnd();
			int k = (int)((x % USER_KEYS) * (x % USER_KEYS) / USER_KEYS);
			snprintf(key, sizeof key, "user:%06d", k);
			if (x >> 60 == 0) {
				send_set(cl, key, 0, 100 + (x >> 20) % 600, x);
			} else {
				int n = snprintf(line, sizeof line, "get %s\r\n", key);
				sock_append(&cl->sock, line, n);
			}
		}
	}
	/* gateways: batches of recent sessions */
	for (int g = 0; g < N_GW; g++) {
		struct client *cl = &clients[N_WEB + g];
		for (int b = 0; b < GW_BATCHES_PER_SEC; b++) {
			int n = snprintf(line, sizeof line, "get");
			for (int k = 0; k < GW_KEYS_PER_GET; k++) {
				int s = sec - (int)(rnd() % SESSION_TTL);
				if (s < 0)
					s = 0;
				n += snprintf(line + n, sizeof line - n, " sess:%d:%d", s, (int)(rnd() % SESSIONS_PER_SEC));
			}
			n += snprintf(line + n, sizeof line - n, "\r\n");
			sock_append(&cl->sock, line, n);
		}
	}
}

/* The network: every client reads up to its receive window of what was sent. */
static void clients_read(void *arg)
{
	(void)arg;
	for (int i = 0; i < N_CONNS; i++) {
		struct client *cl = &clients[i];
		netsock *s = &cl->sock;
		if (cl->stalled) {
			cl->stalled--;
			continue;
		}
		size_t n = s->out_len < cl->rcvwnd ? s->out_len : cl->rcvwnd;
		if (n == 0)
			continue;
		cl->since_stall += n;
		if (cl->stall_every && cl->since_stall >= cl->stall_every) {
			cl->since_stall = 0;
			cl->stalled = cl->stall_iters;
		}
		uint64_t h = cl->sum;
		for (size_t j = 0; j < n; j++) {
			h ^= (unsigned char)s->out[j];
			h *= 0x100000001b3ULL;
		}
		cl->sum = h;
		cl->received += n;
		memmove(s->out, s->out + n, s->out_len - n);
		s->out_len -= n;
	}
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  A memcached-shaped server moving slab pages while its clients read (memcached-1239).\n"
		"  normal: the session gateways read at LAN speed; buggy: they read 256 bytes per\n"
		"  event-loop iteration, holding the items they fetched.\n", argv0);
	return 2;
}

int main(int argc, char **argv)
{
	size_t gw_rcvwnd, gw_stall_every;
	unsigned int gw_stall_iters;
	if (argc != 2)
		return usage(argv[0]);
	if (strcmp(argv[1], "normal") == 0) {
		gw_rcvwnd = 1 << 20;
		gw_stall_every = 0;
		gw_stall_iters = 0;
	} else if (strcmp(argv[1], "buggy") == 0) {
		gw_rcvwnd = 4096;
		gw_stall_every = 64 << 10;
		gw_stall_iters = 5000;
	} else {
		return usage(argv[0]);
	}

	settings.maxbytes = 64 << 20;
	settings.item_size_max = 1 << 20;
	settings.slab_page_size = 512 << 10;
	settings.chunk_size = 48;
	settings.factor = 1.25;
	settings.reqs_per_event = 20;
	settings.slab_reassign = true;
	settings.slab_automove = 1;
	settings.slab_automove_ratio = 0.8;
	settings.slab_automove_window = 2;
	settings.slab_move_max_loops = 1000;
	settings.hashpower_init = 16;
	settings.lru_crawler = true;
	process_started = time(NULL) - 2;

	slabs_init(settings.maxbytes, settings.factor);
	assoc_init(settings.hashpower_init);

	/* accept(): descriptor numbers depend on what the process had open */
	int first_fd = 20 + getpid() % 64;
	for (int i = 0; i < N_CONNS; i++) {
		clients[i].rcvwnd = i < N_WEB ? 1 << 20 : gw_rcvwnd;
		clients[i].stall_every = i < N_WEB ? 0 : gw_stall_every;
		clients[i].stall_iters = gw_stall_iters;
		clients[i].sum = 0xcbf29ce484222325ULL;
		clients[i].c = conn_new(first_fd + i, &clients[i].sock);
	}

	for (int sec = 0; sec < SECONDS; sec++) {
		generate_second(sec);
		event_base_loop(clients_read, NULL);
		for (int i = 0; i < N_CONNS; i++) {
			/* the client's send queue is consumed: start the next second afresh */
			clients[i].sock.in_len = clients[i].sock.in_off = 0;
		}
		clock_handler();
	}

	uint64_t sum = 0, bytes = 0;
	for (int i = 0; i < N_CONNS; i++) {
		sum = sum * 1000003 + clients[i].sum;
		bytes += clients[i].received;
	}
	printf("slab_mover_spin %s: hits=%llu moved=%llu bytes=%llu checksum=%016llx\n", argv[1],
	       (unsigned long long)stats.get_hits, (unsigned long long)stats.slabs_moved,
	       (unsigned long long)bytes, (unsigned long long)sum);
	if (getenv("SLAB_MOVER_DEBUG"))
		fprintf(stderr, "iters=%lu passes=%llu busy=%llu rescues=%llu evict=%llu slab_ev=%llu crawl=%llu items=%llu\n",
			loop_iter, (unsigned long long)stats.slab_reassign_passes, (unsigned long long)stats.slab_reassign_busy_items,
			(unsigned long long)stats.slab_reassign_rescues, (unsigned long long)stats.evictions,
			(unsigned long long)stats.slab_reassign_evictions, (unsigned long long)stats.crawler_reclaimed,
			(unsigned long long)stats_state.curr_items);
	return 0;
}
