/// Where the session driver's signals come from: the process's `SignalPipe`, or a test's pipe.
///
/// The driver handles what `drain()` returns through its one table of signals
/// (`SessionDriver.signalTable`), the same in every mode; only the source differs. A test gives
/// its own so that it can send a SIGHUP to one session without ending the test process.
public protocol SignalSource: AnyObject {
    /// Readable when a signal has arrived; the loop watches it.
    var readEnd: Int32 { get }

    /// Every signal that arrived since the last call, in order.
    func drain() -> [UnixSignal]

    /// Stops the process as Ctrl-Z would and returns once it is continued (`fg`).
    func stopUntilContinued()

    /// The signals go back to their default actions.
    func close()
}

extension SignalPipe: SignalSource {}
