/// The shell's context that a lock seals and an unlock brings back (`SessionResume`): the MRNs
/// of the open charts, in the order they were opened, and which one is current. Nothing else:
/// not a name, not a row of a chart, not the last `find`.
///
/// Each MRN is written with its length, since an imported MRN may hold any character:
/// `[current index + 1, 0 for none][length][bytes]…`, each number four bytes, big-endian.
/// Read in one pass; anything that does not parse whole is refused.
struct ResumeContext: Equatable {
    var mrns: [String]
    /// The current chart's MRN; one of `mrns`, or nil.
    var current: String?

    /// More charts than a session could open is a damaged list, not a reason to allocate.
    static let maximumCount = 100_000

    init(mrns: [String], current: String?) {
        self.mrns = mrns
        self.current = current
    }

    /// The bytes to seal, in one buffer sized up front (a grown buffer would leave copies; the
    /// scrubbing `free` clears them, but there is no need to make them).
    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4 + mrns.reduce(0) { $0 + 4 + $1.utf8.count })
        let index = current.flatMap { current in mrns.firstIndex { Shell.sameMRN($0, current) } }
        Self.append(UInt32(index.map { $0 + 1 } ?? 0), to: &bytes)
        for mrn in mrns {
            Self.append(UInt32(mrn.utf8.count), to: &bytes)
            bytes += mrn.utf8
        }
        return bytes
    }

    /// Parses what `encoded()` wrote; nil for anything else.
    init?(decoding bytes: [UInt8]) {
        var offset = 0
        func number() -> Int? {
            guard bytes.count - offset >= 4 else { return nil }
            defer { offset += 4 }
            return bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        }
        guard let currentIndex = number() else { return nil }
        var mrns: [String] = []
        while offset < bytes.count {
            guard mrns.count < Self.maximumCount, let length = number(), length > 0, bytes.count - offset >= length,
                let mrn = String(validating: bytes[offset..<offset + length], as: UTF8.self)
            else { return nil }
            mrns.append(mrn)
            offset += length
        }
        guard currentIndex <= mrns.count else { return nil }
        self.init(mrns: mrns, current: currentIndex == 0 ? nil : mrns[currentIndex - 1])
    }

    private static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }
}
