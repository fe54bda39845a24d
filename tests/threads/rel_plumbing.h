/*===- rel_plumbing.h - Watchdog, fatal errors and bounded waits ----------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Shared by the reliability test programs (tests/threads, tests/fork,
 * tests/reentrancy). Define REL_NAME (the program's name, used as the
 * prefix of its messages) before including it.
 *
 * Every program has a watchdog (exit 124: a deadlock is a failure, not a
 * hang) and every wait is bounded (exit 3).
 *
 *===----------------------------------------------------------------------===*/
#ifndef OWNSAN_TESTS_REL_PLUMBING_H
#define OWNSAN_TESTS_REL_PLUMBING_H

#ifndef REL_NAME
#error "define REL_NAME before including rel_plumbing.h"
#endif

#include <errno.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void rel_on_alarm(int sig) {
  (void)sig;
  static const char msg[] =
      REL_NAME ": watchdog: time limit reached (deadlock?)\n";
  (void)!write(2, msg, sizeof msg - 1);
  _exit(124);
}

/* Ends the process with status 124 after `seconds`. */
static void watchdog(unsigned seconds) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = rel_on_alarm;
  sigaction(SIGALRM, &sa, NULL);
  alarm(seconds);
}

static void die(const char *what) {
  fprintf(stderr, REL_NAME ": FAILED: %s\n", what);
  fflush(NULL);
  _exit(3);
}

/* Waits on `s` for at most `seconds`; a timeout is fatal (exit 3). */
static void wait_sem(sem_t *s, int seconds, const char *what) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ts.tv_sec += seconds;
  while (sem_timedwait(s, &ts) != 0) {
    if (errno == EINTR)
      continue;
    fprintf(stderr, REL_NAME ": timed out waiting for %s\n", what);
    fflush(NULL);
    _exit(3);
  }
}

#endif /* OWNSAN_TESTS_REL_PLUMBING_H */
