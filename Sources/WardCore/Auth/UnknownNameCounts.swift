import CWardSystem
import Crypto
import Glibc
import WardPluginAPI

/// Wrong sign-ons under names no user has, counted as a user's are, so that an unknown name
/// locks after `max-failed-attempts` with the same message, at the same cost, as a real one.
///
/// Without it, five wrong passwords told an attacker which names exist: a real user's account
/// answered "locked until …" at once, while an unknown name kept answering "wrong user name or
/// password" after a full scrypt check. Kept in `credentials.unknown` beside the store (0600,
/// written whole and renamed, under the store's writers' lock), never as the name typed: a
/// name field sometimes receives a password. Each name is an HMAC-SHA256 under a random key
/// kept in the same file, so the file says nothing a reader could type back without guessing.
///
/// The file stays small: entries whose lock ended and whose last failure is older than the
/// lockout are dropped at each write, and at most `capacity` of the most recent are kept.
struct UnknownNameCounts {
    /// One name's count.
    struct Entry: Equatable {
        var consecutiveFailures: Int
        var lockedUntil: Int64?
        var lastFailure: Int64
    }

    static let header = "ward-unknown-names 1"
    /// The most names kept: enough for any real attack window, small enough to read each time.
    static let capacity = 4096

    let path: String
    private var key: [UInt8]
    private(set) var entries: [String: Entry]

    /// The counts in `path`; a fresh key and no entry when the file does not exist.
    ///
    /// - Important: The caller holds the credential store's writers' lock.
    static func load(path: String) throws(AuthError) -> UnknownNameCounts {
        let bytes: [UInt8]
        do throws(FileSecurityError) {
            let fd = try FileSecurity.openFile(atPath: path, flags: O_RDONLY, rule: .ownerOnly)
            defer { close(fd) }
            bytes = try FileSecurity.readAll(descriptor: fd, path: path, limit: 1 << 20)
        } catch .notFound {
            var key = [UInt8](repeating: 0, count: 32)
            _ = getrandom(&key, key.count, 0)
            return UnknownNameCounts(path: path, key: key, entries: [:])
        } catch {
            throw .file(error)
        }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        func bad(_ line: Int, _ reason: String) -> AuthError { .corruptStore(path: path, line: line, reason: reason) }
        guard lines.first == Substring(header) else { throw bad(1, "expected '\(header)'") }
        guard lines.count >= 2, lines[1].hasPrefix("key "), let key = Self.bytes(hex: lines[1].dropFirst(4)),
            key.count == 32
        else { throw bad(2, "expected the key") }
        var entries: [String: Entry] = [:]
        for (index, line) in lines.dropFirst(2).enumerated() {
            let fields = line.split(separator: "\t")
            guard fields.count == 4, let count = Int(fields[1]), let last = Int64(fields[3]) else {
                throw bad(index + 3, "expected a digest, a count, a lock's end or '-', and a time")
            }
            entries[String(fields[0])] = Entry(
                consecutiveFailures: count,
                lockedUntil: fields[2] == "-" ? nil : Int64(fields[2]),
                lastFailure: last
            )
        }
        return UnknownNameCounts(path: path, key: key, entries: entries)
    }

    /// The digest that stands for `name` in the file.
    func digest(_ name: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Array(name.utf8), using: SymmetricKey(data: key))
        return Hex.encode(Array(mac))
    }

    /// When `name`'s lock ends, nil when it is not locked at `time`.
    func lockedUntil(_ name: String, at time: Int64) -> Int64? {
        guard let until = entries[digest(name)]?.lockedUntil, until > time else { return nil }
        return until
    }

    /// Counts a wrong sign-on under `name`; locks it at `lockout.maxFailedAttempts` in a row.
    mutating func failed(_ name: String, at time: Int64, lockout: LockoutPolicy) {
        let id = digest(name)
        var entry = entries[id] ?? Entry(consecutiveFailures: 0, lockedUntil: nil, lastFailure: time)
        if let until = entry.lockedUntil, until <= time { entry.lockedUntil = nil }  // a lock that ran out
        entry.consecutiveFailures += 1
        entry.lastFailure = time
        if entry.consecutiveFailures >= lockout.maxFailedAttempts {
            entry.lockedUntil = lockout.lockedUntil(from: time)
            entry.consecutiveFailures = 0
        }
        entries[id] = entry
    }

    /// Writes the counts whole (`path.new`, renamed over `path`), after dropping what no longer
    /// counts at `time`.
    mutating func write(at time: Int64, lockout: LockoutPolicy) throws(AuthError) {
        let stale = time - lockout.duration.components.seconds
        entries = entries.filter { ($0.value.lockedUntil ?? 0) > time || $0.value.lastFailure > stale }
        if entries.count > Self.capacity {
            let kept = entries.sorted { $0.value.lastFailure > $1.value.lastFailure }.prefix(Self.capacity)
            entries = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
        }
        var text = Self.header + "\nkey " + Hex.encode(key) + "\n"
        for (id, entry) in entries.sorted(by: { $0.key < $1.key }) {
            text +=
                "\(id)\t\(entry.consecutiveFailures)\t\(entry.lockedUntil.map { String($0) } ?? "-")\t\(entry.lastFailure)\n"
        }
        do throws(FileSecurityError) {
            try FileSecurity.replaceFile(atPath: path, with: Array(text.utf8), temporary: path + ".new", sync: true)
        } catch {
            throw .file(error)
        }
    }

    private static func bytes(hex: Substring) -> [UInt8]? {
        guard hex.count % 2 == 0 else { return nil }
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            result.append(byte)
            index = next
        }
        return result
    }
}
