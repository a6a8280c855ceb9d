import FoundationEssentials

/// One result of a report (a DiagnosticReport's `result`): the Observation it refers to, by name,
/// with its value when the import resolved the reference (`SARS-CoV-2 RNA …`, `Detected`;
/// `Glucose`, 95 `mg/dL`).
///
/// A string literal is a result known by its name only, as reports imported before Ward kept
/// values are read.
public struct ReportResult: Sendable, Equatable, ExpressibleByStringLiteral {
    public var name: String
    /// The number, when the Observation has a quantity.
    public var value: Double?
    /// The value as text when it is not a number (a coded or written result).
    public var text: String?
    /// UCUM unit of `value`, as imported, or empty.
    public var unit: String

    public init(name: String, value: Double? = nil, text: String? = nil, unit: String = "") {
        self.name = name
        self.value = value
        self.text = text
        self.unit = unit
    }

    public init(stringLiteral name: String) {
        self.init(name: name)
    }

    /// Whether the result carries a value, not only its name.
    public var hasValue: Bool { value != nil || text != nil }
}

/// In the `results` column (a JSON array): a result with no value as its name, a string, as
/// every row was written before values were kept; one with a value as an object
/// `{"name":…,"value":…,"text":…,"unit":…}`. A reader takes both, so no row is rewritten.
extension ReportResult: Codable {
    private enum Keys: String, CodingKey { case name, value, text, unit }

    public init(from decoder: any Decoder) throws {
        if let name = try? decoder.singleValueContainer().decode(String.self) {
            self.init(name: name)
            return
        }
        let container = try decoder.container(keyedBy: Keys.self)
        self.init(
            name: try container.decode(String.self, forKey: .name),
            value: try container.decodeIfPresent(Double.self, forKey: .value),
            text: try container.decodeIfPresent(String.self, forKey: .text),
            unit: try container.decodeIfPresent(String.self, forKey: .unit) ?? ""
        )
    }

    public func encode(to encoder: any Encoder) throws {
        guard hasValue || !unit.isEmpty else {
            var container = encoder.singleValueContainer()
            try container.encode(name)
            return
        }
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(value.flatMap { $0.isFinite ? $0 : nil }, forKey: .value)
        try container.encodeIfPresent(text, forKey: .text)
        if !unit.isEmpty { try container.encode(unit, forKey: .unit) }
    }
}
