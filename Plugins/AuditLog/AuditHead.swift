/// The log's head: the sequence number and hash of the last record written, kept beside the
/// log in `FILE.head`.
///
/// The chain alone cannot show that records were cut from the end of the file: what is left is
/// still a valid chain. The head is updated after each record is complete (and synced first
/// under `fsync = "always"`), so a head ahead of the log means records were removed, while a log
/// ahead of its head by one record is a crash between the two writes. Its `mac` binds the two
/// numbers with the chain's key; unkeyed it is a checksum only.
public struct AuditHead: Equatable, Sendable {
    public var seq: Int64
    public var hash: String

    public init(seq: Int64, hash: String) {
        self.seq = seq
        self.hash = hash
    }

    /// The head file of the log at `logPath`.
    public static func path(forLog logPath: String) -> String { logPath + ".head" }

    /// `{"seq":N,"hash":"…","mac":"…"}` and a newline.
    public func line(chain: AuditChain) -> [UInt8] {
        CanonicalJSON.object([
            ("seq", .integer(seq)), ("hash", .string(hash)), ("mac", .string(mac(chain: chain))),
        ]) + [0x0A]
    }

    /// Reads a head file's bytes; nil when they are not a head or its mac does not match.
    public init?(bytes: [UInt8], chain: AuditChain) {
        var bytes = bytes[...]
        while bytes.last == 0x0A { bytes.removeLast() }
        guard let object = FlatJSONObject(bytes), object.fields.map(\.key) == ["seq", "hash", "mac"],
            let seq = object.integer("seq"), let hash = object.string("hash"), let mac = object.string("mac")
        else { return nil }
        self.init(seq: seq, hash: hash)
        guard mac == self.mac(chain: chain) else { return nil }
    }

    private func mac(chain: AuditChain) -> String {
        chain.hash(prev: hash, body: "ward-audit-head:\(seq)".utf8)
    }
}
