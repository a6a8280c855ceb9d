extension String {
    /// The value in double quotes, cut after 64 characters, for an error message that quotes a
    /// bundle's value (an id, an MRN, a key).
    ///
    /// Not escaped here: a bundle's values are hostile, and every writer of Ward's errors passes
    /// them through `Sanitizer` where they leave for a terminal. Escaping twice would double the
    /// backslashes and make the notation ambiguous.
    var quotedForMessage: String {
        guard unicodeScalars.count > 64 else { return "\"" + self + "\"" }
        return "\"" + String(String.UnicodeScalarView(unicodeScalars.prefix(64))) + "…\""
    }
}

extension String {
    /// True when every byte is printable ASCII other than space (0x21–0x7E) and there is one:
    /// what Ward accepts as an MRN or a patient's FHIR id.
    var isPrintableASCIIWord: Bool {
        !isEmpty && utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }
}
