/* A small multi-threaded program for `make xray-demo` and the XRay test of
 * analyze/timeline: workers hash keys in a tight loop (RegTime compresses
 * it) and one of them sleeps on a lock while holding it, so the others
 * wait: the kind of outlier a timeline shows. Built with clang
 * -fxray-instrument; every function is instrumented. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long hash_key(unsigned long k) {
	for (int i = 0; i < 40; i++)
		k = k * 6364136223846793005UL + 1442695040888963407UL;
	return k;
}

__attribute__((noinline)) static void lookup(unsigned long k) { sink += hash_key(k) & 0xff; }

__attribute__((noinline)) static void update(unsigned long k) {
	pthread_mutex_lock(&lock);
	sink ^= hash_key(k);
	pthread_mutex_unlock(&lock);
}

__attribute__((noinline)) static void compact(void) {
	pthread_mutex_lock(&lock);
	usleep(20000); /* holds the lock: updates stall */
	pthread_mutex_unlock(&lock);
}

static void *worker(void *arg) {
	long id = (long)arg;
	for (unsigned long i = 0; i < 3000; i++) {
		lookup(i * 31 + id);
		if (i % 50 == 0)
			update(i);
		if (id == 0 && i == 1500)
			compact();
	}
	return NULL;
}

int main(void) {
	pthread_t t[3];
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("%lu\n", sink);
	return 0;
}
