import Testing

@testable import WardCore

/// What the driver does with what an authenticator says: PAM's messages before the refusal, and
/// an account the system refused announced as such and ending the session.
struct SessionDriverAuthenticatorTests {
    /// Answers every check the same way: a verdict with messages, or an error.
    struct Answering: Authenticator {
        var verdict = PasswordVerdict.rejected
        var error: AuthError?

        var source: AuthSource { .pam(service: "test") }
        var checksUnderStoreLock: Bool { false }

        func check(
            _ password: borrowing Password,
            name: String,
            user: UserRecord?,
            tty: String?
        ) throws(AuthError) -> PasswordVerdict {
            if let error { throw error }
            return verdict
        }
    }

    @Test func theSystemsMessages_areSaid_beforeTheRefusal() throws {
        let said = PasswordVerdict(isAccepted: false, messages: ["Authentication failed"])
        let f = try SessionDriverTests.Fixture(authenticator: Answering(verdict: said))
        #expect(try f.run("typed\n", interactive: false) == .authenticationFailed)
        let says = f.log.filter { $0.hasPrefix("say ") }
        #expect(says.prefix(2) == ["say Authentication failed", "say Wrong user name or password."], "\(f.log)")
        #expect(f.sessionEvents.first == .signOnFailed(user: "alice", reason: .wrongPassword))
    }

    @Test func anAccountTheSystemRefuses_isAnnounced_andEndsTheSession_with77() throws {
        let refusal = AuthError.accountRefused(user: "alice", reason: "Your account has expired.")
        let f = try SessionDriverTests.Fixture(authenticator: Answering(error: refusal))
        #expect(try f.run("typed\n", interactive: true) == .authenticationFailed)
        #expect(f.log.contains("cannot sign on"))
        #expect(f.sessionEvents.first == .signOnFailed(user: "alice", reason: .accountRefused))
        // Not a guess: nothing counted toward a lockout.
        #expect(try f.credentials.user(named: "alice")?.failedAttempts == 0)
    }

    @Test func whenPAMCannotCheck_theSessionEnds_with69_andNothingIsCounted() throws {
        let broken = AuthError.authenticationUnavailable(service: "ward", reason: "Module is unknown")
        let f = try SessionDriverTests.Fixture(authenticator: Answering(error: broken))
        #expect(try f.run("typed\n", interactive: true).rawValue == 69)
        #expect(f.sessionEvents.allSatisfy { if case .signOnFailed = $0 { false } else { true } })
        #expect(try f.credentials.user(named: "alice")?.failedAttempts == 0)
    }
}
