// The definitions behind CWardSystem.h, compiled with _GNU_SOURCE (ppoll needs it).
#define _GNU_SOURCE
#include "CWardSystem.h"

#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>

FILE *ward_stdout(void) { return stdout; }

int ward_ppoll(struct pollfd *fds, nfds_t n, long long ns) {
    if (ns < 0) return ppoll(fds, n, NULL, NULL);
    struct timespec ts = { (time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL) };
    return ppoll(fds, n, &ts, NULL);
}

int ward_boot_timer_create(void) {
    return timerfd_create(CLOCK_BOOTTIME, TFD_NONBLOCK | TFD_CLOEXEC);
}

int ward_boot_timer_arm(int fd, long long ns) {
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    if (ns > 0) {
        its.it_value.tv_sec = (time_t)(ns / 1000000000LL);
        its.it_value.tv_nsec = (long)(ns % 1000000000LL);
    }
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL);
}

int ward_window_size(int fd, unsigned short *rows, unsigned short *cols) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) != 0) return -1;
    *rows = ws.ws_row;
    *cols = ws.ws_col;
    return 0;
}

int ward_set_not_dumpable(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }
