import Glibc
import SessionTestSupport
import Testing
import WardCore

@Suite struct SessionMachineTests {
    let clock = ManualClock()

    func machine(maxFailures: Int = 3, signoutAfter: Duration = .seconds(900)) -> SessionMachine {
        SessionMachine(
            policy: .init(
                passwordTimeout: .seconds(60),
                signoutAfter: signoutAfter,
                throttle: .init(maxFailedAttempts: maxFailures, firstDelay: .seconds(1), maxDelay: .seconds(30))
            ),
            clock: clock
        )
    }

    func signedOn() -> SessionMachine {
        var m = machine()
        _ = m.start(user: "alice")
        _ = m.passwordChecked(role: .clinician)
        return m
    }

    @Test func start_asksForTheUserName_orStraightForThePasswordWithUser() {
        var m = machine()
        #expect(m.start(user: nil) == [.askUsername])
        #expect(m.usernameEntered("alice") == [.askPassword(user: "alice", lockedBecause: nil)])
        var n = machine()
        #expect(n.start(user: "bob") == [.askPassword(user: "bob", lockedBecause: nil)])
    }

    @Test func theRightPassword_signsOn_andAnnouncesIt() {
        var m = machine()
        _ = m.start(user: "alice")
        #expect(
            m.passwordChecked(role: .clinician) == [
                .announce(.signedOn(user: "alice", role: .clinician)), .resumeShell,
            ]
        )
        #expect(m.state == .signedOn(user: "alice", role: .clinician))
    }

    @Test func aWrongPassword_waitsLongerEachTime_thenAsksAgain() {
        var m = machine(maxFailures: 5)
        _ = m.start(user: "alice")
        #expect(
            m.passwordChecked(role: nil) == [
                .announce(.signOnFailed(user: "alice", reason: .wrongPassword)), .say("Wrong user name or password."),
            ]
        )
        #expect(m.isWaiting)
        #expect(m.nextDeadline == clock.now + .seconds(1))
        clock.advance(by: .seconds(1))
        #expect(m.deadlinePassed() == [.askUsername])
        _ = m.usernameEntered("alice")
        _ = m.passwordChecked(role: nil)
        #expect(m.nextDeadline == clock.now + .seconds(2))  // doubled
    }

    @Test func aNameNobodyHas_isAnnouncedWithoutTheName() {
        var m = machine()
        _ = m.start(user: nil)
        _ = m.usernameEntered("hunter2")
        #expect(
            m.passwordChecked(role: nil, refusal: .unknownUser) == [
                .announce(.signOnFailed(user: nil, reason: .unknownUser)), .say("Wrong user name or password."),
            ]
        )
    }

    @Test func tooManyWrongPasswords_endTheProcessWith77() {
        var m = machine(maxFailures: 2)
        _ = m.start(user: "alice")
        _ = m.passwordChecked(role: nil)
        clock.advance(by: .seconds(1))
        _ = m.deadlinePassed()
        _ = m.usernameEntered("alice")
        let actions = m.passwordChecked(role: nil)
        #expect(actions.last == .end(.failedAttempts, status: .authenticationFailed))
        #expect(m.state == .ended(.failedAttempts))
    }

    @Test func nobodyAtTheSignOnPrompt_endsAfterThePasswordTimeout() {
        var m = machine()
        _ = m.start(user: nil)
        clock.advance(by: .seconds(59))
        #expect(m.deadlinePassed().isEmpty)
        clock.advance(by: .seconds(1))
        #expect(m.deadlinePassed().last == .end(.timeout, status: .authenticationFailed))
    }

    @Test func lock_announces_wipes_andAsksTheSameUser() {
        var m = signedOn()
        #expect(
            m.lock(.idle) == [
                .announce(.locked(.idle)), .wipe(user: "alice", reason: .idle),
                .askPassword(user: "alice", lockedBecause: .idle),
            ]
        )
        #expect(m.lock(.user).isEmpty)  // already locked
    }

    @Test func theRightPasswordAtTheLockScreen_unlocks_aWrongOneWaits() {
        var m = signedOn()
        _ = m.lock(.user)
        #expect(
            m.passwordChecked(role: nil) == [
                .announce(.unlockFailed(user: "alice", reason: .wrongPassword)), .say("Wrong password."),
            ]
        )
        clock.advance(by: .seconds(1))
        #expect(m.deadlinePassed() == [.askPassword(user: "alice", lockedBecause: .user)])
        #expect(m.passwordChecked(role: .clinician) == [.announce(.unlocked(user: "alice")), .resumeShell])
        #expect(m.state == .signedOn(user: "alice", role: .clinician))
    }

    @Test func lockedLongerThanSignoutAfter_signsOffWith75() {
        var m = signedOn()
        _ = m.lock(.idle)
        #expect(m.nextDeadline == clock.now + .seconds(900))
        clock.advance(by: .seconds(900))
        let actions = m.deadlinePassed()
        #expect(actions.contains(.announce(.signedOff(.timeout))))
        #expect(actions.last == .end(.timeout, status: .lockedOut))
    }

    @Test func aBootClockJumpPastSignoutAfter_signsOffOnTheNextWake() {
        var m = signedOn()
        _ = m.lock(.suspend)
        clock.advance(by: .seconds(3600))  // the laptop slept
        #expect(m.deadlinePassed().last == .end(.timeout, status: .lockedOut))
    }

    @Test func signOff_announcesOnlyWhenSomeoneWasSignedOn() {
        var before = machine()
        _ = before.start(user: nil)
        #expect(before.signOff(.user) == [.end(.user, status: .success)])
        var m = signedOn()
        #expect(
            m.signOff(.hangup, status: .killed(by: SIGHUP)) == [
                .announce(.signedOff(.hangup)), .end(.hangup, status: .killed(by: SIGHUP)),
            ]
        )
        #expect(m.signOff(.user).isEmpty)
    }

    @Test func aLockBeforeSignOn_doesNothing() {
        var m = machine()
        _ = m.start(user: nil)
        #expect(m.lock(.idle).isEmpty)
    }
}
