/* The document model of float_vector (TIXI-183, see main.c): a TIXI document is a
 * tree of elements; here a flat list of elements, each with its path and
 * text, is enough for the writer's cost. */
#ifndef FLOAT_VECTOR_TIXI_H
#define FLOAT_VECTOR_TIXI_H

#include <stddef.h>

typedef enum { SUCCESS = 0, FAILED = 1 } ReturnCode;

#define VECTOR_SEPARATOR ";"

typedef struct TixiElement {
	struct TixiElement *next;
	char *path;
	char *text;
	char *mapType; /* "vector" for a float vector */
} TixiElement;

typedef struct {
	TixiElement *first;
	TixiElement *last;
	size_t elements;
	size_t textBytes;
	unsigned long checksum;
} TixiDocument;

/* tixiUtils.c */
char *buildString(const char *format, double value);
char *buildPath(const char *parentPath, const char *elementName);

/* tixi.c */
ReturnCode tixiAddTextElement(TixiDocument *doc, const char *parentPath,
			      const char *elementName, const char *text);
ReturnCode tixiAddTextAttribute(TixiDocument *doc, const char *elementPath,
				const char *attributeName, const char *value);
ReturnCode tixiAddFloatVector(TixiDocument *doc, const char *parentPath,
			      const char *elementName, const double *vector,
			      int numElements);

#endif
