import Glibc

/// A password in memory: bytes that are zeroed when the value ends, and that cannot be copied.
///
/// Why not a `String`: a string's storage is shared and copied freely (interpolation, bridging,
/// small-string inlining in registers) and never cleared, so a typed password would linger in the
/// heap long after sign-on and show up in a core image taken after a lock. A non-copyable value
/// has one owner, and its `deinit` clears the one buffer.
///
/// - Important: Hand over the array with `consume` (or build it in place): a copy that the caller
///   keeps is a second buffer this type cannot clear.
public struct Password: ~Copyable {
    private var bytes: [UInt8]

    /// What the check against Ward's own hash derived beyond the digest it compared
    /// (`PasswordHash.matches`), for the session's resume key (`ResumeKey`): the one scrypt a
    /// sign-on or an unlock costs gives both. Empty until such a check matched; a reference, so a
    /// check that only borrows the password can leave it here, and it ends (wiped) with it.
    let checkedSecret = SecretBytes()

    /// Takes ownership of `bytes` (UTF-8, no trailing newline).
    public init(bytes: consuming [UInt8]) {
        self.bytes = bytes
    }

    /// A password from a string literal: for tests and the demo user's published password only.
    /// A password someone typed never becomes a `String`.
    public init(_ literal: StaticString) {
        self.bytes = literal.withUTF8Buffer { Array($0) }
    }

    /// The length in bytes.
    public var count: Int { bytes.count }

    /// True when nothing was typed.
    public var isEmpty: Bool { bytes.isEmpty }

    /// Lends the bytes to `body`, which must not keep them.
    public func withBytes<R>(_ body: ([UInt8]) throws -> R) rethrows -> R {
        try body(bytes)
    }

    /// Compares with `other` in time that depends only on the lengths (for "type it again").
    public func matches(_ other: borrowing Password) -> Bool {
        other.withBytes { Password.constantTimeEqual(bytes, $0) }
    }

    deinit {
        // `self` is immutable here; the buffer is ours alone (the type cannot be copied), so
        // clearing it through its address clears the only copy.
        bytes.withUnsafeBufferPointer { buffer in
            if let base = buffer.baseAddress, buffer.count > 0 {
                explicit_bzero(UnsafeMutableRawPointer(mutating: base), buffer.count)
            }
        }
    }

    /// Overwrites every byte with zero in a way the optimiser may not drop (`explicit_bzero`).
    public static func zeroize(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress, buffer.count > 0 { explicit_bzero(base, buffer.count) }
        }
    }

    /// Equal contents, compared without an early exit, so timing does not tell how many leading
    /// bytes matched. Lengths are not secret (digests have a fixed length).
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        constantTimeEqual(a[...], b[...])
    }

    /// The same over parts of arrays (a check's scrypt output is longer than the digest).
    static func constantTimeEqual(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
