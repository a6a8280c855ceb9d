/// What a signed-on user may do. The shell declares, per command, which roles may run it.
///
/// A closed set on purpose: a site cannot invent a role that the shell's commands never heard of
/// (and so could never deny).
public enum Role: String, CaseIterable, Sendable, CustomStringConvertible {
    /// Reads and annotates charts.
    case clinician
    /// Finds patients and manages demographics, without clinical detail.
    case clerk
    /// Reads the audit trail, not the charts.
    case auditor

    public var description: String { rawValue }

    /// `clinician, clerk or auditor`: for messages that list the choices.
    public static var choices: String { "clinician, clerk or auditor" }
}
