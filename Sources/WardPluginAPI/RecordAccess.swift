/// What a command did to one record: told by the layer that did it (the records shell), after it
/// did it, so that no plugin has to guess from the typed line.
///
/// The engine carries these without knowing what a record is: to it the identifier is text. The
/// audit log writes one record per access, which is how an auditor answers "who opened this
/// patient's chart, when, and was it allowed?".
///
/// - Important: `record` and `detail` are text from the records or from the user (an MRN as an
///   import wrote it, a break-glass reason): keep them exactly where they are recorded, and pass
///   them through `Sanitizer` wherever they are printed.
public struct RecordAccess: Equatable, Sendable {
    /// What the command did, or tried to do.
    public enum Action: String, Equatable, Sendable, CaseIterable, CustomStringConvertible {
        /// A search (`find`) listed it: its identifier, name, birth date and sex were shown.
        case listed = "list"
        /// Its chart was loaded and made the current one (`open`).
        case opened = "open"
        /// A section of its chart was shown (`show`); `detail` is the section.
        case read
        /// Something was written into it (`note`); never the text itself.
        case wrote = "write"
        /// Its chart was wiped from memory and forgotten (`close`).
        case closed = "close"
        /// A restricted chart was opened in an emergency; `detail` is the user's stated reason.
        case brokeGlass = "break-glass"

        /// The name records and plugins use: `open`, `read`, `break-glass`.
        public var description: String { rawValue }
    }

    /// How it ended.
    public enum Outcome: String, Equatable, Sendable, CaseIterable, CustomStringConvertible {
        /// Done.
        case ok
        /// Refused: the role may not, the record is restricted and no reason was given.
        case denied
        /// Attempted and not done: no such record, or an error.
        case failed
        /// About to be done: written before a change (a note), so that no change is ever without
        /// its record. The change is made only once this record is written; its `ok` or `failed`
        /// record follows, and a crash between the two leaves the attempt recorded.
        case started

        /// Whether the access shows or changes a record (`ok`, or a write `started`): one that
        /// the audit log cannot record must not go on, so the command is stopped there.
        public var mustBeRecorded: Bool { self == .ok || self == .started }

        public var description: String { rawValue }
    }

    public var action: Action
    /// The record's identifier exactly as the records store it (an MRN, of any length and form);
    /// for a `failed` access to a record that does not exist, as the user typed it.
    public var record: String
    /// The section read, or the break-glass reason; for an open, `RecordAccess.resumed` when the
    /// shell reopened the chart by itself after an unlock; nil otherwise.
    public var detail: String?

    /// The `detail` of an open nobody typed: the chart was open before a lock and came back
    /// after the password. An auditor tells it from a chosen open.
    public static let resumed = "resume"
    public var outcome: Outcome

    public init(_ action: Action, record: String, detail: String? = nil, outcome: Outcome) {
        self.action = action
        self.record = record
        self.detail = detail
        self.outcome = outcome
    }
}
