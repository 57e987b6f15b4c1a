/*
 * pgarch_dirscan - Postgres-beb4e9ba16: "Improve performance of pgarch_readyXlog()
 * with many status files" (PostgreSQL 15, commit beb4e9ba1652; the report: Robert
 * Haas, pgsql-hackers, 2021-05, "archive_command failing: the archiver will spend
 * virtually all of its time calling readdir()",
 * https://www.postgresql.org/message-id/CA%2BTgmobhAbs2yabTuTRkJTq_kkC80-%2Bjw%3DpfpypdOJ7%2BgAbQbw%40mail.gmail.com).
 *
 * The real bug: to pick the next segment to archive, the archiver's
 * pgarch_readyXlog() reads the whole pg_wal/archive_status directory, keeping the
 * oldest name that ends in ".ready", and it does so again for every segment it
 * archives. When archiving has fallen behind (archive_command failed for a while,
 * thousands of .ready files piled up), catching up is quadratic: "the archiver
 * will barely ever actually run the archive_command. Instead, it will spend
 * virtually all of its time calling readdir()". The fix remembers a batch of the
 * oldest files (a binary heap of up to 64 names) per directory scan.
 *
 * Here: a postmaster writes WAL (insert records with CRC-32C into 32 KB segments,
 * written to pg_wal/) and forks the archiver, which copies each segment to
 * archive/ (reading it and checking a CRC over its records) and renames its
 * .ready to .done; a checkpoint every 32 segments removes the archived ones.
 * normal: the archiver runs from the start and keeps up (a few .ready files at a
 * time); buggy: it is started once all 2000 segments are waiting (archive_command
 * was broken and has been fixed), the backlog of the report. Same WAL, same
 * archive. The data directory is a fresh temporary directory each run (on
 * /dev/shm when it is writable): its name, the cluster's system identifier and
 * the segments' creation times differ; the checksum (over the archived segments'
 * records) does not.
 *
 * Root cause: pgarch_readyXlog() (pgarch.c), its directory scan (ROOT CAUSE): the
 * costly function itself, called by the innocent pgarch_ArchiverCopyLoop() once per
 * segment. Key variables: rlde, basename (pgarch_readyXlog), xlog
 * (pgarch_ArchiverCopyLoop), archived_count (#global). Pattern: scalability.
 *
 * Files, as in PostgreSQL's src/backend: pgarch.c (postmaster/pgarch.c: the
 * archiver, the root cause), postmaster.c (postmaster/postmaster.c: starting the
 * archiver, the workload), xlog.c (access/transam/xlog.c: WAL records, segments,
 * checkpoints), xlogarchive.c (access/transam/xlogarchive.c: status files),
 * shell_archive.c (the archive command), fd.c (storage/file/fd.c),
 * pg_crc32c.c (src/port), postgres.h (shared declarations); main.c (this driver).
 */
#include <sys/stat.h>
#include "postgres.h"

long ArchivedCount(void);
uint64_t ArchivedSum(void);

#define N_SEGMENTS 2000

static void remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[MAXPGPATH];
	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		struct stat st;
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			remove_tree(path);
		else
			unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s normal|buggy\n"
		"  A postmaster writing %d WAL segments and its archiver (Postgres-beb4e9ba16).\n"
		"  normal: the archiver keeps up; buggy: it starts with all of them waiting.\n",
		argv0, N_SEGMENTS);
	return 2;
}

int main(int argc, char **argv)
{
	long backlog;
	if (argc != 2)
		return usage(argv[0]);
	if (strcmp(argv[1], "normal") == 0)
		backlog = 0;
	else if (strcmp(argv[1], "buggy") == 0)
		backlog = N_SEGMENTS;
	else
		return usage(argv[0]);

	/* the cluster lives on a RAM disk when there is one, as test clusters often do */
	const char *tmp = getenv("TMPDIR");
	if (access("/dev/shm", W_OK) == 0)
		tmp = "/dev/shm";
	snprintf(DataDir, sizeof DataDir, "%s/pgarch_dirscan.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(DataDir) == NULL || chdir(DataDir) != 0) {
		perror("data directory");
		return 1;
	}
	pg_crc32c_init();
	XLogCtl.checkpoint_segments = 32;

	int rc = PostmasterMain(N_SEGMENTS, backlog);

	if (chdir("/") == 0)
		remove_tree(DataDir);
	if (rc != 0)
		return rc;
	printf("pgarch_dirscan %s: segments=%d archived=%ld checksum=%016llx\n", argv[1], N_SEGMENTS,
	       ArchivedCount(), (unsigned long long)ArchivedSum());
	return ArchivedCount() == N_SEGMENTS ? 0 : 1;
}
