import Glibc

/// A real `rsyslogd` of the test's own, in a directory of the test's own: its config, its
/// datagram socket (`DIR/log`, in place of `/dev/log`), and the file it writes each `authpriv`
/// message to, one line of tab-separated fields as rsyslog parsed them.
///
/// No system socket, no klog, no `/dev/log`: `SysSock.Use="off"` and only `imuxsock` loaded, so
/// it runs as root or not, beside the machine's own syslog daemon if there is one. The socket
/// reads with `UseSpecialParser="off"`, so rsyslog's RFC 5424 parser takes the message apart, as
/// the rule in `contrib/rsyslog.d/ward.conf` does.
public final class RsyslogDaemon {
    /// One message as rsyslog parsed it.
    public struct Message: Equatable, Sendable, CustomStringConvertible {
        public var facility: Int
        public var severity: Int
        public var hostname: String
        public var appName: String
        public var procID: String
        public var msgID: String
        public var structuredData: String
        /// MSG as rsyslog stored it (a BOM would be kept).
        public var msg: [UInt8]

        public var description: String {
            "<\(facility).\(severity)> \(hostname) \(appName) \(procID) \(msgID) \(structuredData) "
                + String(decoding: msg, as: UTF8.self)
        }
    }

    /// Why the daemon is not there.
    public enum Failure: Error, CustomStringConvertible {
        case notInstalled
        case didNotStart(String)

        public var description: String {
            switch self {
            case .notInstalled:
                "rsyslogd not found: install the Debian package 'rsyslog' (scripts/install-deps)"
            case .didNotStart(let why):
                "rsyslogd did not start: \(why)"
            }
        }
    }

    /// The directory the daemon works in; the caller's, and left in place.
    public let directory: String
    /// Where Ward sends (`syslog-socket`).
    public var socketPath: String { directory + "/log" }
    /// The daemon's output, one message a line.
    public var outputPath: String { directory + "/messages" }
    private var pid: pid_t

    /// Starts the daemon and waits until its socket is there.
    ///
    /// - Parameter maxMessageSize: rsyslog's `maxMessageSize`; nil for its default (8k).
    public init(directory: String, maxMessageSize: Int? = nil) throws(Failure) {
        guard let executable = Self.executable() else { throw .notInstalled }
        self.directory = directory
        let config = directory + "/rsyslog.conf"
        let size = maxMessageSize.map { " maxMessageSize=\"\($0)\"" } ?? ""
        let text = """
            global(workDirectory="\(directory)"\(size))
            module(load="imuxsock" SysSock.Use="off")
            input(type="imuxsock" Socket="\(directory)/log" UseSpecialParser="off" RateLimit.Interval="0")
            template(name="fields" type="string" string="%syslogfacility%\\t%syslogseverity%\\t%hostname%\\t%app-name%\\t%procid%\\t%msgid%\\t%structured-data%\\t%msg%\\n")
            authpriv.* action(type="omfile" file="\(directory)/messages" template="fields")

            """
        Self.write(text, to: config)
        pid = try Self.spawn(
            executable,
            ["-n", "-f", config, "-i", directory + "/rsyslogd.pid"],
            errors: directory + "/rsyslogd.err"
        )
        for _ in 0..<1000 {
            var info = stat()
            if stat(socketPath, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK { return }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                pid = -1
                throw .didNotStart(Self.read(directory + "/rsyslogd.err"))
            }
            usleep(10_000)  // the polling interval while the socket appears
        }
        stop()
        throw .didNotStart("no socket at \(socketPath) after 10s")
    }

    deinit { stop() }

    /// Waits until `count` messages are in the file (or `timeout` passed) and returns them all.
    public func messages(atLeast count: Int, timeout: Duration = .seconds(10)) -> [Message] {
        let clock = ContinuousClock()
        let end = clock.now + timeout
        var found = messages()
        while found.count < count, clock.now < end {
            usleep(20_000)  // the polling interval, not a wait for anything
            found = messages()
        }
        return found
    }

    /// The messages in the file now.
    public func messages() -> [Message] {
        Self.readBytes(outputPath).split(separator: 0x0A).compactMap { line in
            let fields = line.split(separator: 0x09, maxSplits: 7, omittingEmptySubsequences: false)
            guard fields.count == 8, let facility = Int(Self.text(fields[0])), let severity = Int(Self.text(fields[1]))
            else { return nil }
            return Message(
                facility: facility,
                severity: severity,
                hostname: Self.text(fields[2]),
                appName: Self.text(fields[3]),
                procID: Self.text(fields[4]),
                msgID: Self.text(fields[5]),
                structuredData: Self.text(fields[6]),
                msg: Array(fields[7])
            )
        }
    }

    /// Stops the daemon (SIGTERM, SIGKILL after 10 s) and waits for it; its file is complete
    /// afterwards.
    public func stop() {
        guard pid > 0 else { return }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<1000 {
            if waitpid(pid, &status, WNOHANG) == pid {
                pid = -1
                return
            }
            usleep(10_000)  // the polling interval while the daemon exits
        }
        kill(pid, SIGKILL)
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        pid = -1
    }

    // MARK: - Helpers

    private static func executable() -> String? {
        let path = getenv("PATH").map { String(cString: $0) } ?? ""
        let candidates = ["/usr/sbin/rsyslogd", "/sbin/rsyslogd"] + path.split(separator: ":").map { "\($0)/rsyslogd" }
        return candidates.first { access($0, X_OK) == 0 }
    }

    private static func spawn(_ executable: String, _ arguments: [String], errors: String) throws(Failure) -> pid_t {
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for arg in argv { free(arg) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        // Whatever the test thread blocks or ignores, the daemon starts with nothing blocked and
        // every signal at its default: else SIGTERM would never stop it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard rc == 0 else { throw .didNotStart("posix_spawn \(executable): \(String(cString: strerror(rc)))") }
        return pid
    }

    private static func text(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    private static func read(_ path: String) -> String { String(decoding: readBytes(path), as: UTF8.self) }

    private static func readBytes(_ path: String) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { return out }
            out += buffer[0..<n]
        }
    }

    private static func write(_ text: String, to path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        precondition(fd >= 0, "cannot write \(path)")
        defer { close(fd) }
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0, errno == EINTR { continue }
            precondition(n > 0, "cannot write \(path)")
            offset += n
        }
    }
}

@available(*, unavailable)
extension RsyslogDaemon: Sendable {}
