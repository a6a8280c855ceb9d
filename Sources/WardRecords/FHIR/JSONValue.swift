/// One parsed JSON value: what `JSONStreamReader` builds for one bundle entry at a time.
///
/// Ward's own type rather than Foundation's `Any` tree: a string keeps every scalar it was
/// written with (U+0000 included), numbers are `Double` as FHIR's decimals are read, and an
/// object refuses a key written twice instead of keeping one of them silently.
enum JSONValue: Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}
