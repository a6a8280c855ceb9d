import Glibc

/// A number as C's printf writes it, for the few places that want `%.4g` or `%.1f`.
/// `String(format:)` would do, but only the full Foundation has it, and linking that pulls
/// ICU's data into the binary. Ward never calls `setlocale`, so the point is always `.`.
public enum PrintfNumber {
    /// `value` written by `format`, which holds exactly one conversion of a `double`
    /// (`"%.4g"`, `"%.1f"`).
    public static func format(_ format: String, _ value: Double) -> String {
        // 32 bytes hold every `%g`; a long `%f` is measured by the first call and written by a second.
        var capacity = 32
        while true {
            var buffer = [CChar](repeating: 0, count: capacity)
            let length = Int(
                withVaList([value]) { arguments in
                    format.withCString { vsnprintf(&buffer, capacity, $0, arguments) }
                }
            )
            guard length >= 0 else { return "" }
            if length < capacity {
                return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
            capacity = length + 1
        }
    }
}
