import SessionTestSupport
import SuspendGuard
import Testing
import WardCore

@Suite struct SuspendGuardTests {
    /// What a stop and its `fg` show when nothing locks.
    private let stopped = ["stop", "resumed"]

    @Test func backWithinTheGrace_resumesUnlocked() throws {
        try GuardHarness.session(SuspendGuard()) { h in
            h.suspend(away: .seconds(10))
            #expect(h.log == stopped)
            #expect(h.isSignedOn)
        }
    }

    @Test func backAfterExactlyTheGrace_resumesUnlocked() throws {
        try GuardHarness.session(SuspendGuard(grace: .seconds(15))) { h in
            h.suspend(away: .seconds(15))
            #expect(h.log == stopped)
        }
    }

    @Test func awayLongerThanTheGrace_locks_afterTheTerminalIsTakenBack() throws {
        try GuardHarness.session(SuspendGuard(grace: .seconds(15))) { h in
            h.suspend(away: .milliseconds(15_001))
            // Nothing before the stop when there is a grace; the lock once the terminal is back.
            #expect(h.log == stopped + h.locked(.suspend))
            #expect(h.shellWipes == 1)
        }
    }

    @Test func aZeroGrace_locksBeforeStopping() throws {
        try GuardHarness.session(SuspendGuard(grace: .zero)) { h in
            h.suspend(away: .seconds(1))
            // The wipe happens while the process can run, and once.
            #expect(h.log == h.locked(.suspend) + stopped)
        }
    }

    @Test func theMachinesSleep_countsAsAway() throws {
        try GuardHarness.session(SuspendGuard(grace: .seconds(15))) { h in
            h.send(.lifecycle(.suspend))
            h.clock.advance(by: .seconds(3600))  // boot clock: the lid was closed
            // A SIGCONT the session did not pair with its stop: it passes as a resume it could
            // not measure.
            h.signal(.sigcont)
            #expect(h.log == ["resumed"] + h.locked(.suspend))
        }
    }

    @Test func ignoresSuspends_beforeSignOn() throws {
        try GuardHarness.session(SuspendGuard(grace: .zero), signedOn: false) { h in
            _ = h.take()
            h.suspend(away: .seconds(3600))
            #expect(h.log == stopped)
        }
    }

    @Test func ignoresSuspends_whileLocked_andGuardsAgain_afterUnlock() throws {
        try GuardHarness.session(SuspendGuard(grace: .seconds(15))) { h in
            h.lock(.idle)
            _ = h.take()
            h.suspend(away: .seconds(60))
            #expect(h.log == stopped)
            h.unlock()
            _ = h.take()
            h.suspend(away: .seconds(60))
            #expect(h.log == stopped + h.locked(.suspend))
        }
    }

    @Test func ignoresSuspends_afterSignOff() throws {
        try GuardHarness.session(SuspendGuard(grace: .zero)) { h in
            h.signOff()
            _ = h.take()
            h.suspend(away: .seconds(60))
            #expect(h.log.isEmpty)
        }
    }

    /// Added to a session already signed on: it guards the next stop at once.
    @Test func guards_whenAddedToAChainThatIsAlreadySignedOn() throws {
        try GuardHarness.session { h in
            #expect(h.add(SuspendGuard()).isEmpty)
            h.suspend(away: .seconds(20))
            #expect(h.locks == [.suspend])
        }
    }

    @Test func passesLifecycleEventsOn_forTheSessionToAct() throws {
        try GuardHarness.session(SuspendGuard(grace: .zero)) { h in
            #expect(h.send(.lifecycle(.suspend)) == .delivered(.lifecycle(.suspend)))
            let resume = Event.lifecycle(.resume(away: .seconds(1)))
            #expect(h.send(resume) == .delivered(resume))
        }
    }

    // MARK: Settings

    @Test func theGrace_defaultsTo15Seconds() throws {
        #expect(
            try SuspendGuard(settings: .defaults(for: SuspendGuard.name), environment: defaultEnvironment).grace
                == .seconds(15)
        )
    }

    @Test func theGrace_comesFromTheTable_andMayBeZero() throws {
        let settings = try pluginSettings("[[plugin]]\nname = \"suspend-guard\"\ngrace = \"0s\"\n")
        #expect(try SuspendGuard(settings: settings, environment: defaultEnvironment).grace == .zero)
        #expect(settings.unreadKeys.isEmpty)
    }

    @Test func aGraceWithoutAUnit_isRefused_namingItsLine() throws {
        let settings = try pluginSettings("[[plugin]]\nname = \"suspend-guard\"\ngrace = \"15\"\n")
        #expect(throws: ConfigError.badDuration(file: "site.toml", line: 3, key: "grace", value: "\"15\"")) {
            try SuspendGuard(settings: settings, environment: defaultEnvironment)
        }
    }

    @Test func theRegistryFactory_buildsIt() throws {
        let policy = try SitePolicy.parse(
            "[[plugin]]\nname = \"suspend-guard\"\ngrace = \"5s\"\n",
            file: "site.toml",
            plugins: guardPlugins
        )
        let built = try guardPlugins.makePlugins(
            policy.plugins,
            environment: PluginEnvironment(home: "/nonexistent", policy: policy)
        )
        #expect((built.first as? SuspendGuard)?.grace == .seconds(5))
    }
}
