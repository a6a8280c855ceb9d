import Crypto

/// The key that seals the list of open charts while the session is locked: 32 bytes made from
/// the password as typed, with a salt of the session's own.
///
/// Made each time the password is typed (sign-on, every unlock), because the password is kept no
/// longer than its check. When Ward's own hash checked it, the key is HKDF-SHA256 over what that
/// check's scrypt gave beyond the stored digest (`Password.checkedSecret`): the hash's own cost,
/// paid once. Otherwise (PAM) it is scrypt over the password at the standard cost. Never from the
/// credential store alone: its hash and salt are on disk, and a key anyone who reads the store can
/// make would seal nothing. The session's random salt keeps each session's key its own.
///
/// A password changed while the session was locked makes another key, and the seal does not open
/// (`SessionResume` forgets it and says so); so does a user moved between Ward's store and PAM.
///
/// A class, so that the one buffer has one owner that wipes it: `wipe()` at the lock, and
/// `deinit` on every other way out.
public final class ResumeKey {
    /// How long a salt `SessionResume` draws for each session.
    public static let saltByteCount = 16
    static let byteCount = 32

    private var bytes: [UInt8]

    /// Derives the key from `password` and `salt`: from the secret its check left, or, for a
    /// password Ward holds no hash of, by scrypt at `cost` (one sign-on's worth again).
    public init(password: borrowing Password, salt: [UInt8], cost: ScryptParameters) throws(AuthError) {
        let checked = password.checkedSecret
        guard !checked.isEmpty else {
            bytes = try PasswordHash.derive(password, salt: salt, parameters: cost)
            return
        }
        let key = checked.withBytes { secret in
            HKDF<SHA256>.deriveKey(
                inputKeyMaterial: SymmetricKey(data: secret),
                salt: salt,
                info: Array("ward session resume".utf8),
                outputByteCount: Self.byteCount
            )
        }
        bytes = key.withUnsafeBytes { Array($0) }
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
