/*
 * dali_unsubscribe (HPCC-10660): jhash.cpp
 * jlib's hashc() (system/jlib/jhash.cpp): Bob Jenkins' lookup2 hash.
 */
#include "dali_unsubscribe.h"

#define mix(a, b, c)                      \
	{                                 \
		a -= b; a -= c; a ^= (c >> 13); \
		b -= c; b -= a; b ^= (a << 8);  \
		c -= a; c -= b; c ^= (b >> 13); \
		a -= b; a -= c; a ^= (c >> 12); \
		b -= c; b -= a; b ^= (a << 16); \
		c -= a; c -= b; c ^= (b >> 5);  \
		a -= b; a -= c; a ^= (c >> 3);  \
		b -= c; b -= a; b ^= (a << 10); \
		c -= a; c -= b; c ^= (b >> 15); \
	}

unsigned hashc(const byte *k, unsigned length, unsigned initval)
{
	unsigned a = 0x9e3779b9, b = 0x9e3779b9, c = initval, len = length;
	while (len >= 12) {
		a += k[0] + ((unsigned)k[1] << 8) + ((unsigned)k[2] << 16) + ((unsigned)k[3] << 24);
		b += k[4] + ((unsigned)k[5] << 8) + ((unsigned)k[6] << 16) + ((unsigned)k[7] << 24);
		c += k[8] + ((unsigned)k[9] << 8) + ((unsigned)k[10] << 16) + ((unsigned)k[11] << 24);
		mix(a, b, c);
		k += 12;
		len -= 12;
	}
	c += length;
	switch (len) {
	case 11: c += (unsigned)k[10] << 24; /* fall through */
	case 10: c += (unsigned)k[9] << 16; /* fall through */
	case 9: c += (unsigned)k[8] << 8; /* fall through */
	case 8: b += (unsigned)k[7] << 24; /* fall through */
	case 7: b += (unsigned)k[6] << 16; /* fall through */
	case 6: b += (unsigned)k[5] << 8; /* fall through */
	case 5: b += k[4]; /* fall through */
	case 4: a += (unsigned)k[3] << 24; /* fall through */
	case 3: a += (unsigned)k[2] << 16; /* fall through */
	case 2: a += (unsigned)k[1] << 8; /* fall through */
	case 1: a += k[0];
	}
	mix(a, b, c);
	return c;
}
