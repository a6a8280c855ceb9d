import ArgumentParser
import AuditLog
import BuiltInPlugins
import Glibc
import WardCore

/// How Ward reads its command line when it is an account's only way in: a login shell
/// (`argv[0]` starting with `-`), or sshd's `ForceCommand`, which runs it with no arguments and
/// puts what the client asked for in `SSH_ORIGINAL_COMMAND`.
///
/// The client's command is text from whoever holds a key or a password for the account, so it
/// never reaches a shell and is never run as given. It is split into words by `SSHCommandWords`
/// (no shell syntax at all: anything odd is refused), and only the records shell's own batch,
/// `ward --batch -` or `ward -c COMMAND`, with `--user NAME --password-fd 0`, passes, and only
/// when the site's `[ssh] allow-commands` lists `batch`. Anything else ends here with 77, and
/// is audited (`ssh-command`) when the audit log can be opened; the record never holds the
/// command's text.
///
/// A login shell given a command (`ssh HOST CMD` to an account whose shell is Ward) is run by
/// sshd as `ward -c CMD`, without `SSH_ORIGINAL_COMMAND`: that form, when the account's shell
/// is this program and `SSH_CONNECTION` is set, is the same client command and meets the same
/// rules.
enum SSHEntry {
    /// The arguments `ward` parses: the process's own, none for a login shell, or the words of
    /// an SSH command the site allows.
    ///
    /// - Throws: `SSHCommandRefusal` (77) for a command the site does not allow; `ConfigError`
    ///   (78) when the site file cannot be read to decide.
    static func arguments(
        argv: [String] = CommandLine.arguments,
        environment: [String: String] = ConfigEnvironment.current,
        accountShellIsWard: () -> Bool = SSHEntry.accountShellIsWard
    ) throws -> [String] {
        let loginShell = argv.first?.hasPrefix("-") ?? false
        // A login shell ignores its arguments, as one started by login(1) gets none.
        let given = loginShell ? [] : Array(argv.dropFirst())
        let command: String
        if given.isEmpty, let original = environment["SSH_ORIGINAL_COMMAND"] {
            command = original
        } else if given.count == 2, given[0] == "-c", environment["SSH_CONNECTION"] != nil, accountShellIsWard() {
            command = given[1]
        } else {
            return given
        }
        return try allowedArguments(for: command, environment: environment)
    }

    /// The words after `ward` of an SSH command the site allows.
    private static func allowedArguments(for command: String, environment: [String: String]) throws -> [String] {
        let connection = SignOnSource(tty: nil, sshConnection: environment["SSH_CONNECTION"])
        let audit = SSHCommandAudit(source: connection)
        func refuse(_ refusal: SSHCommandRefusal) -> SSHCommandRefusal {
            audit.record(refusal: refusal)
            return refusal
        }
        let words: [String]
        do {
            words = try SSHCommandWords.split(command)
        } catch {
            throw refuse(.unreadable(error.problem))
        }
        let site = try SitePolicy.load(siteOption: nil, environment: environment, plugins: pluginRegistry)
        guard site.ssh.allows(.batch) else { throw refuse(.nothingAllowed(file: site.file)) }
        guard words.first == "ward" else { throw refuse(.notWard) }
        let arguments = Array(words.dropFirst())
        let batch = try batchArguments(arguments, refuse: refuse)
        try audit.record(allowed: .batch)
        return batch
    }

    /// `arguments` with `--password-fd 0` pointed at a duplicate of standard input, once they
    /// are checked to be a batch of the records shell that reads its password from the
    /// connection and names no other home, site or file.
    ///
    /// The duplicate lets `--batch -` read its password from the first line of standard input
    /// and its script from the rest: the password is read a byte at a time up to its newline
    /// and its descriptor closed, which leaves standard input open where the script starts.
    private static func batchArguments(
        _ arguments: [String],
        refuse: (SSHCommandRefusal) -> SSHCommandRefusal
    ) throws -> [String] {
        let passwordIndex = arguments.firstIndex { $0 == "--password-fd" || $0.hasPrefix("--password-fd=") }
        guard let passwordIndex else { throw refuse(.notBatch("it needs --user NAME and --password-fd 0")) }
        let value: String
        if arguments[passwordIndex] == "--password-fd" {
            guard passwordIndex + 1 < arguments.count else {
                throw refuse(.notBatch("it needs --user NAME and --password-fd 0"))
            }
            value = arguments[passwordIndex + 1]
        } else {
            value = String(arguments[passwordIndex].dropFirst("--password-fd=".count))
        }
        guard value == "0" else {
            throw refuse(.notBatch("the password comes over the connection: --password-fd 0"))
        }
        let duplicate = dup(STDIN_FILENO)
        guard duplicate >= 0 else { throw refuse(.notBatch("standard input is closed")) }
        var rewritten = arguments
        if arguments[passwordIndex] == "--password-fd" {
            rewritten[passwordIndex + 1] = "\(duplicate)"
        } else {
            rewritten[passwordIndex] = "--password-fd=\(duplicate)"
        }
        let parsed: any ParsableCommand
        do {
            parsed = try Ward.parseAsRoot(rewritten)
        } catch {
            close(duplicate)
            let message = Ward.message(for: error).split(separator: "\n").first.map(String.init) ?? "not understood"
            throw refuse(.notBatch(message))
        }
        guard let shell = parsed as? Ward.RecordsShell, shell.options.batch == "-" || shell.options.command != nil
        else {
            close(duplicate)
            throw refuse(.notBatch("only 'ward --batch -' and 'ward -c COMMAND' are allowed"))
        }
        guard shell.global.home == nil, shell.global.site == nil, shell.options.passwordFile == nil,
            shell.options.passwordFD == duplicate
        else {
            close(duplicate)
            throw refuse(.notBatch("--home, --site and --password-file are not allowed over SSH"))
        }
        return rewritten
    }

    /// Whether the account's login shell (the password database's, not `$SHELL`) is this very
    /// program: only then is `ward -c CMD` sshd's way of passing a client's command.
    static func accountShellIsWard() -> Bool {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(getuid(), &entry, &buffer, buffer.count, &found) == 0, found != nil, let shell = entry.pw_shell
        else { return false }
        guard let account = realpath(shell, nil) else { return false }
        defer { free(account) }
        guard let own = realpath("/proc/self/exe", nil) else { return false }
        defer { free(own) }
        return strcmp(account, own) == 0
    }
}

/// Writes the `ssh-command` record when the audit log the site names can be opened.
private struct SSHCommandAudit {
    let source: SignOnSource

    private var peer: (String?, Int?) {
        if case .ssh(let peer, let port, _) = source { return (peer, port) }
        return (nil, nil)
    }

    /// The refusal's record, if the log can be opened; the refusal stands either way.
    func record(refusal: SSHCommandRefusal) {
        do {
            try record(allowed: nil, reason: refusal.reason, status: refusal.exitStatus)
        } catch {
            StandardError.report("warning: the refused SSH command is not in the audit log: \(error)")
        }
    }

    /// The allowed command's record; a log that cannot be written stops it (fail closed).
    func record(allowed kind: SSHPolicy.CommandKind) throws {
        try record(allowed: kind.rawValue, reason: nil, status: .success)
    }

    /// One `ssh-command` record in the home's log; nothing when there is no home yet.
    private func record(allowed: String?, reason: String?, status: ExitStatus) throws {
        guard let audit = try open() else { return }
        let (peer, port) = self.peer
        try audit.record(
            .sshCommand(peer: peer, port: port, allowed: allowed, reason: reason, by: audit.unixUser, status: status)
        )
    }

    /// The administrative log of the home a session would use; nil when the home does not
    /// exist yet (nothing to audit into, and nothing to reach either).
    private func open() throws -> AdministrativeAudit? {
        let home: WardHome
        do {
            home = try WardHome.open(option: nil, create: false)
        } catch .notFound {
            return nil
        }
        return try AdministrativeAudit.open(global: try GlobalOptions.parse([]), home: home)
    }
}

/// Why a command given over SSH was not run.
enum SSHCommandRefusal: WardError, Equatable {
    /// The text holds something a plain list of words does not: a quote left open, a shell
    /// character, a control character.
    case unreadable(String)
    /// The site's `[ssh] allow-commands` is empty or missing.
    case nothingAllowed(file: String)
    /// The first word is not `ward`.
    case notWard
    /// A `ward` command that is not an allowed batch; the text says what is missing.
    case notBatch(String)

    /// The record's `reason`: a closed set, never the command's text.
    var reason: String {
        switch self {
        case .unreadable: "unreadable"
        case .nothingAllowed: "not-allowed"
        case .notWard: "not-ward"
        case .notBatch: "not-a-batch"
        }
    }

    var description: String {
        switch self {
        case .unreadable(let problem):
            "refused the command given over SSH: \(problem). This account runs only Ward."
        case .nothingAllowed(let file):
            "refused the command given over SSH: this account runs only Ward, and \(file) allows no command "
                + "over SSH ([ssh] allow-commands). Connect without a command for the records shell."
        case .notWard:
            "refused the command given over SSH: this account runs only Ward; the allowed commands are "
                + "'ward --batch - --user NAME --password-fd 0' and 'ward -c COMMAND --user NAME --password-fd 0'."
        case .notBatch(let problem):
            "refused the command given over SSH: \(problem). The allowed commands are "
                + "'ward --batch - --user NAME --password-fd 0' and 'ward -c COMMAND --user NAME --password-fd 0'."
        }
    }

    var exitStatus: ExitStatus { .authenticationFailed }
}
