import SuspendGuard
import Testing
import WardCore

@Suite struct SuspendGuardTests {
    private func signedOn(_ guardPlugin: SuspendGuard) -> GuardHarness {
        let harness = GuardHarness(guardPlugin)
        harness.signOn()
        return harness
    }

    /// Ctrl-Z, `away` on the boot clock, then `fg`: what the session dispatches around its stop.
    private func suspend(_ h: GuardHarness, away: Duration) {
        h.send(.lifecycle(.suspend))
        h.clock.advance(by: away)
        h.send(.lifecycle(.resume(away: away)))
    }

    @Test func backWithinTheGrace_resumesUnlocked() {
        let h = signedOn(SuspendGuard())
        suspend(h, away: .seconds(10))
        #expect(h.requests.isEmpty)
    }

    @Test func backAfterExactlyTheGrace_resumesUnlocked() {
        let h = signedOn(SuspendGuard(grace: .seconds(15)))
        suspend(h, away: .seconds(15))
        #expect(h.requests.isEmpty)
    }

    @Test func awayLongerThanTheGrace_locks() {
        let h = signedOn(SuspendGuard(grace: .seconds(15)))
        h.send(.lifecycle(.suspend))
        #expect(h.requests.isEmpty)  // nothing before the stop when there is a grace
        h.clock.advance(by: .milliseconds(15_001))
        h.send(.lifecycle(.resume(away: .milliseconds(15_001))))
        #expect(h.requests == [.lock(.suspend)])
    }

    @Test func aZeroGrace_locksBeforeStopping() {
        let h = signedOn(SuspendGuard(grace: .zero))
        h.send(.lifecycle(.suspend))
        // The session performs this before it stops: the wipe happens while the process can run.
        #expect(h.requests == [.lock(.suspend)])
        h.lock(.suspend)
        h.send(.lifecycle(.resume(away: .seconds(1))))
        #expect(h.locks == [.suspend])  // once
    }

    @Test func theMachinesSleep_countsAsAway() {
        let h = signedOn(SuspendGuard(grace: .seconds(15)))
        h.send(.lifecycle(.suspend))
        h.clock.advance(by: .seconds(3600))  // boot clock: the lid was closed
        // A resume the session could not measure (SIGCONT it did not pair with its stop).
        h.send(.lifecycle(.resume(away: .zero)))
        #expect(h.locks == [.suspend])
    }

    @Test func ignoresSuspends_beforeSignOn() {
        let h = GuardHarness(SuspendGuard(grace: .zero))
        suspend(h, away: .seconds(3600))
        #expect(h.requests.isEmpty)
    }

    @Test func ignoresSuspends_whileLocked_andGuardsAgain_afterUnlock() {
        let h = signedOn(SuspendGuard(grace: .seconds(15)))
        h.lock(.idle)
        suspend(h, away: .seconds(60))
        #expect(h.requests.isEmpty)
        h.unlock()
        suspend(h, away: .seconds(60))
        #expect(h.locks == [.suspend])
    }

    @Test func ignoresSuspends_afterSignOff() {
        let h = signedOn(SuspendGuard(grace: .zero))
        h.signOff()
        suspend(h, away: .seconds(60))
        #expect(h.requests.isEmpty)
    }

    @Test func guards_whenAddedToAChainThatIsAlreadySignedOn() {
        let h = GuardHarness(SuspendGuard(), user: "demo")
        suspend(h, away: .seconds(20))
        #expect(h.locks == [.suspend])
    }

    @Test func passesLifecycleEventsOn_forTheSessionToAct() {
        let h = signedOn(SuspendGuard(grace: .zero))
        #expect(h.send(.lifecycle(.suspend)) == .delivered(.lifecycle(.suspend)))
        let resume = Event.lifecycle(.resume(away: .seconds(1)))
        #expect(h.send(resume) == .delivered(resume))
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
