import Foundation
import Testing

/// An auditor's questions put to `ward audit show` and `ward audit report`, the real binary, on
/// records a batch wrote: who opened a patient, several users at once, an MRN typed in lower case
/// or by its start, times with an offset, counts, and a CSV read back.
@Suite(.serialized) struct AuditQuestionsEndToEndTests {
    static func home() throws -> BatchHome {
        let h = try BatchHome(patients: 100)
        let script = try h.script([
            "find alvarez", "open W0000011", "show", "note Seen.", "open W0000076 --reason Mother asked", "close",
        ])
        let p = try h.start(["--batch", script, "--user", "demo", "--password-file", h.passwordFile])
        #expect(try p.waitForExit() == 0, "\(p.standardError)")
        return h
    }

    /// `ward ARGS` in the home: standard output, standard error and the exit status.
    static func ward(_ h: BatchHome, _ arguments: [String]) throws -> (out: String, err: String, status: Int32) {
        let run = try TerminalHarness.runToEnd(arguments, environment: h.environment, capturingIn: h.directory)
        return (String(decoding: run.out, as: UTF8.self), String(decoding: run.err, as: UTF8.self), run.status)
    }

    /// The auditor audrey in the home; returns the path of a file holding her password.
    static func addAuditor(to h: BatchHome) throws -> String {
        _ = try TerminalHarness.run(
            TerminalHarness.wardPath,
            ["user", "add", "audrey", "--role", "auditor", "--password-stdin"],
            environment: h.environment,
            input: "audrey password\n"
        )
        try #require(TerminalHarness.lastStatus == 0)
        let password = h.directory.appendingPathComponent("audrey").path
        try h.writeSecret("audrey password\n", to: password)
        return password
    }

    /// `line` asked in the shell by the auditor, in a batch of its own in `format`: what it
    /// printed, what it said on standard error, and its exit status.
    static func auditorAsks(
        _ line: String,
        in h: BatchHome,
        password: String,
        format: String = "text"
    ) throws -> (out: String, err: String, status: Int32) {
        let script = try h.script([line], name: "question-\(UUID().uuidString).ward")
        let p = try h.start(["--batch", script, "--user", "audrey", "--password-file", password, "--format", format])
        let status = try p.waitForExit()
        return (p.standardOutput, p.standardError, status)
    }

    /// `time` as a wall-clock time at -05:00, to the minute: `2026-11-27T05:33-05:00`.
    static func atMinusFive(_ time: Date) -> String {
        var parts = tm()
        var seconds = time_t(time.timeIntervalSince1970 - 5 * 3600)
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d-05:00",
            Int(parts.tm_year) + 1900,
            Int(parts.tm_mon) + 1,
            Int(parts.tm_mday),
            Int(parts.tm_hour),
            Int(parts.tm_min)
        )
    }

    /// CSV as Ward writes it (CRLF records, no quoted cell in these answers), split into cells.
    static func cells(_ csv: String) -> [[String]] {
        csv.components(separatedBy: "\r\n").dropLast().map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
    }

    @Test func whoOpenedAPatient_byLowerCaseMRN_orItsStart_asCSVReadBack() throws {
        let h = try Self.home()
        let (out, err, status) = try Self.ward(
            h,
            ["audit", "show", "--mrn", "w0000011", "--action", "open", "--action", "read", "--format", "csv"]
        )
        #expect(status == 0 && err.isEmpty, "\(err)")
        let rows = out.split(separator: "\r\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        let header = try #require(rows.first).map(String.init)
        let action = try #require(header.firstIndex(of: "action"))
        let mrn = try #require(header.firstIndex(of: "mrn"))
        #expect(rows.dropFirst().map { String($0[action]) } == ["open", "read"])
        #expect(rows.dropFirst().allSatisfy { $0[mrn] == "W0000011" })

        let ambiguous = try Self.ward(h, ["audit", "show", "--mrn", "w00000"])
        #expect(ambiguous.status == 64)
        #expect(ambiguous.err.contains("several MRNs in the log start with 'w00000': W0000011, W0000076"))
        let nobody = try Self.ward(
            h,
            ["audit", "show", "--user", "demo", "--user", "nosuchuser", "--count-by", "user"]
        )
        #expect(nobody.status == 0)
        #expect(nobody.err.contains("names the user 'nosuchuser'"))
        #expect(nobody.out.hasPrefix("USER  COUNT\ndemo  "))
    }

    @Test func timesWithAnOffset_areTheInstantMeant() throws {
        let h = try Self.home()
        // Every record is from the last minutes: an hour ago at -05:00 is an hour ago in UTC.
        let local = Self.atMinusFive(Date().addingTimeInterval(-3600))
        let all = try Self.ward(h, ["audit", "show", "--since", local, "--count-by", "action", "--format", "json"])
        #expect(all.status == 0, "\(all.err)")
        #expect(all.out.contains(#"{"action":"open","count":2}"#))
        let none = try Self.ward(h, ["audit", "show", "--until", local, "--mrn", "W0000011"])
        #expect(none.out.split(separator: "\n").count == 1, "only the header: nothing before an hour ago")
        let refused = try Self.ward(h, ["audit", "show", "--since", "2026-11-27T10:33-5"])
        #expect(refused.status == 64)
    }

    @Test func theAccountingOfOneRecord_namesThePatient_andEveryAccessByDay() throws {
        let h = try Self.home()
        let (out, err, status) = try Self.ward(h, ["audit", "report", "--mrn", "w0000076"])
        #expect(status == 0, "\(err)")
        let lines = out.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(lines[0].hasPrefix("Accesses to the record of ") && lines[0].contains("(MRN W0000076): 3 in 1 day"))
        #expect(lines.contains { $0.contains("demo clinician break-glass ok Mother asked") })
        #expect(lines.contains { $0.contains("demo clinician open ok") })
        let json = try Self.ward(h, ["audit", "report", "--mrn", "W0000011", "--format", "json"])
        let object = try #require(JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        #expect(object["mrn"] as? String == "W0000011" && object["name"] as? String == "Alvarez, Brandon")
        let accesses = (object["days"] as? [[String: Any]])?.flatMap { ($0["accesses"] as? [[String: Any]]) ?? [] }
        #expect(accesses?.compactMap { $0["action"] as? String } == ["list", "open", "read", "write"])
    }

    /// An auditor signed on to Ward asks in the shell, with no Unix access to the home: the
    /// same filters and the same accounting as the command line, each reading on record before
    /// it is shown; a clinician's `audit` is refused and recorded as a denied reading.
    @Test func inTheShell_anAuditorAsks_andEveryReadingIsOnRecord_whileAClinicianIsRefused() throws {
        let h = try Self.home()
        let auditorPassword = try Self.addAuditor(to: h)
        let questions = try h.script(
            [
                "audit --mrn w0000011 --action open --action read",
                "audit --user demo --user nosuchuser --count-by action",
                "audit report w0000076",
            ],
            name: "auditor.ward"
        )
        let p = try h.start(["--batch", questions, "--user", "audrey", "--password-file", auditorPassword])
        #expect(try p.waitForExit() == 0, "\(p.standardError)")
        let out = p.standardOutput
        let table = out.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(table.filter { $0.contains("access ok action=open mrn=W0000011") }.count == 1)
        #expect(table.filter { $0.contains("access ok action=read mrn=W0000011") }.count == 1)
        #expect(!out.contains("W0000076 ") || out.contains("Accesses to the record of"))
        #expect(table.contains { $0.hasPrefix("open 2") }, "two opens counted: \(out)")
        #expect(out.contains("warning: no record of ") && out.contains("names the user 'nosuchuser'"))
        #expect(out.contains("(MRN W0000076): 3 in 1 day"))
        #expect(table.contains { $0.contains("demo clinician break-glass ok Mother asked") })

        let clinician = try h.script(["audit --user demo"], name: "clinician.ward")
        let refused = try h.start(["--batch", clinician, "--user", "demo", "--password-file", h.passwordFile])
        #expect(try refused.waitForExit() == 1)
        #expect(refused.standardError.contains("'audit' is not allowed for the clinician role."))

        let readings = try h.auditRecords().filter { $0["kind"] as? String == "audit-read" }
        #expect(
            readings.map { "\($0["user"] ?? "-") \($0["outcome"] ?? "-") \($0["question"] ?? "-")" } == [
                "audrey ok --mrn w0000011 --action open --action read",
                "audrey ok --user demo --user nosuchuser --count-by action",
                "audrey ok report w0000076",
                "demo denied --user demo",
            ]
        )
        #expect(try h.verifyAudit() == 0)
    }

    /// The same at a terminal, as people type it: a clinician's `audit` is refused on screen,
    /// and an auditor signed on in a second session of the home sees the count of what was
    /// done, that refusal among it.
    @Test func atATerminal_aClinicianIsRefused_andAnAuditorSeesTheRefusalCounted() throws {
        let site = "[[plugin]]\nname = \"audit-log\"\n" + TerminalHarness.unguarded
        let clinician = try TerminalHarness(site: site)
        try clinician.signOn()
        try clinician.enter("audit --count-by outcome")
        try clinician.waitFor("'audit' is not allowed for the clinician role.")
        _ = try TerminalHarness.run(
            TerminalHarness.wardPath,
            ["user", "add", "audrey", "--role", "auditor", "--password-stdin"],
            environment: [
                "WARD_HOME": clinician.home.path, "WARD_SITE": clinician.siteFile.path,
                "HOME": clinician.home.path,
            ],
            input: "audrey password\n"
        )
        try #require(TerminalHarness.lastStatus == 0)
        let auditor = try TerminalHarness(sharing: clinician)
        try auditor.waitFor("Username:")
        try auditor.enter("audrey")
        try auditor.waitFor("Password for audrey:")
        try auditor.enter("audrey password")
        try auditor.waitFor("ward>")
        try auditor.enter("audit --kind audit-read --count-by outcome")
        try auditor.waitFor("OUTCOME")
        try auditor.waitFor("denied")
    }

    /// An auditor in the shell names a time at -05:00, an hour from now: records until then
    /// are every access to the chart, and none is from then on. Read as UTC (five hours
    /// earlier), both answers would be the other way round. The answers, as CSV (`--format csv`
    /// in a batch, `format csv` at a terminal), parse back to the very rows `ward audit show
    /// --format csv` prints for the same question: every field of each record.
    @Test func inTheShell_anOffsetTime_isTheInstantMeant_andTheCSVIsTheCommandLines() throws {
        let h = try Self.home()
        let password = try Self.addAuditor(to: h)
        let later = Self.atMinusFive(Date().addingTimeInterval(3600))

        let until = try Self.auditorAsks(
            "audit --mrn w0000011 --until \(later)",
            in: h,
            password: password,
            format: "csv"
        )
        #expect(until.status == 0, "\(until.err)")
        let rows = Self.cells(until.out)
        let header = try #require(rows.first)
        #expect(Array(header.prefix(4)) == ["seq", "ver", "ts", "host"] && header.contains("hash"))
        let action = try #require(header.firstIndex(of: "action"))
        let mrn = try #require(header.firstIndex(of: "mrn"))
        #expect(rows.dropFirst().map { $0[action] } == ["list", "open", "read", "write", "write"])
        #expect(rows.dropFirst().allSatisfy { $0[mrn] == "W0000011" && $0.count == header.count })
        let commandLine = try Self.ward(h, ["audit", "show", "--mrn", "w0000011", "--until", later, "--format", "csv"])
        #expect(commandLine.status == 0)
        #expect(commandLine.out == until.out)

        let since = try Self.auditorAsks(
            "audit --mrn w0000011 --since \(later)",
            in: h,
            password: password,
            format: "csv"
        )
        #expect(since.status == 0, "\(since.err)")
        #expect(Self.cells(since.out).count <= 1, "nothing is from an hour ahead on: \(since.out)")
        let earlier = Self.atMinusFive(Date().addingTimeInterval(-3600))
        let hourAgo = try Self.auditorAsks(
            "audit --mrn w0000011 --since \(earlier) --count-by action",
            in: h,
            password: password,
            format: "csv"
        )
        #expect(
            Self.cells(hourAgo.out) == [
                ["action", "count"], ["write", "2"], ["list", "1"], ["open", "1"], ["read", "1"],
            ]
        )
        let refused = try Self.auditorAsks("audit --since 2026-11-27T10:33-5", in: h, password: password)
        #expect(refused.status == 1 && refused.err.contains("is not a time"), "\(refused.err)")
    }

    /// A warning quotes what was typed once escaped, as every message does: a backslash in a
    /// user's name shows as `\\`, never `\\\\`, in the shell and on the command line.
    @Test func aWarning_quotesWhatWasTyped_escapedOnce() throws {
        let h = try Self.home()
        let password = try Self.addAuditor(to: h)
        let shell = try Self.auditorAsks(#"audit --user 'no\body' --count-by user"#, in: h, password: password)
        #expect(shell.status == 0, "\(shell.err)")
        #expect(shell.out.contains(#"names the user 'no\\body'."#), "\(shell.out)")
        #expect(!shell.out.contains(#"no\\\\body"#))
        let commandLine = try Self.ward(h, ["audit", "show", "--user", #"no\body"#])
        #expect(commandLine.err.contains(#"names the user 'no\\body'."#), "\(commandLine.err)")
        #expect(!commandLine.err.contains(#"no\\\\body"#))
    }
}
