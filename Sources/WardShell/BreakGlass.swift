import FoundationEssentials

/// The reason a user gave to open a restricted chart ("breaking the glass").
///
/// Kept by the shell (`Shell.lastBreakGlass`) for the audit trail until the next break-glass
/// open or the next wipe; the audit record, not the shell, is where it lives on.
///
/// - Important: the reason is the user's own free text; it goes to the audit log, never to
///   diagnostics or error messages.
public struct BreakGlass: Sendable, Equatable {
    /// The MRN of the restricted chart, as the store spells it.
    public var mrn: String
    public var user: String
    public var reason: String
    public var time: Date

    public init(mrn: String, user: String, reason: String, time: Date) {
        self.mrn = mrn
        self.user = user
        self.reason = reason
        self.time = time
    }
}
