import SessionTestSupport
import Testing
import WardCore

/// A plugin as one written outside Ward would be tested with the `SessionTestSupport` product:
/// in a real session driver, through `GuardHarness`, hearing what the session tells every plugin.
@Suite struct GuardHarnessTests {
    /// Notes the window sizes it is told of, and the status it is removed with.
    final class Witness: Plugin {
        static let name = "witness"
        static let summary = "Notes resizes and how the session ended."
        var sizes: [String] = []
        var removedWith: WardCore.ExitStatus?

        init() {}
        init(settings: PluginSettings, environment: PluginEnvironment) {}

        func intercept(_ event: Event, context: PluginContext) -> Disposition {
            if case .lifecycle(.resize(let rows, let columns)) = event { sizes.append("\(rows)x\(columns)") }
            return .pass
        }

        func removed(status: WardCore.ExitStatus, context: PluginContext) { removedWith = status }
    }

    @Test func aResize_reachesThePlugins_withTheWindowsNewSize() throws {
        let witness = Witness()
        try GuardHarness.session(witness) { h in
            h.resize(rows: 50, columns: 132)
            h.resize(rows: 24, columns: 80)
            #expect(h.take() == ["received resize(rows: 50, columns: 132)", "received resize(rows: 24, columns: 80)"])
        }
        #expect(witness.sizes == ["50x132", "24x80"])
    }

    @Test func theSessionsEnd_tellsEveryPluginItsExitStatus() throws {
        let witness = Witness()
        try GuardHarness.session(witness) { h in
            h.signal(.sigterm)
            #expect(h.hasEnded)
        }
        #expect(witness.removedWith == WardCore.ExitStatus.killed(by: 15))
        let quiet = Witness()
        try GuardHarness.session(quiet) { _ in }
        #expect(quiet.removedWith == WardCore.ExitStatus.success)
    }
}
