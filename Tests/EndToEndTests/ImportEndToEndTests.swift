import Foundation
import Glibc
import Testing

/// `ward import` through the real binary: what a clerk sees when a bundle is refused.
@Suite struct ImportEndToEndTests {
    /// Runs `ward ARGS` to its end; its exit status and standard error.
    private func ward(_ arguments: [String], _ home: BatchHome) throws -> (status: Int32, stderr: String) {
        let err = home.directory.appendingPathComponent("stderr-\(UUID().uuidString)")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, err.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let pid = try TerminalHarness.spawn(
            TerminalHarness.wardPath,
            arguments,
            environment: home.environment,
            actions: &actions
        )
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return ((status >> 8) & 0xFF, (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }

    /// The patient `mrn`'s name and row counts, read with sqlite3 (not through Ward).
    private func chart(_ mrn: String, _ home: BatchHome) throws -> String {
        let sql = """
            SELECT p.given || ' ' || p.family,
              (SELECT count(*) FROM problem WHERE patient_id = p.id),
              (SELECT count(*) FROM observation WHERE id BETWEEN p.id << 20 AND (p.id << 20) + 1048575),
              (SELECT count(*) FROM encounter WHERE patient_id = p.id),
              (SELECT count(*) FROM patient)
            FROM patient p WHERE p.mrn = '\(mrn)'
            """
        return try TerminalHarness.run("/usr/bin/sqlite3", ["-readonly", home.home + "/records.sqlite", sql])
    }

    @Test func importingANewIDWithADemoPatientsMRN_exits65_namingFileIDsAndMRN_andChangesNothing() throws {
        let h = try BatchHome(patients: 20)
        let before = try chart("W0000011", h)
        #expect(before.contains("|"), "control: the demo patient exists")
        let bundle = h.directory.appendingPathComponent("evil.json")
        try Data(
            #"""
            {"resourceType": "Bundle", "entry": [
              {"fullUrl": "urn:uuid:intruder", "resource": {"resourceType": "Patient", "id": "intruder",
                "identifier": [{"type": {"coding": [{"code": "MR"}]}, "value": "W0000011"}],
                "name": [{"given": ["Mallory"], "family": "Evil"}]}},
              {"resource": {"resourceType": "Condition", "subject": {"reference": "urn:uuid:intruder"},
                "code": {"coding": [{"code": "1"}], "text": "Planted"}}}
            ]}
            """#.utf8
        ).write(to: bundle)
        let (status, stderr) = try ward(["import", bundle.path], h)
        #expect(status == 65)
        #expect(
            stderr.contains(
                "ward: \(bundle.path): Patient \"intruder\" has the MRN \"W0000011\", which a stored patient with no "
                    + "FHIR id holds; a patient is refreshed only when both its id and its MRN match; nothing of this "
                    + "bundle was imported"
            ),
            "\(stderr)"
        )
        #expect(!stderr.contains("constraint"))
        #expect(try chart("W0000011", h) == before)
    }

    @Test func importingAnMRNWithAnEscape_exits65_showingItEscaped() throws {
        let h = try BatchHome(patients: 5)
        let bundle = h.directory.appendingPathComponent("esc.json")
        try Data(
            #"""
            {"resourceType": "Bundle", "entry": [
              {"resource": {"resourceType": "Patient", "id": "p1",
                "identifier": [{"type": {"coding": [{"code": "MR"}]}, "value": "X\u001b]0;owned\u0007"}]}}
            ]}
            """#.utf8
        ).write(to: bundle)
        let (status, stderr) = try ward(["import", bundle.path], h)
        #expect(status == 65)
        #expect(stderr.contains(#"entry[0].resource.identifier[0].value: the MR identifier of Patient "p1""#))
        #expect(stderr.contains(#""X\e]0;owned\a""#), "\(stderr)")
        #expect(!stderr.utf8.contains(0x1B) && !stderr.utf8.contains(0x07))
    }
}
