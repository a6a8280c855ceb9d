import Crypto
import _CryptoExtras

/// An scrypt hash of a password, with its own salt and parameters:
/// `$scrypt$ln=14,r=8,p=1$<salt, hex>$<digest, hex>` in the credential store.
///
/// Deliberately not `Equatable`: the only comparison a hash should take part in is
/// `matches(_:)`, which runs in constant time.
public struct PasswordHash: Sendable, CustomStringConvertible {
    /// The cost the digest was made with.
    public let parameters: ScryptParameters
    /// 16 random bytes, different for every user and every password change.
    public let salt: [UInt8]
    /// 32 bytes of scrypt output.
    public let digest: [UInt8]

    static let saltByteCount = 16
    static let digestByteCount = 32

    /// Hashes `password` with a fresh random salt.
    public init(password: borrowing Password, parameters: ScryptParameters) throws(AuthError) {
        var generator = SystemRandomNumberGenerator()  // getrandom(2)
        let salt = (0..<Self.saltByteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        self.parameters = parameters
        self.salt = salt
        self.digest = try Self.derive(password, salt: salt, parameters: parameters)
    }

    private init(parameters: ScryptParameters, salt: [UInt8], digest: [UInt8]) {
        self.parameters = parameters
        self.salt = salt
        self.digest = digest
    }

    /// A hash no password matches, with `parameters`: checked for an unknown user name so that it
    /// costs one full scrypt, as a known one does, and timing does not tell which names exist.
    /// Fixed salt and digest: making it must not cost a hash of its own.
    public static func dummy(parameters: ScryptParameters) -> PasswordHash {
        PasswordHash(
            parameters: parameters,
            salt: [UInt8](repeating: 0x5a, count: saltByteCount),
            digest: [UInt8](repeating: 0, count: digestByteCount)
        )
    }

    /// True when `password` is the one this hash was made from. Compares in constant time.
    ///
    /// The scrypt runs for twice the digest's length: scrypt ends in PBKDF2, whose output is made
    /// in independent 32-byte blocks, so the first half is the digest a 32-byte hash gives (the
    /// one on disk) and the second is key material that the stored hash and salt do not give
    /// without the password. On a match the password keeps that second half
    /// (`Password.checkedSecret`) for the session's resume key, which then costs no scrypt of its
    /// own.
    public func matches(_ password: borrowing Password) throws(AuthError) -> Bool {
        var derived = try Self.derive(password, salt: salt, parameters: parameters, byteCount: 2 * Self.digestByteCount)
        defer { Password.zeroize(&derived) }
        guard Password.constantTimeEqual(derived[..<Self.digestByteCount], digest[...]) else { return false }
        password.checkedSecret.keep(derived[Self.digestByteCount...])
        return true
    }

    /// The stored form.
    public var encoded: String {
        "$scrypt$\(parameters)$\(Hex.encode(salt))$\(Hex.encode(digest))"
    }

    /// Parses the stored form; nil when it is not one Ward wrote.
    public init?(encoded: Substring) {
        let parts = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "scrypt",
            let parameters = ScryptParameters(text: parts[2]),
            let salt = Hex.decode(parts[3]), salt.count >= 8, salt.count <= 64,
            let digest = Hex.decode(parts[4]), digest.count == Self.digestByteCount
        else { return nil }
        self.init(parameters: parameters, salt: salt, digest: digest)
    }

    /// Never the digest: a hash in a log line is a hash someone can attack offline.
    public var description: String { "PasswordHash(scrypt \(parameters))" }

    static func derive(
        _ password: borrowing Password,
        salt: [UInt8],
        parameters: ScryptParameters,
        byteCount: Int = digestByteCount
    ) throws(AuthError) -> [UInt8] {
        guard parameters.isSupported else { throw .hashingFailed("unsupported scrypt parameters \(parameters)") }
        do {
            let key = try password.withBytes { bytes in
                try KDF.Scrypt.deriveKey(
                    from: bytes,
                    salt: salt,
                    outputByteCount: byteCount,
                    rounds: parameters.rounds,
                    blockSize: parameters.r,
                    parallelism: parameters.p
                )
            }
            return key.withUnsafeBytes { Array($0) }
        } catch {
            throw .hashingFailed("scrypt failed with \(parameters)")
        }
    }
}

/// Lowercase hexadecimal, both ways.
enum Hex {
    static func encode(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: Substring) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 2)
        var i = 0
        while i < chars.count {
            guard let high = nibble(chars[i]), let low = nibble(chars[i + 1]) else { return nil }
            out.append(high << 4 | low)
            i += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
