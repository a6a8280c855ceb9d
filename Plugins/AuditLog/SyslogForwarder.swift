import Glibc
import WardPluginAPI

/// Sends each audit record, once it is in the file, to the local syslog daemon as one RFC 5424
/// message, so that a copy leaves the account it audits (and, by the daemon's own rules, the
/// machine), as sudo's logs do.
///
/// One record, one datagram (the record's line is the whole message, one line of JSON):
/// ```
/// <86>1 2026-11-22T09:41:07.123Z ward1 ward 4242 access [ward@32473 seq="7" hash="9f2c…"] {"seq":7,…}
/// ```
/// - PRI: facility `authpriv` (10), as sudo and sshd use, since the records name patients and
///   users; severity from the record (`Severity.of(_:)`): `warning` for a refusal, `notice` for
///   what an auditor looks at first though allowed, `info` for the rest.
/// - TIMESTAMP, HOSTNAME, PROCID: the record's own `ts`, `host` and `pid`, so the copy and the
///   file agree to the millisecond (a test needs no clock: the writer's clock sets them).
/// - APP-NAME `ward`; MSGID the record's `kind`, for a daemon's filters.
/// - STRUCTURED-DATA: `ward@32473` with the record's `seq` and `hash`, so a collector matches
///   each message to its line in the file and checks it against the chain. 32473 is the
///   enterprise number RFC 5612 reserves for documentation; Ward has no number of its own, and
///   an SD-ID needs one (RFC 5424 §7.2.2).
/// - MSG: the record's line exactly as in the file, UTF-8 *without* the BOM RFC 5424 suggests
///   (it allows MSG-ANY): rsyslog copies a BOM into `%msg%` and from there into every file it
///   writes, where `jq` and Ward's own parser would refuse the line.
///
/// Over an `AF_UNIX` `SOCK_DGRAM` socket, as syslog(3) does: a datagram arrives whole or not at
/// all, so there is no framing to get wrong and no half record. A message the kernel refuses as
/// too long (`EMSGSIZE`, about 200 KiB) is a failure like any other; a daemon truncates what is
/// longer than its own limit (rsyslog: `maxMessageSize`, 8k by default), keeping the header and
/// the structured data, so a cut copy still names its record.
///
/// - Important: Blocking with a timeout (`sendTimeoutSeconds`): a daemon that stops reading must not
///   hang every session, and one that drops the record must not pass for one that took it.
public final class SyslogForwarder {
    /// Where records go besides the file (`forward`).
    public enum Destination: String, Sendable, CaseIterable {
        /// Nowhere: the file only (the default).
        case off
        /// Also the local syslog daemon, through `syslog-socket`.
        case syslog
    }

    /// What a site does when a record cannot be forwarded (`on-forward-failure`).
    public enum FailurePolicy: String, Sendable, CaseIterable {
        /// Fail closed, as for the file: an event that grants access is denied and the session
        /// locks; any other event is a notice.
        case lock
        /// Keep the local record, which is always written first, and print a notice.
        case warn
    }

    /// RFC 5424 severities Ward uses.
    public enum Severity: Int, Sendable {
        case warning = 4
        case notice = 5
        case info = 6

        /// `warning` for a refusal (a failed sign-on or unlock, a denied line, an access or break-the-glass
        /// refused); `notice` for what is allowed but an auditor reads first (a break-the-glass,
        /// an access that failed, a lock after an audit failure, a signal, an abandoned
        /// command); `info` for everything else.
        public static func of(_ record: AuditRecord) -> Severity {
            let outcome = record.object.string("outcome").flatMap(RecordAccess.Outcome.init(rawValue:))
            if outcome == .denied { return .warning }
            switch record.kind.flatMap(AuditEntry.Kind.init(rawValue:)) {
            case .signOnFailed, .unlockFailed, .denied: return .warning
            case .breakGlass, .signal, .abandoned: return .notice
            case .lock where record.object.string("cause") == LockReason.failure.rawValue: return .notice
            default: return outcome == .failed ? .notice : .info
            }
        }
    }

    /// Why a record was not forwarded.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// A system call on the socket failed: `socket`, `connect`, `send`.
        case socket(path: String, operation: String, errno: Int32)
        /// The line is not an audit record (a writer bug; never sent half-formed).
        case notARecord

        public var description: String {
            switch self {
            case .socket(let path, let operation, let code) where code == EAGAIN || code == EWOULDBLOCK:
                "\(path): cannot \(operation): the syslog daemon took nothing for \(sendTimeoutSeconds)s"
            case .socket(let path, let operation, let code):
                "\(path): cannot \(operation): \(String(cString: strerror(code)))"
            case .notARecord:
                "not an audit record"
            }
        }
    }

    /// `LOG_AUTHPRIV >> 3`.
    public static let facility = 10
    public static let appName = "ward"
    public static let structuredDataID = "ward@32473"
    public static let defaultSocket = "/dev/log"
    /// The longest `sun_path` a socket address holds, without its NUL.
    public static let maximumSocketPathBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1
    /// How long one send may block on a daemon that does not read.
    public static let sendTimeoutSeconds = 2

    /// The daemon's socket (`syslog-socket`), absolute.
    public let socketPath: String
    private var descriptor: Int32 = -1

    /// A forwarder to `socketPath`; nothing is opened until the first `send`.
    public init(socketPath: String = SyslogForwarder.defaultSocket) {
        self.socketPath = socketPath
    }

    deinit { close() }

    /// Sends the record on `line` (as written, without its newline). Connects on first use, and
    /// once more when the daemon went away since (it restarted, its socket is new).
    public func send(line: ArraySlice<UInt8>) throws(Failure) {
        guard let message = Self.message(line: line) else { throw .notARecord }
        let fresh = descriptor < 0
        if fresh { try connect() }
        do throws(Failure) {
            try transmit(message)
        } catch {
            guard !fresh, [ECONNREFUSED, ENOTCONN, ECONNRESET, ENOENT].contains(error.errno) else { throw error }
            close()
            try connect()
            try transmit(message)
        }
    }

    /// Connects now, when not connected yet: a command that must not change what it cannot
    /// forward (`ward user add`) asks this first.
    public func open() throws(Failure) {
        if descriptor < 0 { try connect() }
    }

    /// Closes the socket; the next `send` connects again.
    public func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    /// The RFC 5424 message for the record on `line`; nil when the line is not a record.
    public static func message(line: ArraySlice<UInt8>) -> [UInt8]? {
        guard let record = AuditRecord(line: 0, bytes: line), let kind = record.kind,
            let timestamp = record.timestamp, let host = record.object.string("host"),
            let pid = record.object.integer("pid")
        else { return nil }
        let priority = facility * 8 + Severity.of(record).rawValue
        var out = Array("<\(priority)>1 \(timestamp) ".utf8)
        out += headerField(host, limit: 255) + [0x20]
        out += Array("\(appName) \(pid) ".utf8)
        out += headerField(kind, limit: 32) + [0x20]
        out += Array("[\(structuredDataID) seq=\"\(record.seq)\" hash=\"\(parameterValue(record.hash))\"] ".utf8)
        out += line
        return out
    }

    /// A header field as RFC 5424 allows it: printable US-ASCII without spaces, at most `limit`
    /// characters, `-` when empty. Anything else becomes `_`; the record in MSG keeps the original.
    static func headerField(_ text: String, limit: Int) -> [UInt8] {
        let bytes = text.utf8.prefix(limit).map { (33...126).contains($0) ? $0 : UInt8(ascii: "_") }
        return bytes.isEmpty ? [UInt8(ascii: "-")] : bytes
    }

    /// A PARAM-VALUE with `"`, `\` and `]` escaped (RFC 5424 §6.3.3).
    static func parameterValue(_ text: String) -> String {
        var out = ""
        for character in text {
            if character == "\"" || character == "\\" || character == "]" { out.append("\\") }
            out.append(character)
        }
        return out
    }

    // MARK: - Socket

    private func connect() throws(Failure) {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .socket(path: socketPath, operation: "open a socket", errno: errno) }
        var timeout = timeval(tv_sec: Self.sendTimeoutSeconds, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(socketPath.utf8)
        guard path.count <= Self.maximumSocketPathBytes else {
            Glibc.close(fd)
            throw .socket(path: socketPath, operation: "connect", errno: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count + 1)
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) }
        }
        guard rc == 0 else {
            let code = errno
            Glibc.close(fd)
            throw .socket(path: socketPath, operation: "connect", errno: code)
        }
        descriptor = fd
    }

    private func transmit(_ message: [UInt8]) throws(Failure) {
        while true {
            let n = message.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n == message.count { return }
            let code = n < 0 ? errno : EMSGSIZE
            if code == EINTR { continue }
            throw .socket(path: socketPath, operation: "send", errno: code)
        }
    }
}

extension SyslogForwarder.Failure {
    fileprivate var errno: Int32 {
        if case .socket(_, _, let code) = self { return code }
        return 0
    }
}

@available(*, unavailable)
extension SyslogForwarder: Sendable {}
