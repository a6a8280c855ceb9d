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
#include <sys/types.h>
#include <termios.h>

#include "WardSandbox.h"

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

/* mallopt(M_MMAP_THRESHOLD, bytes): <malloc.h> is not in Swift's Glibc module. Returns 1 on
   success, as mallopt does. */
int ward_set_mmap_threshold(int bytes);

/* BoringSSL's allocation hooks, defined for the whole process in crypto_memory.c (why: there).
   Declared here for the tests; BoringSSL finds them by their weak references. */
void *OPENSSL_memory_alloc(size_t size);
void OPENSSL_memory_free(void *pointer);
size_t OPENSSL_memory_get_size(void *pointer);

/* A new pseudo-terminal for `ward exec`: the master (O_RDWR, O_NOCTTY, close-on-exec,
   non-blocking) is returned, or -1 with errno; the slave's path is written to `name`. The slave
   gets `settings` (the user's terminal's, as script(1) copies them) and rows x cols. */
int ward_pty_open(const struct termios *settings, unsigned short rows, unsigned short cols, char *name,
                  size_t name_size);

/* TIOCSWINSZ on the master: the kernel sends SIGWINCH to the slave's foreground group when the
   size changes. */
int ward_pty_set_size(int master, unsigned short rows, unsigned short cols);

/* pidfd_open(2): a descriptor that polls readable when `pid` exits; -1 with errno. */
int ward_pidfd_open(pid_t pid);

/* wcwidth(3) of one Unicode scalar: its columns on a terminal under the calling thread's
   LC_CTYPE (2 for CJK, 0 for a combining mark, -1 for a control). Swift's Glibc module leaves
   wcwidth out (the header declares it only under _XOPEN_SOURCE), so it is called from here. */
int ward_wcwidth(unsigned int scalar);

#endif
