/// One line of the audit log, as written and as read back.
///
/// ```
/// {"seq":7,"ver":1,"ts":"2026-11-22T09:41:07.123Z","host":"ward1","pid":4242,"session":"3f9c…",
///  "user":"demo","role":"clinician","source":"tty","kind":"access","action":"open",
///  "mrn":"MRN-1042","outcome":"ok","prev":"<hash of seq 6>","hash":"<this record's hash>"}
/// ```
/// (one line in the file). The envelope comes first in a fixed order, then `kind` and the
/// entry's details, then `prev`, and `hash` always last: the record's *body* is the line up to
/// `,"hash":` with the closing brace, and its hash is SHA-256 (or HMAC-SHA-256 with the site's
/// key) over the previous hash's 64 hex digits followed by the body's bytes.
///
/// `ver`, right after `seq`, is the record format's version (`AuditRecord.version`), as tlog's
/// records carry theirs: a reader tells which fields to expect without guessing from the
/// date. The hash covers the body's bytes whatever its fields, so a record written before
/// `ver` existed (it has none) verifies as it always did, and a log may hold both.
public struct AuditRecord: Sendable {
    /// The format this Ward writes: 1 adds `ver` itself and a denial's `plugin`. A record
    /// without `ver` is of the format before it (read it as 0).
    public static let version: Int64 = 1

    /// The 1-based line of the file this record was read from.
    public let line: Int
    /// The record's fields.
    public let object: FlatJSONObject
    public let seq: Int64
    /// The previous record's hash, as this record names it.
    public let prev: String
    /// This record's hash, as written.
    public let hash: String
    /// The bytes the hash covers (the line without its `hash` field).
    public let body: [UInt8]

    /// Reads one line (without its newline); nil when it is not a complete record.
    public init?(line: Int, bytes: ArraySlice<UInt8>) {
        let marker = Array(#","hash":""#.utf8)
        // `,"hash":"` + 64 hex digits + `"}` ends every record.
        let suffixLength = marker.count + 64 + 2
        guard bytes.count > suffixLength, bytes.last == UInt8(ascii: "}") else { return nil }
        let suffixStart = bytes.endIndex - suffixLength
        guard Array(bytes[suffixStart..<suffixStart + marker.count]) == marker,
            bytes[bytes.endIndex - 2] == UInt8(ascii: "\""),
            let object = FlatJSONObject(bytes),
            object.fields.last?.key == "hash",
            let seq = object.integer("seq"), let prev = object.string("prev"), let hash = object.string("hash"),
            AuditChain.isHash(hash)
        else { return nil }
        self.line = line
        self.object = object
        self.seq = seq
        self.prev = prev
        self.hash = hash
        self.body = Array(bytes[bytes.startIndex..<suffixStart]) + [UInt8(ascii: "}")]
    }

    /// What the records of one group share, written once for the group: the time it is written
    /// (one `write(2)` puts them all in the file) and the envelope from `"host"` to `"source"`.
    ///
    /// A `find` writes twenty `list` records in one group; escaping the same five strings and
    /// formatting the same time for each was a quarter of the work of building them.
    struct Envelope {
        /// The value of `ts`, without its quotes.
        let time: [UInt8]
        /// `,"host":…,"pid":…,"session":…`
        let host: [UInt8]
        /// `,"user":…` for the session's user; an entry that names another writes its own.
        let user: [UInt8]
        /// `,"role":…,"source":…`
        let rest: [UInt8]

        init(milliseconds: Int64, host: String, pid: Int32, session: SessionFields, source: String?) {
            var time: [UInt8] = []
            UTCTimestamp.append(milliseconds: milliseconds, to: &time)
            self.time = time
            var bytes: [UInt8] = []
            bytes.append(contentsOf: #","host":"#.utf8)
            CanonicalJSON.appendString(host, to: &bytes)
            bytes.append(contentsOf: #","pid":"#.utf8)
            CanonicalJSON.appendInteger(Int64(pid), to: &bytes)
            bytes.append(contentsOf: #","session":"#.utf8)
            CanonicalJSON.appendString(session.id, to: &bytes)
            self.host = bytes
            user = Self.user(session.user)
            bytes = Array(#","role":"#.utf8)
            AuditRecord.appendOptional(session.role, to: &bytes)
            bytes.append(contentsOf: #","source":"#.utf8)
            AuditRecord.appendOptional(source, to: &bytes)
            rest = bytes
        }

        static func user(_ name: String?) -> [UInt8] {
            var bytes = Array(#","user":"#.utf8)
            AuditRecord.appendOptional(name, to: &bytes)
            return bytes
        }
    }

    /// Appends the body of a new record (envelope, kind, details, prev) to `out`, where the
    /// writer builds a group's lines.
    ///
    /// The envelope's keys are fixed, so they are written as the literal bytes
    /// `CanonicalJSON.object` would write for them (`,"host":`), and only values are escaped:
    /// every record takes this way, and the list of key-value pairs, each key escaped and each
    /// value copied through an enum, cost more than the record's hash. The bytes are the same
    /// (`AuditRecordBytesTests` pins them).
    static func appendBody(
        seq: Int64,
        envelope: Envelope,
        entry: AuditEntry,
        prev: String,
        to out: inout [UInt8]
    ) {
        out.append(contentsOf: #"{"seq":"#.utf8)
        CanonicalJSON.appendInteger(seq, to: &out)
        out.append(contentsOf: #","ver":"#.utf8)
        CanonicalJSON.appendInteger(version, to: &out)
        out.append(contentsOf: #","ts":""#.utf8)
        out.append(contentsOf: envelope.time)
        out.append(UInt8(ascii: "\""))
        out.append(contentsOf: envelope.host)
        out.append(contentsOf: entry.userOverride.map { Envelope.user($0) } ?? envelope.user)
        out.append(contentsOf: envelope.rest)
        out.append(contentsOf: #","kind":"#.utf8)
        CanonicalJSON.appendString(entry.kind.rawValue, to: &out)
        for (key, value) in entry.details {
            out.append(UInt8(ascii: ","))
            CanonicalJSON.appendString(key, to: &out)
            out.append(UInt8(ascii: ":"))
            CanonicalJSON.appendValue(value, to: &out)
        }
        out.append(contentsOf: #","prev":"#.utf8)
        CanonicalJSON.appendString(prev, to: &out)
        out.append(UInt8(ascii: "}"))
    }

    private static func appendOptional(_ value: String?, to out: inout [UInt8]) {
        if let value {
            CanonicalJSON.appendString(value, to: &out)
        } else {
            out.append(contentsOf: "null".utf8)
        }
    }

    /// The full line for `body` and its `hash`, newline included.
    public static func line(body: [UInt8], hash: String) -> [UInt8] {
        var out = body
        out.removeLast()  // the closing brace; the hash goes before it
        out.append(contentsOf: #","hash":""#.utf8)
        out.append(contentsOf: hash.utf8)
        out.append(contentsOf: "\"}\n".utf8)
        return out
    }

    /// Who a record is about, as the envelope writes it.
    public struct SessionFields: Sendable {
        public var id: String
        public var user: String?
        public var role: String?

        public init(id: String, user: String?, role: String?) {
            self.id = id
            self.user = user
            self.role = role
        }
    }

    /// The record format's version; 0 for a record written before records carried one.
    public var version: Int64 { object.integer("ver") ?? 0 }

    /// Convenience accessors for `show` and filters.
    public var timestamp: String? { object.string("ts") }
    public var user: String? { object.string("user") }
    public var kind: String? { object.string("kind") }
}
