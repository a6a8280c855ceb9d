import WardCore

/// A real `InterceptorChain` on a `ManualClock`, driven the way `SessionDriver` drives it: one
/// `send` per event, whose requests are kept in order; wake at each deadline and fire what is due.
///
/// No mock of the chain: the deadlines, the `.timer` routing and the requests are the real ones.
/// The session state is the harness's, as it is the driver's: the contexts read it.
final class GuardHarness {
    let clock = ManualClock()
    let chain: InterceptorChain
    /// Who is signed on, as the driver would keep it.
    private(set) var session: SessionInfo
    /// Every request the interceptors made, in order, as the driver would have performed them.
    private(set) var requests: [ChainRequest] = []
    /// How many times the loop woke for a deadline.
    private(set) var wakes = 0

    init(_ interceptors: any Plugin..., user: String? = nil) {
        session = SessionInfo(id: "test", user: user, role: user.map { _ in .clinician })
        chain = InterceptorChain(clock: clock, session: session)
        chain.readsSession { [unowned self] in self.session }
        for interceptor in interceptors { requests += chain.append(interceptor) }
    }

    @discardableResult
    func send(_ event: Event) -> InterceptorChain.Outcome {
        let sent = chain.send(event)
        requests += sent.requests
        return sent.outcome
    }

    /// What the driver does at sign-on: update who is signed on, then announce it.
    func signOn(_ user: String = "demo", role: Role = .clinician) {
        session.user = user
        session.role = role
        session.isLocked = false
        send(.session(.signedOn(user: user, role: role)))
    }

    /// What the driver does when it performs a lock.
    func lock(_ reason: LockReason) {
        session.isLocked = true
        send(.session(.locked(reason)))
    }

    func unlock() {
        session.isLocked = false
        send(.session(.unlocked(user: session.user ?? "demo")))
    }

    func signOff(_ reason: SignOffReason = .user) {
        send(.session(.signedOff(reason)))
        session = SessionInfo(id: session.id)
    }

    func type(_ text: String) {
        send(.key(KeyPress(Array(text.utf8))))
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
            requests += chain.fireDueTimers()
        }
        clock.now = end
    }

    /// Lets `duration` pass with nothing running (a laptop asleep, a stopped process), then wakes
    /// the loop once, as the first `ppoll` return after the machine resumes would.
    func sleepThenWake(_ duration: Duration) {
        clock.advance(by: duration)
        wakes += 1
        requests += chain.fireDueTimers()
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
