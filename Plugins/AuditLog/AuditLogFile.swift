import Glibc

/// Reading a log for `ward audit show`: its records, and how many lines were not records.
public enum AuditLogFile {
    /// The records of the file at `path`, in file order, with the raw line of each.
    ///
    /// `keeping`, when given, sees each line's bytes first: a line it refuses is passed over
    /// unparsed, so a question about one MRN among a million records costs a byte search a line
    /// (`AuditLineSearch`) rather than a parse a line.
    public static func read(
        path: String,
        keeping: ((UnsafeRawBufferPointer) -> Bool)? = nil
    ) throws(AuditError) -> (
        records: [(record: AuditRecord, line: ArraySlice<UInt8>)], unreadable: Int
    ) {
        let bytes = try AuditVerifier.readFile(path)
        var records: [(record: AuditRecord, line: ArraySlice<UInt8>)] = []
        var unreadable = 0
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var start = 0
            var number = 1
            while start < buffer.count {
                let found = memchr(base + start, 0x0A, buffer.count - start)
                let end = found.map { $0 - UnsafeMutableRawPointer(mutating: base) } ?? buffer.count
                defer {
                    start = end + 1
                    number += 1
                }
                if let keeping, !keeping(UnsafeRawBufferPointer(rebasing: buffer[start..<end])) { continue }
                let slice = bytes[start..<end]
                if let record = AuditRecord(line: number, bytes: slice) {
                    records.append((record, slice))
                } else {
                    unreadable += 1
                }
            }
        }
        return (records, unreadable)
    }
}

/// Byte searches over a record's line, before it is parsed: whether it can match at all.
public enum AuditLineSearch {
    /// Whether `line` holds `"key":"` followed by `prefix`, ASCII letters compared without case
    /// (`prefix` given in lower case), for any of `keys`.
    public static func hasField(
        _ line: UnsafeRawBufferPointer,
        keys: [[UInt8]],
        startingWith prefixes: [[UInt8]]
    ) -> Bool {
        guard let base = line.baseAddress else { return false }
        for key in keys {
            var from = 0
            while let hit = find(key, in: line, from: from) {
                let valueStart = hit + key.count
                for prefix in prefixes where valueStart + prefix.count <= line.count {
                    var same = true
                    for (offset, byte) in prefix.enumerated() {
                        let b = line[valueStart + offset]
                        if (b >= 0x41 && b <= 0x5A ? b | 0x20 : b) != byte {
                            same = false
                            break
                        }
                    }
                    if same { return true }
                }
                from = valueStart
            }
        }
        return false
    }

    /// Whether `line` holds `needle` anywhere.
    public static func contains(_ line: UnsafeRawBufferPointer, _ needle: [UInt8]) -> Bool {
        find(needle, in: line, from: 0) != nil
    }

    /// The offset of the first `needle` in `line` at or after `from`: `memchr` for its first
    /// byte, then `memcmp` for the rest.
    static func find(_ needle: [UInt8], in line: UnsafeRawBufferPointer, from: Int) -> Int? {
        guard let base = line.baseAddress, let first = needle.first else { return nil }
        var at = from
        return needle.withUnsafeBytes { n -> Int? in
            while at + n.count <= line.count {
                guard let hit = memchr(base + at, Int32(first), line.count - at - n.count + 1) else { return nil }
                let offset = hit - UnsafeMutableRawPointer(mutating: base)
                if memcmp(base + offset, n.baseAddress!, n.count) == 0 { return offset }
                at = offset + 1
            }
            return nil
        }
    }
}
