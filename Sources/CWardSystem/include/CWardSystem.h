// The Linux system calls Ward needs that Swift's Glibc module leaves out or cannot call:
// variadic ones (ioctl, prctl), ones behind _GNU_SOURCE (pipe2), headers Glibc does not map
// (timerfd, eventfd, getrandom), and stdio's globals, which strict concurrency will not touch.
// Readline's surface is apart, in CReadline.
#ifndef WARD_CWARDSYSTEM_H
#define WARD_CWARDSYSTEM_H

#include <stdio.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/resource.h>

/* Declared by unistd.h only under _GNU_SOURCE, which a module header cannot set. */
extern int pipe2(int pipefd[2], int flags);

/* stdout is a mutable global that Swift 6 will not touch; readline and Ward share it. */
FILE *ward_stdout(void);

/* Exact ppoll with a nanosecond timeout; NULL timeout when ns < 0 (wait forever). */
int ward_ppoll(struct pollfd *fds, nfds_t n, long long ns);

/* A CLOCK_BOOTTIME timer the loop polls with the other descriptors. Unlike ppoll's timeout it
   fires at the exact deadline (a timeout gets ~0.1% slack) and counts time the machine slept. */
int ward_boot_timer_create(void);

/* Arms the timer for the absolute boot time `ns`; 0 disarms it. */
int ward_boot_timer_arm(int fd, long long ns);

/* TIOCGWINSZ through ioctl, whose variadic signature Swift cannot call. */
int ward_window_size(int fd, unsigned short *rows, unsigned short *cols);

/* prctl(PR_SET_DUMPABLE, 0): no core image, no ptrace by other processes of the same user.
   prctl is variadic too. */
int ward_set_not_dumpable(void);

#endif
