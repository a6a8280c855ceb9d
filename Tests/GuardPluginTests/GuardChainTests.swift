import FocusGuard
import IdleTimer
import SuspendGuard
import Testing
import WardCore

/// The three guards in one chain, as a site enables them: each gets only its own deadline.
@Suite struct GuardChainTests {
    @Test func eachGuardsDeadline_goesToItsOwner_andTheSoonestWins() {
        let idle = IdleTimer(timeout: .seconds(300), warnBefore: .seconds(30))
        let h = GuardHarness(idle, SuspendGuard(), FocusGuard(after: .seconds(60)))
        h.signOn()
        #expect(h.takeRequests() == [.focusReporting(true)])
        h.send(.focus(.lost))
        #expect(h.chain.nextDeadline == h.clock.now + .seconds(60))
        h.wait(.seconds(60))
        #expect(h.requests == [.lock(.focus)])
        h.lock(.focus)
        #expect(h.chain.nextDeadline == nil)  // every guard stands down while locked
    }

    @Test func typingWhileOutOfFocus_keepsTheIdleTimerAway_butNotTheFocusLock() {
        let h = GuardHarness(IdleTimer(timeout: .seconds(300)), FocusGuard(after: .seconds(120)))
        h.signOn()
        h.send(.focus(.lost))
        for _ in 0..<3 {
            h.wait(.seconds(50))
            h.type("x")  // keys still arrive: a focus-follows-mouse terminal
        }
        #expect(h.locks == [.focus])
    }

    @Test func aLongSuspend_locksOnce_forSuspend_beforeTheIdleTimerNotices() {
        let h = GuardHarness(IdleTimer(timeout: .seconds(300)), SuspendGuard())
        h.signOn()
        h.send(.lifecycle(.suspend))
        h.clock.advance(by: .seconds(600))
        h.send(.lifecycle(.resume(away: .seconds(600))))
        #expect(h.requests == [.lock(.suspend)])
        h.lock(.suspend)
        h.sleepThenWake(.zero)
        #expect(h.locks == [.suspend])
    }
}
