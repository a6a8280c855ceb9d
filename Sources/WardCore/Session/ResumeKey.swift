import Crypto

/// The key that seals the list of open charts while the session is locked: 32 bytes of scrypt
/// over the password as typed, with a salt of the session's own.
///
/// Made each time the password is typed (sign-on, every unlock), because the password is kept no
/// longer than its check. Not from the credential store: its hash and salt are on disk, and a
/// key anyone who reads the store can make would seal nothing. The session's random salt also
/// keeps the key from ever being the stored digest (the same scrypt over the same password).
///
/// A class, so that the one buffer has one owner that wipes it: `wipe()` at the lock, and
/// `deinit` on every other way out.
public final class ResumeKey {
    /// How long a salt `SessionResume` draws for each session.
    public static let saltByteCount = 16

    private var bytes: [UInt8]

    /// Derives the key from `password` and `salt` (scrypt at `cost`, as the credential store
    /// hashes passwords: `ScryptParameters.standard` costs one sign-on's worth again).
    public init(password: borrowing Password, salt: [UInt8], cost: ScryptParameters) throws(AuthError) {
        bytes = try PasswordHash.derive(password, salt: salt, parameters: cost)
    }

    /// A fresh random salt (getrandom(2)).
    public static func randomSalt() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<saltByteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// True once `wipe()` has overwritten the key (what the unit tests check after a seal).
    public var isWiped: Bool { bytes.allSatisfy { $0 == 0 } }

    /// Lends the key to swift-crypto, whose copy (`SymmetricKey`) zeroes itself when released.
    func withSymmetricKey<R>(_ body: (SymmetricKey) throws -> R) rethrows -> R {
        try body(SymmetricKey(data: bytes))
    }

    /// Overwrites the key in place.
    public func wipe() {
        Password.zeroize(&bytes)
    }

    deinit { wipe() }
}

@available(*, unavailable)
extension ResumeKey: Sendable {}
