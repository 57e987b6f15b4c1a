/*
 * pgarch_dirscan (Postgres-beb4e9ba16): xlogarchive.c
 * The archive status files: a segment ready for the archiver gets
 * archive_status/SEGMENT.ready, renamed to .done once archived.
 */
#include <fcntl.h>
#include "postgres.h"

void StatusFilePath(char *path, const char *xlog, const char *suffix)
{
	snprintf(path, MAXPGPATH, XLOGDIR "/" XLOG_ARCHIVE_STATUS "/%s%s", xlog, suffix);
}

void XLogArchiveNotify(const char *xlog)
{
	char archiveStatusPath[MAXPGPATH];
	int fd;

	StatusFilePath(archiveStatusPath, xlog, ".ready");
	fd = open(archiveStatusPath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		fprintf(stderr, "could not create archive status file \"%s\": %s\n", archiveStatusPath, strerror(errno));
		return;
	}
	close(fd);
	PgArchWakeup();
}

void XLogArchiveNotifySeg(XLogSegNo segno, TimeLineID tli)
{
	char xlog[MAX_XFN_CHARS];
	XLogFileName(xlog, tli, segno);
	XLogArchiveNotify(xlog);
}

bool XLogArchiveIsReadyOrDone(const char *xlog)
{
	char path[MAXPGPATH];
	StatusFilePath(path, xlog, ".done");
	if (access(path, F_OK) == 0)
		return true;
	StatusFilePath(path, xlog, ".ready");
	return access(path, F_OK) == 0;
}

void XLogArchiveCleanup(const char *xlog)
{
	char path[MAXPGPATH];
	StatusFilePath(path, xlog, ".done");
	unlink(path);
	StatusFilePath(path, xlog, ".ready");
	unlink(path);
}
