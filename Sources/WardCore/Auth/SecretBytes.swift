/// A buffer of key material with one owner, overwritten when it is replaced and when it ends.
final class SecretBytes {
    private var bytes: [UInt8] = []

    /// True when nothing is kept.
    var isEmpty: Bool { bytes.isEmpty }

    /// Lends the bytes to `body`, which must not keep them (a copy it kept would be one the wipe
    /// does not reach).
    func withBytes<R>(_ body: ([UInt8]) throws -> R) rethrows -> R {
        try body(bytes)
    }

    /// Keeps a copy of `source`, wiping what was kept before.
    func keep(_ source: ArraySlice<UInt8>) {
        wipe()
        bytes = Array(source)
    }

    /// Overwrites the bytes in place and forgets them.
    func wipe() {
        Password.zeroize(&bytes)
        bytes = []
    }

    deinit { wipe() }
}

@available(*, unavailable)
extension SecretBytes: Sendable {}
