/// What `open` was given: an MRN (whole, or its first characters), a row of the last `find`, or
/// a bare number that may be either.
///
/// `#N` is always a row. A bare whole number (up to four digits, as many rows as `find --all`
/// lists) is a row of the last `find` unless no such row exists, and `open` refuses when it is
/// both a row and a patient's MRN (`OpenCommand.rowOrMRN`). Any other text is an MRN or its
/// start: an MRN is any identifier an import accepted, letters-only ones too.
enum OpenTarget: Equatable {
    case mrn(String)
    case row(Int)
    case rowOrMRN(Int, String)

    init(_ text: String) throws(UsageError) {
        if text.hasPrefix("#") {
            let digits = text.dropFirst()
            guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit), let number = Int(digits), number >= 1 else {
                throw OpenCommand.usageError("'\(text)' is not a row number. Rows are numbered from 1: 'open #2'.")
            }
            self = .row(number)
        } else if !text.isEmpty, text.utf8.count <= 4, text.allSatisfy(\.isASCIIDigit), let number = Int(text),
            number >= 1
        {
            self = .rowOrMRN(number, text)
        } else {
            self = .mrn(text)
        }
    }

    /// Whether the text may be the start of an MRN (looked up as a prefix when no MRN is it whole).
    var isMRN: Bool {
        if case .mrn = self { return true }
        return false
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
