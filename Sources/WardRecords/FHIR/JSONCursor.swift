import Foundation

/// A value in a parsed JSON document, with the JSON path that leads to it.
///
/// The importer reads bundles through cursors so that every complaint names where it is:
/// `entry[3].resource.subject.reference`, never the value found there (it may be a name).
struct JSONCursor {
    let value: Any
    /// The JSON path from the document's root; empty at the root.
    let path: String

    init(root: Any) {
        value = root
        path = ""
    }

    private init(_ value: Any, path: String) {
        self.value = value
        self.path = path
    }

    /// The path of `key` below this value.
    func path(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    /// The member `key`, or nil when it is absent or null.
    func field(_ key: String) throws -> JSONCursor? {
        guard let object = value as? [String: Any] else { throw problem("expected an object") }
        guard let member = object[key], !(member is NSNull) else { return nil }
        return JSONCursor(member, path: path(key))
    }

    /// The member `key`; a problem at its path when it is absent.
    func require(_ key: String) throws -> JSONCursor {
        guard let member = try field(key) else { throw FHIRProblem(path: path(key), problem: "required but missing") }
        return member
    }

    func string() throws -> String {
        guard let string = value as? String else { throw problem("expected a string") }
        return string
    }

    func number() throws -> Double {
        if let number = value as? NSNumber { return number.doubleValue }
        if let number = value as? Double { return number }
        if let number = value as? Int { return Double(number) }
        throw problem("expected a number")
    }

    func array() throws -> [JSONCursor] {
        guard let array = value as? [Any] else { throw problem("expected an array") }
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
