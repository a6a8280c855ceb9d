import Glibc

/// Removes a file if SIGINT, SIGTERM or SIGHUP ends the process while `body` runs, then ends
/// the process as the signal would have.
///
/// For `ward demo`'s staging file (the records on their way to a PostgreSQL server): the load
/// removes it on every return and every error, but a signal's default action ends the process
/// without unwinding, and the file would stay until the next `ward demo`. The handler only
/// unlinks and re-raises, both async-signal-safe. A signal the caller ignored stays ignored.
enum StagingFileRemoval {
    private static let signals = [SIGINT, SIGTERM, SIGHUP]

    static func during<T>(_ file: String, _ body: () throws -> T) rethrows -> T {
        stagingPath = strdup(file)
        var previous: [sigaction] = []
        for signal in signals {
            var old = sigaction()
            sigaction(signal, nil, &old)
            previous.append(old)
            // Function pointers are not Equatable: compare the addresses (SIG_IGN is 1).
            let ignored =
                unsafeBitCast(old.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
            guard !ignored else { continue }
            var action = sigaction()
            action.__sigaction_handler.sa_handler = removeStagingFileAndReraise
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, nil)
        }
        defer {
            for (signal, old) in zip(signals, previous) {
                var old = old
                sigaction(signal, &old, nil)
            }
            free(stagingPath)
            stagingPath = nil
        }
        return try body()
    }
}

/// The file the handler removes: set before the handler is installed, cleared after it goes.
nonisolated(unsafe) private var stagingPath: UnsafeMutablePointer<CChar>?

private func removeStagingFileAndReraise(_ signal: Int32) {
    if let stagingPath { unlink(stagingPath) }
    Glibc.signal(signal, SIG_DFL)
    raise(signal)
}
