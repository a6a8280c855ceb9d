import Foundation
import Testing

/// The man pages as `man` renders them on an 80-column terminal: no troff warning (a table wider
/// than the line, a character troff cannot find), and one header for the three.
@Suite struct ManPageTests {
    static let pages = ["ward.1", "ward-site.toml.5", "ward-audit.5"]

    @Test(arguments: pages)
    func rendersAt80Columns_withoutWarnings(page: String) throws {
        let path = AuditRotationEndToEndTests.repository + "/man/" + page
        let warnings = try TerminalHarness.run(
            "/bin/sh",
            ["-c", "man --warnings -l \(TerminalHarness.shellQuote(path)) 2>&1 >/dev/null"],
            environment: ["MANWIDTH": "80", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "MAN_KEEP_FORMATTING": "0"]
        )
        #expect(TerminalHarness.lastStatus == 0, "man is missing: scripts/install-deps installs man-db")
        #expect(warnings.isEmpty, "\(page): \(warnings)")
    }

    /// `.TH NAME SECTION DATE SOURCE MANUAL`: the date and the source agree across the pages.
    @Test func theHeadersAgree() throws {
        let headers = try Self.pages.map { page in
            let text = try String(
                contentsOfFile: AuditRotationEndToEndTests.repository + "/man/" + page,
                encoding: .utf8
            )
            let line = text.split(separator: "\n").first { $0.hasPrefix(".TH ") } ?? ""
            let quoted = line.split(separator: "\"").enumerated().filter { $0.offset % 2 == 1 }.map {
                String($0.element)
            }
            return quoted.prefix(2).joined(separator: " / ")
        }
        #expect(Set(headers).count == 1, "\(headers)")
        #expect(headers.first == "November 2026 / Ward 0.1.0")
    }
}
