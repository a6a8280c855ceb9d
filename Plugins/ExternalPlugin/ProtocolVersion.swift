/// A version of the external plugins' protocol, `MAJOR.MINOR` as the hello writes it.
///
/// A minor version only adds fields, which a reader ignores; a major version changes what a
/// message means, so Ward runs only a plugin of its own major version.
public struct ProtocolVersion: Equatable, Sendable, CustomStringConvertible {
    public let major: Int
    public let minor: Int

    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// `"2.0"`, or `"2"` for 2.0; nil for any other text.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count),
            parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let major = Int(parts[0]), major >= 0
        else { return nil }
        let minor = parts.count == 2 ? Int(parts[1]) : 0
        guard let minor, minor >= 0 else { return nil }
        self.init(major: major, minor: minor)
    }

    public var description: String { "\(major).\(minor)" }
}
