import Foundation
import Glibc
import Testing

/// An auditor answers "who opened this patient's chart, when, and was it allowed?"
/// from the audit log, for an MRN as Synthea writes them (a 36-character UUID), through the real
/// binary: the shell says what it did, and `ward audit show --mrn` finds it.
@Suite struct AccessAuditEndToEndTests {
    static let uuid = "8f3e2a10-5c4b-4d1e-9a7f-2b6c0d9e1f35"

    /// `ward audit show --mrn MRN --format json`, one object per record.
    private func records(mrn: String, _ h: BatchHome) throws -> [[String: Any]] {
        let text = try TerminalHarness.run(
            TerminalHarness.wardPath,
            ["audit", "show", "--mrn", mrn, "--format", "json"],
            environment: h.environment
        )
        #expect(TerminalHarness.lastStatus == 0)
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// A demo home with the UUID patient imported from a bundle and a clerk, `clara`.
    private func home() throws -> (home: BatchHome, clerkPasswordFile: String) {
        let h = try BatchHome(patients: 20)
        let bundle = h.directory.appendingPathComponent("synthea.json")
        try Data(WipeCoreImageTests.bundle(family: "Turing", mrn: Self.uuid).utf8).write(to: bundle)
        try TerminalHarness.run(TerminalHarness.wardPath, ["import", bundle.path], environment: h.environment)
        #expect(TerminalHarness.lastStatus == 0, "ward import")
        try TerminalHarness.run(
            TerminalHarness.wardPath,
            ["user", "add", "clara", "--role", "clerk", "--password-stdin"],
            environment: h.environment,
            input: "clerk's password\n"
        )
        #expect(TerminalHarness.lastStatus == 0, "ward user add")
        let clerkPasswordFile = h.directory.appendingPathComponent("clerk-password").path
        try h.writeSecret("clerk's password\n", to: clerkPasswordFile)
        return (h, clerkPasswordFile)
    }

    /// Runs `lines` as a batch of `user`; its exit status.
    private func batch(_ lines: [String], user: String, passwordFile: String, _ h: BatchHome) throws -> Int32 {
        let script = try h.script(lines, name: "\(user)-\(UUID().uuidString).ward")
        let p = try h.start([
            "--batch", script, "--user", user, "--password-file", passwordFile, "--on-error", "continue",
        ])
        return try p.waitForExit()
    }

    @Test func aUUIDsOpen_aClerksShowLabs_andAnUnknownMRN_areFoundByMRN_withTheirOutcomes() throws {
        let (h, clerkPasswordFile) = try home()
        #expect(try batch(["open \(Self.uuid)", "open W9999999"], user: "demo", passwordFile: h.passwordFile, h) == 1)
        #expect(
            try batch(
                ["open \(Self.uuid.uppercased())", "show labs", "show"],
                user: "clara",
                passwordFile: clerkPasswordFile,
                h
            ) == 1
        )

        let found = try records(mrn: Self.uuid, h)
        // Only what was done to this patient: the access records, never the lines' own.
        #expect(found.allSatisfy { $0["kind"] as? String == "access" && $0["mrn"] as? String == Self.uuid })
        let summary = found.map { record in
            [record["user"], record["action"], record["section"], record["outcome"]].map { ($0 as? String) ?? "-" }
        }
        #expect(
            summary == [
                ["demo", "open", "-", "ok"],
                ["clara", "open", "-", "ok"],
                ["clara", "read", "labs", "denied"],
                ["clara", "read", "summary", "ok"],
            ]
        )

        let unknown = try records(mrn: "W9999999", h)
        #expect(unknown.count == 1)
        #expect(unknown.first?["action"] as? String == "open" && unknown.first?["outcome"] as? String == "failed")
        #expect(unknown.first?["user"] as? String == "demo")

        let table = try TerminalHarness.run(
            TerminalHarness.wardPath,
            ["audit", "show", "--mrn", Self.uuid],
            environment: h.environment
        )
        let rows = table.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(rows.contains { $0.hasSuffix("access ok action=open mrn=\(Self.uuid)") })
        #expect(rows.contains { $0.hasSuffix("access denied action=read mrn=\(Self.uuid) section=labs") })

        // The lines themselves are on record by their command's name, before they ran.
        let commands = try h.auditRecords().filter { $0["kind"] as? String == "command" }
        #expect(commands.map { $0["command"] as? String } == ["open", "open", "open", "show", "show"])
        #expect(try h.verifyAudit() == 0)
    }

    /// A `find`'s rows are written as one group (one write, one sync), each patient its own
    /// `list` record: `ward audit show --mrn` finds every patient a search showed, and the
    /// chain verifies.
    @Test func everyPatientAFindListed_isFoundByMRN_andTheChainVerifies() throws {
        let h = try BatchHome(patients: 20)
        let lines = ["find a", "find b", "find c", "find d", "find e", "find m", "find s"]
        let script = try h.script(lines, name: "finds.ward")
        let p = try h.start([
            "--batch", script, "--user", "demo", "--password-file", h.passwordFile, "--format", "json",
        ])
        #expect(try p.waitForExit() == 0)
        let listed = p.standardOutput.split(separator: "\n").flatMap { line -> [String] in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            let rows = object?["rows"] as? [[String: Any]] ?? []
            return rows.compactMap { $0["mrn"] as? String }
        }
        #expect(listed.count >= 2, "the searches listed patients")
        for mrn in Set(listed) {
            let found = try records(mrn: mrn, h)
            #expect(found.contains { $0["action"] as? String == "list" && $0["outcome"] as? String == "ok" })
            #expect(found.allSatisfy { $0["user"] as? String == "demo" })
        }
        let all = try h.auditRecords().filter { $0["action"] as? String == "list" }
        #expect(all.count == listed.count, "one record for each row shown")
        #expect(try h.verifyAudit() == 0)
    }
}
