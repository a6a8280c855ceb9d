import FoundationEssentials
import Glibc

/// A JSON parser that reads its input in 1 MiB chunks and builds one value at a time.
///
/// A Synthea bundle is one object whose `entry` array holds every resource of a life: hundreds of
/// megabytes for a long one. `JSONSerialization` built the whole tree at once, boxed in Foundation
/// objects, and a 300 MB bundle peaked at 16 GB. Here the caller walks the outer object and array
/// member by member (`readObject`, `readArray`) and builds only the value it wants (`value()`),
/// one entry at a time, or skips it (`skipValue()`) without building anything; memory is then one
/// chunk and one entry, whatever the file's size. No package on this machine parses JSON as a
/// stream, hence this one; it is small, strict and fuzzed (Fuzzing/run FHIRBundle).
///
/// Strict RFC 8259: one value, no trailing commas, no comments, no control characters or invalid
/// UTF-8 inside strings, no lone surrogates; a key written twice in one object is refused rather
/// than resolved, so two readers can never see two different resources. `\u0000` is kept as
/// U+0000 (never a terminator). Nesting deeper than `maximumDepth` is refused before the stack is.
/// Every step looks at each input byte a bounded number of times: parsing is linear in the input.
///
/// Strings are bounded as they are read (`FieldLimit`): a string past its field's limit (64 bytes
/// for an id or an identifier's value, 1 KiB for a key or a part of a name, 1 MiB for any other
/// text) is refused when the reader reaches the limit, naming the field by its keys, so no
/// input can make one value of hundreds of megabytes; a number is at most 1 KiB of digits.
final class JSONStreamReader {
    /// Deeper than any FHIR resource (Synthea's reach about 10), shallow enough for the stack.
    static let maximumDepth = 100
    /// The most digits (with sign, point and exponent) a number may have.
    static let maximumNumberLength = 1024
    /// The most bytes of input one value built by `value()` may span.
    static let maximumValueLength = NDJSONLines.maximumLineLength
    /// The most values (objects, arrays, strings, numbers, literals) one `value()` may build: a
    /// FHIR resource holds thousands at most, and a line of 16 MiB of `0,` would otherwise build
    /// eight million, a quarter of a gigabyte.
    static let maximumValueCount = 1 << 20
    private static let chunkSize = 1 << 20

    /// Fills the buffer; returns the byte count, 0 at the end of input.
    private let fill: (UnsafeMutableRawBufferPointer) throws -> Int
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    private var position = 0
    private var limit = 0
    /// Bytes of input before `buffer[0]`, for the byte offsets errors name.
    private var consumed = 0
    private var finished = false
    private var scratch: [UInt8] = []
    private var descriptor: Int32 = -1
    /// The keys from the outermost object to the value being read (array indices left out): the
    /// field a string belongs to, for its limit and for the message that names it.
    private var keys: [String] = []
    /// Where the value `value()` is building began, as a byte offset; nil outside one.
    private var valueStart: Int?
    /// How many values the current `value()` has built.
    private var valuesBuilt = 0

    /// Reads `data` (tests, and the fuzzer's entry point) in chunks of `chunkSize` bytes, by
    /// default 1 MiB and never more than the input: a fuzzer makes millions of small readers.
    init(data: Data, chunkSize: Int? = nil) {
        buffer = .allocate(capacity: max(1, chunkSize ?? min(Self.chunkSize, data.count)))
        var next = data.startIndex
        fill = { target in
            let count = min(target.count, data.endIndex - next)
            data.copyBytes(to: target.bindMemory(to: UInt8.self), from: next..<(next + count))
            next += count
            return count
        }
    }

    /// Reads the regular file at `path` (`ImportFile`); throws `StoreError.unreadable` when it
    /// cannot be opened or read, `.notRegularFile` for a FIFO, a device or a socket.
    init(path: String) throws {
        let descriptor = try ImportFile.open(path)
        self.descriptor = descriptor
        buffer = .allocate(capacity: Self.chunkSize)
        fill = { target in
            while true {
                let count = read(descriptor, target.baseAddress, target.count)
                if count >= 0 { return count }
                if errno != EINTR { throw StoreError.unreadable(path: path) }
            }
        }
    }

    deinit {
        buffer.deallocate()
        if descriptor >= 0 { close(descriptor) }
    }

    // MARK: Walking the outer structure

    /// Reads an object, calling `member(key)` with the reader at each member's value; `member`
    /// must read or skip that value.
    func readObject(_ member: (String) throws -> Void) throws {
        try expect(UInt8(ascii: "{"), "'{'")
        if try peekSignificant() == UInt8(ascii: "}") {
            position += 1
            return
        }
        while true {
            guard try peekSignificant() == UInt8(ascii: "\"") else { throw syntax("expected a key") }
            position += 1
            let key = try string(limit: FieldLimit.key)
            try expect(UInt8(ascii: ":"), "':'")
            keys.append(key)
            try member(key)
            keys.removeLast()
            guard let next = try peekSignificant() else { throw syntax("unexpected end of input") }
            guard next == UInt8(ascii: ",") || next == UInt8(ascii: "}") else {
                throw syntax("expected ',' or '}'")
            }
            position += 1
            if next == UInt8(ascii: "}") { return }
        }
    }

    /// Reads an array, calling `element(index)` with the reader at each element; `element` must
    /// read or skip it.
    func readArray(_ element: (Int) throws -> Void) throws {
        try expect(UInt8(ascii: "["), "'['")
        if try peekSignificant() == UInt8(ascii: "]") {
            position += 1
            return
        }
        var index = 0
        while true {
            try element(index)
            index += 1
            guard let next = try peekSignificant() else { throw syntax("unexpected end of input") }
            guard next == UInt8(ascii: ",") || next == UInt8(ascii: "]") else {
                throw syntax("expected ',' or ']'")
            }
            position += 1
            if next == UInt8(ascii: "]") { return }
        }
    }

    /// The first byte of the next value, not consumed (`{`, `[`, `"`, a digit…); nil at the end.
    func peekSignificant() throws -> UInt8? {
        while true {
            if position == limit {
                try refill()
                if position == limit { return nil }
            }
            let byte = buffer[position]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return byte }
            position += 1
        }
    }

    /// Succeeds only when nothing but whitespace is left.
    func finish() throws {
        if try peekSignificant() != nil { throw syntax("unexpected text after the end of the document") }
    }

    // MARK: Values

    /// Reads and builds the next value.
    ///
    /// One value spans at most `maximumValueLength` bytes of input (a bundle's entry, as an NDJSON
    /// line): what it builds stays bounded whatever the input holds.
    func value() throws -> JSONValue {
        valueStart = consumed + position
        valuesBuilt = 0
        defer { valueStart = nil }
        return try value(depth: 1)
    }

    /// Reads the next value and checks it, building nothing.
    func skipValue() throws { try skip(depth: 1) }

    private func value(depth: Int) throws -> JSONValue {
        guard depth <= Self.maximumDepth else { throw syntax("nested deeper than \(Self.maximumDepth) levels") }
        valuesBuilt += 1
        guard valuesBuilt <= Self.maximumValueCount else {
            throw FHIRProblem(
                path: keys.isEmpty ? "(root)" : keys.joined(separator: "."),
                problem: "more than \(Self.maximumValueCount) values in one resource"
            )
        }
        guard let first = try peekSignificant() else { throw syntax("unexpected end of input") }
        switch first {
        case UInt8(ascii: "{"):
            var object: [String: JSONValue] = [:]
            var duplicate: String?
            try readObject { key in
                let member = try value(depth: depth + 1)
                if object.updateValue(member, forKey: key) != nil, duplicate == nil { duplicate = key }
            }
            if let duplicate { throw syntax("the key \(duplicate.quotedForMessage) is written twice in one object") }
            return .object(object)
        case UInt8(ascii: "["):
            var array: [JSONValue] = []
            try readArray { _ in array.append(try value(depth: depth + 1)) }
            return .array(array)
        case UInt8(ascii: "\""):
            position += 1
            return .string(try string(limit: FieldLimit.of(keys)))
        default:
            return try scalar(first)
        }
    }

    private func skip(depth: Int) throws {
        guard depth <= Self.maximumDepth else { throw syntax("nested deeper than \(Self.maximumDepth) levels") }
        guard let first = try peekSignificant() else { throw syntax("unexpected end of input") }
        switch first {
        case UInt8(ascii: "{"):
            // Keys are kept to refuse a duplicate, as `value()` does; values are not.
            var keys: Set<String> = []
            var duplicate: String?
            try readObject { key in
                if !keys.insert(key).inserted, duplicate == nil { duplicate = key }
                try skip(depth: depth + 1)
            }
            if let duplicate { throw syntax("the key \(duplicate.quotedForMessage) is written twice in one object") }
        case UInt8(ascii: "["):
            try readArray { _ in try skip(depth: depth + 1) }
        case UInt8(ascii: "\""):
            position += 1
            _ = try string(limit: FieldLimit.of(keys))
        default:
            _ = try scalar(first)
        }
    }

    private func scalar(_ first: UInt8) throws -> JSONValue {
        switch first {
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try number())
        default:
            throw syntax("expected a value")
        }
    }

    private func literal(_ word: StaticString) throws {
        let bytes = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for expected in bytes {
            guard try next() == expected else { throw syntax("expected \(word)") }
        }
    }

    /// A JSON number, its grammar checked here so that `strtod` only ever sees a valid one.
    private func number() throws -> Double {
        scratch.removeAll(keepingCapacity: true)
        func digits() throws -> Int {
            var count = 0
            while let byte = try peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                guard scratch.count < Self.maximumNumberLength else {
                    throw syntax("a number longer than \(Self.maximumNumberLength) characters")
                }
                scratch.append(byte)
                position += 1
                count += 1
            }
            return count
        }
        if try peek() == UInt8(ascii: "-") {
            scratch.append(UInt8(ascii: "-"))
            position += 1
        }
        if try peek() == UInt8(ascii: "0") {
            scratch.append(UInt8(ascii: "0"))
            position += 1
        } else if try digits() == 0 {
            throw syntax("expected a digit")
        }
        if try peek() == UInt8(ascii: ".") {
            scratch.append(UInt8(ascii: "."))
            position += 1
            guard try digits() > 0 else { throw syntax("expected a digit after '.'") }
        }
        if let byte = try peek(), byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            scratch.append(byte)
            position += 1
            if let sign = try peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                scratch.append(sign)
                position += 1
            }
            guard try digits() > 0 else { throw syntax("expected a digit in the exponent") }
        }
        scratch.append(0)
        return scratch.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { strtod($0.baseAddress!, nil) }
        }
    }

    /// The rest of a string whose opening quote has been read; refused once it passes `maximum`
    /// bytes (as read: an escape counts as its bytes in the input).
    private func string(limit maximum: Int) throws -> String {
        // Fast path: no escape and the closing quote in this chunk; no copy but the String's own.
        let start = position
        while position < limit {
            let byte = buffer[position]
            if position - start > maximum { throw tooLong(maximum) }
            if byte == UInt8(ascii: "\"") {
                let text = String(validating: UnsafeBufferPointer(rebasing: buffer[start..<position]), as: UTF8.self)
                position += 1
                guard let text else { throw syntax("a string is not valid UTF-8") }
                return text
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            position += 1
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start..<position]))
        while true {
            if scratch.count > maximum { throw tooLong(maximum) }
            let byte = try next()
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: scratch, as: UTF8.self) else {
                    throw syntax("a string is not valid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                try escape()
            case 0..<0x20:
                throw syntax("a control character inside a string must be escaped")
            default:
                scratch.append(byte)
            }
        }
    }

    /// One escape sequence after its backslash, appended to `scratch` as UTF-8.
    private func escape() throws {
        let byte = try next()
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(byte)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var code = try hex4()
            if (0xD800...0xDBFF).contains(code) {
                guard try next() == UInt8(ascii: "\\"), try next() == UInt8(ascii: "u") else {
                    throw syntax("a lone UTF-16 surrogate in a \\u escape")
                }
                let low = try hex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw syntax("a lone UTF-16 surrogate in a \\u escape") }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(code) {
                throw syntax("a lone UTF-16 surrogate in a \\u escape")
            }
            UTF8.encode(Unicode.Scalar(code)!) { scratch.append($0) }
        default:
            throw syntax("an unknown escape in a string")
        }
    }

    private func hex4() throws -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = try next()
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw syntax("expected four hexadecimal digits after \\u")
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    // MARK: Bytes

    @inline(__always) private func peek() throws -> UInt8? {
        if position == limit {
            try refill()
            if position == limit { return nil }
        }
        return buffer[position]
    }

    @inline(__always) private func next() throws -> UInt8 {
        guard let byte = try peek() else { throw syntax("unexpected end of input") }
        position += 1
        return byte
    }

    private func expect(_ byte: UInt8, _ what: String) throws {
        guard try peekSignificant() == byte else { throw syntax("expected \(what)") }
        position += 1
    }

    private func refill() throws {
        consumed += limit
        if let valueStart, consumed - valueStart > Self.maximumValueLength {
            throw FHIRProblem(
                path: keys.isEmpty ? "(root)" : keys.joined(separator: "."),
                problem: "a value longer than \(FieldLimit.describe(Self.maximumValueLength))"
            )
        }
        position = 0
        limit = 0
        guard !finished else { return }
        limit = try fill(UnsafeMutableRawBufferPointer(buffer))
        if limit == 0 { finished = true }
    }

    /// A string longer than its field allows, named by its keys (`entry.resource.id`), never
    /// by its contents.
    private func tooLong(_ maximum: Int) -> FHIRProblem {
        FHIRProblem(
            path: keys.isEmpty ? "(root)" : keys.joined(separator: "."),
            problem: "a string longer than \(FieldLimit.describe(maximum)), the limit for this field"
        )
    }

    /// A syntax error at the current byte. No JSON path: the structure that would give one is
    /// what is broken; the byte offset says where instead.
    private func syntax(_ problem: String) -> FHIRProblem {
        FHIRProblem(path: "(root)", problem: "not valid JSON at byte \(consumed + position): \(problem)")
    }
}
