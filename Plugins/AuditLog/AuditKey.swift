import Crypto
import Glibc
import WardPluginAPI
import WardSupport

/// The site's audit secret: the file named by `key-file`, read once at start.
///
/// The file must be the caller's own, mode 0600 (no bit for group or others), a regular file
/// reached without a symbolic link: a key that others can read lets them forge a chain, and
/// one that others can write lets them pick it. Trailing newlines are not part of the key, so
/// `head -c 32 /dev/urandom | base64 > key` and a raw 32-byte file both work.
public enum AuditKey {
    /// Fewer bytes than this are refused: a short key can be guessed offline from the log.
    public static let minimumBytes = 16

    /// Reads and checks the key file.
    public static func load(path: String) throws(AuditError) -> SymmetricKey {
        let fd: Int32
        do {
            fd = try FileSecurity.openFile(atPath: path, flags: O_RDONLY, rule: .ownerOnly)
        } catch {
            throw .keyFile(error)
        }
        defer { close(fd) }
        var bytes: [UInt8]
        do {
            bytes = try FileSecurity.readAll(descriptor: fd, path: path, limit: 4096)
        } catch {
            throw .keyFile(error)
        }
        while let last = bytes.last, last == 0x0A || last == 0x0D { bytes.removeLast() }
        guard bytes.count >= minimumBytes else { throw .weakKey(path: path, bytes: bytes.count) }
        return SymmetricKey(data: bytes)
    }
}
