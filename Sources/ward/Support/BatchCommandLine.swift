import ArgumentParser
import Glibc
import WardCore
import WardShell

/// `ward --batch FILE|-` or `ward -c COMMAND`: shell commands from a script, one per line (or the
/// one command), under the same chain, audit log and lock as a person at the terminal.
///
/// The password comes from a descriptor or a file only its owner can read, never from argv or
/// the environment (`ps` and `/proc` show both to every user). Everything is checked before the
/// first line is read: a wrong option (`signOn()`, from `Ward.RecordsShell.validate()` before
/// anything else), a script that cannot be opened, a password file that others can read, and Ward
/// exits with the documented code having run nothing.
struct BatchCommandLine {
    let global: GlobalOptions
    let user: String?
    /// Where the lines come from.
    enum Script {
        case file(String)
        case standardInput
        /// `-c COMMAND`: a batch of one line.
        case command(String)
    }

    /// The longest `-c` command: it goes through a pipe, written whole before it is read.
    static let longestCommand = 60_000

    let script: Script
    /// No `--batch` was given: standard input is not a terminal, so it is the script.
    let implied: Bool
    let passwordFD: Int32?
    let passwordFile: String?
    let format: BatchOutput.Format
    let onError: BatchFrontEnd.OnError

    func run() throws {
        let (user, password) = try signOn()
        let setup = try SessionSetup(home: global.home, site: global.site, user: user)
        let (fd, name) = try openScript()
        defer { if fd != STDIN_FILENO { Glibc.close(fd) } }

        let output = BatchOutput(format: format)
        let shell = try setup.recordsShell()
        shell.auditTrail = setup.auditTrail
        shell.output = output
        let frontEnd = BatchFrontEnd(
            input: fd,
            options: BatchFrontEnd.Options(scriptName: name, user: user, password: password, onError: onError),
            reporter: output,
            stdout: StdoutBuffer(size: 65_536, lineBuffered: false)
        )
        // One command (-c) ends before any lock could close its charts: no second scrypt.
        try setup.runSession(frontEnd: frontEnd, runner: shell, user: user, resumes: !isOneCommand)
    }

    private var isOneCommand: Bool {
        if case .command = script { true } else { false }
    }

    /// How messages name what is running: the option, or why there is a script at all.
    private var mode: String {
        if case .command = script { return "-c" }
        return implied
            ? "standard input is not a terminal, so Ward reads it as a script (--batch -); that" : "--batch"
    }

    /// Who the script signs on as, and where the password comes from: `--user` and exactly one
    /// of `--password-fd` and `--password-file`. Checked before anything is read, so a mistake
    /// is a usage error with the command's usage (exit 64).
    func signOn() throws(ValidationError) -> (user: String, password: PasswordSource) {
        if case .command(let command) = script {
            guard !command.contains(where: \.isNewline) else {
                throw ValidationError("-c takes one command, on one line; for several, use --batch FILE.")
            }
            guard command.utf8.count <= Self.longestCommand else {
                throw ValidationError("-c COMMAND is longer than \(Self.longestCommand) bytes; use --batch FILE.")
            }
        }
        guard let user else {
            throw ValidationError("\(mode) needs --user NAME: a script signs on as someone, like a person.")
        }
        switch (passwordFD, passwordFile) {
        case (let fd?, nil):
            guard fd >= 0, fcntl(fd, F_GETFD) != -1 else {
                throw ValidationError(
                    "--password-fd \(fd): no such open descriptor. Open it in the shell, e.g. '3<secret'."
                )
            }
            if fd == STDIN_FILENO, case .standardInput = script {
                throw ValidationError(
                    "--password-fd 0 is standard input, which is the script here. Use another descriptor."
                )
            }
            return (user, .descriptor(fd))
        case (nil, let path?):
            return (user, .file(path: path))
        case (nil, nil):
            throw ValidationError(
                "\(mode) needs the password from --password-fd N or --password-file PATH: a script has no terminal to ask on."
            )
        case (.some, .some):
            throw ValidationError("Give --password-fd or --password-file, not both.")
        }
    }

    /// The script's descriptor and the name messages and the audit log give it.
    private func openScript() throws -> (Int32, String) {
        let script: String
        switch self.script {
        case .standardInput: return (STDIN_FILENO, BatchFrontEnd.standardInputName)
        case .command(let command): return (try Self.pipe(holding: command + "\n"), "-c")
        case .file(let path): script = path
        }
        let fd = open(script, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CommandLineError.cannotOpenScript(path: script, errno: errno) }
        var info = stat()
        if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            close(fd)
            throw CommandLineError.scriptIsDirectory(path: script)
        }
        return (fd, script)
    }

    /// The read end of a pipe that holds `text` and is closed for writing: the one line of `-c`,
    /// read by the same `BatchFrontEnd` as a script. `text` fits the pipe's buffer
    /// (`longestCommand`), so writing it whole never waits for a reader.
    private static func pipe(holding text: String) throws -> Int32 {
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else { throw CommandLineError.cannotOpenScript(path: "-c", errno: errno) }
        // Not inherited by `exec`'s programs, as a script's descriptor is not.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        defer { Glibc.close(ends[1]) }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                let error = errno
                Glibc.close(ends[0])
                throw CommandLineError.cannotOpenScript(path: "-c", errno: error)
            }
            written += n
        }
        return ends[0]
    }
}

extension BatchOutput.Format: ExpressibleByArgument {}
extension BatchFrontEnd.OnError: ExpressibleByArgument {}
