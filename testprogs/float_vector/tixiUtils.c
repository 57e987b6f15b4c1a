/* tixiUtils.c of float_vector (TIXI-183): the string helpers of TIXI's writer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tixi.h"

/* Prints one number into a new string (TIXI sizes its buffer generously
 * instead of parsing the format). */
char *buildString(const char *format, double value)
{
	char *text = malloc(64);
	if (text == NULL)
		return NULL;
	snprintf(text, 64, format, value);
	return text;
}

char *buildPath(const char *parentPath, const char *elementName)
{
	char *path = malloc(strlen(parentPath) + strlen(elementName) + 2);
	if (path == NULL)
		return NULL;
	path[0] = '\0';
	strcat(path, parentPath);
	strcat(path, "/");
	strcat(path, elementName);
	return path;
}
