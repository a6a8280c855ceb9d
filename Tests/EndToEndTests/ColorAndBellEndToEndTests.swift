import FHIRTestSupport
import Foundation
import Testing

/// `[display] color` and `bell` in the user file, through the real binary: bold table headers
/// and a yellow idle warning at a terminal, none with `NO_COLOR` or `color = "never"`, none off
/// a terminal (`ward -c`, a batch), and the bell with the warning when asked.
@Suite(.serialized) struct ColorAndBellEndToEndTests {
    static let headerOn = "\u{1B}[1m"
    static let warningOn = "\u{1B}[1;33m"
    static let reset = "\u{1B}[0m"
    static let bel = "\u{07}"

    static let idleSite = """
        [session]
        idle-timeout = "2s"
        warn-before = "1s"

        [[plugin]]
        name = "idle-timer"
        """ + TerminalHarness.unguarded

    /// A config directory (`XDG_CONFIG_HOME`) whose `ward/config.toml` holds `display`; the
    /// caller removes it.
    private static func configDirectory(_ display: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ward-config-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("ward"),
            withIntermediateDirectories: true
        )
        try ("[display]\n" + display + "\n").write(
            to: directory.appendingPathComponent("ward/config.toml"),
            atomically: true,
            encoding: .utf8
        )
        return directory
    }

    /// Starts Ward in a pane with `environment`, imports one patient, records the pane's raw
    /// bytes from the first prompt; signs on. `NO_COLOR` is empty unless `environment` sets it:
    /// the test runner sets it to 1, and an empty value is no request (no-color.org).
    private static func session(
        site: String = "plugin = []\n" + TerminalHarness.unguarded,
        environment: [String: String]
    ) throws -> (
        TerminalHarness, String
    ) {
        let t = try TerminalHarness(site: site, environment: ["NO_COLOR": ""].merging(environment) { $1 })
        let file = t.directory.appendingPathComponent("one.json")
        try Bundles.bundle([Bundles.patient("p1", given: ["Ada"], family: "Lovelace", mrn: "M1")]).write(to: file)
        let imported = try TerminalHarness.runToEnd(
            ["import", file.path],
            environment: ["WARD_HOME": t.home.path, "WARD_SITE": t.siteFile.path, "HOME": t.directory.path],
            capturingIn: t.directory
        )
        #expect(imported.status == 0)
        let raw = t.directory.appendingPathComponent("pane.raw").path
        try t.tmux(["pipe-pane", "-o", "cat >> " + TerminalHarness.shellQuote(raw)])
        try t.signOn()
        return (t, raw)
    }

    private static func bytes(_ t: TerminalHarness, _ raw: String) throws -> String {
        try t.stopPipingPane(to: raw)
        return String(decoding: try Data(contentsOf: URL(fileURLWithPath: raw)), as: UTF8.self)
    }

    private static func findAndLogOut(_ t: TerminalHarness) throws {
        try t.enter("find lovelace")
        try t.waitFor("Lovelace, Ada")
        try t.enter("logout")
        #expect(try t.waitForExit() == 0)
    }

    @Test func aTerminal_showsHeadersInBold_byDefault() throws {
        let (t, raw) = try Self.session(environment: [:])
        try Self.findAndLogOut(t)
        let pane = try Self.bytes(t, raw)
        #expect(pane.contains(Self.headerOn + "#  MRN  NAME"))
        #expect(pane.contains("SEX" + Self.reset))
        // The row under it is plain.
        #expect(pane.contains("1  M1   Lovelace, Ada"))
    }

    @Test func NO_COLOR_ofAnyValue_andNever_turnColourOff() throws {
        for (environment, config) in [(["NO_COLOR": "1"], nil), ([:], "color = \"never\"")]
            as [([String: String], String?)]
        {
            var environment = environment
            let directory = try config.map(Self.configDirectory)
            defer { directory.map { try? FileManager.default.removeItem(at: $0) } }
            if let directory { environment["XDG_CONFIG_HOME"] = directory.path }
            let (t, raw) = try Self.session(environment: environment)
            try Self.findAndLogOut(t)
            let pane = try Self.bytes(t, raw)
            #expect(pane.contains("#  MRN  NAME"))
            #expect(!pane.contains(Self.headerOn) && !pane.contains(Self.reset), "\(environment)")
        }
    }

    @Test func offATerminal_thereIsNoColour_evenWithAlways() throws {
        let config = try Self.configDirectory("color = \"always\"\nbell = true")
        defer { try? FileManager.default.removeItem(at: config) }
        let t = try TerminalHarness()
        let file = t.directory.appendingPathComponent("one.json")
        try Bundles.bundle([Bundles.patient("p1", given: ["Ada"], family: "Lovelace", mrn: "M1")]).write(to: file)
        let environment = [
            "WARD_HOME": t.home.path, "WARD_SITE": t.siteFile.path, "HOME": t.directory.path,
            "XDG_CONFIG_HOME": config.path,
        ]
        _ = try TerminalHarness.runToEnd(["import", file.path], environment: environment, capturingIn: t.directory)
        let password = t.directory.appendingPathComponent("password").path
        try (TerminalHarness.password + "\n").write(toFile: password, atomically: false, encoding: .utf8)
        chmod(password, 0o600)
        let script = t.directory.appendingPathComponent("s.ward").path
        try "find lovelace\n".write(toFile: script, atomically: true, encoding: .utf8)
        for arguments in [["-c", "find lovelace"], ["--batch", script]] {
            let run = try TerminalHarness.runToEnd(
                arguments + ["--user", TerminalHarness.user, "--password-file", password],
                environment: environment,
                capturingIn: t.directory
            )
            let out = String(decoding: run.out + run.err, as: UTF8.self)
            #expect(run.status == 0, "\(arguments): \(out)")
            #expect(out.contains("#  MRN  NAME"), "\(arguments)")
            #expect(!out.contains("\u{1B}") && !out.contains(Self.bel), "\(arguments)")
        }
    }

    @Test func theIdleWarning_isYellow_andRingsTheBell_whenAsked() throws {
        let config = try Self.configDirectory("bell = true")
        defer { try? FileManager.default.removeItem(at: config) }
        let (t, raw) = try Self.session(site: Self.idleSite, environment: ["XDG_CONFIG_HOME": config.path])
        try t.waitFor("ward: locking in", timeout: .seconds(5))
        try t.waitFor("Ward is locked", timeout: .seconds(5))
        try t.unlock()
        try t.waitFor("ward>")
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
        let pane = try Self.bytes(t, raw)
        #expect(pane.contains(Self.bel + Self.warningOn + "ward: locking in 1 s" + Self.reset))
    }

    @Test func theIdleWarning_withoutTheBell_ringsNothing_andNO_COLORLeavesItPlain() throws {
        let (t, raw) = try Self.session(site: Self.idleSite, environment: ["NO_COLOR": "yes"])
        try t.waitFor("ward: locking in", timeout: .seconds(5))
        try t.waitFor("Ward is locked", timeout: .seconds(5))
        try t.unlock()
        try t.waitFor("ward>")
        try t.press("C-d")
        #expect(try t.waitForExit() == 0)
        let pane = try Self.bytes(t, raw)
        #expect(pane.contains("ward: locking in 1 s"))
        // (readline's own wipe at the lock may ring; the warning does not.)
        #expect(!pane.contains(Self.bel + "ward: locking in") && !pane.contains(Self.warningOn))
    }
}
