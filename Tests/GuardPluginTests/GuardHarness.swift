import WardCore

/// A real `InterceptorChain` on a `ManualClock`, driven the way `InteractiveSession` drives it:
/// dispatch an event, take the requests; wake at each deadline and fire what is due.
///
/// No mock of the chain: the deadlines, the `.timer` routing and the requests are the real ones.
final class GuardHarness {
    let clock = ManualClock()
    let chain: InterceptorChain
    /// Every request the interceptors made, in order, as the session would have performed them.
    private(set) var requests: [ChainRequest] = []
    /// How many times the loop woke for a deadline.
    private(set) var wakes = 0

    init(_ interceptors: any Plugin..., user: String? = nil) {
        let session = SessionInfo(id: "test", user: user, role: user.map { _ in "clinician" })
        chain = InterceptorChain(clock: clock, session: session)
        for interceptor in interceptors { chain.append(interceptor) }
        requests += chain.takeRequests()
    }

    @discardableResult
    func dispatch(_ event: Event) -> InterceptorChain.Outcome {
        let outcome = chain.dispatch(event)
        requests += chain.takeRequests()
        return outcome
    }

    /// What the session does at sign-on: update who is signed on, then announce it.
    func signOn(_ user: String = "demo", role: String = "clinician") {
        chain.session.user = user
        chain.session.role = role
        chain.session.isLocked = false
        dispatch(.session(.signedOn(user: user, role: role)))
    }

    /// What the session does when it performs a lock.
    func lock(_ reason: LockReason) {
        chain.session.isLocked = true
        dispatch(.session(.locked(reason)))
    }

    func unlock() {
        chain.session.isLocked = false
        dispatch(.session(.unlocked(user: chain.session.user ?? "demo")))
    }

    func signOff(_ reason: SignOffReason = .user) {
        dispatch(.session(.signedOff(reason)))
        chain.session = SessionInfo(id: chain.session.id)
    }

    func type(_ text: String) {
        dispatch(.key(KeyPress(Array(text.utf8))))
    }

    /// Lets `duration` pass with the loop running: it wakes at every deadline on the way, as
    /// `ppoll` would, and fires what is due.
    func wait(_ duration: Duration) {
        let end = clock.now + duration
        var guardCount = 0
        while let deadline = chain.nextDeadline, deadline <= end {
            guardCount += 1
            precondition(guardCount < 10_000, "the deadline never moves: a busy loop")
            if deadline > clock.now { clock.now = deadline }
            wakes += 1
            chain.fireDueTimers()
            requests += chain.takeRequests()
        }
        clock.now = end
    }

    /// Lets `duration` pass with nothing running (a laptop asleep, a stopped process), then wakes
    /// the loop once, as the first `ppoll` return after the machine resumes would.
    func sleepThenWake(_ duration: Duration) {
        clock.advance(by: duration)
        wakes += 1
        chain.fireDueTimers()
        requests += chain.takeRequests()
    }

    /// The requests made since the last call.
    func takeRequests() -> [ChainRequest] {
        defer { requests.removeAll() }
        return requests
    }

    var locks: [LockReason] {
        requests.compactMap { if case .lock(let reason) = $0 { reason } else { nil } }
    }

    var notices: [String] {
        requests.compactMap { if case .notice(let text) = $0 { text } else { nil } }
    }
}
