/*
 * var_range (Postgres-17330): nbtcompare.c
 * The int8 comparator (access/nbtree/nbtcompare.c).
 */
#include "postgres.h"

int btint8fastcmp(Datum a, Datum b)
{
	return a < b ? -1 : a > b;
}
