import Crypto

/// How each record's hash binds it to the one before: SHA-256, or HMAC-SHA-256 keyed with the
/// site's secret.
///
/// Unkeyed, the chain finds an edit, a deletion, an insertion or a reordering made by hand, but
/// someone who can write the file can also recompute every hash after their change. With a key
/// that only Ward's writers can read, they cannot: that is why a site sets `key-file`.
public struct AuditChain {
    /// The `prev` of the first record in a file.
    public static let genesis = String(repeating: "0", count: 64)

    private let key: SymmetricKey?

    public init(key: SymmetricKey? = nil) { self.key = key }

    /// Whether a key is used.
    public var isKeyed: Bool { key != nil }

    /// `SHA-256` or `HMAC-SHA-256`, for summaries.
    public var algorithm: String { key == nil ? "SHA-256" : "HMAC-SHA-256" }

    /// The hash of a record whose body is `body` and whose predecessor's hash is `prev`, as 64
    /// lowercase hex digits.
    ///
    /// Hashes the bytes where they lie: every record and every head takes this way, and copying
    /// both inputs into new arrays first cost as much as the hash.
    public func hash(prev: String, body: some Sequence<UInt8>) -> String {
        var prev = prev
        return prev.withUTF8 { prevBytes in
            body.withContiguousStorageIfAvailable {
                hash(UnsafeRawBufferPointer(prevBytes), UnsafeRawBufferPointer($0))
            }
                ?? Array(body).withUnsafeBytes { hash(UnsafeRawBufferPointer(prevBytes), $0) }
        }
    }

    private func hash(_ prev: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer) -> String {
        if let key {
            var mac = HMAC<SHA256>(key: key)
            mac.update(data: prev)
            mac.update(data: body)
            return Self.hex(mac.finalize())
        }
        var digest = SHA256()
        digest.update(bufferPointer: prev)
        digest.update(bufferPointer: body)
        return Self.hex(digest.finalize())
    }

    /// True for 64 lowercase hex digits.
    public static func isHash(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func hex(_ bytes: some Sequence<UInt8>) -> String {
        String(unsafeUninitializedCapacity: 64) { out in
            var i = 0
            for b in bytes {
                out[i] = hexDigits[Int(b >> 4)]
                out[i + 1] = hexDigits[Int(b & 0xF)]
                i += 2
            }
            return i
        }
    }
}
