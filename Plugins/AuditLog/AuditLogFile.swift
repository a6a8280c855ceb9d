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
        guard line.baseAddress != nil else { return false }
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

    /// The offset of the first `needle` in `line` at or after `from`: `memchr` for its anchor
    /// (`anchor(of:)`), then `memcmp` for the whole.
    static func find(_ needle: [UInt8], in line: UnsafeRawBufferPointer, from: Int) -> Int? {
        guard let base = line.baseAddress, !needle.isEmpty, from + needle.count <= line.count else { return nil }
        let anchor = anchor(of: needle)
        let byte = Int32(needle[anchor])
        // Where the anchor of a match at `from`, and of the last match the line has room for, is.
        var at = from + anchor
        let last = line.count - needle.count + anchor
        return needle.withUnsafeBytes { n -> Int? in
            while at <= last {
                guard let hit = memchr(base + at, byte, last - at + 1) else { return nil }
                let offset = hit - UnsafeMutableRawPointer(mutating: base) - anchor
                if memcmp(base + offset, n.baseAddress!, n.count) == 0 { return offset }
                at = offset + anchor + 1
            }
            return nil
        }
    }

    /// The index of the byte of `needle` a search looks for first: the first that is none of the
    /// bytes a record is full of (quotes, colons, commas, braces, digits, and `a` to `f`, the
    /// hex digits of its two hashes), else the first. `"mrn":"` is found by its `m`, of which
    /// a record has a few, where its `"` stopped `memchr` some sixty times a record: over a
    /// million records that was most of `ward audit show --mrn`'s time (Benchmarks/AuditQuery).
    static func anchor(of needle: [UInt8]) -> Int {
        needle.firstIndex { byte in
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: ":"), UInt8(ascii: ","), UInt8(ascii: "{"), UInt8(ascii: "}"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"):
                false
            default:
                true
            }
        } ?? 0
    }
}
