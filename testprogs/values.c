//go:build ignore

/*
 * values.c - known values in known places, for the sampler's tests (issue 3,
 * "Values" and "Stacks"). Not a bug reproduction: it takes no mode argument
 * (`values` or `values run`; anything else is a usage error, exit 2).
 *
 * It runs these phases one after the other, each a busy loop of roughly 0.2-0.4 s,
 * and prints the loop bound N and one deterministic checksum line. A comment
 * "MARK: name" sits on each line named "(marker name)" below, so that tests can find
 * the line numbers by searching this file for "MARK: name".
 *
 *  phase 1  phase_busy(): g_phase == 42 for the whole phase (set before the loop,
 *           read in every iteration: marker phase-read). The loop index `i` of
 *           phase_busy ranges over 0..N-1 with N = N_ITER (printed as "N=...");
 *           `acc` is an accumulator.
 *  phase 2  the same function with g_phase == 7.
 *  phase 3  types(): for the whole phase
 *             g_target == 1234, g_ptr == &g_target (*g_ptr == 1234: a pointer to int),
 *             g_ratio == 2.5 (a double), g_color == COLOR_GREEN == 2 (an enum),
 *             local `stack_var` == 77 (volatile, lives on the stack),
 *             local `color` == COLOR_BLUE == 3 (an enum parameter of types()),
 *             `k` in the loop of types() ranges over 0..N_TYPES-1 (a register),
 *             `sq` inside the always-inlined square_mod() (marker inlined) is
 *             (k % 100) * (k % 100) for the current k.
 *  phase 4  sort_phase(): qsort() from libc calls the comparator cmp_ints()
 *           (marker qsort-callback) back, so stacks read
 *           cmp_ints <- (libc msort/qsort frames) <- sort_phase <- main.
 *           g_sort_round counts the rounds 0..N_SORT_ROUNDS-1.
 *  phase 5  plt_phase(): calls memcmp() through the PLT in a loop (marker plt-call);
 *           stacks read (libc memcmp) <- plt_phase <- main.
 *  phase 6  chain_a(111) -> chain_b(222) -> chain_c(333): chain_c spins
 *           (marker chain-spin) while its caller frames hold a_val == 111 in chain_a,
 *           b_val == 222 in chain_b, and c_val == 333 in chain_c; the depths are
 *           chain_c 0, chain_b 1, chain_a 2, main 3. The three functions are noipa
 *           (never inlined, cloned or given interprocedural register allocation)
 *           and use their values after the call, so the values stay live in
 *           callee-saved registers or the stack of the caller frames.
 *
 * g_phase is 0 before phase 1 and after phase 2 it stays 7.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_ITER 250000000L
#define N_TYPES 200000000L
#define N_SORT_ROUNDS 150
#define SORT_LEN 20000
#define N_PLT 3000000
#define N_CHAIN 250000000L

enum color { COLOR_RED = 1, COLOR_GREEN = 2, COLOR_BLUE = 3 };

volatile int g_phase;                 /* 42 in phase 1, 7 in phase 2 */
int g_target = 1234;
int *g_ptr = &g_target;
double g_ratio = 2.5;
enum color g_color = COLOR_GREEN;
int g_sort_round;
uint64_t g_sink;
/* Read at run time so that gcc cannot propagate the constants into clones. */
volatile long g_n_iter = N_ITER;
volatile int g_chain_start = 111;
volatile int g_color_arg = COLOR_BLUE;

__attribute__((noinline)) static uint64_t phase_busy(long n)
{
	uint64_t acc = 0;
	for (long i = 0; i < n; i++) {
		acc = acc * 6364136223846793005ull + (uint64_t)g_phase + (uint64_t)i; /* MARK: phase-read */
	}
	return acc;
}

static inline __attribute__((always_inline)) long square_mod(long v)
{
	long sq = (v % 100) * (v % 100);      /* MARK: inlined */
	return sq;
}

__attribute__((noinline)) static uint64_t types(enum color color)
{
	volatile int stack_var = 77;
	uint64_t acc = 0;
	for (long k = 0; k < N_TYPES; k++) {
		acc += (uint64_t)square_mod(k) + (uint64_t)*g_ptr + (uint64_t)(g_ratio * 2) + (uint64_t)g_color
		       + (uint64_t)color + (uint64_t)stack_var;
	}
	return acc;
}

static int cmp_ints(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;   /* MARK: qsort-callback */
	return (x > y) - (x < y);
}

__attribute__((noinline)) static uint64_t sort_phase(void)
{
	int *v = malloc(sizeof(int) * SORT_LEN);
	if (!v) { perror("malloc"); exit(1); }
	uint64_t acc = 0;
	uint32_t s = 1;
	for (g_sort_round = 0; g_sort_round < N_SORT_ROUNDS; g_sort_round++) {
		for (int i = 0; i < SORT_LEN; i++) {
			s = s * 1103515245u + 12345u;
			v[i] = (int)(s >> 8);
		}
		qsort(v, SORT_LEN, sizeof(int), cmp_ints);
		acc = acc * 31 + (uint64_t)v[SORT_LEN / 2];
	}
	g_sort_round = N_SORT_ROUNDS - 1;
	free(v);
	return acc;
}

__attribute__((noinline)) static uint64_t plt_phase(void)
{
	static char a[8192], b[8192];
	for (int i = 0; i < 8192; i++)
		a[i] = b[i] = (char)(i * 7);
	uint64_t acc = 0;
	for (int i = 0; i < N_PLT; i++) {
		b[8191] = (char)i;
		acc += (uint64_t)(memcmp(a, b, sizeof a) != 0);   /* MARK: plt-call */
	}
	return acc;
}

__attribute__((noipa)) static uint64_t chain_c(int c_val)
{
	uint64_t acc = 0;
	for (long j = 0; j < N_CHAIN; j++)
		acc = acc * 2862933555777941757ull + (uint64_t)c_val;   /* MARK: chain-spin */
	return acc + (uint64_t)c_val;
}

__attribute__((noipa)) static uint64_t chain_b(int b_val)
{
	uint64_t r = chain_c(b_val + 111);
	return r ^ (uint64_t)b_val;
}

__attribute__((noipa)) static uint64_t chain_a(int a_val)
{
	uint64_t r = chain_b(a_val * 2);
	return r + (uint64_t)a_val;
}

int main(int argc, char **argv)
{
	if (argc > 2 || (argc == 2 && strcmp(argv[1], "run") != 0)) {
		fprintf(stderr, "usage: %s [run]\n  Runs phases with known variable values (see values.c).\n", argv[0]);
		return 2;
	}
	uint64_t sum = 0;
	g_phase = 42;
	sum ^= phase_busy(g_n_iter);
	g_phase = 7;
	sum = sum * 31 + phase_busy(g_n_iter);
	sum = sum * 31 + types((enum color)g_color_arg);
	sum = sum * 31 + sort_phase();
	sum = sum * 31 + plt_phase();
	sum = sum * 31 + chain_a(g_chain_start);
	g_sink = sum;
	printf("values: N=%ld checksum=%016llx\n", N_ITER, (unsigned long long)sum);
	return 0;
}
