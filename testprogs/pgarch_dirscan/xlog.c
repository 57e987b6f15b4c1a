/*
 * pgarch_dirscan (Postgres-beb4e9ba16): xlog.c
 * The write-ahead log, much reduced: records (header + data, CRC-32C over both)
 * are appended to the current segment's buffer; a full segment is written to
 * pg_wal/ and handed to the archiver (XLogArchiveNotify). A checkpoint removes the
 * segments the archiver is done with (RemoveOldXlogFiles scans pg_wal/).
 */
#include <fcntl.h>
#include <sys/time.h>
#include "postgres.h"

struct XLogCtlData XLogCtl;

typedef struct XLogRecord {
	uint32_t xl_tot_len;
	uint32_t xl_xid;
	XLogRecPtr xl_prev;
	uint8_t xl_info;
	uint8_t xl_rmid;
	uint16_t xl_pad;
	pg_crc32c xl_crc;
} XLogRecord;

typedef struct XLogLongPageHeaderData {
	uint16_t xlp_magic;
	uint16_t xlp_info;
	TimeLineID xlp_tli;
	XLogRecPtr xlp_pageaddr;
	uint64_t xlp_sysid;             /* differs from cluster to cluster (run to run) */
	TimestampTz xlp_created;
	uint32_t xlp_seg_size;
	uint32_t xlp_xlog_blcksz;
} XLogLongPageHeaderData;

#define SizeOfXLogLongPHD sizeof(XLogLongPageHeaderData)

static char *segbuf;            /* the segment being filled */
static uint32_t segpos;
static uint32_t next_xid = 1000;
static XLogRecPtr prev_rec;
static uint64_t system_identifier;

TimestampTz GetCurrentTimestamp(void)
{
	struct timeval tp;
	gettimeofday(&tp, NULL);
	return ((TimestampTz)tp.tv_sec - 946684800) * 1000000 + tp.tv_usec;
}

static void XLogStartSegment(void)
{
	XLogLongPageHeaderData *hdr = (XLogLongPageHeaderData *)segbuf;
	memset(segbuf, 0, WAL_SEGMENT_SIZE);
	hdr->xlp_magic = 0xD10D;
	hdr->xlp_info = 0x0002;
	hdr->xlp_tli = XLogCtl.ThisTimeLineID;
	hdr->xlp_pageaddr = (XLogCtl.lastSegNo + 1) * WAL_SEGMENT_SIZE;
	hdr->xlp_sysid = system_identifier;
	hdr->xlp_created = GetCurrentTimestamp();
	hdr->xlp_seg_size = WAL_SEGMENT_SIZE;
	hdr->xlp_xlog_blcksz = XLOG_BLCKSZ;
	segpos = SizeOfXLogLongPHD;
}

void XLogInit(void)
{
	segbuf = malloc(WAL_SEGMENT_SIZE);
	if (!segbuf) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	system_identifier = ((uint64_t)GetCurrentTimestamp() << 12) | (getpid() & 0xFFF);
	XLogCtl.ThisTimeLineID = 1;
	XLogCtl.lastSegNo = 0;
	XLogStartSegment();
}

/* Writes the full segment to pg_wal/ and tells the archiver. */
void XLogFlushSegment(void)
{
	char xlogfname[MAX_XFN_CHARS];
	char path[MAXPGPATH];
	XLogSegNo segno = XLogCtl.lastSegNo + 1;

	XLogFileName(xlogfname, XLogCtl.ThisTimeLineID, segno);
	snprintf(path, sizeof path, XLOGDIR "/%s", xlogfname);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, segbuf, WAL_SEGMENT_SIZE) != WAL_SEGMENT_SIZE) {
		fprintf(stderr, "could not write file \"%s\": %s\n", path, strerror(errno));
		exit(1);
	}
	close(fd);
	XLogCtl.lastSegNo = segno;
	XLogArchiveNotifySeg(segno, XLogCtl.ThisTimeLineID);
	if (XLogCtl.checkpoint_segments > 0 && segno % XLogCtl.checkpoint_segments == 0)
		CreateCheckPoint();
	XLogStartSegment();
}

void XLogInsertRecord(uint8_t rmid, const void *data, uint32_t len)
{
	XLogRecord rec;
	uint32_t tot = sizeof(XLogRecord) + len;

	if (segpos + tot > WAL_SEGMENT_SIZE)
		XLogFlushSegment();
	rec.xl_tot_len = tot;
	rec.xl_xid = next_xid++;
	rec.xl_prev = prev_rec;
	rec.xl_info = 0;
	rec.xl_rmid = rmid;
	rec.xl_pad = 0;
	INIT_CRC32C(rec.xl_crc);
	COMP_CRC32C(rec.xl_crc, data, len);
	COMP_CRC32C(rec.xl_crc, &rec, offsetof(XLogRecord, xl_crc));
	FIN_CRC32C(rec.xl_crc);
	memcpy(segbuf + segpos, &rec, sizeof rec);
	memcpy(segbuf + segpos + sizeof rec, data, len);
	prev_rec = XLogCtl.insertPtr;
	XLogCtl.insertPtr += tot;
	segpos += tot;
	XLogCtl.records++;
}

/* Removes the segments (and their .done files) before the last checkpoint's
 * redo point that the archiver has finished with. */
static void RemoveOldXlogFiles(XLogSegNo keep_from)
{
	DIR *xldir = AllocateDir(XLOGDIR);
	struct dirent *xlde;
	char lastoff[MAX_XFN_CHARS];

	XLogFileName(lastoff, XLogCtl.ThisTimeLineID, keep_from);
	while ((xlde = ReadDir(xldir, XLOGDIR)) != NULL) {
		if (strlen(xlde->d_name) != 24 || strspn(xlde->d_name, "0123456789ABCDEF") != 24)
			continue;
		if (strcmp(xlde->d_name + 8, lastoff + 8) >= 0)
			continue;
		if (!XLogArchiveIsReadyOrDone(xlde->d_name))
			continue;   /* not known to the archiver yet */
		char path[MAXPGPATH];
		char status[MAXPGPATH];
		StatusFilePath(status, xlde->d_name, ".done");
		if (access(status, F_OK) != 0)
			continue;   /* still to be archived */
		snprintf(path, sizeof path, XLOGDIR "/%s", xlde->d_name);
		unlink(path);
		XLogArchiveCleanup(xlde->d_name);
	}
	FreeDir(xldir);
}

void CreateCheckPoint(void)
{
	/* keep the last two checkpoints' worth of segments (wal_keep_size) */
	XLogSegNo keep = XLogCtl.lastSegNo > (XLogSegNo)(2 * XLogCtl.checkpoint_segments)
		? XLogCtl.lastSegNo - 2 * XLogCtl.checkpoint_segments : 1;
	RemoveOldXlogFiles(keep);
	XLogCtl.lastRemovedSegNo = keep - 1;
}
