import Glibc

/// A real rsyslogd for the forwarding figures: its own config and datagram socket in the
/// benchmark's directory, parsing RFC 5424 (`UseSpecialParser="off"`, as contrib/rsyslog.d/ward.conf
/// does), without rate limits, writing each message to a file, so that what it costs to take
/// a record is in the figures and every message can be counted afterwards.
final class BenchmarkRsyslog {
    let directory: String
    var socketPath: String { directory + "/rsyslog.sock" }
    private var output: String { directory + "/rsyslog.out" }
    private var config: String { directory + "/rsyslog.conf" }
    private var pidFile: String { directory + "/rsyslog.pid" }
    private var pid: pid_t = -1

    /// Nil when rsyslogd is not installed or does not start.
    init?(directory: String) {
        self.directory = directory
        let candidates: [String] = ["/usr/sbin/rsyslogd", "/sbin/rsyslogd"]
        guard let executable = candidates.first(where: { access($0, X_OK) == 0 }) else { return nil }
        let text = """
            global(workDirectory="\(directory)")
            module(load="imuxsock" SysSock.Use="off")
            input(type="imuxsock" Socket="\(socketPath)" UseSpecialParser="off" RateLimit.Interval="0")
            template(name="raw" type="string" string="%rawmsg%\\n")
            authpriv.* action(type="omfile" file="\(output)" template="raw")

            """
        let fd = open(config, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { return nil }
        _ = Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let arguments: [String] = [executable, "-n", "-f", config, "-i", pidFile]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for arg in argv { free(arg) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        guard posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0 else { return nil }
        for _ in 0..<1000 {
            if access(socketPath, F_OK) == 0 { return }
            usleep(10_000)
        }
        _ = stop(expecting: 0)
        return nil
    }

    /// Waits (up to 30 s) until the file has `expected` lines, stops the daemon, removes its
    /// files, and returns how many lines it wrote.
    func stop(expecting expected: Int) -> Int {
        var count = lineCount()
        for _ in 0..<1500 where count < expected {
            usleep(20_000)
            count = lineCount()
        }
        if pid > 0 {
            kill(pid, SIGTERM)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            pid = -1
        }
        count = lineCount()
        for file in [output, config, pidFile, socketPath] { _ = unlink(file) }
        return count
    }

    private func lineCount() -> Int {
        let fd = open(output, O_RDONLY)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var count = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return count }
            count += buffer[0..<n].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        }
    }
}
