/* tixi.c of float_vector (TIXI-183): the element writers of TIXI's API. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tixi.h"

ReturnCode tixiAddTextElement(TixiDocument *doc, const char *parentPath,
			      const char *elementName, const char *text)
{
	TixiElement *e = calloc(1, sizeof *e);
	if (e == NULL)
		return FAILED;
	e->path = buildPath(parentPath, elementName);
	e->text = strdup(text);
	if (e->path == NULL || e->text == NULL)
		return FAILED;
	if (doc->last != NULL)
		doc->last->next = e;
	else
		doc->first = e;
	doc->last = e;
	doc->elements++;
	size_t n = strlen(e->text);
	doc->textBytes += n;
	doc->checksum = doc->checksum * 31 + n + (unsigned char)e->text[n / 2];
	return SUCCESS;
}

ReturnCode tixiAddTextAttribute(TixiDocument *doc, const char *elementPath,
				const char *attributeName, const char *value)
{
	(void)attributeName;
	for (TixiElement *e = doc->last; e != NULL; e = NULL) {
		if (strcmp(e->path, elementPath) == 0) {
			e->mapType = strdup(value);
			return e->mapType ? SUCCESS : FAILED;
		}
	}
	return FAILED;
}

/* Writes a vector of numbers as one text element, "1;2.5;3", with the
 * attribute mapType="vector". */
ReturnCode tixiAddFloatVector(TixiDocument *doc, const char *parentPath,
			      const char *elementName, const double *vector,
			      int numElements)
{
	ReturnCode error;
	char *stringVector = NULL;
	char *textBuffer = NULL;
	int i;
	int stringSize = 0;

	if (numElements < 1)
		return FAILED;

	/* calculate the size of the resulting string */
	for (i = 0; i < numElements; i++) {
		textBuffer = buildString("%g", vector[i]);
		stringSize += (int)strlen(textBuffer);
		free(textBuffer);
	}

	stringVector = malloc((size_t)stringSize + (size_t)numElements + 1);
	if (stringVector == NULL)
		return FAILED;

	/* copy strings to stringVector: every strcat walks the whole string
	 * built so far to find its end */
	stringVector[0] = '\0';
	textBuffer = buildString("%g", vector[0]);
	strcat(stringVector, textBuffer);
	free(textBuffer);
	for (i = 1; i < numElements; i++) {
		textBuffer = buildString("%g", vector[i]);
		strcat(stringVector, VECTOR_SEPARATOR); /* ROOT CAUSE */
		strcat(stringVector, textBuffer);
		free(textBuffer);
	}

	error = tixiAddTextElement(doc, parentPath, elementName, stringVector);
	if (error != SUCCESS) {
		free(stringVector);
		return error;
	}
	textBuffer = buildPath(parentPath, elementName);
	error = tixiAddTextAttribute(doc, textBuffer, "mapType", "vector");
	free(textBuffer);
	free(stringVector);
	return error;
}
