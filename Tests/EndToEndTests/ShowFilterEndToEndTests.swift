import Foundation
import Testing

/// `show SECTION WORD... --since DAY --until DAY` through the real binary, in a batch.
@Suite(.serialized) struct ShowFilterEndToEndTests {
    @Test func filters_keepTheRowsAsked_andTheAuditNamesOnlyTheSection() throws {
        let h = try BatchHome()
        let script = try h.script([
            "open W0000011",
            "show labs GLUCOSE blood --all",
            "show vitals body WEIGHT --since 1900-01-01 --until 2999-12-31 --all",
            "show labs --since 2999-01-01",
            "show labs --until 31/12/2020",
        ])
        let p = try h.start([
            "--batch", script, "--user", "demo", "--password-file", h.passwordFile, "--on-error", "continue",
        ])
        #expect(try p.waitForExit() == 1)
        let out = p.standardOutput
        #expect(out.contains("Glucose [Mass/volume] in Blood"))
        #expect(!out.contains("Sodium"))
        #expect(out.contains("Body Weight"))
        #expect(!out.contains("Heart rate"))
        #expect(out.contains("No labs match."))
        #expect(p.standardError.contains("\(script):5: "))
        #expect(p.standardError.contains("--until takes a day as YYYY-MM-DD, such as 2020-01-31; got '31/12/2020'"))

        let records = try h.auditRecords()
        let reads = records.filter { $0["action"] as? String == "read" }
        #expect(reads.map { $0["section"] as? String } == ["labs", "vitals", "labs"])
        let audit = String(decoding: try JSONSerialization.data(withJSONObject: records), as: UTF8.self)
        for typed in ["GLUCOSE", "WEIGHT", "1900-01-01", "2999-01-01", "31/12/2020"] {
            #expect(!audit.contains(typed), "\(typed)")
        }
    }

    /// Days are the days the table shows, in the zone it shows them in (here the system's, as
    /// `TZ` names it; `ChartTimeZoneEndToEndTests` has the site's): `--since`/`--until` of the
    /// first lab's day as shown keep that lab, and only rows of that day.
    @Test func theDaysOfTheFilter_areTheDaysTheTableShows_inItsZone() throws {
        let h = try BatchHome()
        func run(_ lines: [String], zone: String) throws -> String {
            let script = try h.script(lines, name: "\(UUID().uuidString).ward")
            let p = try BatchProcess(
                ["--batch", script, "--user", "demo", "--password-file", h.passwordFile],
                environment: h.environment.merging(["TZ": zone]) { $1 },
                directory: h.directory,
                descriptor3: nil
            )
            #expect(try p.waitForExit() == 0, "\(zone): \(p.standardError)")
            return p.standardOutput
        }
        for zone in ["America/New_York", "Pacific/Kiritimati", "Etc/GMT+12"] {
            let shown = try run(["open W0000011", "show labs --all"], zone: zone)
            let labs = shown.split(separator: "\n").drop { !$0.hasPrefix("TIME ") }
            let firstDay = try #require(labs.dropFirst().first.map { String($0.prefix(10)) })
            let filtered = try run(
                ["open W0000011", "show labs --since \(firstDay) --until \(firstDay) --all"],
                zone: zone
            )
            let rows = filtered.split(separator: "\n").filter { $0.first?.isNumber == true }
            #expect(!rows.isEmpty && rows.allSatisfy { $0.hasPrefix(firstDay) }, "\(zone): \(filtered)")
        }
    }
}
