/*
 * killpg_poll (HTTPD-54852): killpg_poll.h - the declarations the files of this program share
 * (httpd.h, mpm_common.h, scoreboard.h, ap_listen.h ... in httpd). The program
 * is described in main.c.
 */
#ifndef KILLPG_POLL_H
#define KILLPG_POLL_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#define HTTPD_CHILDREN 16
#define REQUESTS_PER_CHILD 600
#define DUMMY_TIMEOUT_MS 100
#define BODY_SIZE 16384

typedef int apr_status_t;
#define APR_SUCCESS 0
#define APR_EGENERAL 20014

enum server_status { SERVER_DEAD = 0, SERVER_STARTING, SERVER_READY, SERVER_BUSY_WRITE };

typedef struct {
	pid_t pid;
	enum server_status status;
} worker_score;

typedef struct {
	int pod_in, pod_out;        /* pipe of death: parent writes, children read */
} ap_pod_t;

/* mpm_common.c, prefork.c: configuration */
extern int ap_max_requests_per_child;
extern int ap_daemons_limit;

/* scoreboard.c */
extern worker_score ap_scoreboard_image[HTTPD_CHILDREN];

/* listen.c */
extern int accept_q[2];         /* the listening socket's accept queue */
extern int accept_ack[2];       /* a child reports that it accepted a connection */

/* main.c: children send their checksums */
extern int results[2];

struct child_result {
	int slot;
	uint64_t checksum;
	int served;
};

/* protocol.c, http_request.c */
int ap_read_request(const char *req, char *uri, size_t urisz, long *content_length);
uint64_t ap_handle_request(const char *uri, long content_length);

/* prefork.c */
void child_main(int slot, ap_pod_t *pod);

/* mpm_unix.c */
apr_status_t ap_mpm_pod_killpg(ap_pod_t *pod, int num);
int fcntl_nonblock(int fd);

#endif
