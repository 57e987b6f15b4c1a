//go:build ignore

/*
 * soak.c - the recorder's soak test (issue 6): 1,000 short-lived threads,
 * created and joined a few at a time, and 20 forked children, each doing a
 * little work. It checks itself: every thread's result and every child's
 * exit status must be what it computed, else it exits 1. It prints one
 * deterministic line and exits with status 3, so a test can see that a
 * profiler passes the target's exit status through.
 *
 * Usage: soak (no arguments)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define THREADS 1000
#define BATCH 8
#define CHILDREN 20

static uint64_t mix(uint64_t x, long rounds) {
	for (long i = 0; i < rounds; i++) {
		x ^= x >> 33;
		x *= 0xff51afd7ed558ccdULL;
		x ^= x >> 29;
	}
	return x;
}

static void *worker(void *arg) {
	uintptr_t id = (uintptr_t)arg;
	return (void *)(uintptr_t)(mix(id + 1, 20000 + (long)(id % 7) * 3000) & 0xffff);
}

int main(int argc, char **argv) {
	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: soak (no arguments)\n");
		return 2;
	}
	uint64_t sum = 0;
	for (int base = 0; base < THREADS; base += BATCH) {
		pthread_t t[BATCH];
		for (int k = 0; k < BATCH; k++)
			if (pthread_create(&t[k], NULL, worker, (void *)(uintptr_t)(base + k)) != 0) {
				perror("pthread_create");
				return 1;
			}
		for (int k = 0; k < BATCH; k++) {
			void *r;
			pthread_join(t[k], &r);
			uintptr_t want = (uintptr_t)worker((void *)(uintptr_t)(base + k));
			if ((uintptr_t)r != want) {
				fprintf(stderr, "soak: thread %d returned %lu, want %lu\n", base + k, (unsigned long)(uintptr_t)r, (unsigned long)want);
				return 1;
			}
			sum = sum * 31 + (uintptr_t)r;
		}
	}
	for (int c = 0; c < CHILDREN; c++) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0)
			_exit((int)(mix((uint64_t)c + 7, 200000) % 200) + 10);
		int st;
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != (int)(mix((uint64_t)c + 7, 200000) % 200) + 10) {
			fprintf(stderr, "soak: child %d: bad wait status %#x\n", c, st);
			return 1;
		}
		sum = sum * 31 + (uint64_t)WEXITSTATUS(st);
	}
	printf("soak: %d threads, %d children, checksum=%016llx\n", THREADS, CHILDREN, (unsigned long long)sum);
	return 3;
}
