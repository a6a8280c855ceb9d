import FoundationEssentials

/// A clinical note written in Ward: signed by its author's user name and timed by the store.
///
/// Notes are only ever added, never changed: a correction is a new note that names the one it
/// corrects (`corrects`), so the chart keeps what was read and acted on beside what replaced it.
public struct Note: Sendable, Equatable {
    /// The Ward user who wrote it.
    public var author: String
    public var time: Date
    public var text: String
    /// The store's number for it, unique in the database: what `correct` names. Nil only for a
    /// note that was never stored.
    public var id: Int64?
    /// The number of the note of the same chart this one corrects; nil for a note of its own.
    public var corrects: Int64?

    public init(author: String, time: Date, text: String, id: Int64? = nil, corrects: Int64? = nil) {
        self.author = author
        self.time = time
        self.text = text
        self.id = id
        self.corrects = corrects
    }
}
