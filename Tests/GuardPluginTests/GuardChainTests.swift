import FocusGuard
import IdleTimer
import SessionTestSupport
import SuspendGuard
import Testing
import WardCore

/// The three guards in one chain, as a site enables them: each gets only its own deadline.
@Suite struct GuardChainTests {
    @Test func eachGuardsDeadline_goesToItsOwner_andTheSoonestWins() throws {
        let idle = IdleTimer(timeout: .seconds(300), warnBefore: .seconds(30))
        try GuardHarness.session(idle, SuspendGuard(), FocusGuard(after: .seconds(60)), signedOn: false) { h in
            h.signOn()
            #expect(h.take() == ["password? demo", "focus true", "shell", "prompt"])
            h.send(.focus(.lost))
            #expect(h.chain.nextDeadline == h.clock.now + .seconds(60))
            h.wait(.seconds(60))
            #expect(h.log == h.locked(.focus))
            #expect(h.chain.nextDeadline == nil)  // every guard stands down while locked
        }
    }

    @Test func typingWhileOutOfFocus_keepsTheIdleTimerAway_butNotTheFocusLock() throws {
        try GuardHarness.session(IdleTimer(timeout: .seconds(300)), FocusGuard(after: .seconds(120))) { h in
            h.send(.focus(.lost))
            for _ in 0..<3 {
                h.wait(.seconds(50))
                h.type("x")  // keys still arrive: a focus-follows-mouse terminal
            }
            #expect(h.log == h.locked(.focus))
        }
    }

    @Test func aLongSuspend_locksOnce_forSuspend_beforeTheIdleTimerNotices() throws {
        try GuardHarness.session(IdleTimer(timeout: .seconds(300)), SuspendGuard()) { h in
            h.suspend(away: .seconds(600))
            #expect(h.log == ["stop", "resumed"] + h.locked(.suspend))
            h.sleepThenWake(.zero)
            #expect(h.locks == [.suspend])
        }
    }
}
