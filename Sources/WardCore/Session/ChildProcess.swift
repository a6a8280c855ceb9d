import CWardSystem
import Glibc

/// The program `ward exec` runs: a session leader whose controlling terminal is a
/// `PseudoTerminal`, and a pidfd the loop watches for its end (no SIGCHLD handler, which would
/// interrupt every system call of the loop and readline's).
public final class ChildProcess {
    public let pid: pid_t
    /// Readable once the process has ended.
    public let exitFD: Int32
    /// Its status, once reaped.
    public private(set) var exit: ProgramExit?

    /// Starts `path` with `arguments` (after `argv[0]`, the path) and the environment `environment`
    /// on `terminal`'s slave.
    ///
    /// - Throws: the errno of the failure: `ENOENT`, `EACCES` (exec's own, through posix_spawn).
    public init(path: String, arguments: [String], environment: [String], terminal: PseudoTerminal) throws(SystemError)
    {
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for arg in argv { free(arg) } }
        let envp = environment.map { strdup($0) } + [nil]
        defer { for entry in envp { free(entry) } }
        var pid: pid_t = 0
        let result = ward_pty_spawn(path, argv, envp, terminal.slavePath, &pid)
        guard result == 0 else { throw SystemError(path, code: result) }
        self.pid = pid
        let fd = ward_pidfd_open(pid)
        guard fd >= 0 else {
            let code = errno
            Glibc.kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            throw SystemError("pidfd_open", code: code)
        }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        exitFD = fd
    }

    deinit {
        if exit == nil {
            Glibc.kill(-pid, SIGKILL)
            Glibc.kill(pid, SIGKILL)
            _ = reap(wait: true)
        }
        close(exitFD)
    }

    /// Sends `signal` to the program's own process group and to the terminal's foreground group
    /// (a job a shell in it runs), so a stop or a hangup reaches what is on the screen.
    public func signal(_ signal: Int32, foreground: pid_t?) {
        guard exit == nil else { return }
        Glibc.kill(-pid, signal)
        if let foreground, foreground != pid { Glibc.kill(-foreground, signal) }
    }

    /// Collects the exit status if the process has ended (or waits for it, with `wait`); nil
    /// while it runs.
    @discardableResult
    public func reap(wait: Bool = false) -> ProgramExit? {
        if let exit { return exit }
        var status: Int32 = 0
        var result: pid_t
        repeat { result = waitpid(pid, &status, wait ? 0 : WNOHANG) } while result < 0 && errno == EINTR
        guard result == pid else { return nil }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import (macros).
        let signal = status & 0x7F
        exit = signal == 0 ? .exited((status >> 8) & 0xFF) : .killed(by: signal)
        return exit
    }

    /// Waits up to `timeout` for the process to end; its status, or nil if it still runs.
    public func waitForExit(timeout: Duration) -> ProgramExit? {
        if let exit = reap() { return exit }
        var pfd = pollfd(fd: exitFD, events: Int16(POLLIN), revents: 0)
        let ns = timeout.nanoseconds
        _ = ward_ppoll(&pfd, 1, ns)
        return reap()
    }

    /// Ends the process now: SIGHUP (as a closed terminal would), `grace` to go, then SIGKILL.
    @discardableResult
    public func end(grace: Duration, foreground: pid_t?) -> ProgramExit {
        if let exit = reap() { return exit }
        signal(SIGHUP, foreground: foreground)
        signal(SIGCONT, foreground: foreground)  // a frozen program cannot act on SIGHUP
        if let exit = waitForExit(timeout: grace) { return exit }
        signal(SIGKILL, foreground: foreground)
        Glibc.kill(pid, SIGKILL)
        return reap(wait: true) ?? .killed(by: SIGKILL)
    }
}

@available(*, unavailable)
extension ChildProcess: Sendable {}
