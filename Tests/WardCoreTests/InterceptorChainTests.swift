import SessionTestSupport
import Testing
import WardCore

@Suite struct InterceptorChainTests {
    let clock = ManualClock()

    func chain(_ interceptors: RecordingInterceptor...) -> InterceptorChain {
        let chain = InterceptorChain(clock: clock, session: SessionInfo(id: "test"))
        for i in interceptors { chain.append(i) }
        return chain
    }

    @Test func passesEachEventThroughEveryInterceptor_inOrder() {
        var order: [String] = []
        let a = RecordingInterceptor("a") { _, _ in
            order.append("a")
            return .pass
        }
        let b = RecordingInterceptor("b") { _, _ in
            order.append("b")
            return .pass
        }
        let c = RecordingInterceptor("c") { _, _ in
            order.append("c")
            return .pass
        }
        let outcome = chain(a, b, c).send(.typed("x")).outcome
        #expect(order == ["a", "b", "c"])
        #expect(outcome == .delivered(.typed("x")))
    }

    @Test func consume_stopsTheEvent_andLaterInterceptorsNeverSeeIt() {
        let a = RecordingInterceptor("a") { _, _ in .consume }
        let b = RecordingInterceptor("b")
        #expect(chain(a, b).send(.typed("x")).outcome == .consumed)
        #expect(b.seen.isEmpty)
    }

    @Test func replace_handsTheNewEventToTheRest() {
        let a = RecordingInterceptor("a") { event, _ in
            if case .line(let line) = event { return .replace(.line(Line(line.text.uppercased()))) }
            return .pass
        }
        let b = RecordingInterceptor("b")
        let outcome = chain(a, b).send(.line(Line("open 42"))).outcome
        #expect(b.seen == [.line(Line("OPEN 42"))])
        #expect(outcome == .delivered(.line(Line("OPEN 42"))))
    }

    @Test func deny_endsTheLine_withTheMessage_andTheRequestsMadeBeforeIt() {
        let a = RecordingInterceptor("a") { _, context in
            context.lock(reason: .failure)
            return .deny("outside working hours")
        }
        let b = RecordingInterceptor("b")
        let result = chain(a, b).send(.line(Line("open 42")))
        #expect(result == ChainResult(outcome: .denied("outside working hours", by: "a"), requests: [.lock(.failure)]))
        #expect(b.seen.isEmpty)
    }

    @Test func requests_comeBackWithTheirEvent_inTheOrderTheyWereMade() {
        let a = RecordingInterceptor("a") { _, context in
            context.notice("locking in 30 s")
            context.lock(reason: .idle)
            return .pass
        }
        let b = RecordingInterceptor("b") { _, context in
            context.notice("from b")
            return .pass
        }
        let c = RecordingInterceptor("c") { _, context in
            context.signOff(reason: .timeout)
            return .pass
        }
        let chain = chain(a, b, c)
        #expect(
            chain.send(.typed("x")).requests == [
                .notice("locking in 30 s"), .lock(.idle), .notice("from b"), .signOff(.timeout),
            ]
        )
        a.answer = { _, _ in .pass }
        b.answer = { _, _ in .consume }
        #expect(chain.send(.typed("y")) == ChainResult(outcome: .consumed))  // nothing left over
    }

    @Test func timer_goesOnlyToTheInterceptorThatScheduledIt_whenDue() {
        let a = RecordingInterceptor("a")
        let b = RecordingInterceptor("b")
        let chain = chain(a, b)
        b.answer = { _, context in
            context.schedule(after: .seconds(5))
            return .pass
        }
        _ = chain.send(.typed("y"))
        #expect(chain.nextDeadline == clock.now + .seconds(5))

        clock.advance(by: .seconds(4))
        #expect(chain.fireDueTimers().isEmpty)
        #expect(!b.seen.contains(.timer))

        b.answer = { _, context in
            context.lock(reason: .idle)
            return .consume
        }
        clock.advance(by: .seconds(1))
        #expect(chain.fireDueTimers() == [.lock(.idle)])
        #expect(b.seen.last == .timer)
        #expect(!a.seen.contains(.timer))
        #expect(chain.nextDeadline == nil)  // fired deadlines are withdrawn
    }

    @Test func nextDeadline_isTheEarliestOfAll() {
        let a = RecordingInterceptor("a") { _, c in
            c.schedule(after: .seconds(30))
            return .pass
        }
        let b = RecordingInterceptor("b") { _, c in
            c.schedule(after: .seconds(10))
            return .pass
        }
        let chain = chain(a, b)
        _ = chain.send(.typed("x"))
        #expect(chain.nextDeadline == clock.now + .seconds(10))
    }

    @Test func cancelDeadline_withdrawsIt() {
        let a = RecordingInterceptor("a") { event, c in
            if event == .typed("s") { c.schedule(after: .seconds(1)) } else { c.cancelDeadline() }
            return .pass
        }
        let chain = chain(a)
        _ = chain.send(.typed("s"))
        #expect(chain.nextDeadline != nil)
        _ = chain.send(.typed("c"))
        #expect(chain.nextDeadline == nil)
    }

    @Test func removeAll_tellsInterceptorsLastFirst_theSessionsEndingStatus() {
        final class Tracker: Plugin {
            static let name = "tracker"
            static let summary = "Logs when it is added and removed."
            let name: String
            let log: (String) -> Void
            init(_ name: String, log: @escaping (String) -> Void) {
                self.name = name
                self.log = log
            }
            convenience init(settings: PluginSettings, environment: PluginEnvironment) {
                self.init(settings.name) { _ in }
            }
            func intercept(_ event: Event, context: PluginContext) -> Disposition { .pass }
            func added(context: PluginContext) { log("+\(name)") }
            func removed(status: WardCore.ExitStatus, context: PluginContext) { log("-\(name) \(status)") }
        }
        var log: [String] = []
        let chain = InterceptorChain(clock: clock, session: SessionInfo(id: "t"))
        chain.append(Tracker("a") { log.append($0) })
        chain.append(Tracker("b") { log.append($0) })
        chain.removeAll(status: .authenticationFailed)
        #expect(log == ["+a", "+b", "-b 77", "-a 77"])
        #expect(chain.names.isEmpty)
    }

    @Test func interceptorsSeeWhoIsSignedOn() {
        var seenUser: String?
        let a = RecordingInterceptor("a") { _, c in
            seenUser = c.session.user
            return .pass
        }
        let chain = chain(a)
        var session = SessionInfo(id: "test")
        chain.readsSession { session }
        session.user = "alice"
        _ = chain.send(.session(.signedOn(user: "alice", role: .clinician)))
        #expect(seenUser == "alice")
        #expect(chain.session.user == "alice")
    }
}
