import Testing
import WardCore
import WardRecords
import WardShell

@Suite struct RoleTests {
    @Test func clerk_opensDemographicsOnly() throws {
        let f = try ShellFixture(role: .clerk, user: "bob")
        let (result, output) = f.run("open M1")
        #expect(result == .succeeded)
        #expect(output.contains("Demographics only"))
        let chart = try #require(f.shell.charts.first)
        #expect(chart.patient.family == "Lovelace")
        #expect(chart.observations.isEmpty && chart.allergies.isEmpty && chart.notes.isEmpty)
        let summary = f.run("show summary").output
        #expect(summary.contains("Lovelace") && !summary.contains("Allergies"))
    }

    @Test func clerk_isRefusedClinicalSections_withTheExactMessage() throws {
        let f = try ShellFixture(role: .clerk, user: "bob")
        f.run("open M1")
        #expect(f.run("show notes") == (.failed, "ward: 'show notes' is not allowed for the clerk role."))
        for section in ["labs", "vitals", "meds", "problems", "allergies", "encounters"] {
            #expect(f.run("show \(section)") == (.failed, "ward: 'show \(section)' is not allowed for the clerk role."))
        }
    }

    @Test func clerk_andAuditor_mayNotWriteNotes_andNothingChanges() throws {
        for role in [Role.clerk, .auditor] {
            let f = try ShellFixture(role: role, user: "bob")
            f.run("open M1")
            #expect(f.run("note hello") == (.failed, "ward: 'note' is not allowed for the \(role) role."))
            #expect(try f.store.chart(mrn: "M1").notes.isEmpty)
        }
    }

    @Test func auditor_findsAndOpens_butSeesNoClinicalSection() throws {
        let f = try ShellFixture(role: .auditor, user: "carol")
        #expect(f.run("find lovelace").output.contains("M1"))
        #expect(f.run("open M1").result == .succeeded)
        #expect(f.run("show").result == .succeeded)
        #expect(f.run("show labs") == (.failed, "ward: 'show labs' is not allowed for the auditor role."))
        #expect(f.shell.charts.first?.observations.isEmpty == true)
    }

    @Test func clinician_seesEverySection() throws {
        let f = try ShellFixture()
        f.run("open M1")
        for section in ChartSection.allCases {
            #expect(f.run("show \(section.rawValue)").result == .succeeded, "\(section)")
        }
    }

    @Test func nobodySignedOn_isRefusedRoleBoundCommands() throws {
        let f = try ShellFixture(role: nil)
        #expect(f.run("note hi") == (.failed, "ward: 'note' needs a signed-on user."))
    }

    @Test func protocolDefault_allowsEveryone() {
        #expect(Shell.command(named: "find")?.allowedRoles == nil)
        #expect(Shell.command(named: "note")?.allowedRoles == [.clinician])
    }
}
