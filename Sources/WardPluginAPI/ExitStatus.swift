/// How Ward's process ends, by name: sysexits(3) for errors, the shell's `128 + N` for a signal.
///
/// Scripts, tests and the man page rely on these numbers (ward(1), EXIT STATUS); a name in the
/// code keeps a `143` from meaning two things in two files.
public struct ExitStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Everything worked.
    public static let success = ExitStatus(rawValue: 0)
    /// A command failed (a batch's failing line, `--on-error continue` with a failure).
    public static let failure = ExitStatus(rawValue: 1)
    /// EX_USAGE: the command line was wrong.
    public static let usage = ExitStatus(rawValue: 64)
    /// EX_DATAERR: the input data was wrong (a bundle, a tampered audit log, a line too long).
    public static let dataError = ExitStatus(rawValue: 65)
    /// EX_NOINPUT: a file named on the command line cannot be opened.
    public static let noInput = ExitStatus(rawValue: 66)
    /// A service Ward needs is not there (EX_UNAVAILABLE): the kernel cannot sandbox a program `ward exec`
    /// would run.
    public static let unavailable = ExitStatus(rawValue: 69)
    /// EX_CANTCREAT: Ward will not write where it was asked to (`ward demo` into a home that
    /// holds other records).
    public static let cannotCreate = ExitStatus(rawValue: 73)
    /// EX_IOERR: reading or writing failed (a script that cannot be read).
    public static let ioError = ExitStatus(rawValue: 74)
    /// EX_TEMPFAIL: locked, and no one can authenticate again (a batch whose password came from
    /// a descriptor; a lock screen left past `signout-after`).
    public static let lockedOut = ExitStatus(rawValue: 75)
    /// EX_NOPERM: authentication failed, or the account is locked.
    public static let authenticationFailed = ExitStatus(rawValue: 77)
    /// EX_CONFIG: the site file, the home or a plugin is wrong; nothing was changed.
    public static let configuration = ExitStatus(rawValue: 78)

    /// Ended by `signal` (its number), as shells report it: SIGHUP 129, SIGINT 130, SIGTERM 143.
    public static func killed(by signal: Int32) -> ExitStatus { ExitStatus(rawValue: 128 + signal) }

    public var description: String { "\(rawValue)" }
}
