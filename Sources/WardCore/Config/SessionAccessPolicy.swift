import Glibc

/// The `[session]` keys about who reaches a session and what they read first: the site's use
/// notice (`banner`, `banner-file`) and the Unix group whose members may lock anyone's session
/// (`admin-group`).
///
/// Read with the site file, so a notice file that is missing, unreadable, writable by others or
/// too long stops Ward at start (78), naming the file and line, as every site-file error does:
/// a notice that silently failed to load would let people sign on without it (NIST AC-8).
public struct SessionAccessPolicy: Equatable, Sendable {
    /// The notice shown before every sign-on; nil when the site has none.
    public var banner: String?
    /// The Unix group whose members may lock any session with `ward lock`; nil when none.
    public var adminGroup: String?
    /// The lines that set them, for messages.
    public var bannerLine: Int = 0
    public var adminGroupLine: Int = 0

    public init(banner: String? = nil, adminGroup: String? = nil) {
        self.banner = banner
        self.adminGroup = adminGroup
    }

    /// The longest notice, in bytes: a page of text, not a file to page through.
    public static let maximumBannerLength = 8192

    /// Reads `banner`, `banner-file` and `admin-group` from the `[session]` table, before the
    /// session limits are read, so that they are not reported as unknown keys.
    package static func read(_ table: PluginSettings, errors: inout [ConfigError]) -> SessionAccessPolicy {
        var result = SessionAccessPolicy()
        let inline: String?
        let path: String?
        let group: String?
        do {
            inline = try table.string("banner")
            path = try table.string("banner-file")
            group = try table.string("admin-group")
        } catch let error as ConfigError {
            errors.append(error)
            return result
        } catch {
            return result
        }
        if inline != nil, path != nil {
            errors.append(
                .conflict(
                    file: table.file,
                    line: table.line(of: "banner-file"),
                    message: "give 'banner' or 'banner-file', not both."
                )
            )
            return result
        }
        if let inline {
            result.bannerLine = table.line(of: "banner")
            if inline.utf8.count > maximumBannerLength {
                errors.append(
                    .outOfRange(
                        file: table.file,
                        line: result.bannerLine,
                        key: "banner",
                        value: "\(inline.utf8.count) bytes",
                        allowed: "at most \(maximumBannerLength) bytes"
                    )
                )
            } else if !inline.isEmpty {
                result.banner = inline
            }
        }
        if let path {
            result.bannerLine = table.line(of: "banner-file")
            do throws(ConfigError) {
                result.banner = try readBannerFile(path, file: table.file, line: result.bannerLine)
            } catch {
                errors.append(error)
            }
        }
        if let group {
            result.adminGroupLine = table.line(of: "admin-group")
            if getgrnam(group) == nil {
                errors.append(
                    .outOfRange(
                        file: table.file,
                        line: result.adminGroupLine,
                        key: "admin-group",
                        value: "\"\(group)\"",
                        allowed: "the name of a group on this system (getent group)"
                    )
                )
            } else {
                result.adminGroup = group
            }
        }
        return result
    }

    /// The notice file's text: an absolute path to a regular file that Ward can read and that
    /// neither its group nor others may write (whoever could write it could change what every
    /// user is told), at most `maximumBannerLength` bytes.
    static func readBannerFile(_ path: String, file: String, line: Int) throws(ConfigError) -> String {
        func refuse(_ why: String) -> ConfigError {
            .conflict(file: file, line: line, message: "banner-file \"\(path)\" \(why)")
        }
        guard path.hasPrefix("/") else { throw refuse("is not an absolute path; give the full path.") }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { throw refuse("cannot be read: \(String(cString: strerror(errno))).") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { throw refuse("is not a regular file.") }
        if info.st_mode & 0o022 != 0 {
            let mode = String(info.st_mode & 0o777, radix: 8)
            throw refuse("may be written by its group or others (mode \(mode)); chmod go-w it.")
        }
        let bytes: [UInt8]
        do {
            bytes = try FileSecurity.readAll(descriptor: fd, path: path, limit: maximumBannerLength)
        } catch .tooLarge {
            throw refuse("is longer than \(maximumBannerLength) bytes.")
        } catch {
            throw refuse("cannot be read: \(error).")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard !text.allSatisfy(\.isWhitespace) else { throw refuse("is empty.") }
        return text
    }
}
