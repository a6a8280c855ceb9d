import WardCore
import WardRecords

/// The shell's part of `[session] resume`: at a lock, the open charts' MRNs and the current one
/// go to the session to be sealed (`SessionResume`); after the unlock, each is opened again
/// through `open`'s own path, so every reopening is an `opened` access on record again.
///
/// What is not reopened, and why it is said after the unlock:
/// - a restricted chart: breaking the glass takes a reason each time, and nobody gave one now
///   (nor is the old reason kept); the user opens it again with `open MRN --reason`;
/// - a chart whose MRN no longer exists (deleted or re-imported meanwhile): noted as a failed open;
/// - a chart the store failed to load: noted as a failed open, with the store's message.
extension Shell {
    public func resumableContext() -> [UInt8]? {
        guard !charts.isEmpty else { return nil }
        return ResumeContext(mrns: charts.map(\.mrn), current: currentMRN).encoded()
    }

    public func resume(from context: [UInt8]?) {
        withheld = nil
        guard let context else {
            write("The charts open before the lock were not reopened: their sealed list did not open. Open them again.")
            return
        }
        guard let saved = ResumeContext(decoding: context) else {
            write("The charts open before the lock were not reopened: their list did not read back. Open them again.")
            return
        }
        for mrn in saved.mrns {
            switch OpenCommand.reopen(mrn, in: self) {
            case .opened:
                break
            case .restricted:
                write(
                    "\(mrn) was not reopened: it is restricted, and opening it takes a reason each time. "
                        + "Open it again with: open \(mrn) --reason \"…\"",
                    .line
                )
            case .gone:
                write("\(mrn) was not reopened: no patient has that MRN any more.", .line)
            case .failed(let message):
                write("\(mrn) was not reopened: \(message)", .line)
            }
        }
        if let current = saved.current, let chart = loadedChart(mrn: current) { select(chart) }
        let count = charts.count
        guard count > 0 else { return }
        let open = "\(count) chart\(count == 1 ? "" : "s") open"
        if let chart = currentMRN.flatMap(loadedChart(mrn:)) {
            // A batch writes this line on standard error, a diagnostic stream where a name does
            // not belong: the MRN alone there. A person at the terminal reads both identifiers.
            let label = isInteractive ? PatientLabel.full(chart.patient) : chart.mrn
            write("Back as before the lock: \(open); the current chart is \(label).", .line)
        } else {
            write("Back as before the lock: \(open); none is current ('open MRN' chooses one).", .line)
        }
    }
}
