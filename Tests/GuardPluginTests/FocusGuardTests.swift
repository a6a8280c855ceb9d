import FocusGuard
import SessionTestSupport
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
    @Test func turnsFocusReportingOn_atSignOn() throws {
        try GuardHarness.session(FocusGuard(), signedOn: false) { h in
            #expect(h.take() == ["password? demo"])
            h.signOn()
            #expect(h.log == ["focus true", "shell", "prompt"])
        }
    }

    /// Added to a session already signed on: what it asks for at once is the answer to `append`,
    /// which the driver never sees (no driver call adds a plugin), so this one checks the request.
    @Test func turnsFocusReportingOn_whenAddedToAChainThatIsAlreadySignedOn() throws {
        try GuardHarness.session { h in
            #expect(h.add(FocusGuard()) == [.focusReporting(true)])
        }
    }

    @Test func outOfFocusLongerThanAfter_locks() throws {
        try GuardHarness.session(FocusGuard(after: .seconds(60))) { h in
            h.send(.focus(.lost))
            h.wait(.seconds(59))
            #expect(h.log.isEmpty)
            h.wait(.seconds(1))
            #expect(h.log == h.locked(.focus))
        }
    }

    @Test func backInFocusBeforeThat_cancelsTheLock() throws {
        try GuardHarness.session(FocusGuard(after: .seconds(60))) { h in
            h.send(.focus(.lost))
            h.wait(.seconds(59))
            h.send(.focus(.gained))
            #expect(h.chain.nextDeadline == nil)
            h.wait(.seconds(3600))
            #expect(h.log.isEmpty)
            #expect(h.isSignedOn)
        }
    }

    @Test func aSecondLossReport_doesNotPutTheLockOff() throws {
        try GuardHarness.session(FocusGuard(after: .seconds(60))) { h in
            h.send(.focus(.lost))
            h.wait(.seconds(40))
            h.send(.focus(.lost))
            h.wait(.seconds(20))
            #expect(h.log == h.locked(.focus))
        }
    }

    @Test func aZeroAfter_locksAsSoonAsFocusIsLost() throws {
        try GuardHarness.session(FocusGuard(after: .zero)) { h in
            h.send(.focus(.lost))
            #expect(h.log == h.locked(.focus))
        }
    }

    @Test func consumesFocusEvents_soNothingAfterItSeesThem() throws {
        let witness = Witness()
        try GuardHarness.session(FocusGuard(), witness) { h in
            #expect(h.send(.focus(.lost)) == .consumed)
            #expect(h.send(.focus(.gained)) == .consumed)
            #expect(h.send(.focus(.lost)) == .consumed)
            #expect(!witness.seen.contains(.focus(.lost)))
            #expect(!witness.seen.contains(.focus(.gained)))
            let key = Event.key(KeyPress(Array("x".utf8)))
            #expect(h.send(key) == .delivered(key))
        }
    }

    @Test func consumesFocusEvents_evenWhenNotGuarding() throws {
        try GuardHarness.session(FocusGuard(), signedOn: false) { h in
            _ = h.take()
            #expect(h.send(.focus(.lost)) == .consumed)
            h.wait(.seconds(3600))
            #expect(h.log.isEmpty)
        }
    }

    @Test func doesNotLock_whileLocked_andGuardsAgain_afterUnlock() throws {
        try GuardHarness.session(FocusGuard(after: .seconds(60))) { h in
            h.send(.focus(.lost))
            h.lock(.idle)
            #expect(h.chain.nextDeadline == nil)
            h.wait(.seconds(3600))
            #expect(h.take() == h.locked(.idle))
            h.unlock()
            #expect(h.take() == ["focus true", "shell", "prompt"])
            h.send(.focus(.lost))
            h.wait(.seconds(60))
            #expect(h.log == h.locked(.focus))
        }
    }

    @Test func turnsFocusReportingOff_atSignOff() throws {
        try GuardHarness.session(FocusGuard(after: .seconds(60))) { h in
            h.send(.focus(.lost))
            h.signOff()
            #expect(h.take() == ["focus false", "ended user 0"])
            h.wait(.seconds(3600))
            #expect(h.log.isEmpty)
        }
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
