/// The three character classes Ward trims and filters by, decided from each scalar's Unicode
/// general category. Foundation's `CharacterSet` meant the same, but only the full Foundation has
/// it, and linking that for three sets pulls ICU's data into the binary.
public enum ScalarClass: Sendable {
    /// `CharacterSet.whitespaces`: space separators (Zs), the tab, and the zero width space
    /// (U+200B), which Foundation counts as a space though Unicode made it a format character.
    case whitespace
    /// `CharacterSet.whitespacesAndNewlines`: every separator (Zs, Zl, Zp), the tab, the zero
    /// width space, U+000A to U+000D and NEL (U+0085).
    case whitespaceOrNewline
    /// `CharacterSet.alphanumerics`: letters (L*), marks (M*) and numbers (N*), by the Unicode
    /// version of the Swift runtime (Foundation's tables were older, so they lacked the newest).
    case alphanumeric

    public func contains(_ scalar: Unicode.Scalar) -> Bool {
        switch self {
        case .whitespace:
            return scalar == "\t" || scalar == "\u{200B}" || scalar.properties.generalCategory == .spaceSeparator
        case .whitespaceOrNewline:
            switch scalar.properties.generalCategory {
            case .spaceSeparator, .lineSeparator, .paragraphSeparator: return true
            default:
                return ScalarClass.whitespace.contains(scalar) || (0x0A...0x0D).contains(scalar.value)
                    || scalar == "\u{85}"
            }
        case .alphanumeric:
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .letterNumber, .otherNumber:
                return true
            default:
                return false
            }
        }
    }
}

extension StringProtocol {
    /// The text without the scalars of `scalarClass` at either end, scalar by scalar as
    /// `trimmingCharacters(in:)` trims, so a combining mark after a trimmed space stays.
    public func trimming(_ scalarClass: ScalarClass) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !scalarClass.contains($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !scalarClass.contains($0) })!
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}
