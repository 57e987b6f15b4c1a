/*
 * killpg_poll (HTTPD-54852): scoreboard.c
 * The scoreboard (server/scoreboard.c).
 */
#include "killpg_poll.h"

worker_score ap_scoreboard_image[HTTPD_CHILDREN];
