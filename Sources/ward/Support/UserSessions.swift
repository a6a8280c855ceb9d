import AuditLog
import Glibc
import WardCore

/// The live sessions of one Ward user, signed off from outside (`ward user remove`, `ward user
/// disable`): a user who may no longer sign on must not keep a session that is open now.
///
/// As `ward lock` does, the command never touches a session's memory: it leaves a sign-off
/// request in the registry and signals the session (`SessionRegistry.requestSignOff`), which
/// ends through its own chain, so its audit log records the sign-off (`how` revoked). The
/// command then waits, up to `deadline`, until each session has left the registry.
enum UserSessions {
    /// How long a session has to end once asked.
    static let deadline: Duration = .seconds(1)

    /// ` Signed off 2 sessions: ID ID.`, or nothing when there were none.
    static func summary(_ sessions: [SessionEntry]) -> String {
        guard !sessions.isEmpty else { return "" }
        let count = sessions.count == 1 ? "1 session" : "\(sessions.count) sessions"
        return " Signed off \(count): \(sessions.map(\.id).joined(separator: " "))."
    }

    /// Asks each live session of `user` in `registry` (every host's, when the site's records are
    /// on a server) to sign off, and waits until each has ended; returns the sessions that were
    /// asked.
    ///
    /// - Throws: `UserSessionsError` when a session could not be asked, or is still there after
    ///   `deadline`.
    static func signOff(
        user: String,
        registry: any SessionDirectory,
        by requester: AuditEntry.UnixUser
    ) throws -> [SessionEntry] {
        let asker = "Unix user \(requester.name ?? String(requester.uid))"
        var asked: [SessionEntry] = []
        for entry in try registry.entries() where entry.user == user {
            do throws(SessionRegistry.RequestFailure) {
                try registry.requestSignOff(of: entry, by: asker)
                asked.append(entry)
            } catch .gone {
                continue  // it ended meanwhile
            } catch .system(let operation, let code) {
                throw UserSessionsError.cannotAsk(session: entry.id, operation: operation, errno: code)
            }
        }
        let clock = ContinuousClock()
        let end = clock.now + deadline
        while true {
            let live = Set(try registry.entries().map(\.id))
            guard let running = asked.first(where: { live.contains($0.id) }) else { return asked }
            if clock.now >= end { throw UserSessionsError.stillRunning(session: running.id, user: user) }
            usleep(20_000)
        }
    }
}

/// Why a removed or disabled user's sessions were not all signed off.
enum UserSessionsError: WardError, Equatable {
    /// The request could not be left, or the signal not sent.
    case cannotAsk(session: String, operation: String, errno: Int32)
    /// The session was asked and is still running after `UserSessions.deadline`.
    case stillRunning(session: String, user: String)

    var description: String {
        switch self {
        case .cannotAsk(let session, let operation, let code):
            "session \(session): could not \(operation): \(String(cString: strerror(code))); "
                + "it is still signed on. Lock it with 'ward lock --session \(session)'."
        case .stillRunning(let session, let user):
            "session \(session) of \(user) was asked to sign off but is still running; "
                + "check with 'ward sessions' and lock it with 'ward lock --session \(session)'."
        }
    }

    var exitStatus: ExitStatus {
        switch self {
        case .cannotAsk: .ioError
        case .stillRunning: .failure
        }
    }
}
