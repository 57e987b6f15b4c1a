/*
 * slab_mover_spin (memcached-1239): proto_text.c
 * The ASCII protocol: get/gets (multi-key), set, delete, version, stats. A get
 * response points into the items it returns (as memcached's iovecs do), so the
 * connection holds a reference on each item until the client has read it.
 */
#include "memcached.h"

#define MAX_TOKENS 64

typedef struct token_s {
	char *value;
	size_t length;
} token_t;

static size_t tokenize_command(char *command, token_t *tokens, size_t max_tokens)
{
	char *s, *e;
	size_t ntokens = 0;
	size_t len = strlen(command);

	s = e = command;
	for (size_t i = 0; i < len; i++) {
		if (*e == ' ') {
			if (s != e) {
				tokens[ntokens].value = s;
				tokens[ntokens].length = e - s;
				ntokens++;
				*e = '\0';
				if (ntokens == max_tokens - 1) {
					e++;
					s = e;
					break;
				}
			}
			s = e + 1;
		}
		e++;
	}
	if (s != e) {
		tokens[ntokens].value = s;
		tokens[ntokens].length = e - s;
		ntokens++;
	}
	tokens[ntokens].value = *e == '\0' ? NULL : e;
	tokens[ntokens].length = 0;
	ntokens++;
	return ntokens;
}

static int add_iov(conn *c, const char *buf, size_t len)
{
	if (c->iovused == c->iovsize) {
		int n = c->iovsize ? c->iovsize * 2 : 64;
		struct mc_iov *niov = realloc(c->iov, n * sizeof(*niov));
		if (!niov)
			return -1;
		c->iov = niov;
		c->iovsize = n;
	}
	c->iov[c->iovused].base = buf;
	c->iov[c->iovused].len = len;
	c->iovused++;
	return 0;
}

/* Response text goes into wbuf; the iov points at it (wbuf never moves while a
 * response is built: it is sized for the largest multiget's headers). */
int add_response(conn *c, const char *buf, size_t len)
{
	if (c->wbytes + len > c->wsize)
		return -1;
	char *dst = c->wbuf + c->wbytes;
	memcpy(dst, buf, len);
	c->wbytes += len;
	return add_iov(c, dst, len);
}

static void out_string(conn *c, const char *str)
{
	size_t len = strlen(str);
	add_response(c, str, len);
	add_response(c, "\r\n", 2);
	c->state = conn_mwrite;
}

static void process_get_command(conn *c, token_t *tokens)
{
	token_t *key_token = &tokens[1];
	char hdr[KEY_MAX_LENGTH + 64];

	while (key_token->length != 0) {
		char *key = key_token->value;
		size_t nkey = key_token->length;
		if (nkey > KEY_MAX_LENGTH) {
			out_string(c, "CLIENT_ERROR bad command line format");
			return;
		}
		uint32_t hv = MurmurHash3_x86_32(key, nkey);
		item *it = do_item_get(key, nkey, hv);
		stats.get_cmds++;
		if (it) {
			if (c->ileft == c->isize) {
				item **nl = realloc(c->ilist, sizeof(item *) * c->isize * 2);
				if (!nl) {
					do_item_remove(it);
					break;
				}
				c->ilist = nl;
				c->isize *= 2;
			}
			int hl = snprintf(hdr, sizeof hdr, "VALUE %s %u %d\r\n", ITEM_key(it), it->flags, it->nbytes - 2);
			if (add_response(c, hdr, hl) != 0 || add_iov(c, ITEM_data(it), it->nbytes) != 0) {
				do_item_remove(it);
				break;
			}
			c->ilist[c->ileft++] = it;   /* released once sent */
			stats.get_hits++;
		} else {
			stats.get_misses++;
		}
		key_token++;
		if (key_token->length == 0 && key_token->value != NULL) {
			tokenize_command(key_token->value, tokens, MAX_TOKENS);
			key_token = tokens;
		}
	}
	add_response(c, "END\r\n", 5);
	c->state = conn_mwrite;
}

static void process_update_command(conn *c, token_t *tokens)
{
	char *key = tokens[1].value;
	size_t nkey = tokens[1].length;
	char *end;

	unsigned long flags = strtoul(tokens[2].value, &end, 10);
	long exptime = strtol(tokens[3].value, &end, 10);
	long vlen = strtol(tokens[4].value, &end, 10);
	if (vlen < 0 || nkey > KEY_MAX_LENGTH) {
		out_string(c, "CLIENT_ERROR bad command line format");
		return;
	}
	vlen += 2;
	stats.set_cmds++;
	item *it = do_item_alloc(key, nkey, flags, exptime ? current_time + exptime : 0, vlen);
	if (it == NULL) {
		out_string(c, "SERVER_ERROR out of memory storing object");
		c->rlbytes = vlen;   /* swallow the value */
		c->item = NULL;
		c->ritem = NULL;
		c->state = conn_nread;
		return;
	}
	c->item = it;
	c->ritem = ITEM_data(it);
	c->rlbytes = vlen;
	c->state = conn_nread;
}

void complete_nread_ascii(conn *c)
{
	item *it = c->item;
	if (it == NULL) {
		c->state = conn_mwrite;
		return;
	}
	if (memcmp(ITEM_data(it) + it->nbytes - 2, "\r\n", 2) != 0) {
		out_string(c, "CLIENT_ERROR bad data chunk");
	} else {
		uint32_t hv = MurmurHash3_x86_32(ITEM_key(it), it->nkey);
		item *old = assoc_find(ITEM_key(it), it->nkey, hv);
		if (old)
			do_item_unlink(old, hv);
		do_item_link(it, hv);
		out_string(c, "STORED");
	}
	do_item_remove(it);   /* the allocation's reference */
	c->item = NULL;
}

static void process_stats(conn *c)
{
	char buf[512];
	int n = snprintf(buf, sizeof buf,
		"STAT pid %d\r\nSTAT uptime %u\r\nSTAT time %ld\r\nSTAT curr_items %llu\r\n"
		"STAT get_hits %llu\r\nSTAT evictions %llu\r\nSTAT slabs_moved %llu\r\n"
		"STAT slab_reassign_busy_items %llu\r\nEND\r\n",
		(int)getpid(), current_time, (long)(process_started + current_time),
		(unsigned long long)stats_state.curr_items, (unsigned long long)stats.get_hits,
		(unsigned long long)stats.evictions, (unsigned long long)stats.slabs_moved,
		(unsigned long long)stats.slab_reassign_busy_items);
	add_response(c, buf, n);
	c->state = conn_mwrite;
}

void process_command_ascii(conn *c, char *command)
{
	token_t tokens[MAX_TOKENS];
	size_t ntokens = tokenize_command(command, tokens, MAX_TOKENS);

	if (ntokens >= 3 && (strcmp(tokens[0].value, "get") == 0 || strcmp(tokens[0].value, "gets") == 0)) {
		process_get_command(c, tokens);
	} else if (ntokens == 6 && strcmp(tokens[0].value, "set") == 0) {
		process_update_command(c, tokens);
	} else if (ntokens == 3 && strcmp(tokens[0].value, "delete") == 0) {
		uint32_t hv = MurmurHash3_x86_32(tokens[1].value, tokens[1].length);
		item *it = do_item_get(tokens[1].value, tokens[1].length, hv);
		stats.delete_cmds++;
		if (it) {
			do_item_unlink(it, hv);
			do_item_remove(it);
			out_string(c, "DELETED");
		} else {
			out_string(c, "NOT_FOUND");
		}
	} else if (ntokens == 2 && strcmp(tokens[0].value, "version") == 0) {
		out_string(c, "VERSION 1.6.38");
	} else if (ntokens == 2 && strcmp(tokens[0].value, "stats") == 0) {
		process_stats(c);
	} else {
		out_string(c, "ERROR");
	}
}

void conn_release_items(conn *c)
{
	for (int i = 0; i < c->ileft; i++)
		do_item_remove(c->ilist[i]);
	c->ileft = 0;
	c->iovused = 0;
	c->iovcurr = 0;
	c->iov_off = 0;
	c->wbytes = 0;
}
