/// What one shell command takes on its line: its name, one operand, and its `--options`.
///
/// Declared once per command (`static let syntax`) and read by `parse(_:)` in one pass over the
/// line's words, so a line costs time linear in its length. swift-argument-parser did this job
/// before, per line, and spent quadratic time in `ParsedValues.set` on a note of many words
/// (51 s for 40,000 words); its reflection also ran on every line.
///
/// The grammar is deliberately small: at most one operand (a word, several words, or the rest
/// of the line as text), options that take a value (`--reason TEXT`, `--reason=TEXT`) or none
/// (`--all`), and `-h`/`--help` everywhere. `--` ends the options.
public struct CommandSyntax: Sendable {
    /// What follows the command's name besides options.
    public enum Operand: Sendable, Equatable {
        /// Nothing: `whoami`.
        case none
        /// One word, required or not: `open <mrn>`, `close [<mrn>]`.
        case word(name: String, help: String, required: Bool)
        /// Any number of words: `find [<text> ...]`.
        case words(name: String, help: String)
        /// The rest of the line, exactly as typed: `note`, `find`. Apostrophes, quotes,
        /// backslashes and runs of spaces are the text's, nothing is escaped (`Mother's fever`,
        /// `Dx "viral URI"`). A word that is one of the command's flags (`--all`) is taken as that
        /// flag; no other option is read, so `Seen -- stable` is a note. Only a first word of
        /// `-h`/`--help` asks for help.
        case text(name: String, help: String)
    }

    /// One `--name`, with a value (`--reason <reason>`) or without (`--all`).
    public struct Option: Sendable, Equatable {
        public var name: String
        /// The value's name in the usage line; nil for a flag.
        public var valueName: String?
        public var help: String
        /// The value is the rest of the line, exactly as typed (`--reason Mother's request`):
        /// free text a user should not have to quote. Such an option comes last on the line.
        public var takesRestOfLine: Bool

        public init(_ name: String, value valueName: String? = nil, restOfLine: Bool = false, help: String) {
            self.name = name
            self.valueName = valueName
            self.takesRestOfLine = restOfLine
            self.help = help
        }

        /// `--reason <reason>` or `--all`.
        var usage: String { valueName.map { "--\(name) <\($0)>" } ?? "--\(name)" }
    }

    public var name: String
    public var aliases: [String]
    /// One sentence for `help`.
    public var abstract: String
    /// More for `help COMMAND`, after the overview: the values a word may take, each on its line.
    public var discussion: String?
    public var operand: Operand
    public var options: [Option]

    public init(
        _ name: String,
        aliases: [String] = [],
        abstract: String,
        discussion: String? = nil,
        operand: Operand = .none,
        options: [Option] = []
    ) {
        self.name = name
        self.aliases = aliases
        self.abstract = abstract
        self.discussion = discussion
        self.operand = operand
        self.options = options
    }

    /// `open <mrn> [--reason <reason>]`.
    public var usage: String {
        var parts = [name]
        switch operand {
        case .none: break
        case .word(let word, _, true): parts.append("<\(word)>")
        case .word(let word, _, false): parts.append("[<\(word)>]")
        case .words(let word, _), .text(let word, _): parts.append("[<\(word)> ...]")
        }
        parts += options.map { "[\($0.usage)]" }
        return parts.joined(separator: " ")
    }

    /// What `help COMMAND` and `COMMAND --help` print, laid out as swift-argument-parser did.
    public var help: String {
        var lines = ["OVERVIEW: \(abstract)", ""]
        if let discussion { lines += [discussion, ""] }
        lines += ["USAGE: \(usage)", ""]
        switch operand {
        case .none: break
        case .word(let word, let text, _), .words(let word, let text), .text(let word, let text):
            lines += ["ARGUMENTS:", Self.entry("<\(word)>", text), ""]
        }
        lines.append("OPTIONS:")
        lines += options.map { Self.entry($0.usage, $0.help) }
        lines.append(Self.entry("-h, --help", "Show help information."))
        if !aliases.isEmpty { lines += ["", "ALIASES: \(aliases.joined(separator: ", "))"] }
        return lines.joined(separator: "\n")
    }

    private static func entry(_ term: String, _ text: String) -> String {
        let column = 24
        guard term.count < column else { return "  \(term)\n" + String(repeating: " ", count: column + 2) + text }
        return "  \(term)" + String(repeating: " ", count: column - term.count) + text
    }

    /// What a line asked for: the command's arguments, or its help.
    public enum Parsed: Sendable, Equatable {
        case arguments(ParsedArguments)
        case help
    }

    /// Reads what follows the command's name on the line, once, left to right: free text as
    /// typed (`.text`, and an option that takes the rest of the line), everything else split into
    /// words as a POSIX shell quotes them (`ShellWords`).
    public func parse(line rest: Substring) throws -> Parsed {
        if case .text = operand { return parseText(rest) }
        var head = rest
        var restOfLine: (Option, String)?
        if let (option, start, value) = restOfLineOption(in: rest) {
            head = rest[..<start]
            restOfLine = (option, value)
        }
        guard case .arguments(var parsed) = try parse(ArraySlice(ShellWords.split(String(head)))) else {
            return .help
        }
        if let (option, value) = restOfLine {
            guard !value.isEmpty else { throw UsageError(.missingValue(option.usage), syntax: self) }
            parsed.values[option.name] = value
        }
        return .arguments(parsed)
    }

    /// `.text`: the text after the separating blanks, kept whole; flag words taken out of it.
    private func parseText(_ rest: Substring) -> Parsed {
        let text = rest.drop(while: Self.isBlank)
        let firstWord = text.prefix(while: { !Self.isBlank($0) })
        if firstWord == "-h" || firstWord == "--help" { return .help }
        var parsed = ParsedArguments()
        let flags = options.filter { $0.valueName == nil }
        guard !flags.isEmpty else {
            if !text.isEmpty { parsed.operands = [String(text)] }
            return .arguments(parsed)
        }
        var kept: [Substring] = []
        for word in text.split(whereSeparator: Self.isBlank) {
            if let flag = flags.first(where: { word == "--\($0.name)" }) {
                parsed.flags.insert(flag.name)
            } else {
                kept.append(word)
            }
        }
        if !kept.isEmpty { parsed.operands = [kept.joined(separator: " ")] }
        return .arguments(parsed)
    }

    /// The first word `--name` or `--name=…` of an option that takes the rest of the line: the
    /// option, where its word starts, and its value (the rest, without the blanks around it, and
    /// without one pair of quotes around the whole of it, which a user used to shells may type).
    private func restOfLineOption(in rest: Substring) -> (Option, Substring.Index, String)? {
        let candidates = options.filter(\.takesRestOfLine)
        guard !candidates.isEmpty else { return nil }
        var index = rest.startIndex
        while index < rest.endIndex {
            let wordStart = rest[index...].firstIndex(where: { !Self.isBlank($0) }) ?? rest.endIndex
            let wordEnd = rest[wordStart...].firstIndex(where: Self.isBlank) ?? rest.endIndex
            let word = rest[wordStart..<wordEnd]
            for option in candidates {
                let flag = "--\(option.name)"
                var value: Substring?
                if word == flag {
                    value = rest[wordEnd...]
                } else if word.hasPrefix(flag + "=") {
                    value = rest[rest.index(wordStart, offsetBy: flag.count + 1)...]
                }
                if let value { return (option, wordStart, Self.unquoted(Self.trimmed(value))) }
            }
            index = wordEnd
        }
        return nil
    }

    /// A space or a tab: what separates a command's name and words on a line.
    static func isBlank(_ character: Character) -> Bool { character == " " || character == "\t" }

    private static func trimmed(_ text: Substring) -> Substring {
        let start = text.drop(while: isBlank)
        return start[..<(start.lastIndex(where: { !isBlank($0) }).map(start.index(after:)) ?? start.startIndex)]
    }

    /// `"Mother's request"` → `Mother's request`: one pair of like quotes around the whole, and
    /// no such quote inside.
    private static func unquoted(_ text: Substring) -> String {
        guard text.count >= 2, let first = text.first, first == "\"" || first == "'", text.last == first,
            !text.dropFirst().dropLast().contains(first)
        else { return String(text) }
        return String(text.dropFirst().dropLast())
    }

    /// Reads the words after the command's name, once, left to right.
    public func parse(_ words: ArraySlice<String>) throws(UsageError) -> Parsed {
        if case .text = operand {
            if let first = words.first, first == "-h" || first == "--help" { return .help }
            return .arguments(ParsedArguments(operands: words.isEmpty ? [] : [words.joined(separator: " ")]))
        }
        var parsed = ParsedArguments()
        var index = words.startIndex
        var optionsEnded = false
        while index < words.endIndex {
            let word = words[index]
            index += 1
            if !optionsEnded, word.hasPrefix("-"), word.utf8.count > 1 {
                if word == "--" {
                    optionsEnded = true
                    continue
                }
                if word == "-h" || word == "--help" { return .help }
                try readOption(word, from: words, at: &index, into: &parsed)
                continue
            }
            switch operand {
            case .none:
                throw UsageError(.unexpectedArgument(word), syntax: self)
            case .word where !parsed.operands.isEmpty:
                throw UsageError(.unexpectedArgument(word), syntax: self)
            case .word, .words, .text:
                parsed.operands.append(word)
            }
        }
        if case .word(let word, _, true) = operand, parsed.operands.isEmpty {
            throw UsageError(.missingArgument("<\(word)>"), syntax: self)
        }
        return .arguments(parsed)
    }

    private func readOption(
        _ word: String,
        from words: ArraySlice<String>,
        at index: inout Int,
        into parsed: inout ParsedArguments
    ) throws(UsageError) {
        let body = word.drop(while: { $0 == "-" })
        let name: Substring
        var inlineValue: String?
        if let equals = body.firstIndex(of: "=") {
            name = body[..<equals]
            inlineValue = String(body[body.index(after: equals)...])
        } else {
            name = body
        }
        guard word.hasPrefix("--"), let option = options.first(where: { $0.name == name }) else {
            throw UsageError(.unknownOption(word), syntax: self)
        }
        guard option.valueName != nil else {
            guard inlineValue == nil else { throw UsageError(.unexpectedValue(option.usage), syntax: self) }
            parsed.flags.insert(option.name)
            return
        }
        if let value = inlineValue ?? (index < words.endIndex ? words[index] : nil) {
            if inlineValue == nil { index += 1 }
            parsed.values[option.name] = value
            parsed.repeated[option.name, default: []].append(value)
        } else {
            throw UsageError(.missingValue(option.usage), syntax: self)
        }
    }
}

/// A command's line after `CommandSyntax.parse`: the operand's words, option values and flags.
public struct ParsedArguments: Sendable, Equatable {
    /// The operand's words in order (for `.text`, every word after the command's name).
    public var operands: [String] = []
    /// `--reason TEXT` → `["reason": "TEXT"]`; the last one given wins.
    public var values: [String: String] = [:]
    /// Every value of each option, in the order given (`--user a --user b` → `["user": ["a", "b"]]`),
    /// for an option a command takes several times.
    public var repeated: [String: [String]] = [:]
    /// Flags given (`all` for `--all`).
    public var flags: Set<String> = []

    public init(operands: [String] = [], values: [String: String] = [:], flags: Set<String> = []) {
        self.operands = operands
        self.values = values
        self.flags = flags
    }
}
