import ArgumentParser
import AuditLog
import WardCore
import WardShell

extension AuditQuestion {
    /// The filters of the question, checked once for `ward audit show`, `ward audit report` and
    /// the shell's `audit`: a time, an action, an outcome or a kind Ward does not know is a usage
    /// error that says what it takes. The MRNs are resolved against the log (`AuditQuery`).
    func filter() throws(ValidationError) -> AuditFilter {
        func time(_ name: String, _ value: String?) throws(ValidationError) -> Int64? {
            guard let value else { return nil }
            guard let time = AuditTime.parse(value) else {
                throw ValidationError(
                    "--\(name) '\(value)' is not a time; write '2026-11-22', '2026-11-22T09:30', "
                        + "'2026-11-22T09:30-05:00', 'today', 'yesterday' or a duration ago such as '30d' or '2h'."
                )
            }
            return time
        }
        for value in actions where !AuditFilter.actionNames.contains(value) {
            throw ValidationError(
                "--action '\(value)' is not an action; choose from \(AuditFilter.actionNames.joined(separator: ", "))."
            )
        }
        var outcomes = Set<RecordAccess.Outcome>()
        for value in self.outcomes {
            guard let outcome = RecordAccess.Outcome(rawValue: value) else {
                let known = RecordAccess.Outcome.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("--outcome '\(value)' is not an outcome; choose from \(known).")
            }
            outcomes.insert(outcome)
        }
        var kinds: Set<AuditEntry.Kind>?
        if !self.kinds.isEmpty {
            do throws(AuditFilter.UnknownKind) {
                kinds = try AuditFilter.kinds(self.kinds)
            } catch {
                let known = AuditEntry.Kind.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("--kind '\(error.value)' is not a record kind; choose from \(known).")
            }
        }
        return AuditFilter(
            users: users.isEmpty ? nil : Set(users),
            since: try time("since", since),
            until: try time("until", until),
            outcomes: outcomes.isEmpty ? nil : outcomes,
            kinds: kinds,
            actions: reportMRN != nil ? Set(AuditFilter.actionNames) : actions.isEmpty ? nil : Set(actions)
        )
    }
}
