import SessionTestSupport
import Testing

@testable import WardCore

struct AttemptThrottleTests {
    @Test func asks_beforeAnyFailure() {
        let throttle = AttemptThrottle(clock: ManualClock())
        #expect(throttle.nextAttempt() == .ask)
        #expect(throttle.failures == 0)
    }

    @Test func delays_doubleAfterEachFailure() {
        let clock = ManualClock()
        var throttle = AttemptThrottle(clock: clock)
        #expect(throttle.failed() == .retry(after: .seconds(1)))
        #expect(throttle.nextAttempt() == .wait(.seconds(1)))
        clock.advance(by: .milliseconds(400))
        #expect(throttle.nextAttempt() == .wait(.milliseconds(600)))
        clock.advance(by: .milliseconds(600))
        #expect(throttle.nextAttempt() == .ask)
        #expect(throttle.failed() == .retry(after: .seconds(2)))
        clock.advance(by: .seconds(2))
        #expect(throttle.failed() == .retry(after: .seconds(4)))
        clock.advance(by: .seconds(4))
        #expect(throttle.failed() == .retry(after: .seconds(8)))
        #expect(throttle.failures == 4)
    }

    @Test func signsOut_withExit77_afterMaxFailedAttempts() {
        let clock = ManualClock()
        var throttle = AttemptThrottle(clock: clock)
        for _ in 1..<5 {
            guard case .retry(let delay) = throttle.failed() else {
                Issue.record("signed out too early")
                return
            }
            clock.advance(by: delay)
        }
        #expect(throttle.failed() == .signOut(exitCode: 77))
        #expect(throttle.nextAttempt() == .signOut(exitCode: 77))
        clock.advance(by: .seconds(3600))
        #expect(throttle.nextAttempt() == .signOut(exitCode: 77))  // waiting does not help
        throttle.succeeded()
        #expect(throttle.nextAttempt() == .signOut(exitCode: 77))  // nor does a late success
        #expect(throttle.failed() == .signOut(exitCode: 77))
    }

    @Test func delay_isCapped() {
        let clock = ManualClock()
        let policy = AttemptThrottle.Policy(maxFailedAttempts: 20, firstDelay: .seconds(1), maxDelay: .seconds(10))
        var throttle = AttemptThrottle(policy: policy, clock: clock)
        var delays: [Duration] = []
        for _ in 1..<8 {
            if case .retry(let delay) = throttle.failed() { delays.append(delay) }
        }
        #expect(delays == [1, 2, 4, 8, 10, 10, 10].map { Duration.seconds($0) })
    }

    @Test func success_resetsTheCount() {
        let clock = ManualClock()
        var throttle = AttemptThrottle(policy: .init(maxFailedAttempts: 3), clock: clock)
        _ = throttle.failed()
        _ = throttle.failed()
        throttle.succeeded()
        #expect(throttle.failures == 0)
        #expect(throttle.nextAttempt() == .ask)
        #expect(throttle.failed() == .retry(after: .seconds(1)))
    }

    @Test func oneAttempt_policy_signsOutOnFirstFailure() {
        var throttle = AttemptThrottle(policy: .init(maxFailedAttempts: 1), clock: ManualClock())
        #expect(throttle.failed() == .signOut(exitCode: 77))
    }
}
