import CWardSystem
import Glibc

/// The program `ward exec` runs: a session leader whose controlling terminal is a
/// `PseudoTerminal`, inside its `ExecSandbox`, and a pidfd the loop watches for its end (no
/// SIGCHLD handler, which would interrupt every system call of the loop and readline's).
public final class ChildProcess {
    public let pid: pid_t
    /// Readable once the process has ended.
    public let exitFD: Int32
    /// Where its exec attempts wait for Ward's answer (`ExecGate`); nil without seccomp.
    public private(set) var execListener: Int32?
    /// Its status, once reaped.
    public private(set) var exit: ProgramExit?

    /// Starts `path` with `arguments` (after `argv[0]`, the path) and the environment `environment`
    /// on `terminal`'s slave, inside `sandbox`.
    ///
    /// - Throws: the errno of the failure, named by its step: `ENOENT`, `EACCES` (exec's own),
    ///   a Landlock or seccomp call the kernel refused.
    public init(
        path: String,
        arguments: [String],
        environment: [String],
        terminal: PseudoTerminal,
        sandbox: ExecSandbox
    ) throws(SystemError) {
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for arg in argv { free(arg) } }
        let envp = environment.map { strdup($0) } + [nil]
        defer { for entry in envp { free(entry) } }
        let rules = sandbox.rules(pty: terminal.slavePath)
        let paths = rules.map { UnsafePointer(strdup($0.path)) }
        defer { for path in paths { free(UnsafeMutablePointer(mutating: path)) } }
        let access = rules.map(\.access.rawValue)
        var pid: pid_t = 0
        var listener: Int32 = -1
        var stage: Int32 = 0
        let result = paths.withUnsafeBufferPointer { paths in
            access.withUnsafeBufferPointer { access in
                var plan = ward_sandbox(
                    landlock_abi: Int32(sandbox.landlockABI),
                    paths: paths.baseAddress,
                    access: access.baseAddress,
                    count: rules.count,
                    seccomp: sandbox.seccomp ? 1 : 0
                )
                return ward_sandbox_spawn(&plan, path, argv, envp, terminal.slavePath, &pid, &listener, &stage)
            }
        }
        guard result == 0 else { throw SystemError(Self.step(stage, path: path), code: result) }
        self.pid = pid
        self.execListener = listener >= 0 ? listener : nil
        let fd = ward_pidfd_open(pid)
        guard fd >= 0 else {
            let code = errno
            Glibc.kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            if listener >= 0 { close(listener) }
            throw SystemError("pidfd_open", code: code)
        }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        exitFD = fd
    }

    /// The step a start failed at, for its message.
    private static func step(_ stage: Int32, path: String) -> String {
        switch Int(stage) {
        case Int(WARD_STAGE_TERMINAL): "its terminal"
        case Int(WARD_STAGE_NO_NEW_PRIVS): "prctl(PR_SET_NO_NEW_PRIVS)"
        case Int(WARD_STAGE_LANDLOCK): "Landlock"
        case Int(WARD_STAGE_SECCOMP): "seccomp"
        case Int(WARD_STAGE_LISTENER): "the exec filter's answer"
        case Int(WARD_STAGE_FORK): "fork"
        default: path
        }
    }

    /// Ward stops answering the program's execs: one it tries from now on fails (ENOSYS).
    public func closeExecListener() {
        if let execListener { close(execListener) }
        execListener = nil
    }

    deinit {
        if exit == nil {
            Glibc.kill(-pid, SIGKILL)
            Glibc.kill(pid, SIGKILL)
            _ = reap(wait: true)
        }
        close(exitFD)
        closeExecListener()
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
