import FHIRTestSupport
import Foundation
import Testing

/// Days and times in the site's zone (`[records] time-zone`), through the real binary: a shot
/// given in the evening at -07:00 is that evening's day in Los Angeles and the next day in
/// Tokyo, `--since`/`--until` take the days the table shows, a FHIR date without a time is its
/// own day in both, and JSON gives instants with their offset.
@Suite(.serialized) struct ChartTimeZoneEndToEndTests {
    private static let site = "[[plugin]]\nname = \"audit-log\"\n" + TerminalHarness.unguarded

    /// A home with one imported patient, `TZ0001`: an immunization at 2020-05-13T21:20-07:00
    /// and a problem whose onset is the date 2015-12-21, without a time.
    private func home() throws -> BatchHome {
        let h = try BatchHome(patients: 2)
        var condition = Bundles.condition("tz-patient")
        var resource = condition["resource"] as! [String: Any]
        resource["onsetDateTime"] = "2015-12-21"
        condition["resource"] = resource
        let bundle = h.directory.appendingPathComponent("zone.json")
        try Bundles.bundle([
            Bundles.patient("tz-patient", given: ["Ines"], family: "Zoner", mrn: "TZ0001"),
            Bundles.immunization("tz-patient", date: "2020-05-13T21:20:00-07:00"),
            condition,
        ])
        .write(to: bundle)
        _ = try TerminalHarness.run(TerminalHarness.wardPath, ["import", bundle.path], environment: h.environment)
        #expect(TerminalHarness.lastStatus == 0)
        return h
    }

    /// Runs `lines` as a batch under a site file naming `zone`; exit status, output, errors.
    private func run(
        _ h: BatchHome,
        zone: String?,
        _ lines: [String],
        format: String = "text"
    ) throws -> (status: Int32, output: String, error: String) {
        let records = zone.map { "\n[records]\ntime-zone = \"\($0)\"\n" } ?? ""
        try (Self.site + records).write(toFile: h.site, atomically: true, encoding: .utf8)
        let script = try h.script(lines)
        let p = try h.start([
            "--batch", script, "--user", "demo", "--password-file", h.passwordFile, "--format", format,
        ])
        let status = try p.waitForExit()
        return (status, p.standardOutput, p.standardError)
    }

    @Test func westOfGreenwich_theEveningShot_isThatDay_andItsDaysFindIt() throws {
        let h = try home()
        let out = try run(
            h,
            zone: "America/Los_Angeles",
            [
                "open TZ0001", "show immunizations", "show imm --since 2020-05-13 --until 2020-05-13",
                "show imm --since 2020-05-14", "show problems",
            ]
        )
        #expect(out.status == 0, "\(out.error)")
        let shots = out.output.split(separator: "\n").filter { $0.hasPrefix("2020-05-") }
        #expect(shots.count == 2 && shots.allSatisfy { $0.hasPrefix("2020-05-13") }, "\(out.output)")
        #expect(out.output.contains("No immunizations match."))
        #expect(out.output.contains("2015-12-21"), "the onset date stays its own day: \(out.output)")
    }

    @Test func eastOfGreenwich_theSameShot_isTheNextDay() throws {
        let h = try home()
        let out = try run(
            h,
            zone: "Asia/Tokyo",
            ["open TZ0001", "show immunizations", "show imm --since 2020-05-13 --until 2020-05-13", "show problems"]
        )
        #expect(out.status == 0, "\(out.error)")
        #expect(out.output.contains("2020-05-14"))
        #expect(!out.output.contains("2020-05-13"))
        #expect(out.output.contains("No immunizations match."))
        #expect(out.output.contains("2015-12-21"))
    }

    @Test func json_givesTheInstantWithTheSitesOffset_andADateAsItsDay() throws {
        let h = try home()
        let out = try run(
            h,
            zone: "America/Los_Angeles",
            ["open TZ0001", "show immunizations", "show problems"],
            format: "json"
        )
        #expect(out.status == 0, "\(out.error)")
        #expect(out.output.contains(#""date":"2020-05-13T21:20:00-07:00""#), "\(out.output)")
        #expect(out.output.contains(#""onset":"2015-12-21""#), "\(out.output)")
    }

    @Test func theSiteZone_overridesTZ_andWithoutOneTZDecides() throws {
        let h = try home()
        try (Self.site).write(toFile: h.site, atomically: true, encoding: .utf8)
        let script = try h.script(["open TZ0001", "show immunizations"])
        func batch(tz: String) throws -> String {
            let p = try BatchProcess(
                ["--batch", script, "--user", "demo", "--password-file", h.passwordFile],
                environment: h.environment.merging(["TZ": tz]) { $1 },
                directory: h.directory,
                descriptor3: nil
            )
            #expect(try p.waitForExit() == 0)
            return p.standardOutput
        }
        #expect(try batch(tz: "Asia/Tokyo").contains("2020-05-14"))
        #expect(try batch(tz: "America/Los_Angeles").contains("2020-05-13"))
        try (Self.site + "\n[records]\ntime-zone = \"Asia/Tokyo\"\n").write(
            toFile: h.site,
            atomically: true,
            encoding: .utf8
        )
        #expect(try batch(tz: "America/Los_Angeles").contains("2020-05-14"))
    }

    @Test func aZoneNotInTheDatabase_stopsWard_exit78_namingFileAndLine() throws {
        let h = try home()
        let out = try run(h, zone: "America/Los_Angles", ["whoami"])
        #expect(out.status == 78)
        let line = (Self.site + "\n[records]\n").split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(out.error.contains("\(h.site):\(line): 'time-zone' is \"America/Los_Angles\""), "\(out.error)")
        #expect(!out.output.contains("signed on"))
    }

    @Test func lockoutMessage_userList_andSessions_showTheSitesZone_withItsOffset() throws {
        let h = try BatchHome(
            site: Self.site
                + "\n[session]\nmax-failed-attempts = 2\nlockout = \"15m\"\n[records]\ntime-zone = \"Asia/Tokyo\"\n",
            patients: 2
        )
        // A batch that signs on, and a second one that waits on its input while `ward sessions` lists it.
        let first = try h.start([
            "--batch", try h.script(["whoami"]), "--user", "demo", "--password-file", h.passwordFile,
        ])
        #expect(try first.waitForExit() == 0)
        let live = try h.start(["--user", "demo", "--password-fd", "3"], passwordOnDescriptor3: "demo\n")
        live.send("whoami")
        try live.waitFor("demo (clinician)")
        let sessions = try h.start(["sessions"])
        #expect(try sessions.waitForExit() == 0)
        #expect(sessions.standardOutput.contains("+09:00"), "\(sessions.standardOutput)")
        live.closeInput()
        #expect(try live.waitForExit() == 0)

        let list = try h.start(["user", "list"])
        #expect(try list.waitForExit() == 0)
        let row = list.standardOutput.split(separator: "\n").first { $0.hasPrefix("demo ") } ?? ""
        #expect(row.contains("+09:00"), "\(list.standardOutput)")

        try h.writeSecret("not the password\n", to: h.passwordFile)
        for _ in 1...3 {
            let p = try h.start([
                "--batch", try h.script(["whoami"]), "--user", "demo", "--password-file", h.passwordFile,
            ])
            _ = try p.waitForExit()
            if p.standardError.contains("locked until") {
                #expect(p.standardError.contains("(UTC+09:00)"), "\(p.standardError)")
                return
            }
        }
        Issue.record("the account did not lock")
    }
}
