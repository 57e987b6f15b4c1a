/*
 * killpg_poll (HTTPD-54852): listen.c
 * The listening socket (server/listen.c).
 */
#include "killpg_poll.h"

int accept_q[2];         /* the listening socket's accept queue */
int accept_ack[2];       /* a child reports that it accepted a connection */
