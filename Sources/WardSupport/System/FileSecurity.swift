import Glibc
import WardPluginAPI

/// Opens and checks the files Ward keeps in its home: created 0600, never through a symbolic
/// link, refused when another user owns them or group or others may read or write them.
///
/// Why so strict: the records database holds patients, the credential store decides who may
/// read them (its hashes can be attacked offline) and the audit log is the evidence of who did
/// and which patients they saw. A file another local user can read leaks all of that with
/// `sqlite3 -readonly`; one they can write (or swap through a symbolic link) lets them add a
/// user or rewrite history. So every file Ward keeps is owner-only, as ssh demands of a private
/// key. Checks run on the open descriptor (`fstat`), not on the path, so the file checked is the
/// file used.
///
/// - Important: Descriptors are opened `O_CLOEXEC` and `O_NOFOLLOW`; callers close them.
public enum FileSecurity {
    /// How private an existing file must be. There is one rule: the owner's alone. (Ward once let
    /// others read the records and the audit log; a shared home let another user read patients.)
    public enum Rule: Sendable {
        /// Group and others may neither read nor write; only the running user owns it.
        case ownerOnly

        /// The permission bits that this rule refuses.
        var forbiddenBits: mode_t { 0o077 }
        /// The `chmod` mode that fixes a refused file.
        var fix: String { "600" }
    }

    /// Creates a new file 0600 and opens it; fails if the path exists (even as a symbolic link).
    ///
    /// `flags` adds to `O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC`; pass `O_WRONLY` or `O_RDWR`.
    /// The mode is set again with `fchmod`, so a restrictive umask cannot leave the owner
    /// without write access and a loose one cannot add any.
    public static func createFile(atPath path: String, flags: Int32 = O_WRONLY) throws(FileSecurityError) -> Int32 {
        let fd = Glibc.open(path, flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd < 0 { throw .system(path: path, operation: "create", errno: errno) }
        if fchmod(fd, 0o600) != 0 {
            let code = errno
            close(fd)
            throw .system(path: path, operation: "chmod", errno: code)
        }
        return fd
    }

    /// Opens an existing file and checks it with `rule`; creates it 0600 first when
    /// `create` is true and it does not exist.
    ///
    /// - Throws: `.notFound` when it is missing and `create` is false; `.symbolicLink`,
    ///   `.notRegularFile`, `.wrongOwner`, `.unsafeMode` when it exists but is not safe to use.
    public static func openFile(
        atPath path: String,
        flags: Int32 = O_RDONLY,
        create: Bool = false,
        rule: Rule = .ownerOnly
    ) throws(FileSecurityError) -> Int32 {
        if create {
            do throws(FileSecurityError) {
                return try createFile(atPath: path, flags: flags)
            } catch .system(_, _, let code) where code == EEXIST {
                // Exists already (or is a link): open it below and check it.
            }
        }
        let fd = Glibc.open(path, flags | O_NOFOLLOW | O_CLOEXEC)
        if fd < 0 {
            let code = errno
            switch code {
            case ENOENT: throw .notFound(path: path)
            case ELOOP: throw .symbolicLink(path: path)
            default: throw .system(path: path, operation: "open", errno: code)
            }
        }
        do {
            try checkFile(descriptor: fd, path: path, rule: rule)
        } catch {
            close(fd)
            throw error
        }
        return fd
    }

    /// Checks an open file: a regular file, owned by this process's user, with no bit `rule`
    /// forbids. Says why when it refuses.
    public static func checkFile(
        descriptor fd: Int32,
        path: String,
        rule: Rule = .ownerOnly
    ) throws(FileSecurityError) {
        var info = stat()
        if fstat(fd, &info) != 0 { throw .system(path: path, operation: "stat", errno: errno) }
        if info.st_mode & S_IFMT != S_IFREG { throw .notRegularFile(path: path) }
        try checkOwnerAndMode(info, path: path, forbidden: rule.forbiddenBits, fix: rule.fix)
    }

    /// Checks an existing file by path, without following a final symbolic link.
    public static func checkFile(atPath path: String, rule: Rule = .ownerOnly) throws(FileSecurityError) {
        // O_NONBLOCK: a FIFO put in a file's place must be refused, not wait for a writer.
        let fd = try openFile(atPath: path, flags: O_RDONLY | O_NONBLOCK, rule: rule)
        close(fd)
    }

    /// Checks a file by path when it exists, without following a final symbolic link; a missing
    /// file passes. For the files SQLite and the audit log open by path after Ward checked them.
    public static func checkIfPresent(atPath path: String, rule: Rule = .ownerOnly) throws(FileSecurityError) {
        var info = stat()
        if lstat(path, &info) != 0 {
            if errno == ENOENT { return }
            throw .system(path: path, operation: "stat", errno: errno)
        }
        if info.st_mode & S_IFMT == S_IFLNK { throw .symbolicLink(path: path) }
        do {
            try checkFile(atPath: path, rule: rule)
        } catch .notFound {
            // Removed between lstat and open (a writer's rename): nothing to check.
        }
    }

    /// Shared by files and the home directory: same owner, none of the `forbidden` bits.
    static func checkOwnerAndMode(
        _ info: stat,
        path: String,
        forbidden: mode_t,
        fix: String
    ) throws(FileSecurityError) {
        let me = geteuid()
        if info.st_uid != me { throw .wrongOwner(path: path, owner: info.st_uid, user: me) }
        let mode = info.st_mode & 0o7777
        if mode & forbidden != 0 { throw .unsafeMode(path: path, mode: mode, fix: fix) }
    }

    /// Reads a whole file from an open descriptor; refuses one larger than `limit` bytes.
    public static func readAll(
        descriptor fd: Int32,
        path: String,
        limit: Int = 16 << 20
    ) throws(FileSecurityError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .system(path: path, operation: "read", errno: errno)
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
            if bytes.count > limit { throw .tooLarge(path: path, limit: limit) }
        }
        return bytes
    }

    /// Writes every byte, retrying short writes and `EINTR`.
    public static func writeAll(descriptor fd: Int32, path: String, bytes: [UInt8]) throws(FileSecurityError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .system(path: path, operation: "write", errno: errno)
            }
            offset += n
        }
    }

    /// Replaces the whole of `path` with `bytes`, so that a reader sees the old file or the new
    /// one, never part of either: written to `temporary` (created 0600; a leftover of a writer
    /// that died is removed first), `fsync`ed when `sync`, then renamed over `path`.
    ///
    /// The caller holds whatever lock keeps two writers of `path` apart, and syncs the directory
    /// when the rename itself must survive a crash.
    public static func replaceFile(
        atPath path: String,
        with bytes: [UInt8],
        temporary: String,
        sync: Bool
    ) throws(FileSecurityError) {
        if unlink(temporary) != 0, errno != ENOENT {
            throw .system(path: temporary, operation: "remove", errno: errno)
        }
        let fd = try createFile(atPath: temporary, flags: O_WRONLY)
        do throws(FileSecurityError) {
            try writeAll(descriptor: fd, path: temporary, bytes: bytes)
            if sync, fsync(fd) != 0 { throw .system(path: temporary, operation: "fsync", errno: errno) }
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        if rename(temporary, path) != 0 {
            let code = errno
            unlink(temporary)
            throw .system(path: path, operation: "replace", errno: code)
        }
    }
}

/// A file or directory in the Ward home that Ward will not use, or could not use.
///
/// Each names the path and what to do. Exit code 78 (EX_CONFIG) for an unsafe file, 66
/// (EX_NOINPUT) for a missing one, 74 (EX_IOERR) when the system call itself failed.
public enum FileSecurityError: WardError, Equatable, Sendable {
    /// The file does not exist.
    case notFound(path: String)
    /// The path is a symbolic link; Ward opens its files only directly.
    case symbolicLink(path: String)
    /// The path is a directory, device or pipe where a regular file belongs.
    case notRegularFile(path: String)
    /// The path is a file where the Ward home directory belongs.
    case notDirectory(path: String)
    /// Another user owns it; they could change it behind Ward's back.
    case wrongOwner(path: String, owner: uid_t, user: uid_t)
    /// Its permissions let group or others read or write it.
    case unsafeMode(path: String, mode: mode_t, fix: String)
    /// Larger than any file Ward writes; refused rather than read into memory.
    case tooLarge(path: String, limit: Int)
    /// A system call failed (`open`, `read`, `rename`, ...) with this `errno`.
    case system(path: String, operation: String, errno: Int32)

    public var description: String {
        switch self {
        case .notFound(let path):
            "\(path): no such file."
        case .symbolicLink(let path):
            "\(path) is a symbolic link; Ward does not follow links to its files. "
                + "Replace the link with the file itself (or give --home the real directory)."
        case .notRegularFile(let path):
            "\(path) is not a regular file; move it away and try again."
        case .notDirectory(let path):
            "\(path) is not a directory; give the Ward home as a directory (--home DIR)."
        case .wrongOwner(let path, let owner, let user):
            "\(path) belongs to user id \(owner), not to you (user id \(user)); "
                + "use a Ward home of your own (--home DIR) or have it handed over with chown."
        case .unsafeMode(let path, let mode, let fix):
            "\(path) has mode \(octal(mode)): \(mode & 0o022 != 0 ? "group or others can write it" : "group or others can read it"); "
                + "Ward refuses it. Run 'chmod \(fix) \(path)' if its contents are yours."
        case .tooLarge(let path, let limit):
            "\(path) is larger than \(limit) bytes; this is not a file Ward wrote."
        case .system(let path, let operation, let code):
            "\(path): cannot \(operation): \(String(cString: strerror(code)))."
        }
    }

    /// No input for a missing file, an I/O error for a failed system call, a configuration error
    /// for a file Ward refuses.
    public var exitStatus: ExitStatus {
        switch self {
        case .notFound: .noInput
        case .system: .ioError
        default: .configuration
        }
    }
}

/// `0755` for 0o755: how `chmod` and `ls` users read a mode.
func octal(_ mode: mode_t) -> String {
    let digits = String(mode, radix: 8)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
