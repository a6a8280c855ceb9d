// The definitions behind CWardSystem.h, compiled with _GNU_SOURCE (ppoll needs it).
#define _GNU_SOURCE
#include "CWardSystem.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <sys/syscall.h>
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

int ward_set_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }

int ward_pty_open(const struct termios *settings, unsigned short rows, unsigned short cols, char *name,
                  size_t name_size) {
    int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0) return -1;
    if (grantpt(master) != 0 || unlockpt(master) != 0 || ptsname_r(master, name, name_size) != 0) goto fail;
    int slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (slave < 0) goto fail;
    if (settings) tcsetattr(slave, TCSANOW, settings);
    struct winsize ws;
    memset(&ws, 0, sizeof ws);
    ws.ws_row = rows;
    ws.ws_col = cols;
    ioctl(slave, TIOCSWINSZ, &ws);
    close(slave);
    int flags = fcntl(master, F_GETFL);
    if (flags < 0 || fcntl(master, F_SETFL, flags | O_NONBLOCK) != 0) goto fail;
    return master;
fail:;
    int saved = errno;
    close(master);
    errno = saved;
    return -1;
}

int ward_pty_set_size(int master, unsigned short rows, unsigned short cols) {
    struct winsize ws;
    memset(&ws, 0, sizeof ws);
    ws.ws_row = rows;
    ws.ws_col = cols;
    return ioctl(master, TIOCSWINSZ, &ws);
}

int ward_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

int ward_wcwidth(unsigned int scalar) {
    return wcwidth((wchar_t)scalar);
}
