import Logging

/// After a lock and the right password, what the session had open is open again, as an iOS app
/// resumes where it was (`deferUntilAuthenticated`); while locked, nothing readable of it is kept.
///
/// ```
///  sign-on ──► key = ResumeKey(typed password, new salt)    (the key, in memory, while signed on)
///  lock    ──► sealed = AES-GCM(runner's context, key); the context and the key are wiped
///  unlock  ──► key = ResumeKey(typed password, same salt)   (the password was just checked)
///  shell   ──► context = open(sealed, key) ─► runner.resume(from:) ─► the context is zeroed
/// ```
///
/// The password is checked before any of this, by whatever checks it (the credential store, PAM):
/// this type only hears the typed password once it was accepted (`SessionDriver.checkPassword`).
/// A seal that does not open (the password was changed meanwhile, memory was damaged) is
/// forgotten and the user told; it is never a reason to refuse the unlock. A new sign-on forgets
/// what an earlier one kept, and a user or role whose `[session] resume` is false gets no key, so
/// a lock keeps nothing at all.
///
/// - Important: Not `Sendable`. It belongs to the loop's thread, like the driver.
public final class SessionResume {
    /// What unlocking brought back.
    public enum Opened: Equatable {
        /// Nothing was sealed: resume is off, or nothing was open at the lock.
        case nothing
        /// The runner's context, to hand back to it and then zero.
        case context([UInt8])
        /// Something was sealed and did not open; it is forgotten.
        case unreadable
    }

    /// The key's cost for a password Ward holds no hash of (PAM's). One that Ward's hash checked
    /// makes its key from that check's own scrypt (`ResumeKey`), at the hash's cost.
    private let standardCost: ScryptParameters
    private let isOn: (_ user: String, _ role: Role) -> Bool
    private let logger: Logger
    /// Who signed on: the seal is made for them alone.
    private var user: String?
    /// Drawn at sign-on, kept for the session: each unlock derives the same key again.
    private var salt: [UInt8] = []
    /// Present while signed on (when resume is on), never while locked.
    private var key: ResumeKey?
    /// Present from a lock until the shell is back.
    private var sealed: SealedContext?

    /// - Parameters:
    ///   - cost: scrypt's cost for the key of a password Ward keeps no hash of (the system's,
    ///     through PAM); the credential store's standard in production.
    ///   - logger: Names failures only (never a key, an MRN or a password).
    ///   - isOn: Whether `[session] resume` holds for this user in this role.
    public init(
        cost: ScryptParameters = .standard,
        logger: Logger,
        isOn: @escaping (_ user: String, _ role: Role) -> Bool
    ) {
        self.standardCost = cost
        self.isOn = isOn
        self.logger = logger
    }

    /// Whether a key is held (signed on, resume on).
    public var holdsKey: Bool { key != nil }

    /// Whether a sealed context waits for the unlock.
    public var isSealed: Bool { sealed != nil }

    /// `user` signed on with `password`: what an earlier sign-on kept is forgotten, and, when
    /// resume is on for them, a new salt is drawn and the key made.
    ///
    /// The key of a password Ward's hash checked costs what that hash costs, at sign-on and at
    /// every unlock: one who could read the sealed context could as well attack the hash, so a
    /// dearer key would protect nothing more, and the hash is what an administrator chose.
    public func signedOn(user: String, role: Role, password: borrowing Password) {
        forget()
        guard isOn(user, role) else { return }
        self.user = user
        salt = ResumeKey.randomSalt()
        key = makeKey(password)
    }

    /// The password typed at the lock screen was accepted: the key is made again from it.
    public func unlocked(password: borrowing Password) {
        guard user != nil, key == nil else { return }
        key = makeKey(password)
    }

    /// The session is locking: `context` (nil when nothing is open) is sealed, then it and the
    /// key are wiped. Without a key (resume off) nothing is kept. A context sealed at an earlier
    /// lock and not yet brought back (the session locked again as it unlocked) stays sealed.
    public func lock(sealing context: inout [UInt8]?) {
        defer {
            if context != nil { Password.zeroize(&context!) }
            context = nil
            key?.wipe()
            key = nil
        }
        guard let key, let user, context != nil else { return }
        do {
            sealed = try SealedContext.seal(&context!, for: user, with: key)
        } catch {
            sealed = nil
            logger.error("resume context not sealed", metadata: ["resume.error": "\(error)"])
        }
    }

    /// Once the shell is back after an unlock: the sealed context, opened and forgotten.
    public func open() -> Opened {
        guard let box = sealed else { return .nothing }
        sealed = nil
        guard let key, let user else { return .unreadable }
        do {
            return .context(try box.open(for: user, with: key))
        } catch {
            logger.notice("resume context did not open", metadata: ["resume.error": "\(error)"])
            return .unreadable
        }
    }

    /// Forgets everything: the key, the salt, the seal (a sign-off, another sign-on).
    public func forget() {
        key?.wipe()
        key = nil
        sealed = nil
        Password.zeroize(&salt)
        salt = []
        user = nil
    }

    private func makeKey(_ password: borrowing Password) -> ResumeKey? {
        do {
            return try ResumeKey(password: password, salt: salt, cost: standardCost)
        } catch {
            // Unsupported parameters only: resume is lost, the sign-on is not.
            logger.error("resume key not made", metadata: ["resume.error": "\(error)"])
            return nil
        }
    }
}

@available(*, unavailable)
extension SessionResume: Sendable {}
