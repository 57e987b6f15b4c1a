/* selfsnap: writes a snapshot of its own registers, stack and
 * /proc/self/maps from inside a qsort comparator called by libc, so that
 * the unwinder can be tested on a real -O2 stack without ptrace.
 * Output (argv[1]): "REGS rip rsp rbp rbx r12 r13 r14 r15\n", then the
 * maps text, then "STACK <addr> <len>\n" and the raw stack bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *outpath;
static int snapped;

__attribute__((noinline)) static void snap(void) {
	unsigned long r[8];
	__asm__ volatile(
		"lea 0(%%rip), %%rax\n\t"
		"mov %%rax, 0(%0)\n\t"
		"mov %%rsp, 8(%0)\n\t"
		"mov %%rbp, 16(%0)\n\t"
		"mov %%rbx, 24(%0)\n\t"
		"mov %%r12, 32(%0)\n\t"
		"mov %%r13, 40(%0)\n\t"
		"mov %%r14, 48(%0)\n\t"
		"mov %%r15, 56(%0)\n\t"
		: : "r"(r) : "rax", "memory");
	FILE *f = fopen(outpath, "w");
	if (!f) exit(3);
	fprintf(f, "REGS %lx %lx %lx %lx %lx %lx %lx %lx\n", r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
	unsigned long lo = 0, hi = 0;
	FILE *m = fopen("/proc/self/maps", "r");
	char line[512];
	while (m && fgets(line, sizeof line, m)) {
		fputs(line, f);
		if (strstr(line, "[stack]")) sscanf(line, "%lx-%lx", &lo, &hi);
	}
	if (m) fclose(m);
	unsigned long from = r[1] - 128; /* the red zone too */
	fprintf(f, "STACK %lx %lx\n", from, hi - from);
	fwrite((void *)from, 1, hi - from, f);
	fclose(f);
}

static int cmp(const void *a, const void *b) {
	int x = *(const int *)a, y = *(const int *)b;
	if (!snapped && x + y == 7) {
		snapped = 1;
		snap();
	}
	return (x > y) - (x < y);
}

__attribute__((noinline)) int level2(int n) {
	int *v = malloc(n * sizeof *v);
	for (int i = 0; i < n; i++) v[i] = (i * 7919) % n;
	qsort(v, n, sizeof *v, cmp);
	int s = v[n / 2];
	free(v);
	return s;
}

__attribute__((noinline)) int level1(int n) {
	int s = level2(n + 1);
	return s * 3 + n;
}

int main(int argc, char **argv) {
	if (argc < 2) return 2;
	outpath = argv[1];
	int s = level1(atoi(argc > 2 ? argv[2] : "100"));
	printf("%d\n", s);
	return 0;
}
