import Dispatch
import Glibc
import Synchronization
import Testing

@testable import WardCore

/// Failures counted per user in the credential store, across processes (AC-7).
/// Time is passed in (`at:`), as wall-clock seconds: a manual clock for every test here.
struct AccountLockoutTests {
    private let t0: Int64 = 1_800_000_000
    private let policy = LockoutPolicy(maxFailedAttempts: 3, duration: .seconds(600))

    private func makeStore(_ scratch: ScratchHome) throws -> CredentialStore {
        let home = try WardHome.open(option: scratch.path + "/ward")
        let store = CredentialStore(home: home, parameters: .testing, lockout: policy)
        try store.add(name: "alice", role: .clinician, password: Password("right"))
        return store
    }

    private func fail(_ store: CredentialStore, times: Int, at time: Int64, name: String = "alice") {
        for _ in 0..<times {
            #expect(throws: AuthError.wrongCredentials) {
                try store.signOn(name: name, password: Password("wrong"), tty: nil, at: time)
            }
        }
    }

    @Test func countsConsecutiveFailures_andLocksAtTheMaximum() throws {
        let scratch = ScratchHome()
        let store = try makeStore(scratch)
        fail(store, times: 2, at: t0)
        #expect(try store.user(named: "alice")?.consecutiveFailures == 2)
        #expect(try store.user(named: "alice")?.lockedUntil == nil)
        fail(store, times: 1, at: t0 + 5)
        let user = try store.user(named: "alice")
        #expect(user?.lockedUntil == t0 + 5 + 600)
        #expect(user?.failedAttempts == 3)
        #expect(user?.isLocked(at: t0 + 6) == true)
    }

    @Test func lockedAccount_refusesTheRightPassword_sayingUntilWhen_exit77() throws {
        let scratch = ScratchHome()
        let store = try makeStore(scratch)
        fail(store, times: 3, at: t0)
        let error = #expect(throws: AuthError.self) {
            try store.signOn(name: "alice", password: Password("right"), tty: nil, at: t0 + 599)
        }
        #expect(error == .accountLocked(user: "alice", until: t0 + 600))
        #expect(error?.exitStatus == .authenticationFailed)
        #expect(error?.description.contains("locked until \(SignOnSummary.localTime(t0 + 600))") == true)
        #expect(error?.description.contains("ward user unlock alice") == true)
        // The lock screen obeys the same rule.
        #expect(throws: AuthError.accountLocked(user: "alice", until: t0 + 600)) {
            try store.unlock(name: "alice", password: Password("right"), at: t0 + 10)
        }
    }

    @Test func lockedAccount_isRefusedWithoutCheckingThePassword() throws {
        let scratch = ScratchHome()
        var store = try makeStore(scratch)
        let counting = CountingAuthenticator(store.authenticator)
        store.authenticator = counting
        fail(store, times: 3, at: t0)
        #expect(counting.checks == 3)
        #expect(throws: AuthError.accountLocked(user: "alice", until: t0 + 600)) {
            try store.signOn(name: "alice", password: Password("right"), tty: nil, at: t0 + 1)
        }
        #expect(throws: AuthError.accountLocked(user: "alice", until: t0 + 600)) {
            try store.unlock(name: "alice", password: Password("right"), at: t0 + 2)
        }
        #expect(counting.checks == 3, "a locked account's password is never checked")
    }

    @Test func lockExpires_thenTheRightPasswordSignsOn_andTheCountStartsAgain() throws {
        let scratch = ScratchHome()
        let store = try makeStore(scratch)
        fail(store, times: 3, at: t0)
        let summary = try store.signOn(name: "alice", password: Password("right"), tty: nil, at: t0 + 600)
        #expect(summary.failedAttempts == 3)  // the owner is told
        let user = try store.user(named: "alice")
        #expect(user?.lockedUntil == nil && user?.consecutiveFailures == 0 && user?.failedAttempts == 0)
    }

    @Test func afterExpiry_aWrongPasswordDoesNotRelockAtOnce() throws {
        let scratch = ScratchHome()
        let store = try makeStore(scratch)
        fail(store, times: 3, at: t0)
        fail(store, times: 2, at: t0 + 700)
        #expect(try store.user(named: "alice")?.isLocked(at: t0 + 700) == false)
        fail(store, times: 1, at: t0 + 701)
        #expect(try store.user(named: "alice")?.lockedUntil == t0 + 701 + 600)
    }

    @Test func success_resetsTheCount() throws {
        let scratch = ScratchHome()
        let store = try makeStore(scratch)
        fail(store, times: 2, at: t0)
        _ = try store.signOn(name: "alice", password: Password("right"), tty: nil, at: t0 + 1)
        fail(store, times: 2, at: t0 + 2)
        #expect(try store.user(named: "alice")?.lockedUntil == nil)
        #expect(try store.user(named: "alice")?.consecutiveFailures == 2)
        // An unlock at the lock screen is a success too.
        _ = try store.unlock(name: "alice", password: Password("right"), at: t0 + 3)
        #expect(try store.user(named: "alice")?.consecutiveFailures == 0)
        #expect(try store.user(named: "alice")?.failedAttempts == 2)  // still to be shown at next sign-on
    }

    @Test func clearLock_unlocksAtOnce() throws {
        let scratch = ScratchHome()
        let store = try makeStore(scratch)
        fail(store, times: 3, at: t0)
        try store.clearLock(name: "alice")
        #expect(try store.user(named: "alice")?.lockedUntil == nil)
        _ = try store.signOn(name: "alice", password: Password("right"), tty: nil, at: t0 + 1)
        #expect(throws: AuthError.noSuchUser("bob")) { try store.clearLock(name: "bob") }
    }

    @Test func twoStoresOnOneFile_shareTheCount() throws {
        let scratch = ScratchHome()
        let first = try makeStore(scratch)
        let second = CredentialStore(
            path: first.path,
            lockPath: first.lockPath,
            parameters: .testing,
            lockout: policy
        )
        fail(first, times: 1, at: t0)
        fail(second, times: 1, at: t0)
        fail(first, times: 1, at: t0)
        #expect(throws: AuthError.accountLocked(user: "alice", until: t0 + 600)) {
            try second.signOn(name: "alice", password: Password("right"), tty: nil, at: t0 + 1)
        }
    }

    @Test func concurrentGuessers_getNoMoreThanTheMaximum() throws {
        let scratch = ScratchHome()
        let store = try makeStore(scratch)
        let wrong = Mutex(0)
        let locked = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 24) { _ in
            // Each attempt opens the lock file itself: as separate as two processes' flocks.
            let own = CredentialStore(path: store.path, lockPath: store.lockPath, parameters: .testing, lockout: policy)
            do throws(AuthError) {
                _ = try own.signOn(name: "alice", password: Password("wrong"), tty: nil, at: t0)
            } catch .wrongCredentials {
                wrong.withLock { $0 += 1 }
            } catch .accountLocked {
                locked.withLock { $0 += 1 }
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
        #expect(wrong.withLock { $0 } == 3)
        #expect(locked.withLock { $0 } == 21)
    }

    @Test func unknownUser_getsTheSameAnswer_andIsCheckedAgainstADummyWithTheSameCost() throws {
        let scratch = ScratchHome()
        let store = try makeStore(scratch)
        let unknown = #expect(throws: AuthError.self) {
            try store.signOn(name: "mallory", password: Password("right"), tty: nil, at: t0)
        }
        let wrong = #expect(throws: AuthError.self) {
            try store.signOn(name: "alice", password: Password("wrong"), tty: nil, at: t0)
        }
        #expect(unknown == wrong)
        #expect(unknown?.description == wrong?.description && unknown?.exitStatus == wrong?.exitStatus)
        // The dummy has the parameters new hashes are made with, and no password matches it.
        let dummy = PasswordHash.dummy(parameters: store.parameters)
        #expect(dummy.parameters == (try store.user(named: "alice"))?.passwordHash?.parameters)
        #expect(dummy.salt.count == PasswordHash.saltByteCount)
        #expect(try !dummy.matches(Password("")) && !dummy.matches(Password("right")))
        // Unknown names are not stored as users.
        #expect(try store.users().map(\.name) == ["alice"])
    }

    @Test func anUnknownName_locksAsAUserDoes_inTheSameWords_withoutItsNameStored() throws {
        let scratch = ScratchHome()
        let store = try makeStore(scratch)
        fail(store, times: 3, at: t0, name: "mallory")
        fail(store, times: 3, at: t0, name: "alice")
        let unknown = #expect(throws: AuthError.self) {
            try store.signOn(name: "mallory", password: Password("anything"), tty: nil, at: t0 + 1)
        }
        let known = #expect(throws: AuthError.self) {
            try store.signOn(name: "alice", password: Password("right"), tty: nil, at: t0 + 1)
        }
        #expect(unknown == .accountLocked(user: "mallory", until: t0 + 600))
        #expect(known == .accountLocked(user: "alice", until: t0 + 600))
        #expect(
            unknown?.description.replacingOccurrences(of: "mallory", with: "alice") == known?.description,
            "the same message"
        )
        #expect(try store.users().map(\.name) == ["alice"])
        let fd = open(store.unknownNamesPath, O_RDONLY)
        defer { close(fd) }
        let counts = String(
            decoding: try FileSecurity.readAll(descriptor: fd, path: store.unknownNamesPath),
            as: UTF8.self
        )
        #expect(counts.hasPrefix("ward-unknown-names 1\n") && !counts.contains("mallory"))
        // After the lockout, the name may try again, as a user may.
        fail(store, times: 1, at: t0 + 601, name: "mallory")
    }

    @Test func storeWrittenBeforeLockouts_readsAsNotLocked() throws {
        let hash = try PasswordHash(password: Password("pw"), parameters: .testing).encoded
        let text = "ward-credentials 1\nalice\tclinician\t\(hash)\t-\t-\t4\n"
        let users = try CredentialFile.parse(text, path: "credentials")
        #expect(users.first?.failedAttempts == 4)
        #expect(users.first?.consecutiveFailures == 0 && users.first?.lockedUntil == nil)
        let again = try CredentialFile.parse(CredentialFile.render(users), path: "credentials")
        #expect(again.first?.failedAttempts == 4)
    }

    @Test func lockoutKey_isParsedValidated_andRefusedInAUserFile() throws {
        let site = try SitePolicy.parse(
            "[session]\nlockout = \"30m\"\nmax-failed-attempts = 4\n",
            file: "site.toml",
            plugins: standInPlugins
        )
        #expect(site.sitePolicy.lockoutPolicy == LockoutPolicy(maxFailedAttempts: 4, duration: .seconds(1800)))
        let defaults = SitePolicy.builtIn(plugins: standInPlugins).sitePolicy.lockoutPolicy
        #expect(defaults == LockoutPolicy(maxFailedAttempts: 5, duration: .seconds(900)))
        let bad = configError {
            try SitePolicy.parse("[session]\nlockout = \"0s\"\n", file: "site.toml", plugins: standInPlugins)
        }
        #expect(bad?.all.map(\.description) == ["site.toml:2: 'lockout' is 0s; allowed: 1s to 24h."])
        let notDuration = configError {
            try SitePolicy.parse("[session]\n\nlockout = 15\n", file: "site.toml", plugins: standInPlugins)
        }
        #expect(notDuration?.all.first?.description.hasPrefix("site.toml:3: 'lockout' is 15, not a duration") == true)
        for value in ["5m", "1h"] {
            let refused = configError {
                try UserPreferences.parse(
                    "[session]\nlockout = \"\(value)\"\n",
                    file: "u.toml",
                    plugins: standInPlugins
                )
            }
            #expect(
                refused?.all.map(\.description)
                    == [
                        "u.toml:2: 'lockout' is the site's to set: an account's lock holds against whoever runs Ward, "
                            + "so a user file cannot change it. Remove it from this file."
                    ]
            )
        }
    }
}

/// The store's own authenticator, counting its checks: whether a password was checked at all
/// shows in the count, where a timing would only suggest it.
private final class CountingAuthenticator: Authenticator {
    private let checked: any Authenticator
    private let count = Mutex(0)
    init(_ checked: any Authenticator) { self.checked = checked }
    var checks: Int { count.withLock { $0 } }
    var source: AuthSource { checked.source }
    var checksUnderStoreLock: Bool { checked.checksUnderStoreLock }
    func check(
        _ password: borrowing Password,
        name: String,
        user: UserRecord?,
        tty: String?
    ) throws(AuthError) -> PasswordVerdict {
        count.withLock { $0 += 1 }
        return try checked.check(password, name: name, user: user, tty: tty)
    }
}
