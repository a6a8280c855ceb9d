import Foundation
import Testing
import WardCore

@testable import WardShell

/// `show SECTION WORD... [--since DAY] [--until DAY]`: the rows whose name holds every word, of
/// those days; the access record names the section, never the filter.
@Suite struct ShowFilterTests {
    @Test func words_keepTheRowsWhoseNameHoldsThemAll_inAnyCase() throws {
        let f = try ShellFixture()
        f.run("open M1")
        let labs = f.run("show labs A1C")
        #expect(labs.result == .succeeded)
        #expect(labs.output.contains("Hemoglobin A1c") && labs.output.contains("6.4"))
        #expect(f.run("show labs a1c hemo").output.contains("Hemoglobin A1c"))
        #expect(f.run("show labs a1c glucose") == (.succeeded, "No labs match."))
        #expect(f.run("show vitals heart").output.contains("72"))
        #expect(f.run("show vitals weight") == (.succeeded, "No vitals match."))
    }

    @Test func aStatusWord_keepsTheRowsOfThatStatus_inMedsProblemsAndAllergies() throws {
        let f = try ShellFixture()
        f.run("open M1")
        #expect(f.run("show meds active").output.contains("metformin"))
        #expect(f.run("show meds ACTIVE metformin").output.contains("metformin"))
        #expect(f.run("show meds stopped") == (.succeeded, "No medications match."))
        #expect(f.run("show problems active").output.contains("Diabetes"))
        #expect(f.run("show problems resolved") == (.succeeded, "No problems match."))
        #expect(f.run("show allergies active").output.contains("Peanut"))
        // Elsewhere a status is a word of the name like any other.
        #expect(f.run("show labs active") == (.succeeded, "No labs match."))
    }

    @Test func activeProblems_takeInRecurrenceAndRelapse_andAStatusIsNeverANameWord() throws {
        let filter = try RowFilter(
            words: ["active"],
            since: nil,
            until: nil,
            statuses: ChartSection.problems.statuses,
            syntax: ShowCommand.syntax
        )
        #expect(filter.words.isEmpty && !filter.isEmpty)
        for status in ["active", "recurrence", "relapse"] {
            #expect(filter.keeps(name: "Asthma", code: "", date: nil, status: status), "\(status)")
        }
        for status in ["resolved", "inactive", "remission", ""] {
            #expect(!filter.keeps(name: "Inactive asthma", code: "", date: nil, status: status), "\(status)")
        }
    }

    @Test func days_keepTheRowsOfThoseDays_bothEndsIncluded() throws {
        let f = try ShellFixture()
        f.run("open M1")
        // The fixture's lab is 2020-05-06T07:08:09Z: days are UTC days, as the table shows them.
        #expect(f.run("show labs --since 2020-05-06").output.contains("Hemoglobin A1c"))
        #expect(f.run("show labs --until 2020-05-06").output.contains("Hemoglobin A1c"))
        #expect(f.run("show labs --since 2020-05-06 --until 2020-05-06").output.contains("Hemoglobin A1c"))
        #expect(f.run("show labs --since 2020-05-07") == (.succeeded, "No labs match."))
        #expect(f.run("show labs --until 2020-05-05") == (.succeeded, "No labs match."))
    }

    @Test func aDayThatIsNotOne_isAUsageError_namingTheOptionAndTheValue() throws {
        let f = try ShellFixture()
        f.run("open M1")
        for bad in ["2020-02-30", "2021-02-29", "2020-13-01", "2020-1-1", "yesterday", "2020-01-01T00:00"] {
            let (result, output) = f.run("show labs --since \(bad)")
            #expect(result == .failed, "\(bad)")
            #expect(output.contains("--since takes a day as YYYY-MM-DD"), "\(bad)")
            #expect(output.contains("'\(bad)'"), "\(bad)")
        }
        let reversed = f.run("show labs --since 2021-01-01 --until 2020-01-01")
        #expect(reversed.result == .failed)
        #expect(reversed.output.contains("--until 2020-01-01 is before --since 2021-01-01"))
    }

    @Test func filters_needASectionWithRows() throws {
        let f = try ShellFixture()
        f.run("open M1")
        #expect(f.run("show --since 2020-01-01").result == .failed)
        #expect(f.run("show summary ada").result == .failed)
    }

    @Test func theAccessRecord_namesTheSection_neverTheFilter() throws {
        let f = try ShellFixture()
        f.run("open M1")
        _ = f.accesses()
        f.run("show labs a1c --since 2020-01-01")
        #expect(f.accesses() == [RecordAccess(.read, record: "M1", detail: "labs", outcome: .ok)])
    }

    @Test func help_saysTheFilterIsNotRecorded() throws {
        let f = try ShellFixture()
        let help = f.run("help show").output
        #expect(help.contains("--since <day>") && help.contains("--until <day>"))
        #expect(help.contains("never these words"))
    }
}
