import Glibc
import WardCore

/// Signals for one test's session, on a pipe of its own: `raise` sends one to this session only,
/// where a real signal would reach the whole test process.
public final class TestSignals: SignalSource {
    public let readEnd: Int32
    private let writeEnd: Int32
    /// The signals the driver asked for, from its table.
    public private(set) var handled: [UnixSignal] = []
    public private(set) var stops = 0
    /// Runs while the session is stopped (Ctrl-Z), before `fg`: let time pass here.
    public var whileStopped: () -> Void = {}

    public init() {
        var fds: [Int32] = [-1, -1]
        precondition(pipe(&fds) == 0)
        _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
        readEnd = fds[0]
        writeEnd = fds[1]
    }

    deinit {
        Glibc.close(readEnd)
        Glibc.close(writeEnd)
    }

    /// What `SessionDriver(signals:)` takes.
    public func install(_ signals: [UnixSignal]) -> any SignalSource {
        handled = signals
        return self
    }

    public func raise(_ signal: UnixSignal) {
        var byte = UInt8(signal.rawValue)
        _ = write(writeEnd, &byte, 1)
    }

    public func drain() -> [UnixSignal] {
        var result: [UnixSignal] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let n = read(readEnd, &buffer, buffer.count)
            if n <= 0 { break }
            result += buffer[0..<n].map { UnixSignal(rawValue: Int32($0)) }
        }
        return result
    }

    public func stopUntilContinued() {
        stops += 1
        whileStopped()
    }

    public func close() {}
}
