/*
 * scan_match - redis/redis#5660: util.c, the glob-style matcher of Redis 7.0.8
 * (src/util.c) as it was before redis/redis#11858 (CVE-2022-36021), and ll2string.
 */
#include <ctype.h>
#include <string.h>

#include "server.h"

/* Glob-style pattern matching: KEYS, SCAN ... MATCH, PSUBSCRIBE and ACL key
 * patterns all come here. A '*' tries the rest of the pattern at every
 * position of the rest of the string, recursively. */
int stringmatchlen(const char *pattern, int patternLen,
		const char *string, int stringLen, int nocase)
{
	while (patternLen && stringLen) {
		switch (pattern[0]) {
		case '*':
			while (patternLen && pattern[1] == '*') {
				pattern++;
				patternLen--;
			}
			if (patternLen == 1)
				return 1; /* match */
			/* When the rest of the pattern matched at no position of the
			 * rest of the string, no longer match of an earlier star can
			 * help either; the fix (#11858) returns at once through
			 * skipLongerMatches. Here every earlier star moves on one
			 * character and retries all of it: ROOT CAUSE */
			while (stringLen) {
				if (stringmatchlen(pattern + 1, patternLen - 1,
						string, stringLen, nocase))
					return 1; /* match */
				string++;
				stringLen--;
			}
			return 0; /* no match */
			break;
		case '?':
			string++;
			stringLen--;
			break;
		case '[':
		{
			int not, match;

			pattern++;
			patternLen--;
			not = pattern[0] == '^';
			if (not) {
				pattern++;
				patternLen--;
			}
			match = 0;
			while (1) {
				if (pattern[0] == '\\' && patternLen >= 2) {
					pattern++;
					patternLen--;
					if (pattern[0] == string[0])
						match = 1;
				} else if (pattern[0] == ']') {
					break;
				} else if (patternLen == 0) {
					pattern--;
					patternLen++;
					break;
				} else if (patternLen >= 3 && pattern[1] == '-') {
					int start = pattern[0];
					int end = pattern[2];
					int c = string[0];
					if (start > end) {
						int t = start;
						start = end;
						end = t;
					}
					if (nocase) {
						start = tolower(start);
						end = tolower(end);
						c = tolower(c);
					}
					pattern += 2;
					patternLen -= 2;
					if (c >= start && c <= end)
						match = 1;
				} else {
					if (!nocase) {
						if (pattern[0] == string[0])
							match = 1;
					} else {
						if (tolower((int)pattern[0]) == tolower((int)string[0]))
							match = 1;
					}
				}
				pattern++;
				patternLen--;
			}
			if (not)
				match = !match;
			if (!match)
				return 0; /* no match */
			string++;
			stringLen--;
			break;
		}
		case '\\':
			if (patternLen >= 2) {
				pattern++;
				patternLen--;
			}
			/* fall through */
		default:
			if (!nocase) {
				if (pattern[0] != string[0])
					return 0; /* no match */
			} else {
				if (tolower((int)pattern[0]) != tolower((int)string[0]))
					return 0; /* no match */
			}
			string++;
			stringLen--;
			break;
		}
		pattern++;
		patternLen--;
		if (stringLen == 0) {
			while (*pattern == '*') {
				pattern++;
				patternLen--;
			}
			break;
		}
	}
	if (patternLen == 0 && stringLen == 0)
		return 1;
	return 0;
}

/* Convert a long long into a string; returns its length (0 if it does not fit). */
int ll2string(char *dst, size_t dstlen, long long svalue)
{
	char buf[24];
	unsigned long long v = svalue < 0 ? -(unsigned long long)svalue : (unsigned long long)svalue;
	int n = 0;

	do {
		buf[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (svalue < 0)
		buf[n++] = '-';
	if ((size_t)n + 1 > dstlen)
		return 0;
	for (int i = 0; i < n; i++)
		dst[i] = buf[n - 1 - i];
	dst[n] = '\0';
	return n;
}
