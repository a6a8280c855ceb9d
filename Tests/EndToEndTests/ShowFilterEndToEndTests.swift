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

    /// Days and times are UTC days and times whatever the terminal's zone: a FHIR date without
    /// a time (kept as that day's first instant in UTC) read as the day before west of
    /// Greenwich, and `--since`/`--until` took local days that did not match the table.
    @Test func aChart_readsTheSameInEveryTimeZone_andItsDaysFilterAsShown() throws {
        let h = try BatchHome()
        let script = try h.script([
            "open W0000011", "show problems --all", "show immunizations --all", "show labs --all", "show notes --all",
        ])
        func run(_ zone: String) throws -> String {
            let environment = h.environment.merging(["TZ": zone]) { $1 }
            let p = try BatchProcess(
                ["--batch", script, "--user", "demo", "--password-file", h.passwordFile],
                environment: environment,
                directory: h.directory,
                descriptor3: nil
            )
            #expect(try p.waitForExit() == 0, "\(zone): \(p.standardError)")
            return p.standardOutput
        }
        let utc = try run("UTC")
        for zone in ["America/New_York", "Pacific/Kiritimati", "Etc/GMT+12"] {
            #expect(try run(zone) == utc, "\(zone)")
        }

        // The first lab's day, as the table shows it, keeps that lab in and the day after leaves it out.
        // (W0000011's first lab was taken at 00:12Z: the day before in New York.)
        let labs = utc.split(separator: "\n").drop { !$0.hasPrefix("TIME ") }
        let firstDay = try #require(labs.dropFirst().first.map { String($0.prefix(10)) })
        let filtered = try h.script(
            ["open W0000011", "show labs --since \(firstDay) --until \(firstDay) --all"],
            name: "day.ward"
        )
        let p = try BatchProcess(
            ["--batch", filtered, "--user", "demo", "--password-file", h.passwordFile],
            environment: h.environment.merging(["TZ": "America/New_York"]) { $1 },
            directory: h.directory,
            descriptor3: nil
        )
        #expect(try p.waitForExit() == 0)
        let rows = p.standardOutput.split(separator: "\n").filter { $0.first?.isNumber == true }
        #expect(!rows.isEmpty && rows.allSatisfy { $0.hasPrefix(firstDay) }, "\(p.standardOutput)")
    }
}
