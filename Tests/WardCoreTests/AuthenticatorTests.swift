import Glibc
import Synchronization
import Testing

@testable import WardCore

/// The credential store with either source: the user list, the lockout and the counting are the
/// store's, whoever checks the password. PAM itself is tested end to end, through pam_wrapper
/// (PAMEndToEndTests): it can only be loaded into a fresh process.
struct AuthenticatorTests {
    /// Checks against a fixed table of system passwords, outside the store's lock as PAM does,
    /// and counts its calls: a stand-in for the system's password database, so that the store's
    /// rules can be tested on a manual clock.
    final class SystemPasswords: Authenticator {
        let passwords: [String: String]
        let said: [String]
        let calls = Mutex<[String?]>([])

        init(_ passwords: [String: String], saying said: [String] = []) {
            self.passwords = passwords
            self.said = said
        }

        var source: AuthSource { .pam(service: "test") }
        var checksUnderStoreLock: Bool { false }

        func check(
            _ password: borrowing Password,
            name: String,
            user: UserRecord?,
            tty: String?
        ) throws(AuthError) -> PasswordVerdict {
            calls.withLock { $0.append(user?.name) }
            guard user != nil, let expected = passwords[name] else { return .rejected }
            let right = password.withBytes { $0 == Array(expected.utf8) }
            return PasswordVerdict(isAccepted: right, messages: said)
        }
    }

    private let t0: Int64 = 1_800_000_000

    private func makeStore(_ scratch: ScratchHome, _ authenticator: any Authenticator) throws -> CredentialStore {
        let home = try WardHome.open(option: scratch.path + "/ward")
        return CredentialStore(
            path: home.credentialsPath,
            lockPath: home.credentialsLockPath,
            parameters: .testing,
            lockout: LockoutPolicy(maxFailedAttempts: 3, duration: .seconds(600)),
            authenticator: authenticator
        )
    }

    @Test func aSystemUser_isStoredWithoutAPassword_andListedSo() throws {
        let scratch = ScratchHome()
        let store = try makeStore(scratch, WardPasswordAuthenticator(parameters: .testing))
        try store.addSystemUser(name: "bob", role: .clerk)
        try store.add(name: "alice", role: .clinician, password: Password("pw"))
        let bob = try store.user(named: "bob")
        #expect(bob?.usesSystemPassword == true && bob?.role == .clerk)
        #expect(try store.user(named: "alice")?.usesSystemPassword == false)
        #expect(throws: AuthError.userExists("bob")) { try store.addSystemUser(name: "bob", role: .clerk) }
        let text = String(decoding: scratch.contents(of: store.path), as: UTF8.self)
        #expect(text.contains("bob\tclerk\tpam\t-\t-\t0\t0\t-\n"))
    }

    @Test func aSystemUsersPassword_cannotBeSetInWard() throws {
        let scratch = ScratchHome()
        let store = try makeStore(scratch, WardPasswordAuthenticator(parameters: .testing))
        try store.addSystemUser(name: "bob", role: .clerk)
        #expect(throws: AuthError.systemPassword(user: "bob")) {
            try store.setPassword(name: "bob", password: Password("new password"))
        }
        #expect(AuthError.systemPassword(user: "bob").description.contains("passwd(1)"))
    }

    @Test func wardsOwnStore_refusesASystemUser_whateverIsTyped() throws {
        let scratch = ScratchHome()
        let store = try makeStore(scratch, WardPasswordAuthenticator(parameters: .testing))
        try store.addSystemUser(name: "bob", role: .clerk)
        for typed in ["", "pam", "anything"] {
            #expect(throws: AuthError.wrongCredentials) {
                try store.signOn(name: "bob", password: Password(bytes: Array(typed.utf8)), tty: nil, at: t0)
            }
        }
        #expect(try store.verify(name: "bob", password: Password("pam")) == nil)
    }

    @Test func theSystemsPassword_signsOnAndUnlocks_andItsMessagesComeBack() throws {
        let scratch = ScratchHome()
        let system = SystemPasswords(["alice": "system pw"], saying: ["Your password expires in 3 days."])
        let store = try makeStore(scratch, system)
        try store.addSystemUser(name: "alice", role: .clinician)
        var messages: [String] = []
        let summary = try store.signOn(
            name: "alice",
            password: Password("system pw"),
            tty: "/dev/pts/4",
            at: t0,
            messages: &messages
        )
        #expect(summary.role == .clinician && summary.previous == nil)
        #expect(messages == ["Your password expires in 3 days."])
        #expect(try store.user(named: "alice")?.lastSignOn == SignOnRecord(time: t0, tty: "/dev/pts/4"))
        #expect(try store.unlock(name: "alice", password: Password("system pw"), at: t0 + 5).name == "alice")
    }

    @Test func wrongSystemPasswords_countAndLock_asWardsOwnDo() throws {
        let scratch = ScratchHome()
        let system = SystemPasswords(["alice": "system pw"])
        let store = try makeStore(scratch, system)
        try store.addSystemUser(name: "alice", role: .clinician)
        for i in 0..<3 {
            #expect(throws: AuthError.wrongCredentials) {
                try store.signOn(name: "alice", password: Password("guess"), tty: nil, at: t0 + Int64(i))
            }
        }
        #expect(try store.user(named: "alice")?.lockedUntil == t0 + 2 + 600)
        // Locked: refused without asking the system at all, even with the right password.
        let before = system.calls.withLock { $0.count }
        #expect(throws: AuthError.accountLocked(user: "alice", until: t0 + 602)) {
            try store.unlock(name: "alice", password: Password("system pw"), at: t0 + 10)
        }
        #expect(system.calls.withLock { $0.count } == before)
        // After the lock, the owner hears of the three.
        let summary = try store.signOn(name: "alice", password: Password("system pw"), tty: nil, at: t0 + 700)
        #expect(summary.failedAttempts == 3)
    }

    @Test func aNameWardDoesNotKnow_isRefused_andNeverGivenToTheSystem() throws {
        let scratch = ScratchHome()
        // The system knows carol; Ward's list does not: the list decides who may see records.
        let system = SystemPasswords(["carol": "system pw"])
        let store = try makeStore(scratch, system)
        try store.addSystemUser(name: "alice", role: .clinician)
        #expect(throws: AuthError.wrongCredentials) {
            try store.signOn(name: "carol", password: Password("system pw"), tty: nil, at: t0)
        }
        #expect(system.calls.withLock { $0 } == [nil])
        #expect(try store.users().map(\.name) == ["alice"])
    }

    @Test func theSiteSource_choosesTheAuthenticator() {
        #expect(AuthSource.ward.authenticator().checksUnderStoreLock)
        #expect(AuthSource.pam(service: "ward").authenticator().source == .pam(service: "ward"))
        #expect(!AuthSource.pam(service: "ward").authenticator().checksUnderStoreLock)
    }

    /// A PAM service this machine does not have is the site's mistake, not the user's: refused
    /// as a configuration error (78) before PAM is loaded, and never counted toward a lockout.
    @Test func aMissingPAMService_isAConfigurationError_andCountsNoFailure() throws {
        let scratch = ScratchHome()
        let service = "ward-test-missing-\(getpid())"
        let store = try makeStore(scratch, PAMAuthenticator(service: service))
        try store.addSystemUser(name: "bob", role: .clerk)
        let missing = AuthError.pamServiceMissing(service: service, path: "/etc/pam.d/\(service)")
        for _ in 0..<4 {
            #expect(throws: missing) { _ = try store.signOn(name: "bob", password: Password("pw"), tty: nil, at: t0) }
        }
        #expect(try store.user(named: "bob")?.failedAttempts == 0)
        #expect(try store.user(named: "bob")?.lockedUntil == nil)
        #expect(missing.exitStatus == .configuration)
        #expect(missing.description.contains("/etc/pam.d/\(service) does not exist"))
    }

    /// Where libpam would read a service: /etc/pam.d, or pam_wrapper's directory under it.
    @Test func theServiceFile_isLookedForWhereLibpamReadsIt() throws {
        let scratch = ScratchHome()
        let wrapped = ["PAM_WRAPPER": "1", "PAM_WRAPPER_SERVICE_DIR": scratch.path]
        #expect(PAMAuthenticator.serviceDirectories(environment: [:]) == ["/etc/pam.d", "/usr/lib/pam.d"])
        #expect(PAMAuthenticator.serviceDirectories(environment: wrapped) == [scratch.path])
        #expect(PAMAuthenticator.serviceFile("ward", environment: wrapped) == nil)
        let fd = open(scratch.path + "/ward", O_WRONLY | O_CREAT, 0o644)
        close(fd)
        #expect(PAMAuthenticator.serviceFile("ward", environment: wrapped) == scratch.path + "/ward")
        #expect(PAMAuthenticator.serviceFile("ward-test-missing", environment: [:]) == nil)
    }
}
