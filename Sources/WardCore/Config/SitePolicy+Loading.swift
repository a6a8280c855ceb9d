import Glibc

/// Where the site file is: `--site`, else `WARD_SITE`, else `/etc/ward/site.toml`, else none.
public enum SiteFileLocation: Equatable, Sendable, CustomStringConvertible {
    /// A file someone named (`--site`, `WARD_SITE`): it must exist.
    case named(String)
    /// The system-wide file; Ward's defaults apply when it does not exist.
    case system(String)

    public static let systemPath = "/etc/ward/site.toml"

    /// `--site`, else `WARD_SITE`, else the system file.
    public static func locate(option: String?, environment: [String: String]) -> SiteFileLocation {
        if let option, !option.isEmpty { return .named(option) }
        if let env = environment["WARD_SITE"], !env.isEmpty { return .named(env) }
        return .system(systemPath)
    }

    public var path: String {
        switch self {
        case .named(let path), .system(let path): path
        }
    }

    public var description: String { path }
}

extension SitePolicy {
    /// Reads the site file and the user's file and puts them together; what Ward does at start.
    ///
    /// A file named by `--site` or `WARD_SITE` must exist: a typo in the path must not quietly
    /// leave the site on Ward's defaults. Without either, `/etc/ward/site.toml` is read if it
    /// exists, else the built-in defaults apply. The user file is read when it exists.
    ///
    /// - Throws: `ConfigError`, `.several` when more than one thing is wrong; exit 78.
    public static func load(
        siteOption: String?,
        environment: [String: String] = ConfigEnvironment.current,
        plugins: PluginRegistry
    ) throws(ConfigError) -> SitePolicy {
        let location = SiteFileLocation.locate(option: siteOption, environment: environment)
        let policy = try loadSite(location, plugins: plugins)
        guard let preferences = try loadUserFile(environment: environment, plugins: plugins) else {
            return policy
        }
        return try policy.applying(preferences)
    }

    /// The user file, nil when there is none; not yet checked against a site (`applying(_:)`).
    public static func loadUserFile(
        environment: [String: String],
        plugins: PluginRegistry
    ) throws(ConfigError) -> UserPreferences? {
        guard let path = userFilePath(environment: environment),
            let text = try ConfigFile.read(path, mustExist: false)
        else { return nil }
        return try UserPreferences.parse(text, file: path, plugins: plugins)
    }

    /// The site file alone (`ward config check FILE` reads it this way, then the user file).
    public static func loadSite(
        _ location: SiteFileLocation,
        plugins: PluginRegistry
    )
        throws(ConfigError) -> SitePolicy
    {
        let mustExist = if case .named = location { true } else { false }
        guard let text = try ConfigFile.read(location.path, mustExist: mustExist) else {
            return .builtIn(plugins: plugins)
        }
        return try parse(text, file: location.path, plugins: plugins)
    }

    /// `loadSite`, going on past problems as `parseReportingAll` does: the policy as far as the
    /// file allows (nil when it cannot be read or is not TOML), and every problem found.
    public static func loadSiteReportingAll(
        _ location: SiteFileLocation,
        plugins: PluginRegistry
    ) -> (policy: SitePolicy?, errors: [ConfigError]) {
        let mustExist = if case .named = location { true } else { false }
        let text: String?
        do {
            text = try ConfigFile.read(location.path, mustExist: mustExist)
        } catch {
            return (nil, [error])
        }
        guard let text else { return (.builtIn(plugins: plugins), []) }
        return parseReportingAll(text, file: location.path, plugins: plugins)
    }

    /// `$XDG_CONFIG_HOME/ward/config.toml`, else `$HOME/.config/ward/config.toml`; nil without either.
    public static func userFilePath(environment: [String: String]) -> String? {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return xdg + "/ward/config.toml" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.config/ward/config.toml" }
        return nil
    }
}

/// The process environment as a dictionary, read through Glibc (no Foundation at start).
public enum ConfigEnvironment {
    /// Read as bytes and decoded once each side of the first `=`: a `String`'s search for `=`
    /// walks grapheme clusters, and the whole environment is read twice before the first prompt.
    public static var current: [String: String] {
        var result: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            entry.withMemoryRebound(to: UInt8.self, capacity: strlen(entry) + 1) { start in
                let bytes = UnsafeBufferPointer(start: start, count: strlen(entry))
                if let eq = bytes.firstIndex(of: UInt8(ascii: "=")) {
                    result[String(decoding: bytes[..<eq], as: UTF8.self)] = String(
                        decoding: bytes[(eq + 1)...],
                        as: UTF8.self
                    )
                }
            }
            p += 1
        }
        return result
    }
}

/// Reads a configuration file whole, refusing one that anyone may write.
enum ConfigFile {
    /// The file's text; nil when it does not exist and need not.
    static func read(_ path: String, mustExist: Bool) throws(ConfigError) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            let code = errno
            if code == ENOENT, !mustExist { return nil }
            throw .unreadable(file: path, reason: String(cString: strerror(code)).lowercased())
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw .unreadable(file: path, reason: String(cString: strerror(errno)).lowercased())
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .unreadable(file: path, reason: "not a regular file") }
        if info.st_mode & S_IWOTH != 0 { throw .insecure(file: path, reason: "everyone may write it") }
        guard info.st_size <= 1 << 20 else { throw .unreadable(file: path, reason: "larger than 1 MiB") }

        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .unreadable(file: path, reason: String(cString: strerror(errno)).lowercased())
            }
            if n == 0 { break }
            bytes += buffer[0..<n]
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .unreadable(file: path, reason: "not UTF-8 text")
        }
        return text
    }
}
