/*
 * pgarch_dirscan (Postgres-beb4e9ba16): fd.c
 * The file-access layer: directories read with errors reported (AllocateDir,
 * ReadDir, FreeDir) and renames made durable (durable_rename).
 */
#include <fcntl.h>
#include "postgres.h"

DIR *AllocateDir(const char *dirname)
{
	DIR *dir = opendir(dirname);
	if (dir == NULL)
		fprintf(stderr, "could not open directory \"%s\": %s\n", dirname, strerror(errno));
	return dir;
}

struct dirent *ReadDir(DIR *dir, const char *dirname)
{
	struct dirent *dent;
	if (dir == NULL)
		return NULL;
	errno = 0;
	if ((dent = readdir(dir)) != NULL)
		return dent;
	if (errno)
		fprintf(stderr, "could not read directory \"%s\": %s\n", dirname, strerror(errno));
	return NULL;
}

int FreeDir(DIR *dir)
{
	return dir ? closedir(dir) : 0;
}

int durable_rename(const char *oldfile, const char *newfile)
{
	if (rename(oldfile, newfile) < 0) {
		fprintf(stderr, "could not rename file \"%s\" to \"%s\": %s\n", oldfile, newfile, strerror(errno));
		return -1;
	}
	return 0;
}
