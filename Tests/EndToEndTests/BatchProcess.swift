import Foundation
import Glibc
import Testing

/// The real `ward` with standard input a pipe this test writes to (as a slow producer would),
/// standard output and error in files, and optionally a password on descriptor 3.
final class BatchProcess {
    let pid: pid_t
    private var input: Int32
    private let outFile: String
    private let errFile: String
    private var status: Int32?

    init(_ arguments: [String], environment: [String: String], directory: URL, descriptor3: String?) throws {
        let id = UUID().uuidString
        outFile = directory.appendingPathComponent("out-\(id)").path
        errFile = directory.appendingPathComponent("err-\(id)").path
        let stdinPipe = try Self.pipe()
        var secretPipe: [Int32] = [-1, -1]
        if let descriptor3 {
            secretPipe = try Self.pipe()
            var bytes = Array(descriptor3.utf8)
            _ = write(secretPipe[1], &bytes, bytes.count)
            close(secretPipe[1])
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdinPipe[0], 0)
        posix_spawn_file_actions_addopen(&actions, 1, outFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if descriptor3 != nil { posix_spawn_file_actions_adddup2(&actions, secretPipe[0], 3) }
        defer {
            close(stdinPipe[0])
            if descriptor3 != nil { close(secretPipe[0]) }
        }
        let pid = try TerminalHarness.spawn(
            TerminalHarness.wardPath,
            arguments,
            environment: environment,
            actions: &actions,
            ownProcessGroup: true
        )
        self.pid = pid
        self.input = stdinPipe[1]
    }

    /// A pipe whose ends no other child inherits (`posix_spawn`'s dup2 clears the flag for
    /// the child's own copy).
    private static func pipe() throws -> [Int32] {
        var fds: [Int32] = [-1, -1]
        guard Glibc.pipe(&fds) == 0 else { throw TerminalHarness.HarnessError.failed("pipe") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return fds
    }

    deinit {
        if status == nil {
            kill(pid, SIGKILL)
            var s: Int32 = 0
            waitpid(pid, &s, 0)
        }
        if input >= 0 { close(input) }
    }

    /// Lines for standard input, each ended with a newline. After Ward has gone they go nowhere
    /// (EPIPE, not a SIGPIPE that would end the test process).
    func send(_ lines: String...) {
        signal(SIGPIPE, SIG_IGN)
        var bytes = Array(lines.map { $0 + "\n" }.joined().utf8)
        _ = write(input, &bytes, bytes.count)
    }

    /// Bytes for standard input as they are, no newline added.
    func sendRaw(_ text: String) {
        signal(SIGPIPE, SIG_IGN)
        var bytes = Array(text.utf8)
        _ = write(input, &bytes, bytes.count)
    }

    /// Closes standard input: the script ends.
    func closeInput() {
        if input >= 0 { close(input) }
        input = -1
    }

    var standardOutput: String { (try? String(contentsOfFile: outFile, encoding: .utf8)) ?? "" }
    var standardError: String { (try? String(contentsOfFile: errFile, encoding: .utf8)) ?? "" }

    /// Waits until standard output or error (`inError`) contains `text`.
    func waitFor(
        _ text: String,
        inError: Bool = false,
        timeout: Duration = .seconds(10),
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try eventually(
            "\(text.debugDescription) on standard \(inError ? "error" : "output")",
            timeout: timeout,
            detail: "stdout: \(standardOutput) stderr: \(standardError)",
            sourceLocation: sourceLocation
        ) { (inError ? standardError : standardOutput).contains(text) }
    }

    /// The exit status, waiting at most `timeout`.
    func waitForExit(
        timeout: Duration = .seconds(60),
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Int32 {
        if let status { return status }
        let code = try eventually(
            "ward to exit",
            timeout: timeout,
            detail: "stderr: \(standardError)",
            sourceLocation: sourceLocation
        ) { () -> Int32? in
            var raw: Int32 = 0
            guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
            return (raw & 0x7F) == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
        }
        status = code
        return code
    }
}
