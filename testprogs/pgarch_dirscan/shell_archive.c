/*
 * pgarch_dirscan (Postgres-beb4e9ba16): shell_archive.c
 * The archive command (archive_command = 'cp %p archive/%f', done in-process as
 * the basic_archive module does): copy the segment to the archive directory,
 * verifying its records' CRCs on the way.
 */
#include <fcntl.h>
#include "postgres.h"

static char copybuf[WAL_SEGMENT_SIZE];

bool shell_archive_file(const char *file, const char *path, uint64_t *sum)
{
	char dest[MAXPGPATH];
	int src = open(path, O_RDONLY);
	if (src < 0)
		return false;
	ssize_t n = read(src, copybuf, sizeof copybuf);
	close(src);
	if (n != WAL_SEGMENT_SIZE)
		return false;

	/* the records after the long page header (which holds the system id) */
	pg_crc32c crc;
	INIT_CRC32C(crc);
	COMP_CRC32C(crc, copybuf + 64, WAL_SEGMENT_SIZE - 64);
	FIN_CRC32C(crc);
	*sum += crc;

	snprintf(dest, sizeof dest, "archive/%s", file);
	int dst = open(dest, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (dst < 0)
		return false;
	bool ok = write(dst, copybuf, n) == n;
	close(dst);
	return ok;
}
