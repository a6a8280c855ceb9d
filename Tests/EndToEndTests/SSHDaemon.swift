import Foundation
import Glibc
import Testing

/// A real sshd (Debian `openssh-server`) on a loopback port, with its own config, host key and
/// authorized key in a scratch directory, whose `ForceCommand` runs the built `ward`, as the
/// DEPLOYMENT section of ward(1) sets one up. The account is the one running the tests (root in
/// CI, which sshd lets in with a key).
///
/// The forced command records its process id before it becomes Ward (`exec`), so a test can
/// see that Ward is gone; sshd's own log is in `log`.
final class SSHDaemon {
    static let sshd = "/usr/sbin/sshd"
    static let ssh = "/usr/bin/ssh"
    static let keygen = "/usr/bin/ssh-keygen"

    let directory: URL
    let port: Int
    let pid: pid_t
    var log: String { directory.appendingPathComponent("sshd.log").path }
    var clientKey: String { directory.appendingPathComponent("client_key").path }
    /// Where the forced command writes Ward's process id.
    var wardPIDFile: String { directory.appendingPathComponent("ward.pid").path }

    /// Fails the test, naming the Debian package, when a program is not installed.
    static func requirePrograms() -> Bool {
        for (program, package) in [(sshd, "openssh-server"), (ssh, "openssh-client"), (keygen, "openssh-client")]
        where access(program, X_OK) != 0 {
            Issue.record("\(program) is not installed: install the Debian package '\(package)'")
            return false
        }
        return true
    }

    /// - Parameter environment: What sshd's `SetEnv` gives the session (the Ward home and site).
    init(environment: [String: String]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ward-sshd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        chmod(directory.path, 0o700)
        let dir = directory.path
        for key in ["host_key", "client_key"] {
            try TerminalHarness.run(Self.keygen, ["-q", "-t", "ed25519", "-N", "", "-f", dir + "/" + key])
            guard TerminalHarness.lastStatus == 0 else { throw TerminalHarness.HarnessError.failed("ssh-keygen") }
        }
        try FileManager.default.copyItem(atPath: dir + "/client_key.pub", toPath: dir + "/authorized_keys")
        // Privilege separation needs its empty directory when sshd runs as root.
        if geteuid() == 0 { mkdir("/run/sshd", 0o755) }
        port = try Self.freePort()
        let setEnv = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let forced = "echo $$ > \(TerminalHarness.shellQuote(dir + "/ward.pid")); exec \(TerminalHarness.wardPath)"
        let config = """
            Port \(port)
            ListenAddress 127.0.0.1
            HostKey \(dir)/host_key
            PidFile \(dir)/sshd.pid
            AuthorizedKeysFile \(dir)/authorized_keys
            UsePAM no
            StrictModes no
            PubkeyAuthentication yes
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            PermitRootLogin prohibit-password
            AllowUsers \(Self.currentUser)
            PermitUserRC no
            PermitUserEnvironment no
            DisableForwarding yes
            PermitTTY yes
            SetEnv \(setEnv)
            ForceCommand \(forced)

            """
        try config.write(toFile: dir + "/sshd_config", atomically: true, encoding: .utf8)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        pid = try TerminalHarness.spawn(
            Self.sshd,
            ["-D", "-f", dir + "/sshd_config", "-E", dir + "/sshd.log"],
            environment: ["PATH": "/usr/sbin:/usr/bin:/bin"],
            actions: &actions,
            ownProcessGroup: true
        )
        try waitUntilListening()
    }

    deinit {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        try? FileManager.default.removeItem(at: directory)
    }

    /// The ssh client's arguments for this daemon: the key, the port, no known-hosts file, no
    /// user configuration.
    func clientArguments(_ extra: [String] = []) -> [String] {
        [
            "-F", "/dev/null", "-i", clientKey, "-p", "\(port)", "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
            "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
        ] + extra + ["\(Self.currentUser)@127.0.0.1"]
    }

    /// `ssh HOST COMMAND` to its end, with `input` on standard input: status, output, errors.
    func run(_ command: String, input: String = "") throws -> (status: Int32, out: String, err: String) {
        let id = UUID().uuidString
        let inPath = directory.appendingPathComponent("in-\(id)").path
        let outPath = directory.appendingPathComponent("out-\(id)").path
        let errPath = directory.appendingPathComponent("err-\(id)").path
        try input.write(toFile: inPath, atomically: true, encoding: .utf8)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let child = try TerminalHarness.spawn(
            Self.ssh,
            clientArguments() + [command],
            environment: ["PATH": "/usr/bin:/bin", "HOME": directory.path],
            actions: &actions
        )
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        func text(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        return ((status >> 8) & 0xFF, text(outPath), text(errPath))
    }

    /// The processes sshd has started for connections (none once every session has ended).
    func sessionProcesses() -> [String] {
        ((try? TerminalHarness.run("/usr/bin/pgrep", ["-P", "\(pid)"])) ?? "").split(separator: "\n").map(String.init)
    }

    static var currentUser: String {
        guard let entry = getpwuid(getuid()), let name = entry.pointee.pw_name else { return "root" }
        return String(cString: name)
    }

    /// A loopback port nobody listens on now (the kernel's choice for port 0).
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw TerminalHarness.HarnessError.failed("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private func waitUntilListening() throws {
        try eventually("sshd to listen on port \(port)") { () throws -> Bool in
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(port).bigEndian
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            close(fd)
            if connected { return true }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                throw TerminalHarness.HarnessError.failed("sshd exited: \(text)")
            }
            return false
        }
    }
}
