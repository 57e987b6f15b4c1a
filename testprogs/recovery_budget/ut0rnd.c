/*
 * recovery_budget (MDEV-21826): ut0rnd.c
 * The random number generator's state (storage/innobase/ut/ut0rnd.cc).
 */
#include "recovery_budget.h"

uint64_t rng_state = 0x2545f4914f6cdd1dull;
