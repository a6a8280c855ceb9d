import Glibc
import WardPluginAPI

/// What a rotation killed part-way (`kill -9` of `ward audit rotate`) left beside the log, and
/// how it is put back.
///
/// `AuditWriter.rotate` works in an order that loses no record whenever it stops: the new file
/// under a temporary name, then each `FILE.n` renamed to `FILE.n+1` (highest first), then a
/// second name `FILE.1` for the log, then the new file renamed over the log, then the head. A
/// kill leaves one of these states:
///
/// | left                                                        | put back                       |
/// | ----------------------------------------------------------- | ------------------------------ |
/// | `FILE.rotating`, the new file nobody can reach              | removed                        |
/// | a gap: `FILE.n` moved up to `FILE.n+1`, those below it not  | the moved files moved back     |
/// | `FILE.1` a second name of `FILE` (linked, not replaced)     | the second name removed        |
/// | the new file in place, the head one record behind it        | nothing: a writer's crash case |
///
/// A gap is taken for an interrupted rotation only when no record is missing across it: the
/// last record of the file above the gap is the one the file below it continues. A file that was
/// deleted leaves a gap the chain does not cross, and stays tampering.
///
/// Rolling back rather than completing: every step before the rename leaves the log itself
/// untouched, so undoing them is a few renames, and the rotation that was asked for runs again
/// from its start (`ward audit rotate` does so at once).
public struct InterruptedRotation: Equatable, Sendable, CustomStringConvertible {
    /// The log.
    public let path: String
    /// `FILE.rotating`, when it is there.
    public var leftover: String?
    /// `FILE.1`, when it is another name of the log.
    public var secondName: String?
    /// The number missing from the series: the files above it were moved up by one.
    public var gap: Int?
    /// The highest number of the series, for the renames back.
    var highest = 0

    /// The temporary name the new file has until it replaces the log.
    static func temporaryPath(_ path: String) -> String { path + ".rotating" }

    /// What a killed rotation left beside the log at `path`; nil when it left nothing (or the
    /// series has a gap the chain does not cross: a deleted file, not a rotation).
    public static func find(log path: String) -> InterruptedRotation? {
        var found = InterruptedRotation(path: path)
        let temporary = temporaryPath(path)
        if access(temporary, F_OK) == 0 { found.leftover = temporary }
        var numbers = AuditRotation.rotatedNumbers(path)
        let first = AuditRotation.rotatedPath(path, 1)
        if numbers.first == 1, isSecondName(first, of: path) {
            found.secondName = first
            numbers.removeFirst()
        }
        found.highest = numbers.last ?? 0
        let gaps = (1..<max(found.highest, 1)).filter { !numbers.contains($0) }
        if gaps.count == 1, let gap = gaps.first, chainCrosses(gap, log: path) { found.gap = gap }
        return found.leftover == nil && found.secondName == nil && found.gap == nil ? nil : found
    }

    /// Whether `other` names the same file as `path`.
    static func isSecondName(_ other: String, of path: String) -> Bool {
        var mine = stat()
        var theirs = stat()
        return lstat(path, &mine) == 0 && lstat(other, &theirs) == 0 && mine.st_dev == theirs.st_dev
            && mine.st_ino == theirs.st_ino
    }

    /// Whether the file above the gap ends with the record the file below it (`FILE.gap-1`, or
    /// the log for gap 1) continues: the gap lost no record.
    static func chainCrosses(_ gap: Int, log path: String) -> Bool {
        let above = AuditRotation.rotatedPath(path, gap + 1)
        let below = gap == 1 ? path : AuditRotation.rotatedPath(path, gap - 1)
        let older = open(above, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard older >= 0 else { return false }
        defer { close(older) }
        let newer = open(below, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard newer >= 0 else { return false }
        defer { close(newer) }
        guard let last = try? AuditWriter.readTail(older, path: above), !last.isEmpty,
            let next = try? AuditWriter.firstRecord(newer, path: below)
        else { return false }
        return next.seq == last.seq + 1 && next.prev == last.hash
    }

    /// What was found, as a `repair` record's `repaired` field says it.
    public var description: String { "a rotation was interrupted: " + found }

    /// What was found, without the words that say it was a rotation (verify's message has them).
    public var found: String {
        var parts: [String] = []
        if let gap {
            let missing = AuditRotation.rotatedPath(path, gap)
            let moved = AuditRotation.rotatedPath(path, gap + 1)
            parts.append(
                gap + 1 == highest
                    ? "\(missing) was renamed to \(moved), and no record is missing"
                    : "\(missing) and the files above it were renamed up by one (to \(AuditRotation.rotatedPath(path, highest))), "
                        + "and no record is missing"
            )
        }
        if let secondName { parts.append("\(secondName) is a second name of \(path)") }
        if let leftover { parts.append("\(leftover) is left") }
        return parts.joined(separator: "; ")
    }

    /// Puts the series back as it was before the rotation began.
    ///
    /// - Important: The caller holds the log's lock (`AuditWriter.lockCurrentLog`), so no
    ///   rotation runs meanwhile.
    func rollBack() throws(AuditError) {
        if let leftover, unlink(leftover) != 0, errno != ENOENT {
            throw .io(path: leftover, operation: "remove", errno: errno)
        }
        if let secondName, Self.isSecondName(secondName, of: path), unlink(secondName) != 0 {
            throw .io(path: secondName, operation: "remove", errno: errno)
        }
        if let gap {
            for n in (gap + 1)...highest {
                let from = AuditRotation.rotatedPath(path, n)
                let to = AuditRotation.rotatedPath(path, n - 1)
                if rename(from, to) != 0 {
                    throw .io(path: from, operation: "rename to \(to): cannot rename", errno: errno)
                }
            }
        }
        AuditWriter.syncDirectory(of: path)
    }
}
