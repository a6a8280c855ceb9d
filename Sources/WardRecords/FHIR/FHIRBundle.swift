import Foundation

/// One FHIR R4 bundle, read as a stream in two passes over its bytes, one entry at a time.
///
/// A bundle can be hundreds of megabytes (one long life in Synthea), so it is never held whole:
/// the first pass (`init(reading:)`) keeps only the Patients and the Medications, checks each
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
        /// A resource Ward does not keep, under the name it is counted by.
        case skipped(String)
    }

    /// The resource types the importer reads; every other type is counted and skipped.
    static let readTypes: Set<String> = [
        "Patient", "AllergyIntolerance", "Condition", "MedicationRequest", "Observation", "Encounter",
    ]

    private(set) var patients: [ImportedPatient] = []
    /// `fullUrl` and `Patient/id` of each Patient, to its position in `patients`.
    private var patientKeys: [String: Int] = [:]
    /// Each Patient's FHIR id, to its position in `patients`.
    private var patientIDs: [String: Int] = [:]
    private var medicationCodes: [String: (code: String, display: String)] = [:]

    /// The first pass: the bundle's patients and medications, checked.
    init(reading reader: JSONStreamReader) throws {
        var mrns: [String: Int] = [:]
        try Self.walk(reader, firstPass: true) { entry in
            let resource = try entry.require("resource")
            let type = try resource.require("resourceType").string()
            let fullURL = try entry.string("fullUrl")
            let id = try resource.string("id")
            if type == "Patient" {
                let fhirID = try Self.fhirID(entry, resource, id: id, fullURL: fullURL)
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
            }
        }
    }

    /// The second pass: every entry converted, in the order of the file, to `body`. Returns the
    /// resources read and skipped, by type.
    func readResources(
        _ reader: JSONStreamReader,
        _ body: (Resource) throws -> Void
    ) throws -> (read: [String: Int], skipped: [String: Int]) {
        var read: [String: Int] = [:]
        var skipped: [String: Int] = [:]
        try Self.walk(reader) { entry in
            let resource = try entry.require("resource")
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

    /// Walks the bundle object: checks `resourceType` and hands each entry of `entry` to `body`,
    /// as a cursor at `entry[n]`; every other member is checked and skipped.
    private static func walk(
        _ reader: JSONStreamReader,
        firstPass: Bool = false,
        _ body: (JSONCursor) throws -> Void
    ) throws {
        guard try reader.peekSignificant() == UInt8(ascii: "{") else {
            throw FHIRProblem(path: "(root)", problem: "expected a FHIR Bundle object")
        }
        var type: String?
        var sawEntry = false
        try reader.readObject { key in
            switch key {
            case "resourceType":
                guard type == nil else { throw FHIRProblem(path: "resourceType", problem: "written twice") }
                guard case .string(let value) = try reader.value(), value == "Bundle" else {
                    throw FHIRProblem(path: "resourceType", problem: "expected \"Bundle\"")
                }
                type = value
            case "entry":
                guard !sawEntry else { throw FHIRProblem(path: "entry", problem: "written twice") }
                sawEntry = true
                if try reader.peekSignificant() == UInt8(ascii: "n") {
                    try reader.skipValue()  // null: no entries
                    return
                }
                guard try reader.peekSignificant() == UInt8(ascii: "[") else {
                    throw FHIRProblem(path: "entry", problem: "expected an array")
                }
                try reader.readArray { index in
                    let entry = firstPass ? try firstPassEntry(reader) : try reader.value()
                    try body(JSONCursor(entry, path: "entry[\(index)]"))
                }
            default:
                try reader.skipValue()
            }
        }
        try reader.finish()
        guard type != nil else { throw FHIRProblem(path: "resourceType", problem: "expected \"Bundle\"") }
    }

    /// An entry as the first pass needs it: its `fullUrl`, and its resource built only as far as
    /// its `resourceType` when that is neither Patient nor Medication (Synthea writes it first).
    /// The rest is checked as JSON and skipped, so the first pass builds little more than the
    /// patients. Anything else the second pass builds and checks in full, duplicate keys included.
    private static func firstPassEntry(_ reader: JSONStreamReader) throws -> JSONValue {
        guard try reader.peekSignificant() == UInt8(ascii: "{") else { return try reader.value() }
        var members: [String: JSONValue] = [:]
        try reader.readObject { key in
            guard key == "resource" || key == "fullUrl" else { return try reader.skipValue() }
            guard key == "resource", try reader.peekSignificant() == UInt8(ascii: "{") else {
                members[key] = try reader.value()
                return
            }
            var resource: [String: JSONValue] = [:]
            var skipping = false
            try reader.readObject { member in
                if skipping { return try reader.skipValue() }
                let value = try reader.value()
                resource[member] = value
                if member == "resourceType", case .string(let type) = value, type != "Patient", type != "Medication" {
                    skipping = true
                }
            }
            members[key] = .object(resource)
        }
        return .object(members)
    }

    private func resource(_ resource: JSONCursor, type: String, entry: JSONCursor) throws -> Resource {
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
            let fhirID = try Self.fhirID(
                entry,
                resource,
                id: try resource.string("id"),
                fullURL: try entry.string("fullUrl")
            )
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
                    recorded: try Self.time(resource, "recordedDate").map(instant)
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
                    abated: try Self.time(resource, "abatementDateTime").map(instant)
                )
            )
        case "MedicationRequest":
            let code: (code: String, display: String)
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
                    dosage: try resource.array("dosageInstruction").first?.string("text") ?? "",
                    authored: try Self.time(resource, "authoredOn").map(instant)
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
            let reason = try resource.array("reasonCode").first.map(Self.concept)
            return .encounter(
                try subject("subject"),
                Encounter(
                    kind: try resource.field("class")?.string("code") ?? "",
                    display: kind?.display ?? "",
                    reason: reason?.display ?? "",
                    start: instant(start),
                    end: try Self.time(period, "end").map(instant)
                )
            )
        default:
            return .skipped(type)
        }
    }

    /// A Patient's FHIR id: its `id`, else the entry's `fullUrl`; printable ASCII without spaces,
    /// because it is compared in queries and quoted in errors.
    private static func fhirID(
        _ entry: JSONCursor,
        _ resource: JSONCursor,
        id: String?,
        fullURL: String?
    ) throws -> String {
        guard let fhirID = id ?? fullURL, !fhirID.isEmpty else {
            throw FHIRProblem(path: resource.path("id"), problem: "required but missing")
        }
        guard fhirID.isPrintableASCIIWord else {
            throw FHIRProblem(
                path: id != nil ? resource.path("id") : entry.path("fullUrl"),
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
                    time: instant(time)
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

    /// A CodeableConcept's first code and its best display text (text, else the coding's display,
    /// else the code itself).
    private static func concept(_ concept: JSONCursor) throws -> (code: String, display: String) {
        let coding = try concept.array("coding").first
        let code = try coding?.string("code") ?? ""
        let display = try concept.string("text") ?? coding?.string("display") ?? code
        return (code, display)
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
