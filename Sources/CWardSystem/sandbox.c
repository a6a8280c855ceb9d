// The definitions behind WardSandbox.h. Landlock's constants are spelled out here rather than
// taken from <linux/landlock.h>: the build machine's headers may be older than the kernel the
// program runs on, and the ABI version probed at run time decides what is used.
#define _GNU_SOURCE
#include "WardSandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif

#define LL_EXECUTE (1ULL << 0)
#define LL_WRITE_FILE (1ULL << 1)
#define LL_READ_FILE (1ULL << 2)
#define LL_READ_DIR (1ULL << 3)
#define LL_REMOVE_DIR (1ULL << 4)
#define LL_REMOVE_FILE (1ULL << 5)
#define LL_MAKE_CHAR (1ULL << 6)
#define LL_MAKE_DIR (1ULL << 7)
#define LL_MAKE_REG (1ULL << 8)
#define LL_MAKE_SOCK (1ULL << 9)
#define LL_MAKE_FIFO (1ULL << 10)
#define LL_MAKE_BLOCK (1ULL << 11)
#define LL_MAKE_SYM (1ULL << 12)
#define LL_REFER (1ULL << 13)
#define LL_TRUNCATE (1ULL << 14)
#define LL_IOCTL_DEV (1ULL << 15)
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LL_SCOPE_SIGNAL (1ULL << 1)
#define LL_RULE_PATH_BENEATH 1
#define LL_CREATE_RULESET_VERSION (1U << 0)
/* The rights a rule on a file (not a directory) may hold. */
#define LL_FILE_RIGHTS (LL_EXECUTE | LL_WRITE_FILE | LL_READ_FILE | LL_TRUNCATE | LL_IOCTL_DEV)

struct ll_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

struct ll_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

#if defined(__x86_64__)
#define WARD_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define WARD_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "ward's exec filter knows x86_64 and aarch64"
#endif

int ward_landlock_abi(void) {
    long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
    return abi < 0 ? -errno : (int)abi;
}

int ward_seccomp_notify_available(void) {
    uint32_t action = SECCOMP_RET_USER_NOTIF;
    return syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0 ? 1 : -errno;
}

int ward_set_child_subreaper(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

/* Every file-system right the kernel's ABI knows: what is not granted by a rule is denied. */
static uint64_t handled_rights(int abi) {
    uint64_t rights = (LL_MAKE_SYM << 1) - 1;
    if (abi >= 2) rights |= LL_REFER;
    if (abi >= 3) rights |= LL_TRUNCATE;
    if (abi >= 5) rights |= LL_IOCTL_DEV;
    return rights;
}

static uint64_t rule_rights(int access, int is_directory) {
    uint64_t rights = 0;
    if (access & (WARD_ACCESS_READ | WARD_ACCESS_WRITE)) rights |= LL_READ_FILE | LL_READ_DIR;
    if (access & WARD_ACCESS_WRITE)
        rights |= LL_WRITE_FILE | LL_TRUNCATE | LL_MAKE_REG | LL_MAKE_DIR | LL_REMOVE_FILE | LL_REMOVE_DIR
                  | LL_MAKE_SYM | LL_MAKE_FIFO | LL_MAKE_SOCK | LL_REFER;
    if (access & WARD_ACCESS_EXECUTE) rights |= LL_EXECUTE | LL_READ_FILE;
    if (access & WARD_ACCESS_DEVICE) rights |= LL_IOCTL_DEV;
    return is_directory ? rights : rights & LL_FILE_RIGHTS;
}

/* The exec filter: execve and execveat wait for Ward's answer; installing another filter (which
   could answer them itself) fails; truncate(2) by path fails (Landlock before ABI 3 does not see
   it; ftruncate on a descriptor Landlock let it open for writing still works); a system call of
   another ABI (x32, int 0x80) ends the process, since its numbers mean other calls. */
static struct sock_filter exec_filter[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, WARD_AUDIT_ARCH, 1, 0),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execve, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execveat, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_truncate, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_seccomp, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_prctl, 0, 3),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_SECCOMP, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};

/* The child's last words when a step fails: the step and its errno, then exit. */
static void child_fail(int report, int stage, int error) {
    int words[2] = { stage, error };
    ssize_t ignored = write(report, words, sizeof words);
    (void)ignored;
    _exit(127);
}

static void close_all_but(int a, int b) {
    int low = a < b ? a : b, high = a < b ? b : a;
    if (low < 3) low = high;  /* one of them is absent (-1) */
    if (low > 3) syscall(SYS_close_range, 3, low - 1, 0);
    if (high > low + 1) syscall(SYS_close_range, low + 1, high - 1, 0);
    syscall(SYS_close_range, high + 1, ~0U, 0);
}

static void restrict_files(const struct ward_sandbox *sandbox, int report) {
    int abi = sandbox->landlock_abi;
    struct ll_ruleset_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.handled_access_fs = handled_rights(abi);
    size_t size = sizeof(uint64_t);
    if (abi >= 4) size = 2 * sizeof(uint64_t);
    if (abi >= 6) {
        attr.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL;
        size = sizeof attr;
    }
    int ruleset = (int)syscall(__NR_landlock_create_ruleset, &attr, size, 0);
    if (ruleset < 0) child_fail(report, WARD_STAGE_LANDLOCK, errno);
    for (size_t i = 0; i < sandbox->count; i++) {
        int fd = open(sandbox->paths[i], O_PATH | O_CLOEXEC);
        if (fd < 0) {
            if (errno == ENOENT || errno == ENOTDIR || errno == EACCES) continue;
            child_fail(report, WARD_STAGE_LANDLOCK, errno);
        }
        struct stat info;
        if (fstat(fd, &info) != 0) child_fail(report, WARD_STAGE_LANDLOCK, errno);
        struct ll_path_beneath_attr rule;
        rule.allowed_access = rule_rights(sandbox->access[i], S_ISDIR(info.st_mode)) & attr.handled_access_fs;
        rule.parent_fd = fd;
        if (rule.allowed_access != 0
            && syscall(__NR_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &rule, 0) != 0)
            child_fail(report, WARD_STAGE_LANDLOCK, errno);
        close(fd);
    }
    if (syscall(__NR_landlock_restrict_self, ruleset, 0) != 0) child_fail(report, WARD_STAGE_LANDLOCK, errno);
    close(ruleset);
}

static void send_listener(int socket, int listener, int report) {
    char byte = 0;
    struct iovec data = { &byte, 1 };
    union {
        char buffer[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr message;
    memset(&message, 0, sizeof message);
    message.msg_iov = &data;
    message.msg_iovlen = 1;
    message.msg_control = control.buffer;
    message.msg_controllen = sizeof control.buffer;
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(header), &listener, sizeof(int));
    if (sendmsg(socket, &message, MSG_NOSIGNAL) != 1) child_fail(report, WARD_STAGE_LISTENER, errno);
    close(listener);
}

/* Between fork and exec: system calls only (the parent has threads). */
static void run_child(const struct ward_sandbox *sandbox, const char *path, char *const argv[], char *const envp[],
                      const char *slave, int report, int socket, pid_t parent) {
    struct sigaction standard;
    memset(&standard, 0, sizeof standard);
    standard.sa_handler = SIG_DFL;
    for (int signal = 1; signal < NSIG; signal++) sigaction(signal, &standard, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);

    /* Ward killed outright (SIGKILL) takes the program with it; what the program started still
       loses its terminal, which the kernel hangs up when Ward's end of it closes. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != parent) _exit(127);
    if (setsid() < 0) child_fail(report, WARD_STAGE_TERMINAL, errno);
    int terminal = open(slave, O_RDWR);  /* a session leader's first terminal becomes its own */
    if (terminal < 0) child_fail(report, WARD_STAGE_TERMINAL, errno);
    for (int fd = 0; fd < 3; fd++)
        if (dup2(terminal, fd) < 0) child_fail(report, WARD_STAGE_TERMINAL, errno);
    if (terminal > 2) close(terminal);
    close_all_but(report, socket);

    if ((sandbox->landlock_abi > 0 || sandbox->seccomp) && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        child_fail(report, WARD_STAGE_NO_NEW_PRIVS, errno);
    if (sandbox->landlock_abi > 0) restrict_files(sandbox, report);
    if (sandbox->seccomp) {
        struct sock_fprog program = { (unsigned short)(sizeof exec_filter / sizeof exec_filter[0]), exec_filter };
        int listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &program);
        if (listener < 0) child_fail(report, WARD_STAGE_SECCOMP, errno);
        send_listener(socket, listener, report);
    }
    execve(path, argv, envp);
    child_fail(report, WARD_STAGE_EXEC, errno);
}

static int receive_listener(int socket) {
    char byte;
    struct iovec data = { &byte, 1 };
    union {
        char buffer[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    struct msghdr message;
    memset(&message, 0, sizeof message);
    message.msg_iov = &data;
    message.msg_iovlen = 1;
    message.msg_control = control.buffer;
    message.msg_controllen = sizeof control.buffer;
    ssize_t n;
    do n = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    struct cmsghdr *header = n == 1 ? CMSG_FIRSTHDR(&message) : NULL;
    if (!header || header->cmsg_type != SCM_RIGHTS) return -1;
    int fd;
    memcpy(&fd, CMSG_DATA(header), sizeof fd);
    return fd;
}

/* Lets the child's own exec go on: the only one Ward allows without asking the site. */
static int answer_first_exec(int listener, pid_t child) {
    struct pollfd ready = { listener, POLLIN, 0 };
    int n;
    do n = poll(&ready, 1, 10000);
    while (n < 0 && errno == EINTR);
    if (n <= 0 || !(ready.revents & POLLIN)) return n == 0 ? ETIMEDOUT : EPIPE;
    struct seccomp_notif request;
    memset(&request, 0, sizeof request);
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &request) != 0) return errno;
    struct seccomp_notif_resp response;
    memset(&response, 0, sizeof response);
    response.id = request.id;
    if (request.pid == child && request.data.nr == __NR_execve)
        response.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    else
        response.error = -EPERM;
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &response) != 0) return errno;
    return 0;
}

int ward_sandbox_spawn(const struct ward_sandbox *sandbox, const char *path, char *const argv[],
                       char *const envp[], const char *slave, pid_t *pid, int *listener, int *stage) {
    *listener = -1;
    *stage = WARD_STAGE_FORK;
    int report[2], sockets[2] = { -1, -1 };
    if (pipe2(report, O_CLOEXEC) != 0) return errno;
    if (sandbox->seccomp && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sockets) != 0) {
        int error = errno;
        close(report[0]);
        close(report[1]);
        return error;
    }
    /* No handler of Ward's may run in the child before it resets them (it would write to Ward's
       signal pipe). */
    sigset_t all, before;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &before);
    pid_t parent = getpid();
    pid_t child = fork();
    if (child == 0) {
        close(report[0]);
        if (sockets[0] >= 0) close(sockets[0]);
        run_child(sandbox, path, argv, envp, slave, report[1], sockets[1], parent);
    }
    int error = errno;
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    close(report[1]);
    if (sockets[1] >= 0) close(sockets[1]);
    if (child < 0) {
        close(report[0]);
        if (sockets[0] >= 0) close(sockets[0]);
        return error;
    }
    int fd = -1;
    error = 0;
    if (sockets[0] >= 0) {
        fd = receive_listener(sockets[0]);
        close(sockets[0]);
        if (fd >= 0) error = answer_first_exec(fd, child);
    }
    int words[2] = { 0, 0 };
    ssize_t n;
    do n = read(report[0], words, sizeof words);
    while (n < 0 && errno == EINTR);
    close(report[0]);
    if (n == sizeof words || error != 0 || (sandbox->seccomp && fd < 0)) {
        if (n == sizeof words) {
            *stage = words[0];
            error = words[1];
        } else {
            *stage = WARD_STAGE_LISTENER;
            if (error == 0) error = EPROTO;
            kill(child, SIGKILL);
        }
        int status;
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
        if (fd >= 0) close(fd);
        return error;
    }
    *stage = WARD_STAGE_NONE;
    *pid = child;
    *listener = fd;
    return 0;
}

/* Copies the NUL-terminated string at `address` in `caller`'s memory, a page at a time so that
   a string ending near an unmapped page is still read. */
static void read_remote_string(pid_t caller, uint64_t address, char *out, size_t size) {
    size_t have = 0;
    out[0] = 0;
    while (have + 1 < size) {
        size_t room = 4096 - ((address + have) & 4095);
        if (room > size - 1 - have) room = size - 1 - have;
        struct iovec local = { out + have, room };
        struct iovec remote = { (void *)(uintptr_t)(address + have), room };
        ssize_t n = process_vm_readv(caller, &local, 1, &remote, 1, 0);
        if (n <= 0) break;
        void *end = memchr(out + have, 0, (size_t)n);
        have += (size_t)n;
        if (end) return;
    }
    out[have] = 0;
}

int ward_exec_attempt_receive(int listener, uint64_t *id, pid_t *caller, int *is_execveat, char *path,
                              size_t path_size) {
    struct pollfd ready = { listener, POLLIN, 0 };
    if (poll(&ready, 1, 0) < 0) return -errno;
    if (ready.revents & POLLNVAL) return -EBADF;
    if (!(ready.revents & POLLIN)) return ready.revents & (POLLHUP | POLLERR) ? -EPIPE : -EAGAIN;
    struct seccomp_notif request;
    memset(&request, 0, sizeof request);
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &request) != 0) return -errno;
    *id = request.id;
    *caller = (pid_t)request.pid;
    *is_execveat = request.data.nr == __NR_execveat;
    read_remote_string(*caller, *is_execveat ? request.data.args[1] : request.data.args[0], path, path_size);
    /* The caller may have died and its pid been reused while its memory was read. */
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &request.id) != 0) return -errno;
    return 0;
}

int ward_exec_attempt_answer(int listener, uint64_t id, int allow) {
    struct seccomp_notif_resp response;
    memset(&response, 0, sizeof response);
    response.id = id;
    if (allow)
        response.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    else
        response.error = -EPERM;
    return ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &response) == 0 ? 0 : -errno;
}
