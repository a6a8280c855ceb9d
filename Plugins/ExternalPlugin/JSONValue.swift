import FoundationEssentials

/// A message Ward sends a plugin, built from literals and the site file's values rather than
/// from `[String: Any]`, so that the compiler checks what goes on the wire. Foundation's
/// `JSONEncoder` writes it.
enum JSONValue: Encodable, Equatable, Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByDictionaryLiteral
{
    case null
    case bool(Bool)
    /// Apart from `number` so that an id of 3 is written `3`, never `3.0`.
    case integer(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(stringLiteral value: String) { self = .string(value) }
    init(integerLiteral value: Int) { self = .integer(value) }
    init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(uniqueKeysWithValues: elements))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let b): try container.encode(b)
        case .integer(let n): try container.encode(n)
        case .number(let d): try container.encode(d)
        case .string(let s): try container.encode(s)
        case .array(let items): try container.encode(items)
        case .object(let fields): try container.encode(fields)
        }
    }

    /// Sorted keys: the same message is the same bytes every time, in tests and in a plugin's logs.
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// One line of JSON, without its newline; nil when a value has no JSON form (NaN, infinity).
    var line: String? {
        guard let data = try? Self.encoder.encode(self) else { return nil }
        // JSON lets U+2028 and U+2029 stand raw inside strings, but Python's `splitlines()` and
        // older JavaScript end a line at them. Outside strings they cannot occur, so this only escapes.
        let scalars = String(decoding: data, as: UTF8.self).unicodeScalars
            .replacing("\u{2028}".unicodeScalars, with: "\\u2028".unicodeScalars)
            .replacing("\u{2029}".unicodeScalars, with: "\\u2029".unicodeScalars)
        return String(scalars)
    }
}

/// A plugin's answer to one event.
///
/// Only a line that is not one JSON object fails whole. A field of the wrong type reads as
/// absent: an id that is not a whole number answers no event of Ward's, and `ExternalPlugin`
/// decides what a missing action or text means.
struct PluginReply: Decodable, Sendable {
    var id: Int?
    var action: String?
    var message: String?
    var text: String?
    /// The answer to the hello: the protocol version the plugin speaks (`"2.0"`).
    var protocolVersion: String?

    private enum CodingKeys: String, CodingKey {
        case id, action, message, text
        case protocolVersion = "protocol"
    }

    init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)  // throws unless an object
        id = try? fields.decode(Int.self, forKey: .id)
        action = try? fields.decode(String.self, forKey: .action)
        message = try? fields.decode(String.self, forKey: .message)
        text = try? fields.decode(String.self, forKey: .text)
        protocolVersion = try? fields.decode(String.self, forKey: .protocolVersion)
    }

    private static let decoder = JSONDecoder()

    /// One line as the plugin wrote it, without its newline; nil when it is not a JSON object.
    init?(json line: [UInt8]) {
        guard let reply = try? Self.decoder.decode(Self.self, from: Data(line)) else { return nil }
        self = reply
    }
}
