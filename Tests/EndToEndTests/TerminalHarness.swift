import Foundation
import Glibc
import Testing

/// Drives the real `ward` binary in a tmux pane: types keys, waits for text, reads the screen.
///
/// Each harness has its own tmux server (`-L`), its own HOME and its own Ward home, so tests do
/// not see each other or the developer's files. The pane runs `sh -c 'ward …; stty -a > FILE'`,
/// so after Ward exits the test can read the terminal's mode as Ward left it.
final class TerminalHarness {
    let socket = "ward-e2e-\(UInt32.random(in: 0...UInt32.max))"
    let directory: URL
    let home: URL
    var sttyFile: URL { directory.appendingPathComponent("stty.txt") }
    var exitFile: URL { directory.appendingPathComponent("exit.txt") }

    /// The `ward` binary next to this test bundle (`swift build` puts both in one folder), or the
    /// one `WARD_TEST_BINARY` names: the release build's (`scripts/build-release`), which links
    /// no Foundation, is run through the same tests so.
    static let wardPath: String = {
        if let binary = ProcessInfo.processInfo.environment["WARD_TEST_BINARY"], !binary.isEmpty {
            return binary
        }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        // The bundle may be a directory (…/wardPackageTests.xctest/…): walk up to find `ward`.
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("ward").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir.deleteLastPathComponent()
        }
        return "ward"
    }()

    /// The user every harness creates, and its password.
    static let user = "alice"
    static let password = "correct horse"

    var siteFile: URL { directory.appendingPathComponent("site.toml") }

    /// Appended to a test's site file whose chain leaves out the audit log or the idle timer:
    /// the site's explicit word that it runs without them (`[chain] require`), without which a
    /// session refuses to start. At the end, so that the lines a test expects in messages stay.
    static let unguarded = "\n[chain]\nrequire = []\n"

    /// The end of the prompt while the chart `mrn` is current (`ward [Hopper 1a2b3c4d-00…]> `):
    /// the MRN, cut as the prompt cuts one longer than twelve characters, and the bracket.
    static func chartPrompt(_ mrn: String) -> String {
        (mrn.count > 12 ? mrn.prefix(11) + "…" : Substring(mrn)) + "]>"
    }

    /// Starts `ward ARGS` in a new pane of `columns`×`rows`, with a home holding the user
    /// `alice` and a site file holding `site` (no plugins unless it names some). `sharing` runs
    /// this one on another harness's home and site file instead: two sessions of one home.
    init(
        _ arguments: [String] = [],
        sharing other: TerminalHarness? = nil,
        site: String = "plugin = []\n" + TerminalHarness.unguarded,
        environment: [String: String] = [:],
        columns: Int = 100,
        rows: Int = 30
    ) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("ward-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        home = other?.home ?? directory.appendingPathComponent("home")
        try (other.map { try String(contentsOf: $0.siteFile, encoding: .utf8) } ?? site)
            .write(to: siteFile, atomically: true, encoding: .utf8)
        let quoted = ([Self.wardPath] + arguments).map(Self.shellQuote).joined(separator: " ")
        var env = [
            "HOME": directory.path, "WARD_HOME": home.path, "WARD_SITE": siteFile.path, "TERM": "xterm-256color",
            "XDG_CONFIG_HOME": directory.appendingPathComponent("config").path, "LANG": "C.UTF-8",
            // The zone the tests' times are written in, whatever the test process's own TZ is
            // (the zone tests change it in this process while others run).
            "TZ": "UTC",
        ]
        if other == nil { try Self.addUser(home: home.path, site: siteFile.path) }
        env.merge(environment) { $1 }
        let exports = env.map { "export \($0)=\(Self.shellQuote($1));" }.joined(separator: " ")
        // The wrapper shell ignores Ctrl-C and Ctrl-\ so that it lives to record Ward's exit
        // status; Ward installs its own handlers.
        let script =
            "trap '' INT QUIT; \(exports) \(quoted); echo $? > \(Self.shellQuote(exitFile.path)); "
            + "stty -a > \(Self.shellQuote(sttyFile.path)); sleep 600"
        try tmux(["new-session", "-d", "-x", "\(columns)", "-y", "\(rows)", "sh", "-c", script])
    }

    deinit {
        _ = try? tmux(["kill-server"])
        try? FileManager.default.removeItem(at: directory)
    }

    /// `ward user add alice`, then alice's hash is the cheap one of `password` (`cheapHash`).
    /// Added with `--pam`, which asks for no password: hashing one at the standard cost, only
    /// to replace the hash, cost a debug build half a second of CPU for every harness.
    ///
    /// A site whose users are in its database (records on PostgreSQL) keeps no file to put the
    /// cheap hash in: there alice is added with `password`, at the standard cost.
    static func addUser(home: String, site: String) throws {
        let environment = ["WARD_HOME": home, "WARD_SITE": site, "HOME": home]
        let inDatabase = (try? String(contentsOfFile: site, encoding: .utf8))?.contains("\"postgresql\"") ?? false
        let added = try run(
            wardPath,
            ["user", "add", user, "--role", "clinician", inDatabase ? "--password-stdin" : "--pam"],
            environment: environment,
            input: inDatabase ? password + "\n" : nil
        )
        // 78: the site's users are in a database that has no schema yet; 77: in one this site
        // file's role may not change (the test adds its users as the owner). The session says so.
        if inDatabase, lastStatus == 78 || lastStatus == 77 { return }
        guard lastStatus == 0 else { throw HarnessError.failed("ward user add: exit \(lastStatus): \(added)") }
        if !inDatabase { try useCheapHash(home: home) }
    }

    /// `password` hashed at the cost unit tests use (`ScryptParameters.testing`, ln=4), with a
    /// fixed salt: the store checks a hash at the cost written beside it, and the resume key
    /// costs what the hash costs, so each sign-on and unlock of alice costs microseconds, not a
    /// debug build's two quarter seconds at the standard cost. Tests about the cost itself make
    /// their users otherwise (`BatchHome(standardCost: true)`, `ward user`).
    static let cheapHash =
        "$scrypt$ln=4,r=8,p=1$5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a$"
        + "aff34dcaef265cffad6036af8a5323bcfdd2a82fd3930cc44afcf32721fb9ca1"

    /// Puts `hash` in place of `user`'s hash in the home's credential store, in place (the
    /// file keeps its owner and mode).
    static func useCheapHash(home: String, user: String = TerminalHarness.user, hash: String = cheapHash) throws {
        let path = home + "/credentials"
        // A site whose records are on PostgreSQL keeps its users there, and the home no file.
        guard FileManager.default.fileExists(atPath: path) else { return }
        let lines = try String(contentsOfFile: path, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
        let cheap = lines.map { line -> String in
            var fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count > 2, fields[0] == user else { return String(line) }
            fields[2] = hash
            return fields.joined(separator: "\t")
        }
        guard cheap != lines.map(String.init), let file = FileHandle(forWritingAtPath: path) else {
            throw HarnessError.failed("no hash of \(user) in \(path)")
        }
        defer { try? file.close() }
        try file.truncate(atOffset: 0)
        try file.write(contentsOf: Data(cheap.joined(separator: "\n").utf8))
    }

    /// Answers the sign-on prompts and waits for the shell's prompt.
    func signOn(password: String = TerminalHarness.password) throws {
        try waitFor("Username:")
        try type(Self.user)
        try press("Enter")
        try waitFor("Password for \(Self.user):")
        try type(password)
        try press("Enter")
        try waitFor("ward>")
    }

    /// Types the password at the lock screen once it asks for it: the prompt throws away what
    /// was typed before it appeared, so keys sent on the lock's first line alone may be lost.
    func unlock(password: String = TerminalHarness.password) throws {
        try waitFor("Password for \(Self.user):")
        try enter(password)
    }

    /// Types a line and presses Enter.
    func enter(_ line: String) throws {
        try type(line)
        try press("Enter")
    }

    /// Types literal text (no key names).
    func type(_ text: String) throws { try tmux(["send-keys", "-l", text]) }

    /// Presses named keys: `Enter`, `C-c`, `C-d`, `C-z`, `Up`, `Tab`.
    func press(_ keys: String...) throws { try tmux(["send-keys"] + keys) }

    /// The visible screen, lines joined with newlines.
    func screen() throws -> String { try tmux(["capture-pane", "-p"]) }

    /// The screen and all of tmux's scrollback.
    func screenAndScrollback() throws -> String { try tmux(["capture-pane", "-p", "-S", "-"]) }

    /// Waits until the screen contains `text`, or fails after `timeout`.
    @discardableResult
    func waitFor(
        _ text: String,
        timeout: Duration = .seconds(10),
        sourceLocation: SourceLocation = #_sourceLocation
    )
        throws -> String
    {
        try waitUntil("screen to show \(text.debugDescription)", timeout: timeout, sourceLocation: sourceLocation) {
            let s = try screen()
            return s.contains(text) ? s : nil
        }
    }

    /// Waits until the screen shows `text` after the last `marker`: a prompt drawn again after a
    /// message, while the first prompt is still on the screen above it.
    @discardableResult
    func waitFor(
        _ text: String,
        after marker: String,
        timeout: Duration = .seconds(10),
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> String {
        try waitUntil(
            "screen to show \(text.debugDescription) after \(marker.debugDescription)",
            timeout: timeout,
            sourceLocation: sourceLocation
        ) {
            let s = try screen()
            guard let last = s.range(of: marker, options: .backwards) else { return nil }
            return s[last.upperBound...].contains(text) ? s : nil
        }
    }

    /// Waits until the session registry of this harness's home lists a locked session.
    func waitUntilLocked(sourceLocation: SourceLocation = #_sourceLocation) throws {
        try Self.waitUntilLocked(home: home.path, sourceLocation: sourceLocation)
    }

    /// Waits until the session registry of `home` lists a locked session. Ward writes "locked"
    /// there only once the lock's wipe is done (what `ward lock` relies on): a test that reads
    /// the process's memory after a lock waits for this rather than for the lock screen.
    static func waitUntilLocked(home: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let directory = home + "/sessions"
        try eventually("a locked session in \(directory)", sourceLocation: sourceLocation) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            return names.filter { $0.hasSuffix(".json") }.contains { name in
                guard let data = FileManager.default.contents(atPath: directory + "/" + name),
                    let entry = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
                else { return false }
                return entry["state"] as? String == "locked"
            }
        }
    }

    /// Stops copying the pane's output to `file` (started with `pipe-pane`) and waits until the
    /// copying process has exited, so that the file holds everything the pane showed.
    func stopPipingPane(to file: String) throws {
        try tmux(["pipe-pane"])
        try waitUntil("the copy of the pane to \(file) to end", timeout: .seconds(10)) {
            try Self.run("/usr/bin/pgrep", ["-f", file]).isEmpty ? true : nil
        }
    }

    /// Waits until Ward has exited; returns its exit status.
    func waitForExit(
        timeout: Duration = .seconds(10),
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws
        -> Int32
    {
        try waitUntil("ward to exit", timeout: timeout, sourceLocation: sourceLocation) {
            guard let text = try? String(contentsOf: sttyFile, encoding: .utf8), !text.isEmpty,
                let code = try? String(contentsOf: exitFile, encoding: .utf8)
            else { return nil }
            return Int32(code.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    /// The terminal mode Ward left behind (`stty -a` run right after it exited).
    func terminalModeAfterExit() throws -> String { try String(contentsOf: sttyFile, encoding: .utf8) }

    /// The process id of Ward (the pane's shell's child).
    func wardPID() throws -> Int32 {
        try waitUntil("ward's process", timeout: .seconds(5)) {
            let shell = try tmux(["list-panes", "-F", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)
            let children = try Self.run("/usr/bin/pgrep", ["-P", shell]).split(separator: "\n")
            return children.first.flatMap { Int32($0) }
        }
    }

    /// Changes the pane's size, as dragging a window edge would.
    func resize(columns: Int, rows: Int) throws {
        try tmux(["resize-window", "-x", "\(columns)", "-y", "\(rows)"])
    }

    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        try Self.run("/usr/bin/tmux", ["-L", socket, "-f", "/dev/null"] + arguments)
    }

    private func waitUntil<T>(
        _ what: String,
        timeout: Duration,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ probe: () throws -> T?
    ) throws -> T {
        try eventually(
            what,
            timeout: timeout,
            detail: "Screen:\n" + ((try? self.screen()) ?? "(no screen)"),
            sourceLocation: sourceLocation,
            probe
        )
    }

    enum HarnessError: Error {
        case timeout(String)
        case failed(String)
    }

    /// Runs a program to its end; returns what it printed. `input` goes to its standard input.
    ///
    /// `posix_spawn` and `waitpid` rather than Foundation's `Process`, whose `waitUntilExit` never
    /// returned here once `tmux new-session` had forked its server. Output goes to a file, not a
    /// pipe, for the same reason: the server would keep a pipe's write end open.
    @discardableResult
    static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        input: String? = nil
    ) throws -> String {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("ward-e2e-out-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        var inputFile: URL?
        if let input {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("ward-e2e-in-\(UUID().uuidString)")
            try input.write(to: url, atomically: true, encoding: .utf8)
            inputFile = url
        }
        defer { if let inputFile { try? FileManager.default.removeItem(at: inputFile) } }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inputFile?.path ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, out.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let pid = try spawn(executable, arguments, environment: environment, actions: &actions)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        lastStatus = (status >> 8) & 0xFF
        return (try? String(contentsOf: out, encoding: .utf8)) ?? ""
    }

    /// Starts `executable` as a login would: no signal blocked or ignored, whatever the test
    /// thread has; with `ownProcessGroup`, in a group of its own, so a signal meant for it
    /// reaches nothing else.
    static func spawn(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]?,
        actions: inout posix_spawn_file_actions_t,
        ownProcessGroup: Bool = false
    ) throws -> pid_t {
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for arg in argv { free(arg) } }
        let env = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0)=\($1)") } + [nil]
        defer { for entry in env { free(entry) } }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if ownProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var pid: pid_t = 0
        guard posix_spawn(&pid, executable, &actions, &attributes, argv, env) == 0 else {
            throw HarnessError.failed("cannot start \(executable)")
        }
        return pid
    }

    /// The exit status of the last `run` on this thread. Per thread, because suites run in
    /// parallel: one shared variable let another test's `run` overwrite it between a `run` and
    /// its read (both synchronous, so on one thread).
    static var lastStatus: Int32 {
        get { Thread.current.threadDictionary[lastStatusKey] as? Int32 ?? 0 }
        set { Thread.current.threadDictionary[lastStatusKey] = newValue }
    }
    private static let lastStatusKey = "ward.TerminalHarness.lastStatus"

    static func shellQuote(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}

/// `stty -a` shows a cooked terminal: canonical input and echo on.
func isCooked(_ stty: String) -> Bool {
    let flags = Set(stty.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ";" }).map(String.init))
    return flags.contains("icanon") && flags.contains("echo") && flags.contains("isig")
}
