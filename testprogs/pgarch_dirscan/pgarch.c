/*
 * pgarch_dirscan (Postgres-beb4e9ba16): pgarch.c
 * The WAL archiver (src/backend/postmaster/pgarch.c before PostgreSQL 15): a child of
 * the postmaster that sleeps on its latch until woken, then archives every segment
 * whose .ready file in archive_status/ it finds, oldest first, renaming each to .done.
 */
#include <poll.h>
#include "postgres.h"

#define MIN_XFN_CHARS 16
#define VALID_XFN_CHARS "0123456789ABCDEF.history.backup.partial"
#define NUM_ARCHIVE_RETRIES 3
#define PGARCH_AUTOWAKE_INTERVAL 60   /* seconds */

int pgarch_wakeup_fd[2] = { -1, -1 };
int pgarch_done_fd[2] = { -1, -1 };

static volatile bool ready_to_stop = false;
static uint64_t archived_sum;       /* over the segments' records, for the driver */
static long archived_count;
static TimestampTz last_archived_time;

/* The postmaster and backends set the archiver's latch. */
void PgArchWakeup(void)
{
	char c = 'w';
	if (write(pgarch_wakeup_fd[1], &c, 1) < 0 && errno != EAGAIN)
		fprintf(stderr, "could not wake the archiver: %s\n", strerror(errno));
}

static bool IsTLHistoryFileName(const char *fname)
{
	return strlen(fname) == 8 + strlen(".history") && strcmp(fname + 8, ".history") == 0;
}

/*
 * pgarch_readyXlog: the oldest segment with a .ready file (a timeline history file
 * before any segment), in xlog. Returns false when there is none.
 */
static bool pgarch_readyXlog(char *xlog)
{
	char XLogArchiveStatusDir[MAXPGPATH];
	DIR *rldir;
	struct dirent *rlde;
	bool found = false;
	bool historyFound = false;

	snprintf(XLogArchiveStatusDir, MAXPGPATH, XLOGDIR "/" XLOG_ARCHIVE_STATUS);
	rldir = AllocateDir(XLogArchiveStatusDir);

	/* ROOT CAUSE: the whole archive_status directory is read for every segment archived */
	while ((rlde = ReadDir(rldir, XLogArchiveStatusDir)) != NULL) {
		int basenamelen = (int)strlen(rlde->d_name) - 6;
		char basename[MAX_XFN_CHARS + 1];
		bool ishistory;

		if (basenamelen < MIN_XFN_CHARS || basenamelen > MAX_XFN_CHARS)
			continue;
		if (strspn(rlde->d_name, VALID_XFN_CHARS) < (size_t)basenamelen)
			continue;
		if (strcmp(rlde->d_name + basenamelen, ".ready") != 0)
			continue;

		strcpy(basename, rlde->d_name);
		basename[basenamelen] = '\0';
		ishistory = IsTLHistoryFileName(basename);
		if (!found || (ishistory && !historyFound)) {
			strcpy(xlog, basename);
			found = true;
			historyFound = ishistory;
		} else if (ishistory || !historyFound) {
			if (strcmp(basename, xlog) < 0)
				strcpy(xlog, basename);
		}
	}
	FreeDir(rldir);
	return found;
}

static bool pgarch_archiveXlog(char *xlog)
{
	char pathname[MAXPGPATH];
	snprintf(pathname, MAXPGPATH, XLOGDIR "/%s", xlog);
	return shell_archive_file(xlog, pathname, &archived_sum);
}

static void pgarch_archiveDone(char *xlog)
{
	char rlogready[MAXPGPATH];
	char rlogdone[MAXPGPATH];
	StatusFilePath(rlogready, xlog, ".ready");
	StatusFilePath(rlogdone, xlog, ".done");
	(void)durable_rename(rlogready, rlogdone);
}

/* pgstat_report_archiver: here, to the postmaster's driver through a pipe. */
static void pgstat_report_archiver(const char *xlog, bool failed)
{
	struct { long count; bool failed; char xlog[MAX_XFN_CHARS]; } msg;
	msg.count = archived_count;
	msg.failed = failed;
	memcpy(msg.xlog, xlog, MAX_XFN_CHARS);
	if (write(pgarch_done_fd[1], &msg, sizeof msg) != sizeof msg)
		fprintf(stderr, "could not report to the postmaster\n");
}

static void pgarch_ArchiverCopyLoop(void)
{
	char xlog[MAX_XFN_CHARS + 1];

	while (pgarch_readyXlog(xlog)) {
		int failures = 0;
		for (;;) {
			if (pgarch_archiveXlog(xlog)) {
				pgarch_archiveDone(xlog);
				archived_count++;
				last_archived_time = GetCurrentTimestamp();
				pgstat_report_archiver(xlog, false);
				break;
			}
			if (++failures >= NUM_ARCHIVE_RETRIES) {
				fprintf(stderr, "archiving write-ahead log file \"%s\" failed too many times\n", xlog);
				pgstat_report_archiver(xlog, true);
				return;
			}
		}
	}
}

/* Drains the latch's pipe; 'S' asks for a shutdown after the last segments. */
static void WaitLatch(int timeout_s)
{
	struct pollfd pfd = { .fd = pgarch_wakeup_fd[0], .events = POLLIN };
	char buf[256];
	int rc = poll(&pfd, 1, timeout_s * 1000);
	if (rc <= 0)
		return;
	ssize_t n = read(pgarch_wakeup_fd[0], buf, sizeof buf);
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == 'S')
			ready_to_stop = true;
}

static void pgarch_MainLoop(void)
{
	bool time_to_stop;
	do {
		time_to_stop = ready_to_stop;
		pgarch_ArchiverCopyLoop();
		if (!time_to_stop)
			WaitLatch(PGARCH_AUTOWAKE_INTERVAL);
	} while (!time_to_stop);
}

void PgArchiverMain(void)
{
	close(pgarch_wakeup_fd[1]);
	pgarch_wakeup_fd[1] = -1;
	close(pgarch_done_fd[0]);
	pgarch_MainLoop();
	struct { long count; bool failed; char xlog[MAX_XFN_CHARS]; } last = { archived_count, false, "" };
	uint64_t sum = archived_sum;
	memcpy(last.xlog, &sum, sizeof sum);
	last.count = -1 - archived_count;   /* the final report: count and sum */
	if (write(pgarch_done_fd[1], &last, sizeof last) != sizeof last)
		_exit(1);
	_exit(0);
}
