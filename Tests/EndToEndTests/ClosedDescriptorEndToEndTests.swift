import Foundation
import Glibc
import Testing

/// Every subcommand started with standard input, output or error closed: nothing it prints
/// lands in a file Ward opens (the audit log, its head), the log still verifies, and the next
/// session signs on.
@Suite struct ClosedDescriptorEndToEndTests {
    /// The seven ways to start with some of 0, 1 and 2 closed.
    static let closings: [[Int32]] = [[0], [1], [2], [0, 1], [0, 2], [1, 2], [0, 1, 2]]

    /// Runs `ward ARGS` in `h` with the descriptors in `closed` closed; the others are a file
    /// holding `input` (0) and files in the home's directory (1, 2). Returns the exit status.
    private func ward(_ arguments: [String], closing closed: [Int32], input: String, _ h: BatchHome) throws -> Int32 {
        let inputPath = h.directory.appendingPathComponent("input").path
        try input.write(toFile: inputPath, atomically: true, encoding: .utf8)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in [0, 1, 2] {
            if closed.contains(fd) {
                posix_spawn_file_actions_addclose(&actions, fd)
            } else if fd == 0 {
                posix_spawn_file_actions_addopen(&actions, 0, inputPath, O_RDONLY, 0)
            } else {
                let path = h.directory.appendingPathComponent("fd\(fd)").path
                posix_spawn_file_actions_addopen(&actions, fd, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            }
        }
        let pid = try TerminalHarness.spawn(
            TerminalHarness.wardPath,
            arguments,
            environment: h.environment,
            actions: &actions
        )
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        return (raw & 0x7F) == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
    }

    /// Every line of every audit file is one JSON object: nothing else was written into them.
    private func auditFilesHoldOnlyRecords(_ h: BatchHome) throws -> Bool {
        let names = try FileManager.default.contentsOfDirectory(atPath: h.home).filter { $0.hasPrefix("audit.jsonl") }
        for name in names where !name.hasSuffix(".head") {
            let text = try String(contentsOfFile: h.home + "/" + name, encoding: .utf8)
            for line in text.split(separator: "\n") {
                guard (try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any] else { return false }
            }
        }
        return true
    }

    @Test func everySubcommand_withStandardDescriptorsClosed_writesNothingIntoTheAuditFiles() throws {
        let h = try BatchHome(patients: 5)
        let bundle = h.directory.appendingPathComponent("bundle.json")
        try Data(WipeCoreImageTests.bundle(family: "Turing", mrn: "T0000001").utf8).write(to: bundle)
        let signOn = ["--user", "demo", "--password-file", h.passwordFile]
        let commands: [[String]] = [
            ["-c", "find a"] + signOn,
            ["--batch", "-"] + signOn,
            ["import", bundle.path],
            ["user", "add", "carol", "--role", "clerk", "--password-stdin"],
            ["user", "passwd", "carol", "--password-stdin"],
            ["user", "unlock", "carol"],
            ["user", "remove", "carol"],
            ["user", "list"],
            ["sessions"],
            ["lock", "--all"],
            ["audit", "show"],
            ["audit", "verify"],
            ["audit", "rotate"],
            ["config", "check"],
            ["plugins"],
            ["demo", "--no-shell"],
            ["exec", "--", "/bin/true"],
            ["db", "migrate"],
        ]
        for command in commands {
            for closed in Self.closings {
                let status = try ward(command, closing: closed, input: "demo\nfind a\n", h)
                let what = "ward \(command.joined(separator: " ")) with \(closed) closed"
                #expect(status < 128, "\(what): exit \(status)")
                if command.first == "-c" {
                    // The find table cannot be written: the batch says so with 74.
                    #expect(status == (closed.contains(1) ? 74 : 0), "\(what): exit \(status)")
                }
                #expect(try h.verifyAudit() == 0, "\(what): the audit log no longer verifies")
                #expect(try auditFilesHoldOnlyRecords(h), "\(what): an audit file holds something else")
            }
            #expect(try ward(["-c", "whoami"] + signOn, closing: [], input: "", h) == 0, "after \(command)")
        }
    }

    @Test func aBatchWhoseStandardOutputIsClosed_exits74AfterItsFirstWrite_withItsRecords() throws {
        let h = try BatchHome(patients: 5)
        let script = try h.script(["whoami", "find a", "whoami"])
        let status = try ward(
            ["--batch", script, "--user", "demo", "--password-file", h.passwordFile],
            closing: [1],
            input: "",
            h
        )
        #expect(status == 74)
        let kinds = try h.auditRecords().compactMap { $0["kind"] as? String }
        // It stopped after the first line, whose output could not be written.
        #expect(kinds == ["sign-on", "command", "sign-off"], "\(kinds)")
        let stderr = try String(contentsOfFile: h.directory.appendingPathComponent("fd2").path, encoding: .utf8)
        #expect(stderr.contains("cannot write standard output after \(script):1"), "\(stderr)")
        #expect(try h.verifyAudit() == 0)
    }
}
