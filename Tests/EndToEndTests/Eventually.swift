import Foundation
import Testing

/// Polls `probe` until it returns a value, and returns it; past `timeout`, records an issue
/// naming `what` (and `detail`, such as the screen) and throws.
///
/// The one way these tests wait: on something they can observe (the screen, a file, an audit
/// record, the session registry, a process's state), never for a fixed time in the hope that
/// something has happened, which fails on a loaded machine and wastes time on an idle one. The
/// timeout is a deadline, not a wait: a passing test never reaches it, so it is generous.
@discardableResult
func eventually<T>(
    _ what: String,
    timeout: Duration = .seconds(10),
    detail: @autoclosure () -> String = "",
    sourceLocation: SourceLocation = #_sourceLocation,
    _ probe: () throws -> T?
) throws -> T {
    let clock = ContinuousClock()
    let end = clock.now + timeout
    while true {
        if let value = try probe() { return value }
        guard clock.now < end else { break }
        Thread.sleep(forTimeInterval: 0.02)  // the polling interval, not a wait for anything
    }
    let more = detail()
    let message = "timed out waiting for \(what)" + (more.isEmpty ? "" : ". \(more)")
    Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
    throw TerminalHarness.HarnessError.timeout(what)
}

/// `eventually` for a condition.
func eventually(
    _ what: String,
    timeout: Duration = .seconds(10),
    detail: @autoclosure () -> String = "",
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () throws -> Bool
) throws {
    try eventually(what, timeout: timeout, detail: detail(), sourceLocation: sourceLocation) {
        try condition() ? true : nil
    }
}
