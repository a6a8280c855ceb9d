/// A value in a parsed JSON document, with the JSON path that leads to it.
///
/// The importer reads bundles through cursors so that every complaint names where it is:
/// `entry[3].resource.subject.reference`, never the value found there (it may be a name).
struct JSONCursor {
    let value: JSONValue
    /// The JSON path from the document's root; empty at the root.
    let path: String

    /// A cursor on `value`, found at `path` (`entry[3]` for an entry the reader streamed).
    init(_ value: JSONValue, path: String = "") {
        self.value = value
        self.path = path
    }

    /// The path of `key` below this value.
    func path(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    /// The member `key`, or nil when it is absent or null.
    func field(_ key: String) throws -> JSONCursor? {
        guard case .object(let object) = value else { throw problem("expected an object") }
        guard let member = object[key] else { return nil }
        if case .null = member { return nil }
        return JSONCursor(member, path: path(key))
    }

    /// The member `key`; a problem at its path when it is absent.
    func require(_ key: String) throws -> JSONCursor {
        guard let member = try field(key) else { throw FHIRProblem(path: path(key), problem: "required but missing") }
        return member
    }

    func string() throws -> String {
        guard case .string(let string) = value else { throw problem("expected a string") }
        return string
    }

    func number() throws -> Double {
        guard case .number(let number) = value else { throw problem("expected a number") }
        return number
    }

    func bool() throws -> Bool {
        guard case .bool(let flag) = value else { throw problem("expected true or false") }
        return flag
    }

    func array() throws -> [JSONCursor] {
        guard case .array(let array) = value else { throw problem("expected an array") }
        return array.enumerated().map { JSONCursor($0.element, path: "\(path)[\($0.offset)]") }
    }

    /// The string member `key`, or nil when absent; a problem when it is not a string.
    func string(_ key: String) throws -> String? { try field(key)?.string() }

    /// The array member `key`, or an empty array when absent.
    func array(_ key: String) throws -> [JSONCursor] { try field(key)?.array() ?? [] }

    func problem(_ text: String) -> FHIRProblem {
        FHIRProblem(path: path.isEmpty ? "(root)" : path, problem: text)
    }
}

/// What is wrong in a bundle, and where. Becomes `StoreError.malformedBundle` with the file.
struct FHIRProblem: Error {
    let path: String
    let problem: String
}
