/// A program's arguments as the audit log keeps them: whole, but for a password written into
/// one, which the log must never hold (`postgresql://night:secret@db/clinical`,
/// `"host=db password=secret"`, `--password=secret`).
enum ArgumentMask {
    static let mask = "***"

    static func masked(_ argument: String) -> String {
        var text = Substring(argument)
        var out = ""
        // A URL's user:password@, once per `://`.
        while let scheme = text.firstRange(of: "://") {
            out += text[..<scheme.upperBound]
            text = text[scheme.upperBound...]
            let authority = text.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                out += text[...colon] + mask
                text = text[at...]
            }
        }
        out += text
        return maskingKeys(out)
    }

    /// `password=…` (any case, also `--password=…`, `passwd=`, `pwd=`), up to the next space.
    private static func maskingKeys(_ text: String) -> String {
        var out = ""
        var rest = Substring(text)
        while let equals = rest.firstIndex(of: "=") {
            let before = rest[..<equals]
            let key = before.reversed().prefix { $0.isLetter }.reversed()
            out += rest[...equals]
            rest = rest[rest.index(after: equals)...]
            if ["password", "passwd", "pwd"].contains(String(key).lowercased()) {
                let value = rest.prefix { $0 != " " }
                if !value.isEmpty {
                    out += mask
                    rest = rest[value.endIndex...]
                }
            }
        }
        return out + rest
    }
}
