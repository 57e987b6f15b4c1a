/*
 * slab_mover_spin (memcached-1239): memcached.c
 * Settings and counters, connections and their state machine (drive_machine), the
 * event loop, and the clock event that runs the once-a-second maintenance (LRU
 * crawler, slab automover). The sockets are emulated (netsock): the client side is
 * the load generator in main.c, which reads what the server sent at its own pace.
 */
#include <sys/time.h>
#include "memcached.h"

struct settings settings;
struct stats stats;
struct stats_state stats_state;
volatile rel_time_t current_time;
time_t process_started;
static struct timeval clock_last;       /* wall time of the last clock event */
static uint64_t shard_events[256];      /* events per connection-lock shard */

#define SOCK_SNDBUF 16384

static conn *conns;

conn *conn_list(void)
{
	return conns;
}

conn *conn_new(int sfd, netsock *sock)
{
	conn *c = calloc(1, sizeof(conn));
	if (c == NULL)
		return NULL;
	c->sfd = sfd;
	c->sock = sock;
	c->rsize = READ_BUFFER_SIZE;
	c->rbuf = malloc(c->rsize);
	c->rcurr = c->rbuf;
	c->wsize = 64 * 1024;
	c->wbuf = malloc(c->wsize);
	c->isize = ITEM_LIST_INITIAL;
	c->ilist = malloc(sizeof(item *) * c->isize);
	if (!c->rbuf || !c->wbuf || !c->ilist) {
		fprintf(stderr, "Failed to allocate buffers for connection\n");
		exit(1);
	}
	c->state = conn_waiting;
	c->next = conns;
	conns = c;
	stats_state.curr_conns++;
	return c;
}

enum try_read_result { READ_DATA_RECEIVED, READ_NO_DATA_RECEIVED };

/* recv(): what the client has sent and the read buffer has room for. */
static enum try_read_result try_read_network(conn *c)
{
	netsock *s = c->sock;
	if (c->rcurr != c->rbuf) {
		if (c->rbytes != 0)
			memmove(c->rbuf, c->rcurr, c->rbytes);
		c->rcurr = c->rbuf;
	}
	size_t avail = s->in_len - s->in_off;
	size_t room = c->rsize - c->rbytes;
	size_t n = avail < room ? avail : room;
	if (n == 0)
		return READ_NO_DATA_RECEIVED;
	memcpy(c->rbuf + c->rbytes, s->in + s->in_off, n);
	s->in_off += n;
	c->rbytes += n;
	stats.bytes_read += n;
	return READ_DATA_RECEIVED;
}

static int try_read_command(conn *c)
{
	char *el, *cont;
	if (c->rbytes == 0)
		return 0;
	el = memchr(c->rcurr, '\n', c->rbytes);
	if (!el)
		return 0;
	cont = el + 1;
	if ((el - c->rcurr) > 1 && *(el - 1) == '\r')
		el--;
	*el = '\0';
	process_command_ascii(c, c->rcurr);
	c->rbytes -= (cont - c->rcurr);
	c->rcurr = cont;
	return 1;
}

enum transmit_result { TRANSMIT_COMPLETE, TRANSMIT_INCOMPLETE, TRANSMIT_SOFT_ERROR };

/* sendmsg(): as much of the response as the socket's send buffer takes. */
static enum transmit_result transmit(conn *c)
{
	netsock *s = c->sock;
	if (c->iovcurr >= c->iovused)
		return TRANSMIT_COMPLETE;
	size_t room = s->out_len < SOCK_SNDBUF ? SOCK_SNDBUF - s->out_len : 0;
	if (room == 0)
		return TRANSMIT_SOFT_ERROR;
	if (s->out_len + room > s->out_cap) {
		size_t cap = s->out_cap ? s->out_cap : SOCK_SNDBUF;
		while (cap < s->out_len + room)
			cap *= 2;
		s->out = realloc(s->out, cap);
		s->out_cap = cap;
	}
	while (room > 0 && c->iovcurr < c->iovused) {
		struct mc_iov *v = &c->iov[c->iovcurr];
		size_t n = v->len - c->iov_off;
		if (n > room)
			n = room;
		memcpy(s->out + s->out_len, v->base + c->iov_off, n);
		s->out_len += n;
		room -= n;
		stats.bytes_written += n;
		c->iov_off += n;
		if (c->iov_off == v->len) {
			c->iovcurr++;
			c->iov_off = 0;
		}
	}
	return c->iovcurr >= c->iovused ? TRANSMIT_COMPLETE : TRANSMIT_INCOMPLETE;
}

static void reset_cmd_handler(conn *c)
{
	c->item = NULL;
	c->state = c->rbytes > 0 ? conn_parse_cmd : conn_waiting;
}

static void drive_machine(conn *c)
{
	bool stop = false;
	int nreqs = settings.reqs_per_event;
	unsigned int lock_shard = ((uintptr_t)c >> 6) & 0xff;

	shard_events[lock_shard]++;
	while (!stop) {
		switch (c->state) {
		case conn_waiting:
			if (c->sock->in_off == c->sock->in_len) {
				stop = true;
				break;
			}
			c->state = conn_read;
			break;
		case conn_read:
			if (try_read_network(c) == READ_NO_DATA_RECEIVED) {
				c->state = conn_waiting;
				stop = true;
			} else {
				c->state = conn_parse_cmd;
			}
			break;
		case conn_parse_cmd:
			if (try_read_command(c) == 0)
				c->state = conn_waiting;
			break;
		case conn_new_cmd:
			if (--nreqs >= 0) {
				reset_cmd_handler(c);
			} else {
				/* let other connections have a turn */
				stats.conn_yields++;
				stop = true;
			}
			break;
		case conn_nread:
			if (c->rlbytes == 0) {
				complete_nread_ascii(c);
				break;
			}
			if (c->rbytes > 0) {
				int tocopy = c->rbytes > c->rlbytes ? c->rlbytes : c->rbytes;
				if (c->ritem)
					memcpy(c->ritem, c->rcurr, tocopy);
				if (c->ritem)
					c->ritem += tocopy;
				c->rlbytes -= tocopy;
				c->rcurr += tocopy;
				c->rbytes -= tocopy;
				break;
			}
			if (try_read_network(c) == READ_NO_DATA_RECEIVED)
				stop = true;
			break;
		case conn_mwrite:
			switch (transmit(c)) {
			case TRANSMIT_COMPLETE:
				conn_release_items(c);
				c->state = conn_new_cmd;
				break;
			case TRANSMIT_INCOMPLETE:
				break;
			case TRANSMIT_SOFT_ERROR:
				stop = true;   /* wait until the socket is writable */
				break;
			}
			break;
		case conn_closing:
			stop = true;
			break;
		}
	}
}

static bool conn_ready(conn *c)
{
	netsock *s = c->sock;
	switch (c->state) {
	case conn_mwrite:
		return s->out_len < SOCK_SNDBUF;
	case conn_closing:
		return false;
	case conn_new_cmd:
	case conn_parse_cmd:
		return true;
	case conn_nread:
		return c->rbytes > 0 || s->in_off < s->in_len;
	default:
		return s->in_off < s->in_len;
	}
}

/*
 * Runs until every connection is idle and every response has been read: each
 * iteration serves the ready connections (epoll_wait), lets the clients read
 * (pump: the network), then gives the page mover its turn.
 */
unsigned long loop_iter;

void event_base_loop(void (*pump)(void *), void *arg)
{
	for (;;) {
		bool active = false, pending = false;
		for (conn *c = conns; c; c = c->next) {
			if (conn_ready(c)) {
				drive_machine(c);
				active = true;
			}
			if (c->sock->out_len > 0 || c->state == conn_mwrite)
				pending = true;
		}
		pump(arg);
		slab_rebalance_event(loop_iter);
		loop_iter++;
		if (!active && !pending)
			break;
	}
}

static void *automove_state;

/* Once a second: the clock, the LRU crawler, the slab automover. */
void clock_handler(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	clock_last = tv;
	current_time++;
	if (settings.lru_crawler)
		lru_crawler_run();
	if (settings.slab_reassign && settings.slab_automove) {
		int src, dst;
		if (automove_state == NULL)
			automove_state = slab_automove_init(&settings);
		slab_automove_run(automove_state, &src, &dst);
	}
}
