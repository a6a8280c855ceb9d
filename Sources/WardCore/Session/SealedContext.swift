import Crypto
import FoundationEssentials

/// What a lock keeps of the session's context (the open charts' MRNs, for the records shell):
/// AES-256-GCM under a `ResumeKey`, so that while the session is locked nothing readable of it
/// is in memory, and only the password typed at the lock screen opens it again.
///
/// The user's name is authenticated with it: a seal made for one user does not open as another's.
public struct SealedContext: Sendable {
    /// Nonce, ciphertext and tag (swift-crypto's `combined` form); the nonce is random.
    public let box: [UInt8]

    /// Why a seal was not made or did not open; never says anything of what is inside.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// swift-crypto refused to seal.
        case sealing
        /// The key is not the one it was sealed with, or the box was damaged or changed.
        case opening

        public var description: String {
            switch self {
            case .sealing: "the list of open charts could not be sealed"
            case .opening: "the sealed list of open charts did not open"
            }
        }
    }

    init(box: [UInt8]) {
        self.box = box
    }

    /// Seals `plaintext` for `user`, then zeroes it and wipes `key`, whatever happens: at a lock
    /// neither may outlive the seal.
    public static func seal(
        _ plaintext: inout [UInt8],
        for user: String,
        with key: ResumeKey
    ) throws(Failure) -> SealedContext {
        defer {
            Password.zeroize(&plaintext)
            key.wipe()
        }
        do {
            let sealed = try key.withSymmetricKey {
                try AES.GCM.seal(plaintext, using: $0, authenticating: Array(user.utf8))
            }
            guard let combined = sealed.combined else { throw Failure.sealing }
            return SealedContext(box: Array(combined))
        } catch {
            throw .sealing
        }
    }

    /// The plaintext, when `key` is the one the box was sealed with for `user` and the box is as
    /// it was sealed. The caller zeroes what it gets back.
    public func open(for user: String, with key: ResumeKey) throws(Failure) -> [UInt8] {
        do {
            var opened = try key.withSymmetricKey {
                try AES.GCM.open(AES.GCM.SealedBox(combined: box), using: $0, authenticating: Array(user.utf8))
            }
            defer { opened.resetBytes(in: 0..<opened.count) }
            return Array(opened)
        } catch {
            throw .opening
        }
    }
}
