import Foundation

/// A clinical note written in Ward: signed by its author's user name and timed by the store.
public struct Note: Sendable, Equatable {
    /// The Ward user who wrote it.
    public var author: String
    public var time: Date
    public var text: String

    public init(author: String, time: Date, text: String) {
        self.author = author
        self.time = time
        self.text = text
    }
}
