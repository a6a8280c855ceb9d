// The kernel sandbox `ward exec` puts a program in: Landlock (which files it may open, run and
// change), seccomp (no exec but through Ward's answer), no new privileges. The child side runs
// between fork and exec, where a process with threads may only make system calls, so it is C.
#ifndef WARD_SANDBOX_H
#define WARD_SANDBOX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What a Landlock rule grants beneath a path. */
enum {
    WARD_ACCESS_READ = 1,     /* open files for reading, list directories */
    WARD_ACCESS_WRITE = 2,    /* also write, truncate, create, remove, rename */
    WARD_ACCESS_EXECUTE = 4,  /* exec the file (the program, its interpreter, a may-run helper) */
    WARD_ACCESS_DEVICE = 8,   /* ioctl on a terminal (tcsetattr on the program's own pty) */
};

/* The Landlock ABI version the kernel offers (1 and up), or -errno when it has none (ENOSYS:
   not built in; EOPNOTSUPP: built in but off at boot). */
int ward_landlock_abi(void);

/* 1 when the kernel can hand a filtered system call to Ward to answer (seccomp user
   notification, Linux 5.5), else -errno. */
int ward_seccomp_notify_available(void);

/* The sandbox of one program, as Ward built it. `landlock_abi` 0 leaves Landlock out and
   `seccomp` 0 leaves the exec filter out (the site's sandbox = "off"). */
struct ward_sandbox {
    int landlock_abi;
    const char *const *paths; /* absolute; a path that does not exist is left out */
    const int *access;        /* WARD_ACCESS_* for each path */
    size_t count;
    int seccomp;
};

/* Where a sandboxed start failed, for the message. */
enum {
    WARD_STAGE_NONE = 0,
    WARD_STAGE_TERMINAL = 1,
    WARD_STAGE_NO_NEW_PRIVS = 2,
    WARD_STAGE_LANDLOCK = 3,
    WARD_STAGE_SECCOMP = 4,
    WARD_STAGE_LISTENER = 5,
    WARD_STAGE_EXEC = 6,
    WARD_STAGE_FORK = 7,
};

/* Starts `path` with `argv` and `envp` in a new session whose controlling terminal is the pty
   slave `slave` (standard input, output and error), every signal at its default and unblocked,
   no other descriptor of Ward's open, inside `sandbox`. fork rather than posix_spawn, which
   cannot restrict the child before its exec; between the two the child makes system calls
   only, as a child of a process with threads (the watchdog) must. With seccomp, every execve and execveat the
   program makes afterwards waits for Ward's answer on `*listener` (close-on-exec, -1 without
   seccomp); the first, the program's own start, is answered here. Returns 0 with `*pid`, or the
   errno of the failure with `*stage` naming the step. */
int ward_sandbox_spawn(const struct ward_sandbox *sandbox, const char *path, char *const argv[],
                       char *const envp[], const char *slave, pid_t *pid, int *listener, int *stage);

/* One exec attempt the program made: its notification id, the calling process, whether it was
   execveat, and the path it named (read from its memory, NUL-terminated, truncated to
   `path_size`). Returns 0, or -errno (ENOENT: the caller died meanwhile; the id is not valid). */
int ward_exec_attempt_receive(int listener, uint64_t *id, pid_t *caller, int *is_execveat, char *path,
                              size_t path_size);

/* Answers an attempt: `allow` lets the kernel go on with the exec; otherwise it fails with
   EPERM. Returns 0 or -errno (ENOENT: the caller died meanwhile). */
int ward_exec_attempt_answer(int listener, uint64_t id, int allow);

/* prctl(PR_SET_CHILD_SUBREAPER): a process the program starts and leaves behind (a daemon, a
   `setsid` job) becomes Ward's child when its parent ends, not init's, so Ward can find and end
   it. */
int ward_set_child_subreaper(void);

#endif
