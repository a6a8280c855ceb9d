/// What `open` was given: an MRN (whole, or its first characters) or a row of the last `find`.
///
/// A row is `#N`, or a bare whole number from 1 to `FindCommand.limit` (the most rows a `find`
/// shows). Any other text is an MRN or its start: no MRN Ward makes or imports is a number that
/// small (demo MRNs are `W0000001`, real ones UUIDs), and `#N` is always a row.
enum OpenTarget: Equatable {
    case mrn(String)
    case row(Int)

    init(_ text: String) throws(UsageError) {
        if text.hasPrefix("#") {
            let digits = text.dropFirst()
            guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit), let number = Int(digits), number >= 1 else {
                throw OpenCommand.usageError("'\(text)' is not a row number. Rows are numbered from 1: 'open #2'.")
            }
            self = .row(number)
        } else if text.utf8.count <= 2, text.allSatisfy(\.isASCIIDigit), let number = Int(text),
            (1...FindCommand.limit).contains(number)
        {
            self = .row(number)
        } else {
            self = .mrn(text)
        }
    }

    /// Hexadecimal digits only, eight or more: the start of a UUID MRN, which may happen to have
    /// no decimal digit (`abcdefab`), and not a name.
    static func looksHexadecimal(_ text: String) -> Bool {
        text.utf8.count >= 8 && text.allSatisfy(\.isHexDigit)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
