/*
 * pgarch_dirscan (Postgres-beb4e9ba16): postmaster.c
 * The postmaster: creates the data directory's WAL layout, forks the archiver
 * (StartArchiver), runs the workload's WAL (here in-process: the backends'
 * inserts), and at shutdown waits for the archiver to archive what is left.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "postgres.h"

char DataDir[MAXPGPATH];

struct archiver_report {
	long count;
	bool failed;
	char xlog[MAX_XFN_CHARS];
};

static long reports_seen;
static uint64_t final_sum;
static long final_count = -1;

pid_t StartArchiver(void)
{
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		perror("could not fork archiver");
		exit(1);
	}
	if (pid == 0)
		PgArchiverMain();
	return pid;
}

/* Reads one archiver report; returns false at the final one. */
static bool ReadArchiverReport(void)
{
	struct archiver_report r;
	ssize_t n;
	do
		n = read(pgarch_done_fd[0], &r, sizeof r);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof r) {
		fprintf(stderr, "archiver report lost\n");
		exit(1);
	}
	if (r.count < 0) {
		final_count = -1 - r.count;
		memcpy(&final_sum, r.xlog, sizeof final_sum);
		return false;
	}
	if (r.failed) {
		fprintf(stderr, "archiver failed on %s\n", r.xlog);
		exit(1);
	}
	reports_seen++;
	return true;
}

/* A heap insert's WAL: a tuple of the workload's table (deterministic). */
static void GenerateInsertRecord(uint64_t n)
{
	char tuple[160];
	uint64_t x = n * 0x9E3779B97F4A7C15ULL;
	int len = snprintf(tuple, sizeof tuple, "(%llu,'order-%08llx',%llu.%02llu,'%s')",
			   (unsigned long long)n, (unsigned long long)(x >> 32),
			   (unsigned long long)(x % 100000), (unsigned long long)(x % 100),
			   (x & 1) ? "shipped" : "pending");
	XLogInsertRecord(10 /* RM_HEAP_ID */, tuple, (uint32_t)len);
}

/*
 * Runs the workload: n_segments segments of WAL. backlog > 0: the archiver is
 * started only once that many segments are waiting (archive_command had been
 * failing); otherwise it runs from the start and the workload never gets more
 * than a few segments ahead of it.
 */
int PostmasterMain(long n_segments, long backlog)
{
	pid_t archiver = -1;
	uint64_t recno = 0;

	if (mkdir(XLOGDIR, 0700) || mkdir(XLOGDIR "/" XLOG_ARCHIVE_STATUS, 0700) || mkdir("archive", 0700)) {
		perror("mkdir");
		return 1;
	}
	if (pipe(pgarch_wakeup_fd) || pipe(pgarch_done_fd)) {
		perror("pipe");
		return 1;
	}
	fcntl(pgarch_wakeup_fd[1], F_SETFL, O_NONBLOCK);
	XLogInit();

	if (backlog == 0)
		archiver = StartArchiver();
	while ((long)XLogCtl.lastSegNo < n_segments) {
		GenerateInsertRecord(recno++);
		if (archiver > 0 && (long)XLogCtl.lastSegNo - reports_seen > 8)
			ReadArchiverReport();   /* the archiver keeps up: wait for it */
		if (archiver < 0 && (long)XLogCtl.lastSegNo >= backlog)
			archiver = StartArchiver();
	}

	/* shutdown: the archiver archives what is left, then reports and exits */
	char c = 'S';
	if (write(pgarch_wakeup_fd[1], &c, 1) != 1) {
		perror("write");
		return 1;
	}
	while (ReadArchiverReport())
		;
	int status;
	if (waitpid(archiver, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "archiver failed\n");
		return 1;
	}
	XLogCtl.checkpoint_segments = XLogCtl.checkpoint_segments ? XLogCtl.checkpoint_segments : 1;
	CreateCheckPoint();
	return 0;
}

long ArchivedCount(void)
{
	return final_count;
}

uint64_t ArchivedSum(void)
{
	return final_sum;
}
