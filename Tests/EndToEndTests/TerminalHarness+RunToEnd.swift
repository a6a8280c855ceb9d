import Foundation
import Glibc

extension TerminalHarness {
    /// Runs `ward ARGS` to its end with standard input from /dev/null (so, off a terminal, a
    /// script: `-`); its exit status and what it wrote, as raw bytes. `directory` holds the
    /// two capture files.
    static func runToEnd(
        _ arguments: [String],
        environment: [String: String],
        capturingIn directory: URL
    ) throws -> (status: Int32, out: [UInt8], err: [UInt8]) {
        let id = UUID().uuidString
        let outPath = directory.appendingPathComponent("out-\(id)").path
        let errPath = directory.appendingPathComponent("err-\(id)").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let pid = try spawn(wardPath, arguments, environment: environment, actions: &actions)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        func bytes(_ path: String) -> [UInt8] { [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()) }
        return ((status >> 8) & 0xFF, bytes(outPath), bytes(errPath))
    }
}
