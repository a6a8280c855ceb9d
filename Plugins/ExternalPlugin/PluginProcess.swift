import Glibc
import WardPluginAPI
import WardSupport

/// One running external plugin: a child process whose stdin and stdout are one end of a Unix
/// socket pair, spoken to in JSON Lines.
///
/// A socket rather than two pipes so that writing to a plugin that died is `EPIPE` with
/// `MSG_NOSIGNAL`, never a SIGPIPE that would end Ward. The child gets its own process group
/// (the terminal's Ctrl-C and Ctrl-Z are Ward's, not its) and stderr on /dev/null (nothing it
/// prints can land on the screen over the prompt).
///
/// - Important: Not `Sendable`; used from the loop's thread only. Waits are bounded by `poll`.
final class PluginProcess {
    /// Why a wait for a reply ended without one.
    enum Failure: Error, Equatable, CustomStringConvertible {
        case timeout
        case crashed
        case garbage
        /// Ward is ending (SIGTERM, SIGHUP): the wait was given up.
        case abandoned

        var description: String {
            switch self {
            case .timeout: "timeout"
            case .crashed: "crashed"
            case .garbage: "garbage"
            case .abandoned: "abandoned: Ward is ending"
            }
        }
    }

    let pid: pid_t
    private let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var isAlive = true
    private var isStopped = false
    /// Longest reply line accepted; a plugin writing more is broken.
    private static let maxLine = 1 << 20

    /// Starts `command` (looked up in `PATH` when it has no slash); nil with `errno` set when
    /// it cannot be started.
    init?(command: [String]) {
        guard !command.isEmpty else { return nil }
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            return nil
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGTSTP, SIGCHLD, SIGWINCH, SIGCONT, SIGQUIT] {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes,
            Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP)
        )

        var argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) }
        argv.append(nil)
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, argv[0]!, &actions, &attributes, &argv, environ)
        close(fds[1])
        guard result == 0 else {
            close(fds[0])
            errno = result
            return nil
        }
        self.pid = pid
        self.fd = fds[0]
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    deinit { stop() }

    /// Sends one JSON line; false when the plugin is gone or not reading, or the message has no
    /// JSON form.
    func send(_ message: JSONValue) -> Bool {
        guard isAlive, let line = message.line else { return false }
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        var waited = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if n > 0 {
                offset += n
            } else if n < 0, errno == EINTR {
                continue
            } else if n < 0, errno == EAGAIN, waited < 100 {
                // The plugin is not reading: allow it a moment, then count it as hung.
                var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&p, 1, 10)
                waited += 1
            } else {
                markDead()
                return false
            }
        }
        return true
    }

    /// Waits until `deadline` (CLOCK_MONOTONIC nanoseconds) for a reply whose `id` is `id`.
    /// Lines with another id (a late answer to an event that already timed out) are skipped.
    func reply(to id: Int, deadline: Int64) -> Result<PluginReply, Failure> {
        while true {
            while let line = nextLine() {
                guard let reply = PluginReply(json: line) else { return .failure(.garbage) }
                if reply.id == id { return .success(reply) }
            }
            if buffer.count > Self.maxLine {
                buffer.removeAll()
                return .failure(.garbage)
            }
            guard isAlive else { return .failure(.crashed) }
            let remaining = deadline - monotonicNow()
            if remaining <= 0 { return .failure(.timeout) }
            // Ward ending (SIGTERM, SIGHUP) ends the wait too: `TerminationNotice`.
            var fds = [
                pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: TerminationNotice.fd, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, 2, Int32(clamping: (remaining + 999_999) / 1_000_000))
            if fds[1].revents != 0 { return .failure(.abandoned) }
            if ready < 0 {
                if errno == EINTR { continue }
                markDead()
                return .failure(.crashed)
            }
            if ready == 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 8192)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                buffer += chunk[0..<n]
            } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
                markDead()
            }
        }
    }

    private func nextLine() -> [UInt8]? {
        guard let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let line = Array(buffer[..<newline])
        buffer.removeSubrange(...newline)
        return line
    }

    /// The end of the socket went away: the child exited or closed its stdout. Reaps it.
    private func markDead() {
        guard isAlive else { return }
        isAlive = false
        stop()
    }

    /// Closes the socket (the plugin sees end of input), then gives it 200 ms to exit before
    /// SIGKILL, and reaps it. Safe to call more than once.
    func stop() {
        guard !isStopped else { return }
        isStopped = true
        close(fd)
        isAlive = false
        var status: Int32 = 0
        for _ in 0..<20 {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid || r < 0 { return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        _ = waitpid(pid, &status, 0)
    }
}

/// CLOCK_MONOTONIC in nanoseconds: reply timeouts are about this process's wall waiting.
func monotonicNow() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}
