/// The line each table header and each key of a TOML document is on.
///
/// TOMLKit (toml++ underneath) gives a line only for a parse error, never for a key, and Ward's
/// messages must name `FILE:LINE` for every setting. So the text is scanned once more, before
/// TOMLKit reads it (`malformed`); its lines are used once TOMLKit has accepted it, so this
/// scanner may assume valid TOML there and only has to follow headers, keys, strings (all four
/// kinds, multi-line included), arrays spanning lines and comments.
///
/// Paths are the table's keys; an element of an array of tables adds `[i]` after its name, so
/// the second `[[plugin]]` is `["plugin", "[1]"]` and its `[plugin.settings]` is
/// `["plugin", "[1]", "settings"]`. A key written dotted (`a.b = 1`) is recorded under the
/// table `a`. An element of an array value has the line it starts on, under the key's path with
/// `[i]` added (`["exec", "allow", "[1]"]`), so that an inline table written as one entry of a
/// list spanning lines is named by its own line. A key inside an inline table has no line of its
/// own: `line(ofKey:in:)` falls back to the key that holds it, then to the table's header.
struct TOMLLineIndex {
    private var tables: [[String]: Int] = [:]
    private var keys: [[String]: Int] = [:]

    /// The first line that toml++ (under TOMLKit) would not report but abort on, with what is
    /// wrong with it; nil when there is none. Check it before the text reaches TOMLKit.
    ///
    /// toml++ only asserts two rules that it checks everywhere else, and its assertions are
    /// compiled into release builds: such a line aborted Ward (SIGABRT) instead of exit 78. Both
    /// were found by fuzzing (Fuzzing/run SiteFile). So the scan looks for them:
    /// - a table header whose name starts with a character no key can start with (`[#]`, `[é]`,
    ///   `[[` and a line end);
    /// - an array element that starts with `}` (`[}`, `[1, }`, `{a = [}}`).
    /// The scan follows strings and values spanning lines, so a line of a multi-line array that
    /// starts with `[` is not taken for a header.
    let malformed: (line: Int, problem: String)?

    /// Scans `text` once, for the lines and for what toml++ would abort on (`malformed`). The
    /// lines are meaningful once TOMLKit has accepted the text.
    init(scanning text: String) {
        var scanner = Scanner(bytes: Array(text.utf8))
        scanner.run()
        tables = scanner.tables
        keys = scanner.keys
        malformed = scanner.malformed
    }

    /// The line of the table's header (or of the first key that made it, for a dotted key).
    func line(ofTable path: [String]) -> Int? {
        var path = path
        while !path.isEmpty {
            if let line = tables[path] ?? keys[path] { return line }
            path.removeLast()
        }
        return nil
    }

    /// The line `key` of the table at `path` is on, else the nearest enclosing one's, else 1.
    func line(ofKey key: String, in path: [String]) -> Int {
        keys[path + [key]] ?? tables[path + [key]] ?? line(ofTable: path) ?? 1
    }

    private struct Scanner {
        let bytes: [UInt8]
        var i = 0
        var line = 1
        var current: [String] = []
        var arrayCounts: [[String]: Int] = [:]
        var tables: [[String]: Int] = [:]
        var keys: [[String]: Int] = [:]
        var malformed: (line: Int, problem: String)?

        init(bytes: [UInt8]) {
            self.bytes = bytes
            // toml++ skips a byte order mark before the first statement; so must the scan.
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        }

        var atEnd: Bool { i >= bytes.count }
        func peek(_ offset: Int = 0) -> UInt8? { i + offset < bytes.count ? bytes[i + offset] : nil }

        mutating func run() {
            while !atEnd {
                let before = i
                skipBlankAndComments()
                guard let c = peek() else { return }
                if c == UInt8(ascii: "[") {
                    header()
                } else {
                    keyValue()
                }
                if i == before { i += 1 }  // never loop on something unexpected
            }
        }

        mutating func skipBlankAndComments() {
            while let c = peek() {
                switch c {
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"): i += 1
                case UInt8(ascii: "\n"):
                    i += 1
                    line += 1
                case UInt8(ascii: "#"): skipToEndOfLine()
                default: return
                }
            }
        }

        mutating func skipSpaces() {
            while let c = peek(), c == UInt8(ascii: " ") || c == UInt8(ascii: "\t") { i += 1 }
        }

        mutating func skipToEndOfLine() {
            while let c = peek(), c != UInt8(ascii: "\n") { i += 1 }
        }

        /// `[a.b]` or `[[a.b]]`.
        mutating func header() {
            let isArray = peek(1) == UInt8(ascii: "[")
            i += isArray ? 2 : 1
            checkHeaderStart(isArray: isArray)
            let names = keyPath(until: UInt8(ascii: "]"))
            i += isArray ? 2 : 1
            var path: [String] = []
            for (n, name) in names.enumerated() {
                path.append(name)
                if let count = arrayCounts[path], !(isArray && n == names.count - 1) {
                    path.append("[\(count - 1)]")
                }
            }
            if isArray {
                let count = arrayCounts[path] ?? 0
                arrayCounts[path] = count + 1
                path.append("[\(count)]")
            }
            tables[path] = tables[path] ?? line
            current = path
            skipSpaces()
            if peek() == UInt8(ascii: "#") { skipToEndOfLine() }
        }

        /// What follows `[` or `[[` and blanks must be a key, a quote, or one of the brackets
        /// toml++ itself reports (`[]`, and `[ [` for a single header); else the line is noted.
        mutating func checkHeaderStart(isArray: Bool) {
            var j = i
            while j < bytes.count, bytes[j] == UInt8(ascii: " ") || bytes[j] == UInt8(ascii: "\t") { j += 1 }
            guard j < bytes.count, malformed == nil else { return }
            let c = bytes[j]
            let startsKey = isBareKeyByte(c) || c == UInt8(ascii: "\"") || c == UInt8(ascii: "'")
            let reported = c == UInt8(ascii: "]") || (!isArray && c == UInt8(ascii: "["))
            if !startsKey && !reported {
                malformed = (line, "a table name must start with a letter, a digit, '_', '-' or a quote")
            }
        }

        /// `key = value`, `a.b = value`, `"quoted key" = value`.
        mutating func keyValue() {
            let names = keyPath(until: UInt8(ascii: "="))
            i += 1
            var path = current
            for name in names.dropLast() {
                path.append(name)
                if tables[path] == nil { tables[path] = line }
            }
            if let last = names.last { keys[path + [last]] = keys[path + [last]] ?? line }
            skipValue(path: names.last.map { path + [$0] })
        }

        /// Dotted key parts up to `terminator`, which is left unread.
        mutating func keyPath(until terminator: UInt8) -> [String] {
            var parts: [String] = []
            while true {
                skipSpaces()
                guard let c = peek(), c != terminator, c != UInt8(ascii: "\n") else { return parts }
                if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                    parts.append(quoted())
                } else {
                    let start = i
                    while let c = peek(), isBareKeyByte(c) { i += 1 }
                    if i == start {
                        i += 1
                        continue
                    }
                    parts.append(String(decoding: bytes[start..<i], as: UTF8.self))
                }
                skipSpaces()
                if peek() == UInt8(ascii: ".") { i += 1 }
            }
        }

        func isBareKeyByte(_ c: UInt8) -> Bool {
            (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
                || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "_")
                || c == UInt8(ascii: "-")
        }

        /// A one-line quoted key, `"…"` (with escapes) or `'…'`; returns its text.
        mutating func quoted() -> String {
            let quote = bytes[i]
            i += 1
            var out: [UInt8] = []
            while let c = peek(), c != quote, c != UInt8(ascii: "\n") {
                if quote == UInt8(ascii: "\""), c == UInt8(ascii: "\\"), let next = peek(1) {
                    switch next {
                    case UInt8(ascii: "n"): out.append(UInt8(ascii: "\n"))
                    case UInt8(ascii: "t"): out.append(UInt8(ascii: "\t"))
                    default: out.append(next)
                    }
                    i += 2
                } else {
                    out.append(c)
                    i += 1
                }
            }
            i += 1
            return String(decoding: out, as: UTF8.self)
        }

        /// The rest of a value: strings, nested arrays and inline tables, up to the end of its line.
        /// Notes an array element that starts with `}` (see `firstMalformedLine`), and the line
        /// each element of an array value at `path` starts on.
        mutating func skipValue(path: [String]? = nil) {
            var open: [UInt8] = []  // the brackets and braces not yet closed, innermost last
            var atElementStart = false  // just after an array's `[` or `,`, blanks and comments aside
            var elements = 0  // elements of the outermost array seen so far
            while let c = peek() {
                if atElementStart, open == [UInt8(ascii: "[")], let path, c != UInt8(ascii: "]"),
                    c != UInt8(ascii: " "), c != UInt8(ascii: "\t"), c != UInt8(ascii: "\r"),
                    c != UInt8(ascii: "\n"), c != UInt8(ascii: "#")
                {
                    keys[path + ["[\(elements)]"]] = line
                    elements += 1
                }
                switch c {
                case UInt8(ascii: "\""), UInt8(ascii: "'"):
                    skipString()
                    atElementStart = false
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    open.append(c)
                    i += 1
                    atElementStart = c == UInt8(ascii: "[")
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    if c == UInt8(ascii: "}"), atElementStart, malformed == nil {
                        malformed = (line, "an array's element cannot start with '}'")
                    }
                    _ = open.popLast()
                    i += 1
                    atElementStart = false
                case UInt8(ascii: ","):
                    i += 1
                    atElementStart = open.last == UInt8(ascii: "[")
                case UInt8(ascii: "#"):
                    skipToEndOfLine()
                case UInt8(ascii: "\n"):
                    i += 1
                    line += 1
                    if open.isEmpty { return }
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                    i += 1
                default:
                    i += 1
                    atElementStart = false
                }
            }
        }

        /// A string value of any of TOML's four kinds, counting the lines a multi-line one spans.
        mutating func skipString() {
            let quote = bytes[i]
            let multi = peek(1) == quote && peek(2) == quote
            i += multi ? 3 : 1
            let basic = quote == UInt8(ascii: "\"")
            while let c = peek() {
                if basic, c == UInt8(ascii: "\\") {
                    if peek(1) == UInt8(ascii: "\n") { line += 1 }
                    i += 2
                    continue
                }
                if c == UInt8(ascii: "\n") {
                    line += 1
                    i += 1
                    if !multi { return }
                    continue
                }
                if c == quote {
                    if !multi {
                        i += 1
                        return
                    }
                    if peek(1) == quote && peek(2) == quote {
                        i += 3
                        // Up to two more quotes may belong to the string (`""""` ends with one inside).
                        while peek() == quote { i += 1 }
                        return
                    }
                }
                i += 1
            }
        }
    }
}
