import Dispatch
import Glibc
import Synchronization
import Testing

@testable import WardCore

struct CredentialStoreTests {
    /// A store in a fresh home, with cheap scrypt parameters.
    private func makeStore(_ scratch: ScratchHome, minimumPasswordLength: Int = 1) throws -> CredentialStore {
        let home = try WardHome.open(option: scratch.path + "/ward")
        return CredentialStore(home: home, parameters: .testing, minimumPasswordLength: minimumPasswordLength)
    }

    @Test func add_thenVerify_roundTrips() throws {
        let scratch = ScratchHome()
        let store = try makeStore(scratch)
        try store.add(name: "alice", role: .clinician, password: Password("correct horse"))
        let user = try store.verify(name: "alice", password: Password("correct horse"))
        #expect(user?.name == "alice")
        #expect(user?.role == .clinician)
        #expect(user?.passwordHash?.parameters == .testing)
        #expect(scratch.mode(of: store.path) == 0o600)
        #expect(scratch.mode(of: store.lockPath) == 0o600)
    }

    @Test func verify_wrongPassword_orUnknownUser_isNil() throws {
        let scratch = ScratchHome()
        let store = try makeStore(scratch)
        try store.add(name: "alice", role: .clerk, password: Password("correct horse"))
        #expect(try store.verify(name: "alice", password: Password("correct hors")) == nil)
        #expect(try store.verify(name: "alice", password: Password("correct horsf")) == nil)
        #expect(try store.verify(name: "bob", password: Password("correct horse")) == nil)
        #expect(try store.verify(name: "Not A Name!", password: Password("x")) == nil)
    }

    @Test func passwordHashes_useFreshSaltEachTime() throws {
        let a = try PasswordHash(password: Password("same"), parameters: .testing)
        let b = try PasswordHash(password: Password("same"), parameters: .testing)
        #expect(a.salt != b.salt)
        #expect(a.digest != b.digest)
        let matched = try a.matches(Password("same"))
        #expect(matched)
        #expect(!a.description.contains(Hex.encode(a.digest)))
    }

    /// The check's scrypt runs for 64 bytes: the first 32 are the digest a 32-byte hash gives (so
    /// hashes already on disk match), and the right password keeps the other 32 for its session.
    @Test func aMatch_leavesThePasswordTheRestOfItsScrypt_andAMismatchLeavesNothing() throws {
        let hash = try PasswordHash(password: Password("same"), parameters: .testing)
        let wrong = Password("other")
        let wrongMatched = try hash.matches(wrong)
        #expect(!wrongMatched && wrong.checkedSecret.isEmpty)
        let unknown = Password("same")
        let dummyMatched = try PasswordHash.dummy(parameters: .testing).matches(unknown)
        #expect(!dummyMatched && unknown.checkedSecret.isEmpty)

        let right = Password("same")
        let matched = try hash.matches(right)
        let kept = right.checkedSecret.withBytes { $0 }
        let whole = try PasswordHash.derive(Password("same"), salt: hash.salt, parameters: .testing, byteCount: 64)
        #expect(matched)
        #expect(Array(whole[..<32]) == hash.digest, "the stored digest is the first half")
        #expect(Array(whole[32...]) == kept && kept != hash.digest)
    }

    @Test func storedHash_keepsItsParameters_afterStandardChanges() throws {
        let scratch = ScratchHome()
        let home = try WardHome.open(option: scratch.path)
        try CredentialStore(home: home, parameters: .testing).add(name: "a", role: .auditor, password: Password("pw"))
        let stronger = CredentialStore(home: home, parameters: ScryptParameters(logN: 5, r: 8, p: 1))
        #expect(try stronger.verify(name: "a", password: Password("pw"))?.passwordHash?.parameters == .testing)
    }

    @Test func file_holdsNoPasswordBytes() throws {
        let scratch = ScratchHome()
        let store = try makeStore(scratch)
        try store.add(name: "alice", role: .clinician, password: Password("Tr0ub4dor&3-unique-canary"))
        try store.setPassword(name: "alice", password: Password("second-canary-9f8e"))
        let text = String(decoding: scratch.contents(of: store.path), as: UTF8.self)
        for secret in ["Tr0ub4dor", "canary", Hex.encode(Array("Tr0ub4dor".utf8)), Hex.encode(Array("canary".utf8))] {
            #expect(!text.contains(secret))
        }
        #expect(text.hasPrefix("ward-credentials 1\n"))
        #expect(text.contains("alice\tclinician\t$scrypt$ln=4,r=8,p=1$"))
    }

    @Test func add_refusesDuplicateAndBadNames() throws {
        let scratch = ScratchHome()
        let store = try makeStore(scratch)
        try store.add(name: "alice", role: .clinician, password: Password("pw"))
        #expect(throws: AuthError.userExists("alice")) {
            try store.add(name: "alice", role: .clerk, password: Password("pw"))
        }
        for bad in ["", "Alice", "1abc", "a b", "a\tb", "a:b", String(repeating: "a", count: 33)] {
            #expect(throws: AuthError.invalidUserName(bad)) {
                try store.add(name: bad, role: .clerk, password: Password("pw"))
            }
        }
        #expect(throws: AuthError.passwordTooShort(minimum: 1)) {
            try store.add(name: "bob", role: .clerk, password: Password(""))
        }
        #expect(try store.users().map(\.name) == ["alice"])
    }

    @Test func setPassword_replacesHash_andClearsFailures() throws {
        let scratch = ScratchHome()
        let store = try makeStore(scratch)
        try store.add(name: "alice", role: .clinician, password: Password("old"))
        try store.recordFailure(name: "alice")
        try store.setPassword(name: "alice", password: Password("new"))
        #expect(try store.verify(name: "alice", password: Password("old")) == nil)
        #expect(try store.verify(name: "alice", password: Password("new")) != nil)
        #expect(try store.user(named: "alice")?.failedAttempts == 0)
        #expect(throws: AuthError.noSuchUser("bob")) { try store.setPassword(name: "bob", password: Password("x")) }
    }

    @Test func remove_andList() throws {
        let scratch = ScratchHome()
        let store = try makeStore(scratch)
        try store.add(name: "carol", role: .auditor, password: Password("pw"))
        try store.add(name: "alice", role: .clinician, password: Password("pw"))
        try store.add(name: "bob", role: .clerk, password: Password("pw"))
        #expect(try store.users().map(\.name) == ["alice", "bob", "carol"])
        try store.remove(name: "bob")
        #expect(try store.users().map(\.name) == ["alice", "carol"])
        #expect(throws: AuthError.noSuchUser("bob")) { try store.remove(name: "bob") }
        try store.setRole(name: "carol", role: .clerk)
        #expect(try store.user(named: "carol")?.role == .clerk)
    }

    @Test func users_withoutStore_isNoStore_exit66() throws {
        let scratch = ScratchHome()
        let store = try makeStore(scratch)
        let error = #expect(throws: AuthError.self) { try store.users() }
        #expect(error == .noStore(path: store.path))
        #expect(error?.exitStatus == .noInput)
        #expect(throws: AuthError.noStore(path: store.path)) {
            try store.verify(name: "alice", password: Password("pw"))
        }
    }

    @Test func signOn_showsPreviousSignOnAndFailuresSince() throws {
        let scratch = ScratchHome()
        let store = try makeStore(scratch)
        try store.add(name: "alice", role: .clinician, password: Password("pw"))

        let first = try store.signOn(name: "alice", password: Password("pw"), tty: "/dev/pts/3", at: 1_000)
        #expect(
            first
                == SignOnSummary(user: "alice", role: .clinician, previous: nil, failedAttempts: 0)
        )
        #expect(first.lines == ["This is your first sign-on."])

        #expect(throws: AuthError.wrongCredentials) {
            try store.signOn(name: "alice", password: Password("nope"), tty: "/dev/pts/4", at: 1_100)
        }
        try store.recordFailure(name: "alice")
        try store.recordFailure(name: "nobody")  // not recorded, not an error

        let second = try store.signOn(name: "alice", password: Password("pw"), tty: nil, at: 2_000)
        #expect(second.previous == SignOnRecord(time: 1_000, tty: "/dev/pts/3"))
        #expect(second.failedAttempts == 2)
        #expect(second.lines.count == 2)
        #expect(second.lines[0].hasPrefix("You last signed on "))
        #expect(second.lines[0].hasSuffix(" from /dev/pts/3."))
        #expect(second.lines[1] == "There were 2 unsuccessful attempts since you last signed on.")

        let user = try store.user(named: "alice")
        #expect(user?.lastSignOn == SignOnRecord(time: 2_000, tty: nil))
        #expect(user?.failedAttempts == 0)
    }

    @Test func summary_saysOneAttemptInTheSingular() {
        let summary = SignOnSummary(
            user: "a",
            role: .clerk,
            previous: SignOnRecord(time: 0, tty: nil),
            failedAttempts: 1
        )
        #expect(summary.lines.count == 2)
        #expect(!summary.lines[0].contains(" from "))
        #expect(summary.lines[1] == "There was 1 unsuccessful attempt since you last signed on.")
    }

    @Test func tty_withOddCharacters_roundTrips() throws {
        let scratch = ScratchHome()
        let store = try makeStore(scratch)
        try store.add(name: "alice", role: .clinician, password: Password("pw"))
        for tty in ["-", "/dev/pts/1\t\n\u{1b}[2J", "100%", "tty é"] {
            try store.recordSuccess(name: "alice", tty: tty, at: 5)
            #expect(try store.user(named: "alice")?.lastSignOn?.tty == tty)
        }
    }

    @Test func refuses_storeOthersCanWrite() throws {
        let scratch = ScratchHome()
        let store = try makeStore(scratch)
        try store.add(name: "alice", role: .clinician, password: Password("pw"))
        chmod(store.path, 0o666)
        let error = #expect(throws: AuthError.self) { try store.verify(name: "alice", password: Password("pw")) }
        #expect(error == .file(.unsafeMode(path: store.path, mode: 0o666, fix: "600")))
        #expect(error?.description.contains("group or others can write it") == true)
        #expect(error?.description.contains("chmod 600 \(store.path)") == true)
        #expect(error?.exitStatus == .configuration)
        // Nor may a writer use it.
        #expect(throws: AuthError.self) { try store.add(name: "mallory", role: .clinician, password: Password("x")) }
    }

    @Test func refuses_storeOthersCanRead() throws {
        let scratch = ScratchHome()
        let store = try makeStore(scratch)
        try store.add(name: "alice", role: .clinician, password: Password("pw"))
        chmod(store.path, 0o644)
        #expect(throws: AuthError.file(.unsafeMode(path: store.path, mode: 0o644, fix: "600"))) {
            try store.users()
        }
    }

    @Test func refuses_storeThatIsASymbolicLink() throws {
        let scratch = ScratchHome()
        let store = try makeStore(scratch)
        let elsewhere = CredentialStore(
            path: scratch.path + "/other",
            lockPath: scratch.path + "/other.lock",
            parameters: .testing
        )
        try elsewhere.add(name: "mallory", role: .clinician, password: Password("pw"))
        symlink(elsewhere.path, store.path)
        #expect(throws: AuthError.file(.symbolicLink(path: store.path))) { try store.users() }
    }

    @Test func corruptStore_namesTheLine() throws {
        let scratch = ScratchHome()
        let store = try makeStore(scratch)
        try store.add(name: "alice", role: .clinician, password: Password("pw"))
        var bytes = scratch.contents(of: store.path)
        bytes += Array("bob\tjanitor\t$scrypt$x\t-\t-\t0\n".utf8)
        let fd = open(store.path, O_WRONLY | O_TRUNC)
        try FileSecurity.writeAll(descriptor: fd, path: store.path, bytes: bytes)
        close(fd)
        let error = #expect(throws: AuthError.self) { try store.users() }
        #expect(
            error
                == .corruptStore(
                    path: store.path,
                    line: 4,
                    reason: "'janitor' is not a role (clinician, clerk or auditor)"
                )
        )
        #expect(error?.exitStatus == .configuration)
    }

    @Test func concurrentWriters_loseNoUpdate() throws {
        let scratch = ScratchHome()
        let store = try makeStore(scratch)
        try store.add(name: "alice", role: .clinician, password: Password("pw"))
        // Each iteration opens the lock file itself, so the flocks are as separate as two processes'.
        let failures = 40
        let errors = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: failures + 8) { i in
            do {
                if i < failures {
                    try store.recordFailure(name: "alice")
                } else {
                    try store.add(name: "user\(i - failures)", role: .clerk, password: Password("pw"))
                }
            } catch {
                errors.withLock { $0.append("\(error)") }
            }
        }
        #expect(errors.withLock { $0 } == [])
        let users = try store.users()
        #expect(users.count == 9)
        #expect(users.first { $0.name == "alice" }?.failedAttempts == failures)
        // No temporary file is left behind.
        #expect(access(store.path + ".new", F_OK) != 0)
    }

    @Test func password_zeroizes() {
        var bytes: [UInt8] = Array("secret".utf8)
        Password.zeroize(&bytes)
        #expect(bytes == [0, 0, 0, 0, 0, 0])
        #expect(Password.constantTimeEqual([1, 2], [1, 2]))
        #expect(!Password.constantTimeEqual([1, 2], [1, 3]))
        #expect(!Password.constantTimeEqual([1, 2], [1, 2, 3]))
        let same = Password("ab").matches(Password("ab"))
        let different = Password("ab").matches(Password("ac"))
        #expect(same && !different)
    }

    @Test func scryptParameters_parseAndBound() {
        #expect(ScryptParameters(text: "ln=14,r=8,p=1") == .standard)
        #expect(ScryptParameters(text: "ln=40,r=8,p=1") == nil)
        #expect(ScryptParameters(text: "ln=14,r=8") == nil)
        #expect(ScryptParameters(text: "ln=14,r=8,p=1,p=2") == nil)
        #expect(ScryptParameters.standard.isSupported)
    }
}
