/*
 * dict_status (MDEV-17933): ut0ut.cpp
 * Utilities (storage/innobase/ut/ut0ut.cc).
 */
#include "dict_status.h"

namespace innodb {

/* Spin-wait delay, with PAUSE (never inlined into callers there). */
__attribute__((noinline)) ulint ut_delay(ulint delay)
{
	ulint j = 0;
	for (ulint i = 0; i < delay * 50; i++) {
		__builtin_ia32_pause();
		j += i;
	}
	return j;
}

}  // namespace innodb
