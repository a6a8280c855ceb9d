/// A completed command line and where it came from.
public struct Line: Equatable, Sendable {
    public var text: String
    public var source: Source

    public init(_ text: String, source: Source = .tty) {
        self.text = text
        self.source = source
    }

    /// The longest line Ward takes, in bytes of UTF-8: 1 MiB (1,048,576).
    ///
    /// A bound, so that a line costs at most a known, small time (every step of a line is linear
    /// in its length, and a mebibyte takes milliseconds), and so that neither a script nor a paste
    /// makes Ward buffer without end. Longer lines are refused, never cut: a cut note would be
    /// saved as something the user did not write. Documented in ward(1).
    public static let maximumLength = 1 << 20

    /// What the user reads when a line is refused for its length, without the `ward:` prefix.
    public static let tooLongMessage =
        "the line is longer than 1 MiB (1048576 bytes), the most Ward takes; it was not run."

    /// Where a line was typed or read. The audit log records it (`tty`, `batch:FILE:LINE`).
    public enum Source: Equatable, Sendable, CustomStringConvertible {
        case tty
        case batch(file: String, line: Int)
        /// Typed into the program `ward exec` runs (its name), as Ward reconstructed it from the
        /// keys up to Enter: text for the program, not a Ward command.
        case program(String)

        /// `FILE:LINE`, as compilers and psql name a place in a script; `tty` for the terminal.
        public var place: String {
            switch self {
            case .tty: "tty"
            case .batch(let file, let line): "\(file):\(line)"
            case .program(let name): "exec:\(name)"
            }
        }

        public var description: String {
            switch self {
            case .tty: "tty"
            case .batch(let file, let line): "batch:\(file):\(line)"
            case .program(let name): "exec:\(name)"
            }
        }
    }
}
