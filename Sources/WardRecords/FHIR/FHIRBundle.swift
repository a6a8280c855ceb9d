import Foundation

/// One FHIR R4 bundle, read and checked in full before anything is written.
///
/// Reading first means a malformed bundle imports nothing: the complaint comes out of `init`
/// before the transaction begins. References to patients (`subject.reference`,
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

    /// The resource types the importer reads; every other type is counted and skipped.
    static let readTypes: Set<String> = [
        "Patient", "AllergyIntolerance", "Condition", "MedicationRequest", "Observation", "Encounter",
    ]

    var patients: [ImportedPatient] = []
    var allergies: [(PatientReference, Allergy)] = []
    var problems: [(PatientReference, Problem)] = []
    var medications: [(PatientReference, Medication)] = []
    var observations: [(PatientReference, Observation)] = []
    var encounters: [(PatientReference, Encounter)] = []
    /// Resources read, by type.
    var read: [String: Int] = [:]
    /// Resources skipped, by type (types Ward does not keep, and observations with no value).
    var skipped: [String: Int] = [:]

    init(json data: Data) throws {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw FHIRProblem(path: "(root)", problem: "not valid JSON")
        }
        let bundle = JSONCursor(root: root)
        guard root is [String: Any] else { throw bundle.problem("expected a FHIR Bundle object") }
        guard let type = try bundle.string("resourceType"), type == "Bundle" else {
            throw FHIRProblem(path: "resourceType", problem: "expected \"Bundle\"")
        }
        let entries = try bundle.array("entry")

        // First the patients (and medications, which orders may reference), so references
        // resolve wherever in the bundle they appear.
        var patientKeys: [String: Int] = [:]
        var medicationCodes: [String: (code: String, display: String)] = [:]
        var resources: [(type: String, resource: JSONCursor)] = []
        for entry in entries {
            let resource = try entry.require("resource")
            let type = try resource.require("resourceType").string()
            resources.append((type, resource))
            let fullURL = try entry.string("fullUrl")
            let id = try resource.string("id")
            if type == "Patient" {
                let fhirID = id ?? fullURL ?? ""
                guard !fhirID.isEmpty else { throw FHIRProblem(path: resource.path("id"), problem: "required but missing") }
                patients.append(ImportedPatient(fhirID: fhirID, patient: try Self.patient(resource, fhirID: fhirID)))
                for key in [fullURL, id.map { "Patient/\($0)" }].compactMap({ $0 }) { patientKeys[key] = patients.count - 1 }
            } else if type == "Medication" {
                let code = try Self.concept(try resource.require("code"))
                for key in [fullURL, id.map { "Medication/\($0)" }].compactMap({ $0 }) { medicationCodes[key] = code }
            }
        }

        func subject(_ resource: JSONCursor, _ key: String) throws -> PatientReference {
            let reference = try resource.require(key).require("reference")
            let text = try reference.string()
            if let index = patientKeys[text] { return .inBundle(index) }
            if text.hasPrefix("Patient/") { return .stored(fhirID: String(text.dropFirst(8)), path: reference.path) }
            if text.hasPrefix("urn:uuid:") { return .stored(fhirID: String(text.dropFirst(9)), path: reference.path) }
            throw reference.problem("does not refer to a Patient")
        }

        for (type, resource) in resources {
            switch type {
            case "Patient":
                break
            case "AllergyIntolerance":
                let code = try Self.concept(try resource.require("code"))
                allergies.append(
                    (
                        try subject(resource, "patient"),
                        Allergy(
                            substance: code.display, code: code.code,
                            criticality: try resource.string("criticality") ?? "",
                            category: try resource.array("category").first?.string() ?? "",
                            status: try Self.status(resource, "clinicalStatus"),
                            recorded: try Self.time(resource, "recordedDate").map(instant))
                    ))
            case "Condition":
                let code = try Self.concept(try resource.require("code"))
                problems.append(
                    (
                        try subject(resource, "subject"),
                        Problem(
                            code: code.code, display: code.display, status: try Self.status(resource, "clinicalStatus"),
                            onset: try Self.time(resource, "onsetDateTime").map(instant),
                            abated: try Self.time(resource, "abatementDateTime").map(instant))
                    ))
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
                medications.append(
                    (
                        try subject(resource, "subject"),
                        Medication(
                            code: code.code, display: code.display, status: try resource.string("status") ?? "",
                            dosage: try resource.array("dosageInstruction").first?.string("text") ?? "",
                            authored: try Self.time(resource, "authoredOn").map(instant))
                    ))
            case "Observation":
                let rows = try Self.observations(resource)
                if rows.isEmpty {
                    skipped["Observation (no value)", default: 0] += 1
                    continue
                }
                let patient = try subject(resource, "subject")
                observations += rows.map { (patient, $0) }
            case "Encounter":
                let period = try resource.require("period")
                guard let start = try Self.time(period, "start") else {
                    throw FHIRProblem(path: period.path("start"), problem: "required but missing")
                }
                let type = try resource.array("type").first.map(Self.concept)
                let reason = try resource.array("reasonCode").first.map(Self.concept)
                encounters.append(
                    (
                        try subject(resource, "subject"),
                        Encounter(
                            kind: try resource.field("class")?.string("code") ?? "",
                            display: type?.display ?? "", reason: reason?.display ?? "", start: instant(start),
                            end: try Self.time(period, "end").map(instant))
                    ))
            default:
                skipped[type, default: 0] += 1
                continue
            }
            read[type, default: 0] += 1
        }
    }

    // MARK: Resources

    private static func patient(_ resource: JSONCursor, fhirID: String) throws -> Patient {
        var mrn = fhirID
        for identifier in try resource.array("identifier") {
            let codes = try identifier.field("type")?.array("coding").compactMap { try $0.string("code") } ?? []
            if codes.contains("MR"), let value = try identifier.string("value"), !value.isEmpty {
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
            let region = [try first.string("state"), try first.string("postalCode")].compactMap { $0 }.joined(separator: " ")
            address = [street, city, region].filter { !$0.isEmpty }.joined(separator: ", ")
        }
        // FHIR's confidentiality labels: R (restricted) and V (very restricted) need a reason to open.
        let labels = try resource.field("meta")?.array("security").compactMap { try $0.string("code") } ?? []
        return Patient(
            mrn: mrn, given: given, family: family, birthDate: birthDate, sex: sex, phone: phone, address: address,
            restricted: labels.contains("R") || labels.contains("V"))
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
            guard let time else { throw FHIRProblem(path: resource.path("effectiveDateTime"), problem: "required but missing") }
            let code = try Self.concept(try holder.require("code"))
            rows.append(
                Observation(
                    code: code.code, display: code.display, category: category, value: value.number, text: value.text,
                    unit: value.unit, time: instant(time)))
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
        if let concept = try holder.field("valueCodeableConcept") { return (nil, try Self.concept(concept).display, "") }
        if let text = try holder.string("valueString") { return (nil, text, "") }
        if let number = try holder.field("valueInteger") { return (try number.number(), nil, "") }
        if let flag = try holder.field("valueBoolean") {
            guard let value = flag.value as? Bool else { throw flag.problem("expected true or false") }
            return (nil, value ? "yes" : "no", "")
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
