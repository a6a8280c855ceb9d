import Glibc
import WardCore

/// Signals for one test's session, on a pipe of its own: `raise` sends one to this session only,
/// where a real signal would reach the whole test process.
package final class TestSignals: SignalSource {
    package let readEnd: Int32
    private let writeEnd: Int32
    /// The signals the driver asked for, from its table.
    package private(set) var handled: [UnixSignal] = []
    package private(set) var stops = 0
    /// Runs while the session is stopped (Ctrl-Z), before `fg`: let time pass here.
    package var whileStopped: () -> Void = {}

    package init() {
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
    package func install(_ signals: [UnixSignal]) -> any SignalSource {
        handled = signals
        return self
    }

    package func raise(_ signal: UnixSignal) {
        var byte = UInt8(signal.rawValue)
        _ = write(writeEnd, &byte, 1)
    }

    package func drain() -> [UnixSignal] {
        var result: [UnixSignal] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let n = read(readEnd, &buffer, buffer.count)
            if n <= 0 { break }
            result += buffer[0..<n].map { UnixSignal(rawValue: Int32($0)) }
        }
        return result
    }

    package func stopUntilContinued() {
        stops += 1
        whileStopped()
    }

    package func close() {}
}
