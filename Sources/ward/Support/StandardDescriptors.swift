import Glibc

/// Descriptors 0, 1 and 2 open before Ward opens any file: a closed one is opened on /dev/null.
///
/// The kernel hands out the lowest free descriptor, so with standard output closed the audit
/// log's `open` returned 1 and every `print` (a find table with names and birth dates) went into
/// `audit.jsonl`; with all three closed, `audit.jsonl.head` became descriptor 0 or 2 and a notice
/// overwrote it. Daemons and sudo close that hole the same way, first thing.
///
/// Standard input gets /dev/null for reading: a script on it ends at once. Standard output and
/// error get /dev/null opened read-only, so a write to them fails (`EBADF`) instead of vanishing:
/// what Ward prints there is lost, never misdirected, and a batch sees its first flush fail and
/// ends with 74 (EX_IOERR), as it would on a full disk.
///
/// - Important: Called first in `Ward.main()`, before anything (the logging backend, the site
///   file, the audit log) can open a file. If /dev/null cannot be opened the process exits 71
///   (EX_OSERR) at once, since any later `open` could land on 0, 1 or 2.
func openClosedStandardDescriptors() {
    for fd in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
        let opened = open("/dev/null", O_RDONLY)
        guard opened == fd else { _exit(71) }
    }
}
