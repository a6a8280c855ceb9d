import Glibc

/// The directory that holds one Ward installation's records database, credential store and
/// audit log: `--home`, else `$WARD_HOME`, else /var/lib/ward for the package's `ward` account,
/// else `$XDG_DATA_HOME/ward`, else `~/.local/share/ward`.
///
/// Created 0700. An existing home that group or others can read or write, that another user
/// owns, or that is a symbolic link, is refused before anything in it is read, and so is any of
/// its files that is not the owner's alone (`checkFiles()`): whoever can write the directory can
/// replace the credential store with one that knows their password, and whoever can read a
/// records file at 0644 can read every patient in it with `sqlite3 -readonly`.
public struct WardHome: Sendable, Equatable {
    /// The home's path, as resolved (not canonicalised: messages show what the user gave).
    public let path: String

    /// Where the home would be, without touching the file system.
    ///
    /// - Parameters:
    ///   - option: The `--home` value, if given.
    ///   - environment: Looks up an environment variable; `getenv` unless a test says otherwise.
    public static func resolvePath(
        option: String?,
        environment: (String) -> String? = WardHome.processEnvironment
    ) -> String {
        if let option, !option.isEmpty { return option }
        if let home = environment("WARD_HOME"), !home.isEmpty { return home }
        if let home = serviceAccountHome(uid: geteuid()) { return home }
        // The XDG spec: a relative XDG_DATA_HOME is invalid and is ignored.
        if let data = environment("XDG_DATA_HOME"), data.hasPrefix("/") { return data + "/ward" }
        return userHomeDirectory(environment: environment) + "/.local/share/ward"
    }

    /// Resolves the home, creates it (0700, with any missing parents 0700) when missing, and
    /// checks that it and the files in it are safe to use (`prepare`, then `checkFiles`).
    ///
    /// - Throws: `FileSecurityError` naming the path, its mode and what to do (`chmod 700 PATH`).
    public static func open(
        option: String?,
        environment: (String) -> String? = WardHome.processEnvironment,
        create: Bool = true
    ) throws(FileSecurityError) -> WardHome {
        let home = WardHome(path: resolvePath(option: option, environment: environment))
        try home.prepare(create: create)
        try home.checkFiles()
        return home
    }

    /// A home at `path`, not yet checked; `prepare()` creates and checks it.
    public init(path: String) {
        // "dir/" and "dir" are one home; keep "/" itself intact.
        var path = path
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        self.path = path
    }

    /// The SQLite records database.
    public var recordsPath: String { path + "/records.sqlite" }
    /// The credential store (`CredentialStore`).
    public var credentialsPath: String { path + "/credentials" }
    /// The lock file that serialises writers of the credential store.
    public var credentialsLockPath: String { path + "/credentials.lock" }
    /// The default audit log, when the site file names none.
    public var auditLogPath: String { path + "/audit.jsonl" }

    /// The files of the home that hold patients, credentials or evidence, with SQLite's journals
    /// and the audit log's head file: each must be the owner's alone when it exists.
    public var sensitiveFiles: [String] {
        let records = recordsPath
        return [
            records, records + "-journal", records + "-wal", records + "-shm", credentialsPath,
            credentialsLockPath,
        ] + Self.auditFiles(log: auditLogPath)
    }

    /// An audit log and its head file (`LOG.head`, as the audit-log plugin names it).
    public static func auditFiles(log: String) -> [String] { [log, log + ".head"] }

    /// Creates the home when missing and `create` is true, then checks it: a directory itself
    /// (not a symbolic link to one), owned by this user, that group and others can neither read
    /// nor write nor search.
    public func prepare(create: Bool = true) throws(FileSecurityError) {
        if create { try Self.makeDirectories(path) }
        var info = stat()
        // lstat: a link could be pointed elsewhere later by whoever owns the directory it sits in.
        if lstat(path, &info) != 0 {
            let code = errno
            if code == ENOENT { throw .notFound(path: path) }
            throw .system(path: path, operation: "stat", errno: code)
        }
        if info.st_mode & S_IFMT == S_IFLNK { throw .symbolicLink(path: path) }
        if info.st_mode & S_IFMT != S_IFDIR { throw .notDirectory(path: path) }
        try FileSecurity.checkOwnerAndMode(info, path: path, forbidden: 0o077, fix: "700")
    }

    /// Checks every file of `sensitiveFiles` that exists (and `extra` ones, such as an audit log
    /// the site file puts elsewhere): a regular file, not a link, the running user's, mode 0600
    /// or stricter. Missing files are fine: Ward creates them 0600.
    public func checkFiles(extra: [String] = []) throws(FileSecurityError) {
        for file in sensitiveFiles + extra { try FileSecurity.checkIfPresent(atPath: file) }
    }

    /// `mkdir -p` with mode 0700 for each directory it makes; existing ones are left as they are.
    private static func makeDirectories(_ path: String) throws(FileSecurityError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            // String's own append: the generic one (String + Substring) is not specialised, and
            // its first use searches every protocol conformance in the binary, at start.
            prefix += "/"
            prefix += String(component)
            if mkdir(prefix, 0o700) == 0 {
                // The umask may have taken bits away; 0700 is what the home promises.
                _ = chmod(prefix, 0o700)
                continue
            }
            let code = errno
            if code != EEXIST { throw .system(path: prefix, operation: "create directory", errno: code) }
        }
    }

    /// `getenv`, as a value the resolvers can take.
    public static let processEnvironment: @Sendable (String) -> String? = { name in
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }

    /// `$HOME`, else the password database's entry for this user, else `/`.
    /// The system account the Debian package makes for shared sessions.
    public static let serviceAccount = (name: "ward", home: "/var/lib/ward")

    /// For the package's account, its home directory is its Ward home: the records and the
    /// audit trail sit in /var/lib/ward, where the package keeps them on removal, and
    /// `sudo -u ward ward user add` needs no `WARD_HOME`. Nil for every other account.
    static func serviceAccountHome(uid: uid_t) -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil,
            let name = entry.pw_name, let dir = entry.pw_dir,
            String(cString: name) == serviceAccount.name, String(cString: dir) == serviceAccount.home
        else { return nil }
        return serviceAccount.home
    }

    private static func userHomeDirectory(environment: (String) -> String?) -> String {
        if let home = environment("HOME"), !home.isEmpty { return home }
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        if getpwuid_r(geteuid(), &entry, &buffer, buffer.count, &result) == 0, result != nil, let dir = entry.pw_dir {
            return String(cString: dir)
        }
        return "/"
    }
}
