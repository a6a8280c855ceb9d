import ArgumentParser
import AuditLog
import BuiltInPlugins
import Glibc
import WardCore
import WardRecords

extension Ward {
    /// `ward lock --user NAME | --session ID | --all`: locks live sessions at once, from outside
    /// them, as a user locks their own with `lock`: each is wiped, its screen cleared, and its
    /// password asked again.
    ///
    /// The command never touches a session's memory: it leaves its name in the registry and sends
    /// the session SIGUSR1 (`SessionRegistry.requestLock`), or, with the site's records on
    /// PostgreSQL, notifies it through the server on whichever host it runs (`SessionDirectory`);
    /// the session turns that into an
    /// ordinary lock through its chain, so its audit log records the lock (`cause` request, `by`
    /// who asked) and every wipe rule holds. It then waits (up to `confirmation`) until each
    /// session lists itself as locked.
    ///
    /// Who may: a Ward user their own sessions (`--as NAME`, with their password, so that a
    /// claim of a name is not enough); an auditor, root, or a Unix user of the site's
    /// `admin-group`, anyone's. A refusal exits 77 and locks nothing. Every request, refused or done, is an
    /// audit record (`lock-request`) naming the Unix user who ran it.
    struct Lock: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lock",
            abstract: "Lock live sessions now: a user's, one session, or all; each is wiped and asks for the password.",
            discussion: """
                Say who you are with --as NAME (your Ward user; the password is asked on the \
                terminal): you may lock your own sessions; an auditor may lock anyone's. root, and a \
                Unix user of the site's admin group ([session] admin-group), may lock anyone's without --as. \
                'ward sessions' lists the sessions and their IDs.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Option(help: ArgumentHelp("Lock every session of this Ward user.", valueName: "name"))
        var user: String?

        @Option(help: ArgumentHelp("Lock this session (an ID from 'ward sessions').", valueName: "id"))
        var session: String?

        @Flag(help: "Lock every live session.")
        var all = false

        @Option(
            name: .customLong("as"),
            help: ArgumentHelp("Who asks: your Ward user; its password is asked for.", valueName: "name")
        )
        var requester: String?

        @OptionGroup var password: PasswordSourceOptions

        /// How long to wait for the sessions to say they are locked.
        static let confirmation: Duration = .seconds(3)

        func validate() throws {
            guard [user != nil, session != nil, all].filter({ $0 }).count == 1 else {
                throw ValidationError("Say which sessions: --user NAME, --session ID or --all (one of them).")
            }
            if let session, !SessionRegistry.isValidID(session) {
                throw ValidationError("--session '\(session)' is not a session ID; 'ward sessions' lists them.")
            }
            if password.passwordStdin, requester == nil {
                throw ValidationError("--password-stdin is the password of --as NAME; give --as too.")
            }
        }

        /// What the request names, as its audit record writes it.
        private var target: String {
            if let user { return "user \(user)" }
            if let session { return "session \(session)" }
            return "all"
        }

        func run() throws {
            let (home, _) = try Ward.User.open(global)
            let policy = try SitePolicy.load(siteOption: global.site, plugins: pluginRegistry)
            let audit = try AdministrativeAudit.open(global: global, home: home)
            let registry = try sessionDirectory(global: global, home: home)
            var asked: [String] = []
            let record = { (status: ExitStatus?) in
                AuditEntry.lockRequest(
                    by: audit.unixUser,
                    wardUser: requester,
                    target: target,
                    sessions: asked,
                    status: status
                )
            }
            let locked = try audit.recording(record) {
                let (name, mayLockOthers) = try authorize(policy: policy, home: home, unixUser: audit.unixUser)
                let targets = try registry.entries().filter { entry in
                    if let user { return entry.user == user }
                    if let session { return entry.id == session }
                    return true
                }
                // Another user's name is refused whether or not they have a session now.
                if !mayLockOthers,
                    let other = user.flatMap({ $0 == requester ? nil : $0 })
                        ?? targets.first(where: { $0.user != requester })?.user
                {
                    throw LockRequestError.notYours(requester: requester ?? "", owner: other)
                }
                asked = targets.map(\.id)
                return try lock(targets, by: name, registry: registry)
            }
            report(locked)
        }

        /// Who asks, as the lock screen names them, and whether they may lock others' sessions.
        private func authorize(
            policy: SitePolicy,
            home: WardHome,
            unixUser: AuditEntry.UnixUser
        ) throws -> (name: String, mayLockOthers: Bool) {
            let admin = policy.access.adminGroup.map { UnixGroup.contains(unixUser, group: $0) } ?? false
            guard let requester else {
                // root may lock any session without --as, as it could signal any process anyway;
                // with --as, the named Ward user's rule holds, whoever runs the command.
                guard admin || unixUser.uid == 0 else {
                    throw LockRequestError.whoAsks(adminGroup: policy.access.adminGroup)
                }
                return ("Unix user \(unixUser.name ?? String(unixUser.uid))", true)
            }
            guard UserRecord.isValidName(requester) else { throw AuthError.invalidUserName(requester) }
            let secret =
                password.passwordStdin
                ? try PasswordSource.readLine(from: STDIN_FILENO) : try PasswordInput.ask("Password for \(requester): ")
            // The site's users: the home's file, or the site's database beside its records.
            let store = try StoreBackend(records: policy.records, home: home).userDirectory(
                lockout: policy.effectivePolicy(user: requester, role: nil).lockoutPolicy
            )
            // As at the lock screen: a wrong password counts toward the account's lockout.
            var messages: [String] = []
            let role = try store.unlock(name: requester, password: secret, tty: nil, messages: &messages).role
            return (requester, admin || role == .auditor)
        }

        /// Asks each session to lock, then waits until each lists itself locked, has taken the
        /// request (a script signs on again at once from its password file), or is gone.
        /// Returns the sessions that confirmed; throws when one could not be asked.
        private func lock(
            _ targets: [SessionEntry],
            by name: String,
            registry: any SessionDirectory
        ) throws -> [SessionEntry] {
            var pending: [SessionEntry] = []
            for entry in targets {
                do throws(SessionRegistry.RequestFailure) {
                    try registry.requestLock(of: entry, by: name)
                    pending.append(entry)
                } catch .gone {
                    continue  // it ended meanwhile: nothing left to lock
                } catch .system(let operation, let code) {
                    throw LockRequestError.cannotAsk(session: entry.id, operation: operation, errno: code)
                }
            }
            let clock = ContinuousClock()
            let deadline = clock.now + Self.confirmation
            var confirmed: [SessionEntry] = []
            while !pending.isEmpty {
                let live = Dictionary(try registry.entries().map { ($0.id, $0) }) { a, _ in a }
                pending.removeAll { entry in
                    guard let now = live[entry.id] else { return true }  // ended: nothing to lock
                    let done = now.state == .locked || !registry.hasPendingRequest(id: entry.id)
                    if done { confirmed.append(now) }
                    return done
                }
                if pending.isEmpty || clock.now >= deadline { break }
                usleep(50_000)
            }
            if let late = pending.first { throw LockRequestError.notConfirmed(session: late.id) }
            return confirmed
        }

        private func report(_ locked: [SessionEntry]) {
            let ids = locked.map(\.id).joined(separator: " ")
            let count = locked.count == 1 ? "1 session" : "\(locked.count) sessions"
            switch (locked.isEmpty, user, session) {
            case (true, let user?, _): printText("No live session of \(user).")
            case (true, _, let session?): printText("No live session \(session).")
            case (true, _, _): printText("No live sessions.")
            case (false, let user?, _): printText("Locked \(count) of \(user): \(ids).")
            case (false, _, _): printText("Locked \(count): \(ids).")
            }
        }
    }
}

/// Why `ward lock` locked nothing, or not everything.
enum LockRequestError: WardError, Equatable {
    /// Neither `--as` nor a member of the admin group: nobody to hold to the rules.
    case whoAsks(adminGroup: String?)
    /// `requester` (not an auditor, not in the admin group) named a session of `owner`.
    case notYours(requester: String, owner: String)
    /// The request could not be left, or the signal not sent.
    case cannotAsk(session: String, operation: String, errno: Int32)
    /// The session was asked but did not list itself locked in time.
    case notConfirmed(session: String)

    var description: String {
        switch self {
        case .whoAsks(let group):
            "say who asks with --as NAME (your Ward user)"
                + (group.map { ", or run this as root or as a member of the site's admin group '\($0)'." }
                    ?? ", or run this as root.")
        case .notYours(let requester, let owner):
            "\(requester) may lock only their own sessions, not \(owner)'s; locking another "
                + "user's needs the auditor role or the site's admin group ([session] admin-group). Nothing was locked."
        case .cannotAsk(let session, let operation, let code):
            "session \(session): could not \(operation): \(String(cString: strerror(code)))."
        case .notConfirmed(let session):
            "session \(session) was asked to lock but has not said it is locked; check with 'ward sessions'."
        }
    }

    var exitStatus: ExitStatus {
        switch self {
        case .whoAsks, .notYours: .authenticationFailed
        case .cannotAsk: .ioError
        case .notConfirmed: .failure
        }
    }
}

/// Membership of a Unix group, as the system's group database has it (`getgrouplist`: the
/// user's primary group and every group that lists them).
enum UnixGroup {
    static func contains(_ user: AuditEntry.UnixUser, group: String) -> Bool {
        guard let name = user.name, let entry = getgrnam(group) else { return false }
        let wanted = entry.pointee.gr_gid
        guard let account = getpwnam(name) else { return false }
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, account.pointee.pw_gid, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            guard getgrouplist(name, account.pointee.pw_gid, &groups, &count) >= 0 else { return false }
        }
        return groups.prefix(Int(count)).contains(wanted)
    }
}
