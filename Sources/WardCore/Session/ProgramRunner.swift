import Glibc

/// The program `ward exec` runs, as the session's `CommandRunner`: its pseudo-terminal, its
/// process, and the keys waiting to be written to it.
///
/// A line "runs" by being let through: the line's own keys are already in the program's
/// editor, and `ExecFrontEnd` relays the key that submits it once `SessionDriver.submit` says the
/// line passed the chain (`takePassed()`). There are no Ward commands, no prompt and no
/// completion.
///
/// - Important: Not `Sendable`. It runs on the driver's loop thread.
public final class ProgramRunner: CommandRunner {
    public let program: ExecProgram
    public let arguments: [String]
    /// What the kernel lets it do.
    public let sandbox: ExecSandbox
    /// The program's environment, `NAME=VALUE`.
    private let environment: [String]
    public private(set) var terminal: PseudoTerminal?
    public private(set) var child: ChildProcess?
    /// Keys the program has not read yet (its input was full), in order.
    private var pending: [UInt8] = []
    private var passed: Line?

    public init(program: ExecProgram, arguments: [String], environment: [String], sandbox: ExecSandbox) {
        self.program = program
        self.arguments = arguments
        self.sandbox = sandbox
        self.environment = environment
    }

    // MARK: CommandRunner

    public var prompt: String { "" }

    public func run(_ line: Line) -> CommandResult {
        passed = line
        return .succeeded
    }

    /// The line `run` let through last (a plugin may have replaced it), once.
    func takePassed() -> Line? {
        defer { passed = nil }
        return passed
    }

    public func completions(for word: String, before: String) -> [String] { [] }

    public func signedOn(user: String, role: Role) {}

    /// Keys typed ahead that the program has not read: zeroed and dropped. What the program
    /// itself holds Ward cannot reach (ward(1), EXEC: `on-lock = "kill"`).
    public func wipe() {
        explicit_bzero(&pending, pending.count)
        pending = []
        passed = nil
    }

    // MARK: The process

    /// Whether a process runs (or is stopped) in the pseudo-terminal.
    public var isRunning: Bool { child != nil && child?.exit == nil }

    /// Starts the program in a new pseudo-terminal with `settings` and `size`.
    public func start(settings: termios, size: (rows: Int, columns: Int)) throws(SystemError) {
        let terminal = try PseudoTerminal(settings: settings, size: size)
        child = try ChildProcess(
            path: program.path,
            arguments: arguments,
            environment: environment,
            terminal: terminal,
            sandbox: sandbox
        )
        self.terminal = terminal
    }

    /// The process has ended, or will not be talked to again: its terminal is closed (the
    /// kernel hangs up whatever still holds the slave) and what waited for it is dropped.
    public func releaseTerminal() {
        terminal = nil
        explicit_bzero(&pending, pending.count)
        pending = []
    }

    /// The process is gone and reaped: forget it.
    public func forgetChild() {
        child = nil
    }

    /// Sends `signal` to the program and to the job on its screen.
    public func signal(_ signal: Int32) {
        child?.signal(signal, foreground: terminal?.foregroundGroup)
    }

    /// Queues `bytes` for the program and writes what it takes now; true when some are still
    /// waiting (the caller watches for room).
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        pending += bytes
        return flush()
    }

    /// Writes what is waiting; true when some are still waiting.
    @discardableResult
    public func flush() -> Bool {
        guard let terminal, !pending.isEmpty else { return false }
        var written = 0
        while written < pending.count {
            guard let n = terminal.write(pending[written...]) else {
                written = pending.count  // the program is gone: nothing will read it
                break
            }
            if n == 0 { break }
            written += n
        }
        explicit_bzero(&pending, written)
        pending.removeFirst(written)
        return !pending.isEmpty
    }
}

@available(*, unavailable)
extension ProgramRunner: Sendable {}
