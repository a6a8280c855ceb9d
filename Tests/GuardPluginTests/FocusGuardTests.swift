import FocusGuard
import Testing
import WardCore

/// A link after the focus guard that notes what reached it.
private final class Witness: Plugin {
    static let name = "witness"
    static let summary = "Notes what reached it."
    var seen: [Event] = []
    init() {}
    init(settings: PluginSettings, environment: PluginEnvironment) {}
    func intercept(_ event: Event, context: PluginContext) -> Disposition {
        seen.append(event)
        return .pass
    }
}

@Suite struct FocusGuardTests {
    private func signedOn(_ guardPlugin: FocusGuard) -> GuardHarness {
        let harness = GuardHarness(guardPlugin)
        harness.signOn()
        return harness
    }

    @Test func turnsFocusReportingOn_atSignOn() {
        let h = GuardHarness(FocusGuard())
        #expect(h.requests.isEmpty)
        h.signOn()
        #expect(h.requests == [.focusReporting(true)])
    }

    @Test func turnsFocusReportingOn_whenAddedToAChainThatIsAlreadySignedOn() {
        let h = GuardHarness(FocusGuard(), user: "demo")
        #expect(h.requests == [.focusReporting(true)])
    }

    @Test func outOfFocusLongerThanAfter_locks() {
        let h = signedOn(FocusGuard(after: .seconds(60)))
        h.send(.focus(.lost))
        h.wait(.seconds(59))
        #expect(h.locks.isEmpty)
        h.wait(.seconds(1))
        #expect(h.locks == [.focus])
    }

    @Test func backInFocusBeforeThat_cancelsTheLock() {
        let h = signedOn(FocusGuard(after: .seconds(60)))
        h.send(.focus(.lost))
        h.wait(.seconds(59))
        h.send(.focus(.gained))
        #expect(h.chain.nextDeadline == nil)
        h.wait(.seconds(3600))
        #expect(h.locks.isEmpty)
    }

    @Test func aSecondLossReport_doesNotPutTheLockOff() {
        let h = signedOn(FocusGuard(after: .seconds(60)))
        h.send(.focus(.lost))
        h.wait(.seconds(40))
        h.send(.focus(.lost))
        h.wait(.seconds(20))
        #expect(h.locks == [.focus])
    }

    @Test func aZeroAfter_locksAsSoonAsFocusIsLost() {
        let h = signedOn(FocusGuard(after: .zero))
        h.send(.focus(.lost))
        #expect(h.locks == [.focus])
    }

    @Test func consumesFocusEvents_soNothingAfterItSeesThem() {
        let witness = Witness()
        let h = GuardHarness(FocusGuard(), witness)
        h.signOn()
        #expect(h.send(.focus(.lost)) == .consumed)
        #expect(h.send(.focus(.gained)) == .consumed)
        #expect(h.send(.focus(.lost)) == .consumed)
        #expect(!witness.seen.contains(.focus(.lost)))
        #expect(!witness.seen.contains(.focus(.gained)))
        let key = Event.key(KeyPress(Array("x".utf8)))
        #expect(h.send(key) == .delivered(key))
    }

    @Test func consumesFocusEvents_evenWhenNotGuarding() {
        let h = GuardHarness(FocusGuard())
        #expect(h.send(.focus(.lost)) == .consumed)
        h.wait(.seconds(3600))
        #expect(h.requests.isEmpty)
    }

    @Test func doesNotLock_whileLocked_andGuardsAgain_afterUnlock() {
        let h = signedOn(FocusGuard(after: .seconds(60)))
        h.send(.focus(.lost))
        h.lock(.idle)
        #expect(h.chain.nextDeadline == nil)
        h.wait(.seconds(3600))
        #expect(h.locks.isEmpty)
        _ = h.takeRequests()
        h.unlock()
        #expect(h.requests == [.focusReporting(true)])
        h.send(.focus(.lost))
        h.wait(.seconds(60))
        #expect(h.locks == [.focus])
    }

    @Test func turnsFocusReportingOff_atSignOff() {
        let h = signedOn(FocusGuard(after: .seconds(60)))
        h.send(.focus(.lost))
        _ = h.takeRequests()
        h.signOff()
        #expect(h.requests == [.focusReporting(false)])
        h.wait(.seconds(3600))
        #expect(h.locks.isEmpty)
    }

    // MARK: Settings

    @Test func after_defaultsTo60Seconds() throws {
        #expect(
            try FocusGuard(settings: .defaults(for: FocusGuard.name), environment: defaultEnvironment).after
                == .seconds(60)
        )
    }

    @Test func after_comesFromTheTable() throws {
        let settings = try pluginSettings("[[plugin]]\nname = \"focus-guard\"\nafter = \"2m\"\n")
        #expect(try FocusGuard(settings: settings, environment: defaultEnvironment).after == .seconds(120))
        #expect(settings.unreadKeys.isEmpty)
    }

    @Test func anAfterOutOfRange_isRefused_namingItsLine() throws {
        let settings = try pluginSettings("[[plugin]]\nname = \"focus-guard\"\nafter = \"48h\"\n")
        let expected = ConfigError.outOfRange(
            file: "site.toml",
            line: 3,
            key: "after",
            value: "48h",
            allowed: "0s to 24h"
        )
        #expect(throws: expected) {
            try FocusGuard(settings: settings, environment: defaultEnvironment)
        }
    }
}
