/* Shared declarations of utf_lexer (php/php-src#3957; see main.c). */
#ifndef UTF_LEXER_H
#define UTF_LEXER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* pcre2_match.c / pcre2_valid_utf.c: the regex library (PCRE2's API, reduced). */
#define PCRE2_UTF 0x00080000u
#define PCRE2_NO_UTF_CHECK 0x40000000u
#define PCRE2_ERROR_NOMATCH (-1)
#define PCRE2_ERROR_UTF8 (-3)

typedef struct pcre2_code {
	uint32_t compile_options;
	const char *pattern;	/* the source, for messages */
	unsigned char class_of[256];	/* token class of each first byte */
} pcre2_code;

typedef struct pcre2_match_data {
	size_t ovector[2];
	int token_class;
	uint64_t matches;
} pcre2_match_data;

int pcre2_match(const pcre2_code *re, const unsigned char *subject, size_t length,
		size_t start_offset, uint32_t options, pcre2_match_data *md);
int _pcre2_valid_utf(const unsigned char *string, size_t length, size_t *erroroffset);
void pcre2_compile_lexer(pcre2_code *re, uint32_t options);

/* php_pcre.c: ext/pcre (zend_string and the pattern cache entry, reduced). */
typedef struct zend_string {
	uint32_t refcount;
	uint32_t flags;
	uint64_t h;
	size_t len;
	unsigned char *val;
} zend_string;

typedef struct pcre_cache_entry {
	pcre2_code *re;
	uint32_t compile_options;
	uint32_t refcount;
	uint64_t calls;
} pcre_cache_entry;

typedef struct zval_match {
	size_t start, end;
	int kind;
} zval_match;

int php_pcre_match_impl(pcre_cache_entry *pce, zend_string *subject_str, size_t start_offset,
			zval_match *subpats);

/* main.c: the userland lexer's tokens. */
enum { T_WHITESPACE, T_STRING, T_LNUMBER, T_CONSTANT_STRING, T_CHAR, T_NCLASS };

typedef struct token {
	int type;
	uint32_t line;
	size_t offset, len;
} token;

#endif
