import CWardSystem
import Glibc

/// No core dumps and no ptrace by other processes of the same user, and files created private:
/// a core file or a debugger would carry whatever chart is open (or, in `ward import`, every
/// bundle read), and a file created 0644 by anything below Ward (SQLite's journals, a library's
/// temporary file) would let other users read it. Done once, first thing in `Ward.main()`, for
/// every subcommand. Nothing turns this off.
///
/// - Important: root can still take a core image of a process that is not dumpable (`gcore`
///   as root); the wipe tests rely on that.
func hardenProcess() {
    var limit = rlimit(rlim_cur: 0, rlim_max: 0)
    setrlimit(Int32(RLIMIT_CORE.rawValue), &limit)
    _ = ward_set_not_dumpable()
    umask(0o077)
}
