import ArgumentParser
import Glibc
import WardCore
import WardShell

/// `ward --batch FILE|-`: shell commands from a script, one per line, under the same chain,
/// audit log and lock as a person at the terminal.
///
/// The password comes from a descriptor or a file only its owner can read, never from argv or
/// the environment (`ps` and `/proc` show both to every user). Everything is checked before the
/// first line is read: a wrong option (`signOn()`, from `Ward.RecordsShell.validate()` before
/// anything else), a script that cannot be opened, a password file that others can read, and Ward
/// exits with the documented code having run nothing.
struct BatchCommandLine {
    let global: GlobalOptions
    let user: String?
    /// A path, or `-` for standard input.
    let script: String
    /// No `--batch` was given: standard input is not a terminal, so it is the script.
    let implied: Bool
    let passwordFD: Int32?
    let passwordFile: String?
    let format: BatchOutput.Format
    let onError: BatchFrontEnd.OnError

    func run() throws {
        let (user, password) = try signOn()
        let setup = try SessionSetup(global: global, user: user)
        let (fd, name) = try openScript()
        defer { if fd != STDIN_FILENO { close(fd) } }

        let output = BatchOutput(format: format)
        let shell = Shell(recordsHome: setup.home.path)
        shell.output = output
        let session = SessionDriver(
            frontEnd: BatchFrontEnd(
                input: fd,
                options: BatchFrontEnd.Options(scriptName: name, user: user, password: password, onError: onError),
                reporter: output,
                stdout: StdoutBuffer(size: 65_536, lineBuffered: false)
            ),
            clock: setup.clock,
            chain: setup.chain,
            runner: shell,
            credentials: setup.credentials,
            policy: setup.machinePolicy(user: user),
            logger: setup.logger
        )
        let status = try session.run()
        if status != .success { throw CommandLineError.reported(status) }
    }

    /// How messages name what is running: the option, or why there is a script at all.
    private var mode: String {
        implied ? "standard input is not a terminal, so Ward reads it as a script (--batch -); that" : "--batch"
    }

    /// Who the script signs on as, and where the password comes from: `--user` and exactly one
    /// of `--password-fd` and `--password-file`. Checked before anything is read, so a mistake
    /// is a usage error with the command's usage (exit 64).
    func signOn() throws(ValidationError) -> (user: String, password: PasswordSource) {
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
            if fd == STDIN_FILENO, script == "-" {
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
        guard script != "-" else { return (STDIN_FILENO, BatchFrontEnd.standardInputName) }
        let fd = open(script, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CommandLineError.cannotOpenScript(path: script, errno: errno) }
        var info = stat()
        if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            close(fd)
            throw CommandLineError.scriptIsDirectory(path: script)
        }
        return (fd, script)
    }
}

extension BatchOutput.Format: ExpressibleByArgument {}
extension BatchFrontEnd.OnError: ExpressibleByArgument {}
