import FoundationEssentials
import WardCore

/// One FHIR R4 bundle, or one bulk-data NDJSON export (`FHIRSource`), read as a stream in two
/// passes over its bytes, one entry at a time.
///
/// A bundle can be hundreds of megabytes (one long life in Synthea), so it is never held whole:
/// the first pass (`init(reading:)`) keeps only the Patients, the Medications, the names of
/// Conditions and Observations (for references without a `display`) and the Observations'
/// values (for a report's results), checks each
/// patient's id and MRN, and refuses two Patients with the same id or MRN; the second
/// (`readResources`) converts each entry and hands it to the writer, which writes it in the
/// bundle's one transaction. Memory is one entry plus the bundle's patients, whatever the size;
/// both passes are linear in the file. Two passes because a reference may point to a Patient
/// written later in the bundle. References to patients (`subject.reference`,
/// `patient.reference`) resolve to a Patient of the same bundle by `fullUrl` (Synthea writes
/// `urn:uuid:…`) or `Patient/id`; a reference to no Patient of the bundle is looked up among
/// patients imported earlier, at write time.
struct FHIRBundle {
    /// Where an entry's patient is.
    enum PatientReference: Equatable {
        /// The Patient at this position of `patients`.
        case inBundle(Int)
        /// A patient imported before, by FHIR id; `path` is where the reference was, for the error.
        case stored(fhirID: String, path: String)
    }

    struct ImportedPatient {
        var fhirID: String
        var patient: Patient
    }

    /// One entry, converted: what the writer writes.
    enum Resource {
        /// The Patient at this position of `patients` (written before any entry).
        case patient(Int)
        case allergy(PatientReference, Allergy)
        case problem(PatientReference, Problem)
        case medication(PatientReference, Medication)
        /// One row per value; never empty (an observation without a value is `skipped`).
        case observations(PatientReference, [Observation])
        case encounter(PatientReference, Encounter)
        case immunization(PatientReference, Immunization)
        case procedure(PatientReference, Procedure)
        case carePlan(PatientReference, CarePlan)
        case report(PatientReference, DiagnosticReport)
        /// A resource Ward does not keep, under the name it is counted by.
        case skipped(String)
    }

    /// The resource types the importer reads; every other type is counted and skipped.
    static let readTypes: Set<String> = [
        "Patient", "AllergyIntolerance", "Condition", "MedicationRequest", "Observation", "Encounter",
        "Immunization", "Procedure", "CarePlan", "DiagnosticReport",
    ]

    private(set) var patients: [ImportedPatient] = []
    /// `fullUrl` and `Patient/id` of each Patient, to its position in `patients`.
    private var patientKeys: [String: Int] = [:]
    /// Each Patient's FHIR id, to its position in `patients`.
    private var patientIDs: [String: Int] = [:]
    private var medicationCodes: [String: Concept] = [:]
    /// Conditions' and Observations' names, by `fullUrl` and `Type/id`: what an encounter's or a
    /// procedure's `reasonReference`, or a report's `result`, names when it has no `display`.
    private var names: [String: String] = [:]
    /// Observations' values, by the same keys as `names`: what a report's `result` shows.
    private var values: [String: ObservedValue] = [:]
    /// Bounds `names`: a reference past it shows its `display` or nothing, the import goes on.
    static let nameLimit = 200_000

    /// The first pass: the input's patients and medications, checked, and the names of its
    /// conditions and observations.
    init(reading source: some FHIRSource) throws {
        var mrns: [String: Int] = [:]
        try source.forEachResource(firstPass: true) { entry in
            let resource = entry.resource
            let type = try resource.require("resourceType").string()
            let fullURL = entry.fullURL
            let id = try resource.string("id")
            if type == "Patient" {
                let fhirID = try Self.fhirID(entry, id: id)
                let patient = try Self.patient(resource, fhirID: fhirID)
                if patientIDs[fhirID] != nil { throw PatientClash.sameIDInBundle(id: fhirID) }
                // The store compares MRNs without case (`COLLATE NOCASE`), and so does this check.
                if let other = mrns.updateValue(patients.count, forKey: patient.mrn.lowercased()) {
                    throw PatientClash.sameMRNInBundle(
                        mrn: patient.mrn,
                        firstID: patients[other].fhirID,
                        secondID: fhirID
                    )
                }
                for key in Set([fullURL, id.map { "Patient/\($0)" }].compactMap({ $0 })) {
                    if patientKeys.updateValue(patients.count, forKey: key) != nil {
                        throw PatientClash.sameIDInBundle(id: key)
                    }
                }
                patientIDs[fhirID] = patients.count
                patients.append(ImportedPatient(fhirID: fhirID, patient: patient))
            } else if type == "Medication" {
                let code = try Self.concept(try resource.require("code"))
                for key in [fullURL, id.map { "Medication/\($0)" }].compactMap({ $0 }) { medicationCodes[key] = code }
            } else if type == "Condition" || type == "Observation", names.count < Self.nameLimit,
                let code = try resource.field("code")
            {
                let name = try Self.concept(code).display
                // A value this pass cannot read is left to the second, which names its path.
                let value = type == "Observation" ? (try? Self.value(resource)) ?? nil : nil
                for key in [fullURL, id.map { "\(type)/\($0)" }].compactMap({ $0 }) {
                    names[key] = name
                    if let value {
                        values[key] = ObservedValue(number: value.number, text: value.text, unit: value.unit)
                    }
                }
            }
        }
    }

    /// The second pass: every entry converted, in the order of the file, to `body`. Returns the
    /// resources read and skipped, by type.
    func readResources(
        _ source: some FHIRSource,
        _ body: (Resource) throws -> Void
    ) throws -> (read: [String: Int], skipped: [String: Int]) {
        var read: [String: Int] = [:]
        var skipped: [String: Int] = [:]
        try source.forEachResource(firstPass: false) { entry in
            let resource = entry.resource
            let type = try resource.require("resourceType").string()
            let converted = try self.resource(resource, type: type, entry: entry)
            if case .skipped(let name) = converted {
                skipped[name, default: 0] += 1
            } else {
                read[type, default: 0] += 1
            }
            try body(converted)
        }
        return (read, skipped)
    }

    /// A resource as the first pass needs it: built whole when it is a Patient or a Medication;
    /// only its `resourceType`, `id` and `code` when it is a Condition or an Observation (whose
    /// names references may need), and an Observation's value (what a report's results show);
    /// else only as far as its `resourceType` (Synthea writes it
    /// first). The rest is checked as JSON and skipped, so the first pass builds little more than
    /// the patients. Everything the second pass builds and checks in full, duplicate keys included.
    static func firstPassResource(_ reader: JSONStreamReader) throws -> JSONValue {
        guard try reader.peekSignificant() == UInt8(ascii: "{") else { return try reader.value() }
        var resource: [String: JSONValue] = [:]
        var keep: Set<String>?  // nil: every member
        try reader.readObject { member in
            if let keep, !keep.contains(member) { return try reader.skipValue() }
            let value = try reader.value()
            resource[member] = value
            if member == "resourceType", case .string(let type) = value {
                switch type {
                case "Patient", "Medication": keep = nil
                case "Condition": keep = ["resourceType", "id", "code"]
                case "Observation":
                    keep = [
                        "resourceType", "id", "code", "valueQuantity", "valueCodeableConcept", "valueString",
                        "valueInteger", "valueBoolean",
                    ]
                default: keep = []
                }
            }
        }
        return .object(resource)
    }

    private func resource(_ resource: JSONCursor, type: String, entry: FHIRSourceEntry) throws -> Resource {
        func subject(_ key: String) throws -> PatientReference {
            let reference = try resource.require(key).require("reference")
            let text = try reference.string()
            if let index = patientKeys[text] { return .inBundle(index) }
            var id: Substring
            if text.hasPrefix("Patient/") {
                id = text.dropFirst(8)
            } else if text.hasPrefix("urn:uuid:") {
                id = text.dropFirst(9)
            } else {
                throw reference.problem("does not refer to a Patient")
            }
            // An id with a NUL or a control character is no stored patient's (ids are checked
            // when a Patient is imported); refused here, it cannot be cut short in a query.
            guard String(id).isPrintableASCIIWord else { throw reference.problem("does not refer to a Patient") }
            return .stored(fhirID: String(id), path: reference.path)
        }

        switch type {
        case "Patient":
            let fhirID = try Self.fhirID(entry, id: try resource.string("id"))
            guard let index = patientIDs[fhirID] else {
                throw FHIRProblem(path: resource.path("id"), problem: "the file changed while it was read")
            }
            return .patient(index)
        case "AllergyIntolerance":
            let code = try Self.concept(try resource.require("code"))
            return .allergy(
                try subject("patient"),
                Allergy(
                    substance: code.display,
                    code: code.code,
                    criticality: try resource.string("criticality") ?? "",
                    category: try resource.array("category").first?.string() ?? "",
                    status: try Self.status(resource, "clinicalStatus"),
                    recorded: try Self.time(resource, "recordedDate").map(instant),
                    system: code.system
                )
            )
        case "Condition":
            let code = try Self.concept(try resource.require("code"))
            return .problem(
                try subject("subject"),
                Problem(
                    code: code.code,
                    display: code.display,
                    status: try Self.status(resource, "clinicalStatus"),
                    onset: try Self.time(resource, "onsetDateTime").map(instant),
                    abated: try Self.time(resource, "abatementDateTime").map(instant),
                    system: code.system
                )
            )
        case "MedicationRequest":
            let code: Concept
            if let concept = try resource.field("medicationCodeableConcept") {
                code = try Self.concept(concept)
            } else {
                let reference = try resource.require("medicationReference").require("reference")
                guard let found = medicationCodes[try reference.string()] else {
                    throw reference.problem("does not refer to a Medication in this bundle")
                }
                code = found
            }
            return .medication(
                try subject("subject"),
                Medication(
                    code: code.code,
                    display: code.display,
                    status: try resource.string("status") ?? "",
                    dosage: try resource.array("dosageInstruction").first.map(Self.dosage) ?? "",
                    authored: try Self.time(resource, "authoredOn").map(instant),
                    system: code.system
                )
            )
        case "Observation":
            let rows = try Self.observations(resource)
            if rows.isEmpty { return .skipped("Observation (no value)") }
            return .observations(try subject("subject"), rows)
        case "Encounter":
            let period = try resource.require("period")
            guard let start = try Self.time(period, "start") else {
                throw FHIRProblem(path: period.path("start"), problem: "required but missing")
            }
            let kind = try resource.array("type").first.map(Self.concept)
            return .encounter(
                try subject("subject"),
                Encounter(
                    kind: try resource.field("class")?.string("code") ?? "",
                    display: kind?.display ?? "",
                    reason: try reason(resource),
                    start: instant(start),
                    end: try Self.time(period, "end").map(instant)
                )
            )
        case "Immunization":
            let vaccine = try Self.concept(try resource.require("vaccineCode"))
            return .immunization(
                try subject("patient"),
                Immunization(
                    code: vaccine.code,
                    vaccine: vaccine.display,
                    status: try resource.string("status") ?? "",
                    date: try Self.time(resource, "occurrenceDateTime").map(instant),
                    system: vaccine.system
                )
            )
        case "Procedure":
            let code = try Self.concept(try resource.require("code"))
            var performed = try Self.time(resource, "performedDateTime")
            if performed == nil, let period = try resource.field("performedPeriod") {
                performed = try Self.time(period, "start")
            }
            return .procedure(
                try subject("subject"),
                Procedure(
                    code: code.code,
                    display: code.display,
                    reason: try reason(resource),
                    status: try resource.string("status") ?? "",
                    performed: performed.map(instant),
                    system: code.system
                )
            )
        case "CarePlan":
            let categories = try resource.array("category").map(Self.concept)
            // The most specific category: the first with a name of its own, not a bare code.
            let category = categories.first { $0.display != $0.code } ?? categories.first
            let activities = try resource.array("activity").compactMap { activity -> String? in
                guard let code = try activity.field("detail")?.field("code") else { return nil }
                return try Self.concept(code).display
            }
            let period = try resource.field("period")
            return .carePlan(
                try subject("subject"),
                CarePlan(
                    category: category?.display ?? "",
                    activities: activities,
                    status: try resource.string("status") ?? "",
                    start: try period.flatMap { try Self.time($0, "start") }.map(instant),
                    end: try period.flatMap { try Self.time($0, "end") }.map(instant)
                )
            )
        case "DiagnosticReport":
            let code = try Self.concept(try resource.require("code"))
            var date = try Self.time(resource, "effectiveDateTime")
            if date == nil, let period = try resource.field("effectivePeriod") { date = try Self.time(period, "start") }
            if date == nil { date = try Self.time(resource, "issued") }
            let results = try resource.array("result").compactMap(result(of:))
            return .report(
                try subject("subject"),
                DiagnosticReport(
                    code: code.code,
                    name: code.display,
                    status: try resource.string("status") ?? "",
                    date: date.map(instant),
                    results: results,
                    conclusion: try resource.string("conclusion") ?? "",
                    system: code.system,
                    presentedForm: try resource.array("presentedForm").first.map(Self.presentedForm) ?? ""
                )
            )
        default:
            return .skipped(type)
        }
    }

    /// Why, for an Encounter or a Procedure: the first `reasonCode`'s text, else the name of the
    /// first `reasonReference` (a Condition), else empty.
    private func reason(_ resource: JSONCursor) throws -> String {
        if let code = try resource.array("reasonCode").first { return try Self.concept(code).display }
        guard let reference = try resource.array("reasonReference").first else { return "" }
        return try name(of: reference) ?? ""
    }

    /// What a Reference names: its `display`, else the name of the Condition or Observation it
    /// refers to in this input, else nil.
    private func name(of reference: JSONCursor) throws -> String? {
        if let display = try reference.string("display") { return display }
        guard let target = try reference.string("reference") else { return nil }
        return names[target]
    }

    /// What a report's `result` reference names, with the value of the Observation it refers
    /// to when that is in this input; nil when it names nothing.
    private func result(of reference: JSONCursor) throws -> ReportResult? {
        guard let name = try name(of: reference) else { return nil }
        let value = try reference.string("reference").flatMap { values[$0] }
        return ReportResult(name: name, value: value?.number, text: value?.text, unit: value?.unit ?? "")
    }

    /// An Observation's value, kept from the first pass for the reports that refer to it.
    private struct ObservedValue {
        var number: Double?
        var text: String?
        var unit: String
    }

    /// A Patient's FHIR id: its `id`, else the entry's `fullUrl`; printable ASCII without spaces,
    /// because it is compared in queries and quoted in errors.
    private static func fhirID(_ entry: FHIRSourceEntry, id: String?) throws -> String {
        let resource = entry.resource
        guard let fhirID = id ?? entry.fullURL, !fhirID.isEmpty else {
            throw FHIRProblem(path: resource.path("id"), problem: "required but missing")
        }
        guard fhirID.isPrintableASCIIWord else {
            throw FHIRProblem(
                path: id != nil ? resource.path("id") : entry.fullURLPath,
                problem: "the Patient's id is not printable ASCII without spaces: \(fhirID.quotedForMessage)"
            )
        }
        return fhirID
    }

    // MARK: Resources

    private static func patient(_ resource: JSONCursor, fhirID: String) throws -> Patient {
        var mrn = fhirID
        for identifier in try resource.array("identifier") {
            let codes = try identifier.field("type")?.array("coding").compactMap { try $0.string("code") } ?? []
            if codes.contains("MR"), let value = try identifier.string("value"), !value.isEmpty {
                // Typed at the prompt, printed in lists and audit records: an MRN with a control
                // character or a space could not be typed back, or would act on a terminal.
                guard value.isPrintableASCIIWord else {
                    throw FHIRProblem(
                        path: identifier.path("value"),
                        problem: "the MR identifier of Patient \(fhirID.quotedForMessage) is not printable ASCII "
                            + "without spaces (bytes 0x21-0x7E): \(value.quotedForMessage)"
                    )
                }
                mrn = value
                break
            }
        }
        // An MRN is typed at the prompt and named in every audit record: an id taken from a long
        // `fullUrl` (a Patient without `id`) is no MRN, whatever the reader let through.
        guard mrn.utf8.count <= FieldLimit.identifier else {
            throw FHIRProblem(
                path: resource.path("identifier"),
                problem: "the Patient has no MR identifier, and its id, \(mrn.utf8.count) bytes, is longer than an MRN "
                    + "may be (\(FieldLimit.describe(FieldLimit.identifier)))"
            )
        }
        let names = try resource.array("name")
        var name = names.first
        for candidate in names where try candidate.string("use") == "official" {
            name = candidate
            break
        }
        let given = try name?.array("given").map { try $0.string() }.joined(separator: " ") ?? ""
        let family = try name?.string("family") ?? ""
        var birthDate = ""
        if let field = try resource.field("birthDate") {
            guard let date = FHIRDate.calendarDate(try field.string()) else {
                throw field.problem("expected a FHIR date (YYYY-MM-DD)")
            }
            birthDate = date
        }
        var sex = Sex.unknown
        if let field = try resource.field("gender") {
            guard let value = Sex(rawValue: try field.string()) else {
                throw field.problem("expected male, female, other or unknown")
            }
            sex = value
        }
        var phone = ""
        for telecom in try resource.array("telecom") where try telecom.string("system") == "phone" {
            phone = try telecom.string("value") ?? ""
            break
        }
        var address = ""
        if let first = try resource.array("address").first {
            let street = try first.array("line").map { try $0.string() }.joined(separator: " ")
            let city = try first.string("city") ?? ""
            let region = [try first.string("state"), try first.string("postalCode")].compactMap { $0 }.joined(
                separator: " "
            )
            address = [street, city, region].filter { !$0.isEmpty }.joined(separator: ", ")
        }
        // FHIR's confidentiality labels: R (restricted) and V (very restricted) need a reason to open.
        let labels = try resource.field("meta")?.array("security").compactMap { try $0.string("code") } ?? []
        return Patient(
            mrn: mrn,
            given: given,
            family: family,
            birthDate: birthDate,
            sex: sex,
            phone: phone,
            address: address,
            restricted: labels.contains("R") || labels.contains("V")
        )
    }

    /// One row per value: the observation's own, or one per component (Synthea writes blood
    /// pressure as a panel with systolic and diastolic components).
    private static func observations(_ resource: JSONCursor) throws -> [Observation] {
        let categoryCode = try resource.array("category").first?.array("coding").first?.string("code")
        let category = categoryCode.flatMap(Observation.Category.init(rawValue:)) ?? .other
        var time = try Self.time(resource, "effectiveDateTime")
        if time == nil, let period = try resource.field("effectivePeriod") { time = try Self.time(period, "start") }
        if time == nil { time = try Self.time(resource, "issued") }
        var rows: [Observation] = []
        func add(_ holder: JSONCursor) throws {
            guard let value = try Self.value(holder) else { return }
            guard let time else {
                throw FHIRProblem(path: resource.path("effectiveDateTime"), problem: "required but missing")
            }
            let code = try Self.concept(try holder.require("code"))
            rows.append(
                Observation(
                    code: code.code,
                    display: code.display,
                    category: category,
                    value: value.number,
                    text: value.text,
                    unit: value.unit,
                    time: instant(time),
                    system: code.system
                )
            )
        }
        try add(resource)
        for component in try resource.array("component") { try add(component) }
        return rows
    }

    private static func value(_ holder: JSONCursor) throws -> (number: Double?, text: String?, unit: String)? {
        if let quantity = try holder.field("valueQuantity") {
            let number = try quantity.require("value").number()
            return (number, nil, try quantity.string("unit") ?? quantity.string("code") ?? "")
        }
        if let concept = try holder.field("valueCodeableConcept") {
            return (nil, try Self.concept(concept).display, "")
        }
        if let text = try holder.string("valueString") { return (nil, text, "") }
        if let number = try holder.field("valueInteger") { return (try number.number(), nil, "") }
        if let flag = try holder.field("valueBoolean") {
            return (nil, try flag.bool() ? "yes" : "no", "")
        }
        return nil
    }

    /// A CodeableConcept as Ward keeps it: the first coding's system and code, and the best
    /// display text.
    struct Concept {
        var system: String
        var code: String
        var display: String
    }

    /// A CodeableConcept's first code, its system and its best display text (text, else the
    /// coding's display, else the code itself).
    private static func concept(_ concept: JSONCursor) throws -> Concept {
        let coding = try concept.array("coding").first
        let code = try coding?.string("code") ?? ""
        let display = try concept.string("text") ?? coding?.string("display") ?? code
        return Concept(system: try coding?.string("system") ?? "", code: code, display: display)
    }

    /// The most of a `text/plain` presented form Ward keeps, in bytes: a report's words, not a
    /// document store (a Synthea note is a few KiB; an attachment may be megabytes).
    static let presentedFormLimit = 64 * 1024

    /// An Attachment as text (`DiagnosticReport.presentedForm`): a `text/plain` one's `data`,
    /// decoded from base64 and cut at `presentedFormLimit`, else its title, content type and size.
    /// Only the kept part is decoded, so the work is bounded whatever the attachment's size.
    static func presentedForm(_ attachment: JSONCursor) throws -> String {
        let type = try attachment.string("contentType") ?? ""
        let title = try attachment.string("title") ?? ""
        let data = try attachment.string("data")
        // The base64 text's own length says the size when `size` is not written (3 bytes per 4).
        let written = try attachment.field("size").map { try $0.number() }.flatMap {
            $0 >= 0 && $0 < 1e15 ? Int($0) : nil
        }
        let size = written ?? data.map(Self.decodedSize)
        let mediaType = type.split(separator: ";").first.map { $0.trimming(.whitespace) } ?? ""
        // Data that is not base64 is described like any other attachment: the report still imports.
        if mediaType.lowercased() == "text/plain", let data {
            // 4 base64 characters make 3 bytes: decode whole quanta only, and at most the limit.
            let kept = data.utf8.prefix((presentedFormLimit / 3) * 4)
            let quanta = String(decoding: kept.prefix(kept.count / 4 * 4), as: UTF8.self)
            if let bytes = Data(base64Encoded: quanta) {
                let text = String(decoding: bytes, as: UTF8.self)
                return kept.count < data.utf8.count ? text + " … (\(size ?? 0) bytes in all)" : text
            }
        }
        guard data != nil || !type.isEmpty || !title.isEmpty else { return "" }
        let name = title.isEmpty ? "attachment" : title
        let details = [type.isEmpty ? nil : type, size.map { "\($0) bytes" }].compactMap { $0 }
        return details.isEmpty ? name : "\(name) (\(details.joined(separator: ", ")))"
    }

    /// How many bytes base64 `text` decodes to: 3 per 4 characters, less one per `=` of padding.
    private static func decodedSize(_ text: String) -> Int {
        let padding = text.utf8.reversed().prefix(2).prefix { $0 == UInt8(ascii: "=") }.count
        return max(0, text.utf8.count / 4 * 3 - padding)
    }

    /// A dosage instruction as a clinician reads it: its `text` when written, else built from its
    /// structure (Synthea writes no text): `1 mg, Oral, twice a day, as needed`.
    static func dosage(_ dosage: JSONCursor) throws -> String {
        if let text = try dosage.string("text"), !text.isEmpty { return text }
        var parts: [String] = []
        if let quantity = try dosage.array("doseAndRate").first?.field("doseQuantity") {
            let value = try quantity.field("value").map { Self.number(try $0.number()) }
            let unit = try quantity.string("unit") ?? quantity.string("code")
            let dose = [value, unit].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
            if !dose.isEmpty { parts.append(dose) }
        }
        if let route = try dosage.field("route") {
            let display = try Self.concept(route).display
            if !display.isEmpty { parts.append(display) }
        }
        if let repeating = try dosage.field("timing")?.field("repeat"), let timing = try Self.timing(repeating) {
            parts.append(timing)
        }
        if try dosage.field("asNeededBoolean")?.bool() == true || dosage.field("asNeededCodeableConcept") != nil {
            parts.append("as needed")
        }
        return parts.joined(separator: ", ")
    }

    /// `Timing.repeat` as words: `once a day`, `twice a day`, `3 times every 2 weeks`.
    private static func timing(_ repeating: JSONCursor) throws -> String? {
        let frequency = try repeating.field("frequency")?.number()
        let period = try repeating.field("period")?.number()
        let unit = try repeating.string("periodUnit").map { code -> String in
            let words = [
                "s": "second", "min": "minute", "h": "hour", "d": "day", "wk": "week", "mo": "month", "a": "year",
            ]
            return words[code] ?? code
        }
        var times: String?
        if let frequency {
            switch frequency {
            case 1: times = "once"
            case 2: times = "twice"
            default: times = "\(Self.number(frequency)) times"
            }
        }
        var every: String?
        if let unit {
            if let period, period != 1 {
                every = "every \(Self.number(period)) \(unit)s"
            } else {
                every = times == nil ? "every \(unit)" : "a \(unit)"
            }
        }
        let words = [times, every].compactMap { $0 }
        return words.isEmpty ? nil : words.joined(separator: " ")
    }

    /// `1`, `0.5`: a number without a needless `.0`.
    private static func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    private static func status(_ resource: JSONCursor, _ key: String) throws -> String {
        try resource.field(key)?.array("coding").first?.string("code") ?? ""
    }

    private static func time(_ holder: JSONCursor, _ key: String) throws -> Int64? {
        guard let field = try holder.field(key) else { return nil }
        guard let seconds = FHIRDate.seconds(try field.string()) else {
            throw field.problem("expected a FHIR dateTime (YYYY-MM-DDThh:mm:ss+zz:zz)")
        }
        return seconds
    }
}

private func instant(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }
