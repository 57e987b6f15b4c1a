/*
 * pgarch_dirscan (Postgres-beb4e9ba16): postgres.h - the declarations the files of
 * this program share (postgres.h, access/xlog.h, postmaster/pgarch.h, storage/fd.h
 * in PostgreSQL). The program is described in main.c.
 */
#ifndef PGARCH_DIRSCAN_POSTGRES_H
#define PGARCH_DIRSCAN_POSTGRES_H

#include <dirent.h>
#include <stddef.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define MAXPGPATH 1024
#define MAX_XFN_CHARS 40
#define XLOG_BLCKSZ 8192
#define WAL_SEGMENT_SIZE (4 * XLOG_BLCKSZ)   /* --wal-segsize, scaled down */
#define XLOGDIR "pg_wal"
#define XLOG_ARCHIVE_STATUS "archive_status"

typedef uint64_t XLogSegNo;
typedef uint64_t XLogRecPtr;
typedef uint32_t TimeLineID;
typedef uint32_t pg_crc32c;
typedef int64_t TimestampTz;   /* microseconds since 2000-01-01 */

/* XLogFileName(): "TTTTTTTTXXXXXXXXYYYYYYYY" */
#define XLogSegmentsPerXLogId (UINT64_C(0x100000000) / WAL_SEGMENT_SIZE)
#define XLogFileName(fname, tli, logSegNo) \
	snprintf(fname, MAX_XFN_CHARS, "%08X%08X%08X", tli, \
		 (uint32_t)((logSegNo) / XLogSegmentsPerXLogId), \
		 (uint32_t)((logSegNo) % XLogSegmentsPerXLogId))

/* Configuration (GUCs) and shared state, as the postmaster sets them. */
struct XLogCtlData {
	TimeLineID ThisTimeLineID;
	XLogSegNo lastSegNo;            /* last segment written and closed */
	XLogSegNo lastRemovedSegNo;     /* last segment removed by a checkpoint */
	XLogRecPtr insertPtr;
	uint64_t records;
	int checkpoint_segments;        /* a checkpoint every this many segments */
};
extern struct XLogCtlData XLogCtl;
extern char DataDir[MAXPGPATH];
extern int pgarch_wakeup_fd[2];     /* the archiver's latch: a self-pipe */
extern int pgarch_done_fd[2];       /* archived segment numbers, for the driver */

/* pg_crc32c.c */
void pg_crc32c_init(void);
pg_crc32c pg_comp_crc32c(pg_crc32c crc, const void *data, size_t len);
#define INIT_CRC32C(crc) ((crc) = 0xFFFFFFFF)
#define COMP_CRC32C(crc, data, len) ((crc) = pg_comp_crc32c((crc), (data), (len)))
#define FIN_CRC32C(crc) ((crc) ^= 0xFFFFFFFF)

/* fd.c */
DIR *AllocateDir(const char *dirname);
struct dirent *ReadDir(DIR *dir, const char *dirname);
int FreeDir(DIR *dir);
int durable_rename(const char *oldfile, const char *newfile);

/* xlog.c */
void XLogInit(void);
void XLogInsertRecord(uint8_t rmid, const void *data, uint32_t len);
void XLogFlushSegment(void);
void CreateCheckPoint(void);
TimestampTz GetCurrentTimestamp(void);

/* xlogarchive.c */
void StatusFilePath(char *path, const char *xlog, const char *suffix);
void XLogArchiveNotify(const char *xlog);
void XLogArchiveNotifySeg(XLogSegNo segno, TimeLineID tli);
bool XLogArchiveIsReadyOrDone(const char *xlog);
void XLogArchiveCleanup(const char *xlog);

/* pgarch.c */
void PgArchiverMain(void) __attribute__((noreturn));
void PgArchWakeup(void);

/* shell_archive.c */
bool shell_archive_file(const char *file, const char *path, uint64_t *sum);

/* postmaster.c */
pid_t StartArchiver(void);
int PostmasterMain(long n_segments, long backlog);

#endif
