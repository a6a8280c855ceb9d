import Foundation
import Glibc
import Testing

/// A Ward home with demo records (`ward demo`, user demo/demo) and a site file, for running the
/// real binary in batch mode with pipes and files in place of a terminal.
final class BatchHome {
    let directory: URL
    var home: String { directory.appendingPathComponent("home").path }
    var site: String { directory.appendingPathComponent("site.toml").path }
    var passwordFile: String { directory.appendingPathComponent("password").path }
    var environment: [String: String] {
        [
            "WARD_HOME": home, "WARD_SITE": site, "HOME": directory.path, "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin",
            "TZ": "UTC",
        ]
    }

    /// `patients` synthetic patients (seed 1: `W0000011` is Alvarez, Brandon) and a password
    /// file holding `demo`, mode 0600. Demo's hash is then the cheap one
    /// (`TerminalHarness.cheapHash`) unless `standardCost`: for the tests about scrypt itself.
    init(
        site: String = "[[plugin]]\nname = \"audit-log\"\n" + TerminalHarness.unguarded,
        patients: Int = 200,
        standardCost: Bool = false
    ) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ward-batch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try site.write(toFile: self.site, atomically: true, encoding: .utf8)
        _ = try TerminalHarness.run(
            TerminalHarness.wardPath,
            ["demo", "--patients", "\(patients)", "--no-shell"],
            environment: environment
        )
        guard TerminalHarness.lastStatus == 0 else {
            throw TerminalHarness.HarnessError.failed("ward demo: exit \(TerminalHarness.lastStatus)")
        }
        try writeSecret("demo\n", to: passwordFile)
        if !standardCost { try TerminalHarness.useCheapHash(home: home, user: "demo", hash: Self.cheapHash) }
        recordsOfTheSetup = try allAuditRecords().count
    }

    /// `demo` at `ScryptParameters.testing` with `TerminalHarness.cheapHash`'s salt.
    static let cheapHash =
        "$scrypt$ln=4,r=8,p=1$5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a$"
        + "be07808da74af265e90c285378db24632bfaace401a340699cbbd7922dd4d2e5"

    /// How many records `ward demo` wrote making the home (`demo`, `user-add`).
    private var recordsOfTheSetup = 0

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    func writeSecret(_ text: String, to path: String, mode: mode_t = 0o600) throws {
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, mode)
    }

    /// A script file in the home's directory.
    func script(_ lines: [String], name: String = "script.ward") throws -> String {
        let path = directory.appendingPathComponent(name).path
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The records written since the home was made, one object per record: what the test did,
    /// without `ward demo`'s own (`allAuditRecords()` has those too).
    func auditRecords() throws -> [[String: Any]] {
        Array(try allAuditRecords().dropFirst(recordsOfTheSetup))
    }

    /// Every record of the home's audit log and its rotated files (FILE.N … FILE.1, then FILE),
    /// read from the files: `ward audit show` would add a record of its own reading.
    func allAuditRecords() throws -> [[String: Any]] {
        let log = home + "/audit.jsonl"
        let rotated = try FileManager.default.contentsOfDirectory(atPath: home).compactMap { name -> Int? in
            guard name.hasPrefix("audit.jsonl.") else { return nil }
            return Int(name.dropFirst("audit.jsonl.".count))
        }
        let files = rotated.sorted(by: >).map { "\(log).\($0)" } + [log]
        return try files.filter { FileManager.default.fileExists(atPath: $0) }.flatMap { file in
            try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
    }

    /// `ward audit verify`'s exit status.
    func verifyAudit() throws -> Int32 {
        _ = try TerminalHarness.run(TerminalHarness.wardPath, ["audit", "verify"], environment: environment)
        return TerminalHarness.lastStatus
    }

    /// Starts `ward ARGS` in this home.
    func start(_ arguments: [String], passwordOnDescriptor3: String? = nil) throws -> BatchProcess {
        try BatchProcess(arguments, environment: environment, directory: directory, descriptor3: passwordOnDescriptor3)
    }
}
