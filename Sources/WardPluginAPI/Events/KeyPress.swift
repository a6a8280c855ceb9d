/// The bytes of one key press: a byte, a UTF-8 character, an escape sequence, or a whole
/// bracketed paste.
///
/// - Important: At a password prompt the chain gets `KeyPress.redacted`: a plugin learns that a
///   key was pressed, never which. Secrets never travel the chain in clear.
public struct KeyPress: Equatable, Sendable {
    /// The bytes as the terminal sent them; empty when redacted.
    public let bytes: [UInt8]
    /// True at a password prompt: the key is activity, its value is withheld.
    public let isRedacted: Bool
    /// True for a bracketed paste (`ESC[200~` … `ESC[201~`), delivered as one event.
    public let isPaste: Bool

    public init(_ bytes: [UInt8], isPaste: Bool = false) {
        self.bytes = bytes
        self.isRedacted = false
        self.isPaste = isPaste
    }

    private init(redacted: Void) {
        self.bytes = []
        self.isRedacted = true
        self.isPaste = false
    }

    /// A key typed where its value is secret.
    public static let redacted = KeyPress(redacted: ())
}

extension KeyPress: CustomStringConvertible {
    /// Never the key itself: descriptions end up in logs.
    public var description: String {
        isRedacted ? "key(redacted)" : isPaste ? "paste(\(bytes.count) bytes)" : "key(\(bytes.count) bytes)"
    }
}
