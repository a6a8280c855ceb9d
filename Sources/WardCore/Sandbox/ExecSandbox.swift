import CWardSystem
import Glibc

/// What the kernel lets a program `ward exec` runs do: which files it may open, change and run
/// (Landlock), and that it may start no other program but the site's `may-run` (seccomp, every
/// exec waiting for Ward's answer: `ExecGate`). Ward keeps its home, credentials, audit log and
/// site file by never granting them, not by denying them: Landlock allows only what a rule names.
///
/// Built before anyone signs on, so that a kernel that cannot do this refuses the program at
/// once (69) rather than after the password.
public struct ExecSandbox: Equatable, Sendable {
    /// What a rule grants beneath its path.
    public struct Access: OptionSet, Hashable, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let read = Access(rawValue: Int32(WARD_ACCESS_READ))
        public static let write = Access(rawValue: Int32(WARD_ACCESS_WRITE))
        public static let execute = Access(rawValue: Int32(WARD_ACCESS_EXECUTE))
        /// Terminal ioctls (tcsetattr), for the program's own pty and /dev/tty.
        public static let device = Access(rawValue: Int32(WARD_ACCESS_DEVICE))
    }

    public struct Rule: Equatable, Sendable {
        public var path: String
        public var access: Access
    }

    /// What every program may read: the system's programs, libraries, shared data and the few
    /// files of /etc a program starting needs, never all of /etc (it holds shadow, ssh keys).
    public static let systemReadable = [
        "/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin",
        "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/nsswitch.conf",
        "/etc/passwd", "/etc/group", "/etc/hosts", "/etc/resolv.conf", "/etc/inputrc", "/etc/terminfo",
        "/etc/ssl", "/etc/postgresql-common",
        "/dev/null", "/dev/zero", "/dev/urandom", "/dev/random",
        "/proc/self",
    ]

    /// What every program may write: the bit bucket and its own terminal.
    public static let systemWritable = ["/dev/null", "/dev/tty"]

    /// The Landlock ABI the rules are made with; 0 with the sandbox off.
    public let landlockABI: Int
    /// Whether execs wait for Ward's answer.
    public let seccomp: Bool
    /// The rules, without the program's own pty (it has no name until it is opened: `rules(pty:)`).
    public let rules: [Rule]
    /// The site's lists, for the audit log.
    public let description: ProgramSandbox?
    /// The programs it may start, by absolute path, each also as its real path.
    public let mayRun: Set<String>

    /// The sandbox for `program` on this kernel.
    ///
    /// - Parameters:
    ///   - landlockABI: The kernel's Landlock ABI (`ward_landlock_abi`), or -errno.
    ///   - seccompNotify: 1 when the kernel can hand an exec to Ward to answer, else -errno.
    /// - Throws: `.sandboxUnavailable` (69) when the kernel cannot, unless the site turned the
    ///   sandbox off for this program.
    public init(
        program: ExecProgram,
        landlockABI: Int32 = ward_landlock_abi(),
        seccompNotify: Int32 = ward_seccomp_notify_available()
    ) throws(ExecRefusal) {
        let rules = program.rules
        guard rules.sandbox else {
            self.landlockABI = 0
            self.seccomp = false
            self.rules = []
            self.description = nil
            self.mayRun = []
            return
        }
        if landlockABI < 1 {
            let reason =
                switch -landlockABI {
                case EOPNOTSUPP: "Landlock is built into this kernel but turned off at boot (add landlock to lsm=)"
                case ENOSYS: "this kernel has no Landlock (Linux 5.13 or later, built with CONFIG_SECURITY_LANDLOCK)"
                default: "the kernel's Landlock cannot be used (\(String(cString: strerror(-landlockABI))))"
                }
            throw .sandboxUnavailable(program: program.name, reason: reason)
        }
        guard seccompNotify == 1 else {
            throw .sandboxUnavailable(
                program: program.name,
                reason:
                    "this kernel cannot hand a program's exec to Ward to answer (seccomp user notification, Linux 5.5)"
            )
        }
        self.landlockABI = Int(landlockABI)
        self.seccomp = true
        let runnable = [program.path] + rules.mayRun
        var list: [Rule] = []
        list += Self.systemReadable.map { Rule(path: $0, access: .read) }
        list += rules.read.map { Rule(path: $0, access: .read) }
        list += Self.systemWritable.map { Rule(path: $0, access: [.read, .write]) }
        list.append(Rule(path: "/dev/tty", access: .device))
        list += rules.write.map { Rule(path: $0, access: [.read, .write]) }
        for path in runnable {
            list.append(Rule(path: path, access: .execute))
            list += ProgramFile.interpreters(of: path).map { Rule(path: $0, access: .execute) }
        }
        self.rules = list
        self.description = ProgramSandbox(
            landlockABI: Int(landlockABI),
            seccomp: true,
            read: rules.read,
            write: rules.write,
            mayRun: rules.mayRun
        )
        self.mayRun = Set(rules.mayRun + rules.mayRun.compactMap(Self.realPath))
    }

    /// The rules with the program's own terminal, which it may read, write and set.
    func rules(pty: String) -> [Rule] {
        guard landlockABI > 0 else { return [] }
        return rules + [Rule(path: pty, access: [.read, .write, .device])]
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
