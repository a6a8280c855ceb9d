import Foundation
import Glibc
import Testing

/// Real MRNs are 36-character UUIDs, too long to type. In a pseudo-terminal, a chart
/// opens by a row of the last `find`, by the first eight characters of its MRN, and by Tab
/// completing an MRN that `find` listed.
@Suite(.serialized) struct OpenByPrefixEndToEndTests {
    static let patients = [
        ("Hopper", "1a2b3c4d-0000-4000-8000-000000000001"),
        ("Lovelace", "5e6f7a8b-1111-4111-8111-111111111112"),
        ("Turing", "8f3e2a10-5c4b-4d1e-9a7f-2b6c0d9e1f35"),
    ]

    @Test func findThenOpenByRow_byPrefix_andByTab() throws {
        let t = try TerminalHarness(columns: 120, rows: 40)
        let environment = ["WARD_HOME": t.home.path, "WARD_SITE": t.siteFile.path, "HOME": t.directory.path]
        // One bundle per patient, each with its own resource id (the importer refuses one id with
        // two MRNs).
        for (index, (family, mrn)) in Self.patients.enumerated() {
            let file = t.directory.appendingPathComponent("\(family).json")
            let bundle = WipeCoreImageTests.bundle(family: family, mrn: mrn)
                .replacingOccurrences(of: "\"p1\"", with: "\"p\(index + 1)\"")
                .replacingOccurrences(of: "urn:uuid:p1", with: "urn:uuid:p\(index + 1)")
            try Data(bundle.utf8).write(to: file)
            let imported = try TerminalHarness.runToEnd(
                ["import", file.path],
                environment: environment,
                capturingIn: t.directory
            )
            #expect(imported.status == 0, "\(String(decoding: imported.err, as: UTF8.self))")
        }
        try t.signOn()
        let (hopper, lovelace, turing) = (Self.patients[0].1, Self.patients[1].1, Self.patients[2].1)

        try t.enter("find canary")
        try t.waitFor(turing)
        let rows = try t.screen().split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(rows.contains("1 \(hopper) Hopper, Canary 1970-01-02 female"))
        #expect(rows.contains("3 \(turing) Turing, Canary 1970-01-02 female"))

        try t.enter("open 1")
        try t.waitFor("Opened \(hopper): Hopper, Canary")
        try t.waitFor(TerminalHarness.chartPrompt(hopper))

        try t.enter("open \(turing.prefix(8))")
        try t.waitFor("Opened \(turing): Turing, Canary")
        try t.waitFor(TerminalHarness.chartPrompt(turing))

        // Lovelace was listed by `find`, not opened: Tab completes her MRN from the rows.
        try t.type("open 5e6f")
        try t.press("Tab")
        try t.waitFor("open \(lovelace)")
        try t.press("Enter")
        try t.waitFor("Opened \(lovelace): Lovelace, Canary")

        try t.enter("open 7")
        try t.waitFor("the last 'find' listed 3 rows; there is no row 7.")
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
    }
}
