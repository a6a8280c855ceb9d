import Glibc
import WardSupport

/// The name of one audit log's chain, kept beside it in `FILE.chain`: what keys its records in
/// the site's shared trail (`AuditSink`).
///
/// A host name would not do: two homes on one host each write a chain of their own, from seq 1.
/// Random rather than the first record's hash, which a rotated log no longer holds. Made once,
/// by whichever writer needs it first; two making it at once agree, as the one whose `link(2)`
/// lands first wins and the other reads it.
public enum AuditChainIdentity {
    /// The file beside the log at `logPath`.
    public static func path(forLog logPath: String) -> String { logPath + ".chain" }

    /// The chain's name: 32 lowercase hex digits, read from its file or made and kept there (0600).
    public static func load(forLog logPath: String) throws(FileSecurityError) -> String {
        let path = path(forLog: logPath)
        if let existing = try read(path) { return existing }
        var random = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef")
        let name = String((0..<32).map { _ in digits[Int.random(in: 0..<16, using: &random)] })
        let temporary = path + ".\(getpid()).tmp"
        unlink(temporary)
        let fd = try FileSecurity.createFile(atPath: temporary)
        defer { unlink(temporary) }
        do throws(FileSecurityError) {
            try FileSecurity.writeAll(descriptor: fd, path: temporary, bytes: Array((name + "\n").utf8))
            _ = fsync(fd)
        } catch {
            close(fd)
            throw error
        }
        close(fd)
        if link(temporary, path) != 0, errno != EEXIST {
            throw .system(path: path, operation: "create", errno: errno)
        }
        guard let made = try read(path) else { throw .notFound(path: path) }
        return made
    }

    /// The name in `path`, nil when there is no such file; refuses an unsafe one or another content.
    private static func read(_ path: String) throws(FileSecurityError) -> String? {
        let fd: Int32
        do throws(FileSecurityError) {
            fd = try FileSecurity.openFile(atPath: path)
        } catch .notFound {
            return nil
        }
        defer { close(fd) }
        let bytes = try FileSecurity.readAll(descriptor: fd, path: path, limit: 64)
        let name = String(decoding: bytes.prefix { $0 != 0x0A }, as: UTF8.self)
        guard name.utf8.count == 32, name.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            throw .tooLarge(path: path, limit: 33)
        }
        return name
    }
}
