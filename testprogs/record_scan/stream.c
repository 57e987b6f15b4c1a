/*
 * record_scan - libphenom-26 (facebookarchive/libphenom#26):
 * corelib/streams, a stream's read. The peer here is the driver's scripted
 * traffic, handed out at most one segment per read, as a socket hands out
 * what has arrived.
 */
#include "record_scan.h"

bool ph_stm_read(ph_stream_t *stm, void *buf, uint64_t count, uint64_t *nread)
{
	uint64_t n = stm->len - stm->pos;
	if (n > stm->seg)
		n = stm->seg;
	if (n > count)
		n = count;
	memcpy(buf, stm->data + stm->pos, n);
	stm->pos += n;
	*nread = n;
	return n > 0;
}
