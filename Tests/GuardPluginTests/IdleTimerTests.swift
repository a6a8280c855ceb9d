import FocusGuard
import IdleTimer
import SessionTestSupport
import SuspendGuard
import Testing
import WardCore

@Suite struct IdleTimerTests {
    // MARK: The idle lock

    @Test func locks_whenNoKeyForTheTimeout() throws {
        try GuardHarness.session(IdleTimer(timeout: .seconds(300))) { h in
            h.wait(.seconds(299))
            #expect(h.log.isEmpty)
            h.wait(.seconds(1))
            #expect(h.log == h.locked(.idle))
            #expect(h.shellWipes == 1)
        }
    }

    @Test func locksExactlyAtTheDeadline_notOnALaterTick() throws {
        try GuardHarness.session(IdleTimer(timeout: .seconds(300))) { h in
            let deadline = h.clock.now + .seconds(300)
            #expect(h.chain.nextDeadline == deadline)
            h.wait(.seconds(600))
            #expect(h.locks == [.idle])
            #expect(h.wakes == 1)  // one wake-up, at the deadline: nothing periodic
        }
    }

    @Test func aLongCommand_isNotIdleness_theClockStartsWhenThePromptComesBack() throws {
        try GuardHarness.session(IdleTimer(timeout: .seconds(300))) { h in
            h.wait(.seconds(60))
            h.run(Line("show labs"), taking: .seconds(600))  // the loop is busy: nothing fires
            h.showPrompt()  // the prompt is back
            h.wait(.seconds(1))
            #expect(h.locks.isEmpty)
            h.wait(.seconds(299))
            #expect(h.locks == [.idle])
        }
    }

    @Test func everyKeyPress_restartsTheIdleClock() throws {
        try GuardHarness.session(IdleTimer(timeout: .seconds(300))) { h in
            for _ in 0..<10 {
                h.wait(.seconds(200))
                h.type("x")
            }
            #expect(h.log.isEmpty)
            h.wait(.seconds(299))
            #expect(h.log.isEmpty)
            h.wait(.seconds(1))
            #expect(h.log == h.locked(.idle))
        }
    }

    @Test func aBatchLine_restartsTheIdleClock_too() throws {
        try GuardHarness.session(IdleTimer(timeout: .seconds(60))) { h in
            h.wait(.seconds(50))
            h.run(Line("show meds", source: .batch(file: "script.ward", line: 3)))
            h.wait(.seconds(59))
            #expect(h.locks.isEmpty)
            h.wait(.seconds(1))
            #expect(h.locks == [.idle])
        }
    }

    @Test func aKeyPress_onlyNotesTheTime_theEarlyDeadlineReArms() throws {
        try GuardHarness.session(IdleTimer(timeout: .seconds(300))) { h in
            let first = h.chain.nextDeadline
            h.wait(.seconds(100))
            h.type("a")
            #expect(h.chain.nextDeadline == first)  // not rescheduled per keystroke
            h.wait(.seconds(200))  // the old deadline fires early and re-arms for key + timeout
            #expect(h.log.isEmpty)
            #expect(h.chain.nextDeadline == first.map { $0 + .seconds(100) })
            h.wait(.seconds(100))
            #expect(h.locks == [.idle])
        }
    }

    @Test func keysAndLines_passOnUnchanged() throws {
        try GuardHarness.session(IdleTimer(timeout: .seconds(300))) { h in
            let key = Event.key(KeyPress(Array("o".utf8)))
            #expect(h.send(key) == .delivered(key))
            #expect(h.send(.line(Line("open 42"))) == .delivered(.line(Line("open 42"))))
        }
    }

    // MARK: The warning

    @Test func warns_warnBeforeTheDeadline_thenLocks() throws {
        try GuardHarness.session(IdleTimer(timeout: .seconds(300), warnBefore: .seconds(30))) { h in
            h.wait(.seconds(269))
            #expect(h.log.isEmpty)
            h.wait(.seconds(1))
            #expect(h.log == ["lock warning ward: locking in 30 s"])
            h.wait(.seconds(30))
            #expect(h.log == ["lock warning ward: locking in 30 s"] + h.locked(.idle))  // said once
        }
    }

    @Test func aKeyPressAfterTheWarning_cancelsTheLock() throws {
        try GuardHarness.session(IdleTimer(timeout: .seconds(300), warnBefore: .seconds(30))) { h in
            h.wait(.seconds(280))
            #expect(h.lockWarnings == ["ward: locking in 30 s"] && h.notices.isEmpty)
            h.type("x")
            h.wait(.seconds(60))  // past the old deadline
            #expect(h.take() == ["lock warning ward: locking in 30 s"])  // quiet: no "cancelled" notice
            h.wait(.seconds(210))  // a fresh warning before the new deadline
            #expect(h.log == ["lock warning ward: locking in 30 s"])
            h.wait(.seconds(30))
            #expect(h.locks == [.idle])
        }
    }

    @Test func zeroWarnBefore_locksWithoutANotice() throws {
        try GuardHarness.session(IdleTimer(timeout: .seconds(60), warnBefore: .zero)) { h in
            h.wait(.seconds(60))
            #expect(h.log == h.locked(.idle))
        }
    }

    @Test func theWarning_saysTheTimeLeftTheWayPeopleReadIt() {
        #expect(IdleTimer.phrase(.seconds(30)) == "30 s")
        #expect(IdleTimer.phrase(.milliseconds(29_001)) == "30 s")  // rounded up, never "0 s"
        #expect(IdleTimer.phrase(.milliseconds(400)) == "1 s")
        #expect(IdleTimer.phrase(.seconds(60)) == "1 min")
        #expect(IdleTimer.phrase(.seconds(150)) == "2 min 30 s")
        #expect(IdleTimer.phrase(.seconds(3600)) == "1 h")
    }

    @Test func aLongWarning_isPhrasedInMinutes() throws {
        try GuardHarness.session(IdleTimer(timeout: .seconds(900), warnBefore: .seconds(120))) { h in
            h.wait(.seconds(780))
            #expect(h.log == ["lock warning ward: locking in 2 min"])
        }
    }

    // MARK: Boot time

    @Test func aJumpPastTheDeadline_locksAtOnceOnTheNextWake_withoutWarning() throws {
        try GuardHarness.session(IdleTimer(timeout: .seconds(300), warnBefore: .seconds(30))) { h in
            h.wait(.seconds(10))
            h.sleepThenWake(.seconds(7200))  // the laptop lid closed for two hours
            #expect(h.log == h.locked(.idle))
        }
    }

    @Test func aJumpIntoTheWarningWindow_warnsWithTheTimeReallyLeft() throws {
        try GuardHarness.session(IdleTimer(timeout: .seconds(300), warnBefore: .seconds(30))) { h in
            h.sleepThenWake(.seconds(285))
            #expect(h.take() == ["lock warning ward: locking in 15 s"])
            h.wait(.seconds(15))
            #expect(h.log == h.locked(.idle))
        }
    }

    @Test func aJumpPastTheMaxSession_locksForMaxSession() throws {
        let timer = IdleTimer(timeout: .seconds(300), warnBefore: .seconds(30), maxSession: .seconds(3600))
        try GuardHarness.session(timer) { h in
            h.sleepThenWake(.seconds(86_400))
            #expect(h.log == h.locked(.maxSession))
        }
    }

    // MARK: When it runs

    @Test func doesNotRun_beforeSignOn() throws {
        try GuardHarness.session(IdleTimer(timeout: .seconds(60)), signedOn: false) { h in
            #expect(h.chain.nextDeadline == nil)
            h.type("x")
            h.wait(.seconds(3600))
            #expect(h.log == ["password? demo"])  // still asking, nothing else
        }
    }

    /// Added to a session already signed on: the timer starts at once, and its lock is the
    /// driver's.
    @Test func starts_whenAddedToAChainThatIsAlreadySignedOn() throws {
        try GuardHarness.session { h in
            #expect(h.add(IdleTimer(timeout: .seconds(60))).isEmpty)
            h.wait(.seconds(60))
            #expect(h.log == h.locked(.idle))
        }
    }

    @Test func stops_whenLocked_andStartsAfresh_onUnlock() throws {
        try GuardHarness.session(IdleTimer(timeout: .seconds(60), warnBefore: .seconds(10))) { h in
            h.wait(.seconds(60))
            #expect(h.take() == ["lock warning ward: locking in 10 s"] + h.locked(.idle))
            #expect(h.chain.nextDeadline == nil)
            h.send(.key(.redacted))  // typing the password is not a session to time
            h.wait(.seconds(3600))
            #expect(h.log.isEmpty)
            h.unlock()
            #expect(h.take() == ["shell", "prompt"])
            h.wait(.seconds(59))
            #expect(h.log == ["lock warning ward: locking in 10 s"])
            h.wait(.seconds(1))
            #expect(h.locks == [.idle])
        }
    }

    @Test func stops_whenLockedForAnotherReason() throws {
        try GuardHarness.session(IdleTimer(timeout: .seconds(60))) { h in
            h.wait(.seconds(30))
            h.lock(.user)
            #expect(h.take() == h.locked(.user))
            h.wait(.seconds(3600))
            #expect(h.log.isEmpty)
        }
    }

    @Test func stops_atSignOff() throws {
        try GuardHarness.session(IdleTimer(timeout: .seconds(60))) { h in
            h.signOff()
            #expect(h.take() == ["ended user 0"])
            #expect(h.chain.nextDeadline == nil)
            h.wait(.seconds(3600))
            #expect(h.log.isEmpty)
        }
    }

    // MARK: max-session

    @Test func maxSession_locks_howeverActiveTheUser() throws {
        let timer = IdleTimer(timeout: .seconds(300), warnBefore: .seconds(30), maxSession: .seconds(1200))
        try GuardHarness.session(timer) { h in
            for _ in 0..<19 {
                h.wait(.seconds(60))
                h.type("x")
            }
            #expect(h.log.isEmpty)
            h.wait(.seconds(30))
            #expect(h.log == ["lock warning ward: session limit reached: locking in 30 s"])
            h.type("x")  // a key cannot cancel this one
            h.wait(.seconds(30))
            #expect(h.log == ["lock warning ward: session limit reached: locking in 30 s"] + h.locked(.maxSession))
            #expect(h.chain.nextDeadline == nil)
        }
    }

    @Test func maxSession_countsAgainFromTheUnlock() throws {
        try GuardHarness.session(IdleTimer(timeout: .seconds(300), maxSession: .seconds(600))) { h in
            for _ in 0..<10 {
                h.wait(.seconds(60))
                h.type("x")
            }
            #expect(h.take() == h.locked(.maxSession))
            h.wait(.seconds(120))
            h.unlock()
            _ = h.take()
            for _ in 0..<9 {
                h.wait(.seconds(60))
                h.type("x")
            }
            #expect(h.locks.isEmpty)  // not straight back to a lock
            h.wait(.seconds(60))
            #expect(h.locks == [.maxSession])
        }
    }

    @Test func maxSession_isOffByDefault() throws {
        let timer = try IdleTimer(
            settings: .defaults(for: IdleTimer.name),
            environment: PluginEnvironment(home: "/nonexistent")
        )
        #expect(timer.limits == IdleTimer.Limits(timeout: .seconds(300), warnBefore: .seconds(30), maxSession: nil))
    }

    @Test func theIdleLock_stillComesFirst_whenSooner() throws {
        try GuardHarness.session(IdleTimer(timeout: .seconds(60), maxSession: .seconds(3600))) { h in
            h.wait(.seconds(60))
            #expect(h.log == h.locked(.idle))
        }
    }

    // MARK: Settings

    @Test func theTablesOwnKeys_overrideTheSessionPolicy() throws {
        let settings = try pluginSettings(
            """
            [session]
            idle-timeout = "10m"
            warn-before = "1m"

            [[plugin]]
            name = "idle-timer"
            idle-timeout = "2m"
            max-session = "8h"
            """
        )
        let policy = SessionPolicy(idleTimeout: .seconds(600), warnBefore: .seconds(60))
        let timer = try IdleTimer(
            settings: settings,
            environment: PluginEnvironment(home: "/nonexistent", sessionPolicy: policy)
        )
        let expected = IdleTimer.Limits(timeout: .seconds(120), warnBefore: .seconds(60), maxSession: .seconds(28_800))
        #expect(timer.limits == expected)
        #expect(settings.unreadKeys.isEmpty)
    }

    @Test func keysTheTableLeavesOut_comeFromTheSessionPolicy() throws {
        let policy = SessionPolicy(idleTimeout: .seconds(120), warnBefore: .seconds(15), maxSession: .seconds(3600))
        let timer = try IdleTimer(
            settings: .defaults(for: IdleTimer.name),
            environment: PluginEnvironment(home: "/nonexistent", sessionPolicy: policy)
        )
        let expected = IdleTimer.Limits(timeout: .seconds(120), warnBefore: .seconds(15), maxSession: .seconds(3600))
        #expect(timer.limits == expected)
    }

    @Test func maxSessionOff_inTheTable_turnsOffThePolicysLimit() throws {
        let settings = try pluginSettings("[[plugin]]\nname = \"idle-timer\"\nmax-session = \"off\"\n")
        let timer = try IdleTimer(
            settings: settings,
            environment: PluginEnvironment(
                home: "/nonexistent",
                sessionPolicy: SessionPolicy(maxSession: .seconds(3600))
            )
        )
        #expect(timer.limits.maxSession == nil)
    }

    @Test func aWarningNoShorterThanTheTimeout_isRefused_namingItsLine() throws {
        let settings = try pluginSettings(
            """
            [[plugin]]
            name = "idle-timer"
            idle-timeout = "1m"
            warn-before = "1m"
            """
        )
        #expect {
            try IdleTimer(
                settings: settings,
                environment: PluginEnvironment(home: "/nonexistent", sessionPolicy: .defaults)
            )
        } throws: { error in
            guard case .conflict(_, let line, let message)? = error as? ConfigError else { return false }
            return line == 4 && message.contains("'warn-before' (1m) must be shorter than 'idle-timeout' (1m)")
        }
    }

    @Test func aTimeoutWithoutAUnit_isRefused_namingItsLine() throws {
        let settings = try pluginSettings("[[plugin]]\nname = \"idle-timer\"\n\nidle-timeout = \"300\"\n")
        #expect(throws: ConfigError.badDuration(file: "site.toml", line: 4, key: "idle-timeout", value: "\"300\"")) {
            try IdleTimer(
                settings: settings,
                environment: PluginEnvironment(home: "/nonexistent", sessionPolicy: .defaults)
            )
        }
    }

    @Test func anIdleTimeoutOutOfRange_isRefused() throws {
        let settings = try pluginSettings("[[plugin]]\nname = \"idle-timer\"\nidle-timeout = \"500ms\"\n")
        #expect(throws: ConfigError.self) {
            try IdleTimer(settings: settings, environment: PluginEnvironment(home: "/nonexistent"))
        }
    }

    @Test func theRegistryFactory_asksForTheSignedOnUsersLimits() throws {
        let policy = try SitePolicy.parse(
            """
            [session]
            idle-timeout = "5m"
            warn-before = "0s"

            [user.alice]
            idle-timeout = "2m"

            [[plugin]]
            name = "idle-timer"
            """,
            file: "site.toml",
            plugins: guardPlugins
        )
        let environment = PluginEnvironment(home: "/nonexistent", policy: policy)
        let timers = try guardPlugins.makePlugins(policy.plugins, environment: environment)
        let timer = try #require(timers.first)
        // The same timer in two sessions, one after the other: each sign-on asks for its user's.
        try GuardHarness.session(timer, user: "alice") { h in
            h.wait(.seconds(120))
            #expect(h.log == h.locked(.idle))
        }
        try GuardHarness.session(timer, user: "bob") { h in
            h.wait(.seconds(299))
            #expect(h.log.isEmpty)
            h.wait(.seconds(1))
            #expect(h.log == h.locked(.idle))
        }
    }
}

/// The guards, as a site file in these tests may name them.
let guardPlugins = PluginRegistry([IdleTimer.self, SuspendGuard.self, FocusGuard.self])

/// The first `[[plugin]]` table of a site file's text, as the registry would hand it to a plugin.
func pluginSettings(_ text: String) throws -> PluginSettings {
    try #require(try SitePolicy.parse(text, file: "site.toml", plugins: guardPlugins).plugins.first)
}

/// An environment with Ward's default limits, for a plugin built from its table alone.
let defaultEnvironment = PluginEnvironment(home: "/nonexistent")
