import Glibc
import Synchronization

/// What a terminate signal may cut short from another thread, and how a blocking wait learns
/// that Ward is ending.
///
/// The loop's thread runs one command at a time and handles signals between them; a command
/// that waits on SQLite or on an external plugin would keep SIGTERM waiting (more than
/// eleven minutes). `TerminationWatchdog` calls `request(by:)` from its own thread the moment
/// SIGTERM or SIGHUP arrives: every registered handler runs (the records store interrupts its
/// statement with `sqlite3_interrupt`, which is thread-safe), and `TerminationNotice.fd` becomes
/// readable for waits that `poll` (an external plugin's reply). The command then fails at once, and the loop's
/// thread ends the session through the chain as for any signal.
public enum CommandInterruption {
    private static let handlers = Mutex<[Int: @Sendable () -> Void]>([:])
    private static let nextID = Atomic<Int>(1)
    private static let requestedSignal = Atomic<Int32>(0)

    /// Adds `handler`, to be called from the watchdog's thread when a terminate signal arrives.
    /// It must be thread-safe and quick. Keep the registration as long as it should apply.
    public static func register(_ handler: @escaping @Sendable () -> Void) -> Registration {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        handlers.withLock { $0[id] = handler }
        return Registration(id: id)
    }

    /// A handler's place; it is removed when this goes.
    public final class Registration: Sendable {
        let id: Int

        init(id: Int) { self.id = id }

        deinit {
            let id = self.id
            _ = CommandInterruption.handlers.withLock { $0.removeValue(forKey: id) }
        }
    }

    /// The signal that asked Ward to end, or nil while none has.
    public static var requestedBy: UnixSignal? {
        let raw = requestedSignal.load(ordering: .acquiring)
        return raw == 0 ? nil : UnixSignal(rawValue: raw)
    }

    /// Ward is ending because of `signal`: interrupts every registered handler. Only the first
    /// call acts. Called by the watchdog's thread; tests call it directly.
    public static func request(by signal: UnixSignal) {
        guard
            requestedSignal.compareExchange(expected: 0, desired: signal.rawValue, ordering: .acquiringAndReleasing)
                .exchanged
        else { return }
        TerminationNotice.post()
        let current = handlers.withLock { Array($0.values) }
        for handler in current { handler() }
    }

    /// Runs one command and says whether it was abandoned: a terminate signal came while it ran
    /// and it failed (interrupted). A command that finished despite the signal was not abandoned.
    /// `SessionDriver` runs every command through this, at a terminal and in a batch alike.
    /// `requested` is `requestedBy` but for tests, which must not end the whole test process.
    public static func run(
        _ command: () -> CommandResult,
        requested: () -> UnixSignal? = { CommandInterruption.requestedBy }
    ) -> (result: CommandResult, abandonedBy: Lifecycle?) {
        let before = requested()
        let result = command()
        guard before == nil, let signal = requested(), result == .failed else { return (result, nil) }
        return (result, signal == .sighup ? .hangup : .terminate)
    }

    /// Forgets a request (tests only: one process runs many sessions).
    public static func reset() {
        requestedSignal.store(0, ordering: .releasing)
        TerminationNotice.clear()
    }
}
