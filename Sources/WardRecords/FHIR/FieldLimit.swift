/// The longest string each field of an import may hold, by the keys that lead to it.
///
/// Bounds what one value of a bundle or an NDJSON line can cost before anything looks at it: a
/// 256 MiB Patient id once became a 256 MiB MRN and a 268 MB audit record. The limits sit well
/// above what FHIR and Synthea write: FHIR's own `id` is at most 64 characters, an MRN is typed
/// at the prompt, a name part is a few words, and free text (a note, a narrative, an
/// attachment's data) is the only large field.
enum FieldLimit {
    /// An `id`, and an identifier's `value` (an MRN): 64 bytes.
    static let identifier = 64
    /// An object's key, and a part of a name (`family`, `given`, `prefix`, `suffix`, `text`
    /// under `name`): 1 KiB.
    static let name = 1 << 10
    /// Any other string: 1 MiB.
    static let text = 1 << 20
    /// A key.
    static let key = name

    /// The limit for a string at `keys` (the keys from the root, array indices left out).
    static func of(_ keys: [String]) -> Int {
        guard let last = keys.last else { return text }
        switch last {
        case "id":
            return identifier
        case "value" where keys.dropLast().last == "identifier":
            return identifier
        case "family", "given", "prefix", "suffix":
            return name
        case "text" where keys.dropLast().last == "name":
            return name
        default:
            return text
        }
    }

    /// `64 bytes`, `1 KiB`, `1 MiB`.
    static func describe(_ limit: Int) -> String {
        if limit >= 1 << 20, limit % (1 << 20) == 0 { return "\(limit >> 20) MiB" }
        if limit >= 1 << 10, limit % (1 << 10) == 0 { return "\(limit >> 10) KiB" }
        return "\(limit) bytes"
    }
}
