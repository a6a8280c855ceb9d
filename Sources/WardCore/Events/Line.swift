/// A completed command line and where it came from.
public struct Line: Equatable, Sendable {
    public var text: String
    public var source: Source

    public init(_ text: String, source: Source = .tty) {
        self.text = text
        self.source = source
    }

    /// Where a line was typed or read. The audit log records it (`tty`, `batch:FILE:LINE`).
    public enum Source: Equatable, Sendable, CustomStringConvertible {
        case tty
        case batch(file: String, line: Int)

        /// `FILE:LINE`, as compilers and psql name a place in a script; `tty` for the terminal.
        public var place: String {
            switch self {
            case .tty: "tty"
            case .batch(let file, let line): "\(file):\(line)"
            }
        }

        public var description: String {
            switch self {
            case .tty: "tty"
            case .batch(let file, let line): "batch:\(file):\(line)"
            }
        }
    }
}
