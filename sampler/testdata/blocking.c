/* blocking: a thread blocks ITERS times in one kind of system call, called
 * from blocked_loop(), whose loop counter i lives in a callee-saved register
 * across the call; a partner thread supplies the wake-ups a few
 * milliseconds later. The program checks every call's result itself, as a
 * program run without a tracer would find it:
 *
 *   exit 0  every call returned what it should
 *   exit 3  watchdog: a call never returned (a lost wake-up)
 *   exit 4  a call failed with EINTR
 *   exit 5  a sleep or a timeout ended early
 *   exit 6  a wrong result (short read or write, wrong status, a timeout
 *           where a wake-up was due, a spurious return)
 *
 * Usage: blocking MODE [ITERS] (see the modes table at the end). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define STEP_MS 4    /* the partner's delay before each wake-up */
#define EXPIRE_MS 6  /* timeouts that are meant to expire */
#define LONG_S 20    /* timeouts that are not */

static const char *mode_name;
static long iters = 40;
static pthread_t blocked_thread;
static _Atomic int blocked_tid;
static _Atomic long last = -1;  /* the last iteration the blocked thread finished */
static _Atomic int got_signal;  /* SIGUSR1 handler runs */

static void fail(int code, long i, const char *what, long ret, int err) {
	fprintf(stderr, "blocking %s: iteration %ld: %s (returned %ld, errno %d %s)\n",
		mode_name, i, what, ret, err, strerror(err));
	fflush(stderr);
	_exit(code);
}

static void on_alarm(int s) {
	(void)s;
	static const char msg[] = "blocking: watchdog: a call never returned\n";
	write(2, msg, sizeof msg - 1);
	_exit(3);
}

static void on_usr1(int s) {
	(void)s;
	got_signal++;
}

static long now_ns(clockid_t c) {
	struct timespec ts;
	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static struct timespec after_ns(clockid_t c, long ns) {
	long t = now_ns(c) + ns;
	struct timespec ts = {t / 1000000000L, t % 1000000000L};
	return ts;
}

static void sleep_ms(long ms) {
	struct timespec ts = {0, ms * 1000000L};
	while (nanosleep(&ts, &ts) != 0)
		;
}

/* wait_turn waits until the blocked thread has finished iteration i-1 and
 * is in its next call (its /proc syscall line is not "running"), then
 * STEP_MS more: the wake-up comes to a thread that has blocked. */
static void wait_turn(long i) {
	while (last < i - 1)
		sleep_ms(1);
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/self/task/%d/syscall", blocked_tid);
	for (int k = 0; k < 200; k++) {
		int fd = open(path, O_RDONLY);
		ssize_t n = fd >= 0 ? read(fd, line, sizeof line - 1) : -1;
		if (fd >= 0)
			close(fd);
		if (n > 0 && strncmp(line, "running", 7) != 0)
			break;
		sleep_ms(1);
	}
	sleep_ms(STEP_MS);
}

/* ---- the blocking calls: op_MODE(i) returns when the call is done ---- */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static _Atomic long ready = -1;
static sem_t sem;
static _Atomic int fword;
static int pfd[2], sfd[2], epfd, ptm, pts;
static char buf[1 << 16];

static void check_sleep(long i, clockid_t c, long t0, long ns) {
	long d = now_ns(c) - t0;
	if (d < ns)
		fail(5, i, "woke early", d, 0);
}

static void op_mutex(long i) {
	while (ready < i)
		sleep_ms(1);
	int e = pthread_mutex_lock(&mu);
	if (e)
		fail(6, i, "pthread_mutex_lock", e, e);
	pthread_mutex_unlock(&mu);
}

static void op_mutex_timed(long i) {
	while (ready < i)
		sleep_ms(1);
	struct timespec dl = after_ns(CLOCK_REALTIME, LONG_S * 1000000000L);
	int e = pthread_mutex_timedlock(&mu, &dl);
	if (e)
		fail(e == EINTR ? 4 : 6, i, "pthread_mutex_timedlock", e, e);
	pthread_mutex_unlock(&mu);
}

/* partner of the mutex modes: holds the mutex while the blocked thread
 * tries to take it. */
static void hold_mutex(long i) {
	pthread_mutex_lock(&mu);
	ready = i;
	wait_turn(i);
	pthread_mutex_unlock(&mu);
	while (last < i)
		sleep_ms(1);
}

static void cond_wait_common(long i, int timed) {
	pthread_mutex_lock(&mu);
	while (ready < i) {
		int e;
		if (timed) {
			struct timespec dl = after_ns(CLOCK_REALTIME, LONG_S * 1000000000L);
			e = pthread_cond_timedwait(&cv, &mu, &dl);
		} else {
			e = pthread_cond_wait(&cv, &mu);
		}
		if (e)
			fail(e == EINTR ? 4 : 6, i, "pthread_cond_wait", e, e);
	}
	pthread_mutex_unlock(&mu);
}
static void op_cond(long i) { cond_wait_common(i, 0); }
static void op_cond_timed(long i) { cond_wait_common(i, 1); }
static void post_cond(long i) {
	wait_turn(i);
	pthread_mutex_lock(&mu);
	ready = i;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
}

static void *joinee(void *a) {
	sleep_ms(STEP_MS);
	return a;
}
static void op_join(long i) {
	pthread_t t;
	void *r;
	if (pthread_create(&t, NULL, joinee, (void *)(i + 1)))
		fail(2, i, "pthread_create", -1, errno);
	int e = pthread_join(t, &r);
	if (e || r != (void *)(i + 1))
		fail(6, i, "pthread_join", e, e);
}

static void op_sem(long i) {
	if (sem_wait(&sem))
		fail(errno == EINTR ? 4 : 6, i, "sem_wait", -1, errno);
}
static void op_sem_timed(long i) {
	struct timespec dl = after_ns(CLOCK_REALTIME, LONG_S * 1000000000L);
	if (sem_timedwait(&sem, &dl))
		fail(errno == EINTR ? 4 : 6, i, "sem_timedwait", -1, errno);
}
static void post_sem(long i) {
	wait_turn(i);
	sem_post(&sem);
}

/* raw futex: wait while fword is 0; EAGAIN (the word changed first) is a
 * normal outcome, EINTR never is. */
static void futex_common(long i, int how) {
	while (fword == 0) {
		long r;
		struct timespec rel = {LONG_S, 0};
		struct timespec abs = after_ns(CLOCK_MONOTONIC, LONG_S * 1000000000L);
		switch (how) {
		case 0:
			r = syscall(SYS_futex, &fword, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
			break;
		case 1:
			r = syscall(SYS_futex, &fword, FUTEX_WAIT_PRIVATE, 0, &rel, NULL, 0);
			break;
		default:
			r = syscall(SYS_futex, &fword, FUTEX_WAIT_BITSET_PRIVATE, 0, &abs, NULL, FUTEX_BITSET_MATCH_ANY);
			break;
		}
		if (r != 0 && errno != EAGAIN)
			fail(errno == EINTR ? 4 : 6, i, "futex wait", r, errno);
	}
	fword = 0;
}
static void op_futex(long i) { futex_common(i, 0); }
static void op_futex_timed(long i) { futex_common(i, 1); }
static void op_futex_abs(long i) { futex_common(i, 2); }
static void wake_futex(long i) {
	wait_turn(i);
	fword = 1;
	syscall(SYS_futex, &fword, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
/* a futex wait whose timeout expires: ETIMEDOUT, not before its time */
static void op_futex_expire(long i) {
	struct timespec rel = {0, EXPIRE_MS * 1000000L};
	long t0 = now_ns(CLOCK_MONOTONIC);
	long r = syscall(SYS_futex, &fword, FUTEX_WAIT_PRIVATE, 0, &rel, NULL, 0);
	if (r != -1 || errno != ETIMEDOUT)
		fail(errno == EINTR ? 4 : 6, i, "futex wait with timeout: want ETIMEDOUT", r, errno);
	check_sleep(i, CLOCK_MONOTONIC, t0, EXPIRE_MS * 1000000L);
}

static void op_nanosleep(long i) {
	struct timespec ts = {0, EXPIRE_MS * 1000000L}, rem = {0, 0};
	long t0 = now_ns(CLOCK_MONOTONIC);
	int r = nanosleep(&ts, &rem);
	if (r)
		fail(errno == EINTR ? 4 : 6, i, "nanosleep", r, errno);
	check_sleep(i, CLOCK_MONOTONIC, t0, EXPIRE_MS * 1000000L);
}
static void op_nanosleep_null(long i) {
	struct timespec ts = {0, EXPIRE_MS * 1000000L};
	long t0 = now_ns(CLOCK_MONOTONIC);
	int r = nanosleep(&ts, NULL);
	if (r)
		fail(errno == EINTR ? 4 : 6, i, "nanosleep", r, errno);
	check_sleep(i, CLOCK_MONOTONIC, t0, EXPIRE_MS * 1000000L);
}
static void op_clock_rel(long i) {
	struct timespec ts = {0, EXPIRE_MS * 1000000L}, rem;
	long t0 = now_ns(CLOCK_MONOTONIC);
	int e = clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &rem);
	if (e)
		fail(e == EINTR ? 4 : 6, i, "clock_nanosleep", e, e);
	check_sleep(i, CLOCK_MONOTONIC, t0, EXPIRE_MS * 1000000L);
}
static void clock_abs(long i, clockid_t c) {
	long t0 = now_ns(c);
	struct timespec dl = after_ns(c, EXPIRE_MS * 1000000L);
	int e = clock_nanosleep(c, TIMER_ABSTIME, &dl, NULL);
	if (e)
		fail(e == EINTR ? 4 : 6, i, "clock_nanosleep TIMER_ABSTIME", e, e);
	check_sleep(i, c, t0, EXPIRE_MS * 1000000L);
}
static void op_clock_abs(long i) { clock_abs(i, CLOCK_MONOTONIC); }
static void op_clock_abs_realtime(long i) { clock_abs(i, CLOCK_REALTIME); }

static void child_exit(long i) {
	sleep_ms(STEP_MS);
	_exit((int)(i & 0x7f));
}
static void op_wait4(long i) {
	pid_t c = fork();
	if (c == 0)
		child_exit(i);
	int st;
	pid_t r = waitpid(c, &st, 0);
	if (r != c || !WIFEXITED(st) || WEXITSTATUS(st) != (i & 0x7f))
		fail(errno == EINTR ? 4 : 6, i, "waitpid", r, errno);
}
static void op_waitid(long i) {
	pid_t c = fork();
	if (c == 0)
		child_exit(i);
	siginfo_t si;
	memset(&si, 0, sizeof si);
	int r = waitid(P_PID, c, &si, WEXITED);
	if (r || si.si_pid != c || si.si_status != (i & 0x7f))
		fail(errno == EINTR ? 4 : 6, i, "waitid", r, errno);
}

/* pause and sigsuspend return (EINTR) once SIGUSR1's handler has run, and
 * only then. */
static void op_pause(long i) {
	int before = got_signal;
	int r = pause();
	if (r != -1 || errno != EINTR || got_signal != before + 1)
		fail(6, i, "pause returned without its signal", r, errno);
}
static void op_sigsuspend(long i) {
	sigset_t none;
	sigemptyset(&none);
	int r = sigsuspend(&none);
	if (r != -1 || errno != EINTR || got_signal != i + 1)
		fail(6, i, "sigsuspend returned without its signal", r, errno);
}
static void kill_blocked(long i) {
	wait_turn(i);
	pthread_kill(blocked_thread, SIGUSR1);
}

static void want_readable(long i, int r, const char *what) {
	if (r != 1)
		fail(r < 0 && errno == EINTR ? 4 : 6, i, what, r, errno);
	char c;
	if (read(pfd[0], &c, 1) != 1 || c != (char)i)
		fail(6, i, "read after readiness", -1, errno);
}
static void want_timeout(long i, int r, long t0, const char *what) {
	if (r != 0)
		fail(r < 0 && errno == EINTR ? 4 : 6, i, what, r, errno);
	check_sleep(i, CLOCK_MONOTONIC, t0, EXPIRE_MS * 1000000L);
}
static void op_poll(long i) {
	struct pollfd p = {pfd[0], POLLIN, 0};
	want_readable(i, poll(&p, 1, -1), "poll");
}
static void op_poll_timed(long i) {
	struct pollfd p = {pfd[0], POLLIN, 0};
	want_readable(i, poll(&p, 1, LONG_S * 1000), "poll with timeout");
}
static void op_poll_expire(long i) {
	struct pollfd p = {pfd[0], POLLIN, 0};
	long t0 = now_ns(CLOCK_MONOTONIC);
	want_timeout(i, poll(&p, 1, EXPIRE_MS), t0, "poll timeout");
}
static void op_ppoll(long i) {
	struct pollfd p = {pfd[0], POLLIN, 0};
	want_readable(i, ppoll(&p, 1, NULL, NULL), "ppoll");
}
static void op_ppoll_timed(long i) {
	struct pollfd p = {pfd[0], POLLIN, 0};
	struct timespec ts = {LONG_S, 0};
	want_readable(i, ppoll(&p, 1, &ts, NULL), "ppoll with timeout");
}
static void op_ppoll_expire(long i) {
	struct pollfd p = {pfd[0], POLLIN, 0};
	struct timespec ts = {0, EXPIRE_MS * 1000000L};
	long t0 = now_ns(CLOCK_MONOTONIC);
	want_timeout(i, ppoll(&p, 1, &ts, NULL), t0, "ppoll timeout");
}
static int do_select(int sys, long us) {
	fd_set rd;
	FD_ZERO(&rd);
	FD_SET(pfd[0], &rd);
	struct timeval tv = {us / 1000000, us % 1000000};
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
	switch (sys) {
	case 0: /* glibc's select (pselect6 with a copy of the timeout) */
		return select(pfd[0] + 1, &rd, NULL, NULL, us < 0 ? NULL : &tv);
	case 1: /* the select system call itself, timeout on the stack */
		return syscall(SYS_select, pfd[0] + 1, &rd, NULL, NULL, us < 0 ? NULL : &tv);
	default:
		return pselect(pfd[0] + 1, &rd, NULL, NULL, us < 0 ? NULL : &ts, NULL);
	}
}
static void op_select(long i) { want_readable(i, do_select(0, -1), "select"); }
static void op_select_timed(long i) { want_readable(i, do_select(0, LONG_S * 1000000L), "select with timeout"); }
static void op_select_expire(long i) {
	long t0 = now_ns(CLOCK_MONOTONIC);
	want_timeout(i, do_select(0, EXPIRE_MS * 1000L), t0, "select timeout");
}
static void op_sys_select(long i) { want_readable(i, do_select(1, LONG_S * 1000000L), "select system call with timeout"); }
static void op_sys_select_expire(long i) {
	long t0 = now_ns(CLOCK_MONOTONIC);
	want_timeout(i, do_select(1, EXPIRE_MS * 1000L), t0, "select system call timeout");
}
static void op_pselect(long i) { want_readable(i, do_select(2, -1), "pselect"); }
static void op_pselect_timed(long i) { want_readable(i, do_select(2, LONG_S * 1000000L), "pselect with timeout"); }
static void op_pselect_expire(long i) {
	long t0 = now_ns(CLOCK_MONOTONIC);
	want_timeout(i, do_select(2, EXPIRE_MS * 1000L), t0, "pselect timeout");
}
static void write_byte(long i) {
	wait_turn(i);
	char c = (char)i;
	write(pfd[1], &c, 1);
}

/* pipes: a 64-byte message read whole; 4096-byte writes into a full pipe */
static void op_pipe_read(long i) {
	ssize_t r = read(pfd[0], buf, 64);
	if (r != 64 || buf[0] != (char)i || buf[63] != (char)i)
		fail(r < 0 && errno == EINTR ? 4 : 6, i, "read from pipe", r, errno);
}
static void write_msg(long i) {
	wait_turn(i);
	char m[64];
	memset(m, (char)i, sizeof m);
	write(pfd[1], m, sizeof m);
}
static void fill_pipe(void) {
	fcntl(pfd[1], F_SETFL, O_NONBLOCK);
	while (write(pfd[1], buf, 4096) == 4096)
		;
	fcntl(pfd[1], F_SETFL, 0);
}
static void write_full(long i, size_t n) {
	ssize_t r = write(pfd[1], buf, n);
	if (r != (ssize_t)n)
		fail(r < 0 && errno == EINTR ? 4 : 6, i, "write to a full pipe", r, errno);
}
static void op_pipe_write(long i) { write_full(i, 4096); }
static void op_pipe_write_big(long i) { write_full(i, sizeof buf); }
static void drain_page(long i) {
	static char d[4096];
	wait_turn(i);
	size_t left = 4096;
	while (left > 0) {
		ssize_t r = read(pfd[0], d, left);
		if (r <= 0)
			fail(2, i, "partner read", r, errno);
		left -= r;
	}
}
static void drain_big(long i) {
	static char d[sizeof buf];
	wait_turn(i);
	/* let the blocked write move its data a page at a time */
	size_t left = sizeof buf;
	while (left > 0) {
		ssize_t r = read(pfd[0], d, left < 4096 ? left : 4096);
		if (r <= 0)
			fail(2, i, "partner read", r, errno);
		left -= r;
		sleep_ms(1);
	}
}

/* terminals: a pseudo-terminal's slave side, read by the blocked thread */
static void open_pty(int canon, int vmin) {
	ptm = posix_openpt(O_RDWR | O_NOCTTY);
	if (ptm < 0 || grantpt(ptm) || unlockpt(ptm))
		fail(2, 0, "posix_openpt", ptm, errno);
	pts = open(ptsname(ptm), O_RDWR | O_NOCTTY);
	if (pts < 0)
		fail(2, 0, "open pty slave", pts, errno);
	struct termios tio;
	tcgetattr(pts, &tio);
	if (!canon) {
		cfmakeraw(&tio);
		tio.c_cc[VMIN] = vmin;
		tio.c_cc[VTIME] = 0;
	}
	tio.c_lflag &= ~ECHO;
	tcsetattr(pts, TCSANOW, &tio);
}
static void op_tty_read(long i) {
	char line[64];
	int n = snprintf(line, sizeof line, "line %ld\n", i);
	ssize_t r = read(pts, buf, sizeof buf);
	if (r != n || memcmp(buf, line, n) != 0)
		fail(r < 0 && errno == EINTR ? 4 : 6, i, "read a line from a terminal", r, errno);
}
static void write_line(long i) {
	char line[64];
	int n = snprintf(line, sizeof line, "line %ld\n", i);
	wait_turn(i);
	write(ptm, line, n);
}
/* raw mode, VMIN 1: a read returns what has arrived */
static void op_tty_raw(long i) {
	for (ssize_t got = 0; got < 8;) {
		ssize_t r = read(pts, buf, sizeof buf);
		if (r <= 0 || got + r > 8 || buf[0] != (char)i)
			fail(r < 0 && errno == EINTR ? 4 : 6, i, "raw read from a terminal", r, errno);
		got += r;
	}
}
static void write_8(long i) {
	char m[8];
	memset(m, (char)i, sizeof m);
	wait_turn(i);
	write(ptm, m, sizeof m);
}
/* raw mode, VMIN 4: the read waits for 4 bytes that come in two halves;
 * a read interrupted after the first half would return 2. */
static void op_tty_vmin(long i) {
	ssize_t r = read(pts, buf, sizeof buf);
	if (r != 4 || buf[0] != (char)i || buf[3] != (char)i)
		fail(r < 0 && errno == EINTR ? 4 : 6, i, "VMIN 4 read from a terminal", r, errno);
}
static void write_halves(long i) {
	char m[2];
	memset(m, (char)i, sizeof m);
	wait_turn(i);
	write(ptm, m, 2);
	sleep_ms(3 * STEP_MS);
	write(ptm, m, 2);
}

/* never interrupted: epoll_wait and a socket with SO_RCVTIMEO fail with
 * EINTR after a stop (signal(7)); so does sigtimedwait. */
static void op_epoll(long i) {
	struct epoll_event ev;
	int r = epoll_wait(epfd, &ev, 1, -1);
	want_readable(i, r, "epoll_wait");
}
static void op_epoll_timed(long i) {
	struct epoll_event ev;
	int r = epoll_wait(epfd, &ev, 1, LONG_S * 1000);
	want_readable(i, r, "epoll_wait with timeout");
}
static void op_epoll_expire(long i) {
	struct epoll_event ev;
	long t0 = now_ns(CLOCK_MONOTONIC);
	want_timeout(i, epoll_wait(epfd, &ev, 1, EXPIRE_MS), t0, "epoll_wait timeout");
}
static void op_recv_timeo(long i) {
	ssize_t r = recv(sfd[0], buf, 64, 0);
	if (r != 64 || buf[0] != (char)i)
		fail(r < 0 && errno == EINTR ? 4 : 6, i, "recv with SO_RCVTIMEO", r, errno);
}
static void send_msg(long i) {
	char m[64];
	memset(m, (char)i, sizeof m);
	wait_turn(i);
	send(sfd[1], m, sizeof m, 0);
}
static void op_sigtimedwait(long i) {
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR2);
	struct timespec ts = {LONG_S, 0};
	int r = sigtimedwait(&s, NULL, &ts);
	if (r != SIGUSR2)
		fail(r < 0 && errno == EINTR ? 4 : 6, i, "sigtimedwait", r, errno);
}
static void kill_usr2(long i) {
	wait_turn(i);
	pthread_kill(blocked_thread, SIGUSR2);
}

static void none(long i) { (void)i; }

struct mode {
	const char *name;
	void (*op)(long);      /* the blocked thread's call */
	void (*partner)(long); /* the partner's part of iteration i */
	int setup;
};
enum { S_NONE, S_PIPE, S_FULLPIPE, S_PTY, S_RAW1, S_RAW4, S_EPOLL, S_SOCK, S_SEM, S_SIGS };

static const struct mode modes[] = {
	{"mutex", op_mutex, hold_mutex, S_NONE},
	{"mutex-timed", op_mutex_timed, hold_mutex, S_NONE},
	{"cond", op_cond, post_cond, S_NONE},
	{"cond-timed", op_cond_timed, post_cond, S_NONE},
	{"join", op_join, none, S_NONE},
	{"sem", op_sem, post_sem, S_SEM},
	{"sem-timed", op_sem_timed, post_sem, S_SEM},
	{"futex", op_futex, wake_futex, S_NONE},
	{"futex-timed", op_futex_timed, wake_futex, S_NONE},
	{"futex-abs", op_futex_abs, wake_futex, S_NONE},
	{"futex-expire", op_futex_expire, none, S_NONE},
	{"nanosleep", op_nanosleep, none, S_NONE},
	{"nanosleep-null", op_nanosleep_null, none, S_NONE},
	{"clock-rel", op_clock_rel, none, S_NONE},
	{"clock-abs", op_clock_abs, none, S_NONE},
	{"clock-abs-realtime", op_clock_abs_realtime, none, S_NONE},
	{"wait4", op_wait4, none, S_NONE},
	{"waitid", op_waitid, none, S_NONE},
	{"pause", op_pause, kill_blocked, S_SIGS},
	{"sigsuspend", op_sigsuspend, kill_blocked, S_SIGS},
	{"poll", op_poll, write_byte, S_PIPE},
	{"poll-timed", op_poll_timed, write_byte, S_PIPE},
	{"poll-expire", op_poll_expire, none, S_PIPE},
	{"ppoll", op_ppoll, write_byte, S_PIPE},
	{"ppoll-timed", op_ppoll_timed, write_byte, S_PIPE},
	{"ppoll-expire", op_ppoll_expire, none, S_PIPE},
	{"select", op_select, write_byte, S_PIPE},
	{"select-timed", op_select_timed, write_byte, S_PIPE},
	{"select-expire", op_select_expire, none, S_PIPE},
	{"sys-select", op_sys_select, write_byte, S_PIPE},
	{"sys-select-expire", op_sys_select_expire, none, S_PIPE},
	{"pselect", op_pselect, write_byte, S_PIPE},
	{"pselect-timed", op_pselect_timed, write_byte, S_PIPE},
	{"pselect-expire", op_pselect_expire, none, S_PIPE},
	{"pipe-read", op_pipe_read, write_msg, S_PIPE},
	{"pipe-write", op_pipe_write, drain_page, S_FULLPIPE},
	{"tty-read", op_tty_read, write_line, S_PTY},
	{"tty-raw", op_tty_raw, write_8, S_RAW1},
	/* not interrupted by vprof */
	{"pipe-write-big", op_pipe_write_big, drain_big, S_FULLPIPE},
	{"tty-vmin", op_tty_vmin, write_halves, S_RAW4},
	{"epoll", op_epoll, write_byte, S_EPOLL},
	{"epoll-timed", op_epoll_timed, write_byte, S_EPOLL},
	{"epoll-expire", op_epoll_expire, none, S_EPOLL},
	{"recv-timeo", op_recv_timeo, send_msg, S_SOCK},
	{"sigtimedwait", op_sigtimedwait, kill_usr2, S_SIGS},
};

static const struct mode *cur;

/* blocked_loop keeps six values live across the call to op, in the six
 * callee-saved registers (rbx, rbp, r12-r15) at -O2: op and the library
 * functions it calls save some of them on the stack, where a blocked
 * thread's stack copy finds them, but not all. */
static volatile long sink;
__attribute__((noinline)) long blocked_loop(void (*op)(long), long n) {
	long i, a = 1, b = 2, c = 3;
	for (i = 0; i < n; i++) {
		op(i);
		last = i;
		a += i;
		b ^= a << 1;
		c += b | 1;
	}
	sink = a + b + c;
	return i;
}

static void *blocked_main(void *a) {
	(void)a;
	blocked_tid = (int)syscall(SYS_gettid);
	blocked_loop(cur->op, iters);
	return NULL;
}

int main(int argc, char **argv) {
	if (argc < 2) {
		fprintf(stderr, "usage: blocking MODE [ITERS]\nmodes:");
		for (size_t k = 0; k < sizeof modes / sizeof modes[0]; k++)
			fprintf(stderr, " %s", modes[k].name);
		fprintf(stderr, "\n");
		return 1;
	}
	for (size_t k = 0; k < sizeof modes / sizeof modes[0]; k++)
		if (strcmp(modes[k].name, argv[1]) == 0)
			cur = &modes[k];
	if (!cur) {
		fprintf(stderr, "blocking: unknown mode %s\n", argv[1]);
		return 1;
	}
	mode_name = cur->name;
	if (argc > 2)
		iters = atol(argv[2]);
	signal(SIGALRM, on_alarm);
	alarm(LONG_S - 5);
	switch (cur->setup) {
	case S_PIPE:
	case S_FULLPIPE:
	case S_EPOLL:
		if (pipe(pfd))
			fail(2, 0, "pipe", -1, errno);
		if (cur->setup == S_FULLPIPE)
			fill_pipe();
		if (cur->setup == S_EPOLL) {
			epfd = epoll_create1(0);
			struct epoll_event ev = {.events = EPOLLIN, .data.fd = pfd[0]};
			if (epfd < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, pfd[0], &ev))
				fail(2, 0, "epoll", -1, errno);
		}
		break;
	case S_PTY:
		open_pty(1, 0);
		break;
	case S_RAW1:
		open_pty(0, 1);
		break;
	case S_RAW4:
		open_pty(0, 4);
		break;
	case S_SOCK: {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sfd))
			fail(2, 0, "socketpair", -1, errno);
		struct timeval tv = {LONG_S, 0};
		setsockopt(sfd[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
		break;
	}
	case S_SEM:
		sem_init(&sem, 0, 0);
		break;
	case S_SIGS: {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_usr1;
		sigaction(SIGUSR1, &sa, NULL);
		/* SIGUSR1 reaches the blocked thread only inside sigsuspend;
		 * SIGUSR2 is taken by sigtimedwait */
		sigset_t s;
		sigemptyset(&s);
		if (strcmp(cur->name, "pause") != 0)
			sigaddset(&s, SIGUSR1);
		sigaddset(&s, SIGUSR2);
		pthread_sigmask(SIG_BLOCK, &s, NULL);
		break;
	}
	}
	if (pthread_create(&blocked_thread, NULL, blocked_main, NULL))
		fail(2, 0, "pthread_create", -1, errno);
	while (!blocked_tid)
		sleep_ms(1);
	for (long i = 0; i < iters; i++)
		cur->partner(i);
	pthread_join(blocked_thread, NULL);
	return 0;
}
