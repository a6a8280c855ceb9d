import CWardSystem
import Glibc

/// Random session identifiers for the audit log: 16 hex digits from the kernel's generator.
public enum SessionID {
    public static func make() -> String {
        var bytes = [UInt8](repeating: 0, count: 8)
        _ = getrandom(&bytes, bytes.count, 0)
        return Hex.encode(bytes)
    }
}
