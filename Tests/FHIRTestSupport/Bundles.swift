import Foundation

/// FHIR resources as Synthea writes them, small enough to read in a test: the one builder the
/// records tests and the shell tests share, so a change to what a bundle looks like is made once.
public enum Bundles {
    public static func patient(
        _ id: String,
        given: [String],
        family: String,
        mrn: String? = nil,
        birthDate: String = "1970-03-04",
        gender: String = "female",
        restricted: Bool = false
    ) -> [String: Any] {
        var resource: [String: Any] = [
            "resourceType": "Patient", "id": id,
            "name": [["use": "official", "given": given, "family": family]],
            "birthDate": birthDate, "gender": gender,
            "telecom": [["system": "phone", "value": "555-0100"]],
            "address": [["line": ["1 Main St"], "city": "Boston", "state": "MA", "postalCode": "02108"]],
            "identifier": [
                [
                    "type": ["coding": [["system": "http://terminology.hl7.org/CodeSystem/v2-0203", "code": "MR"]]],
                    "value": mrn ?? id,
                ]
            ],
        ]
        if restricted { resource["meta"] = ["security": [["code": "R"]]] }
        return ["fullUrl": "urn:uuid:\(id)", "resource": resource]
    }

    public static func observation(
        _ patient: String,
        category: String = "vital-signs",
        code: String,
        display: String,
        value: Double,
        unit: String,
        effective: String = "2020-05-06T07:08:09-05:00"
    ) -> [String: Any] {
        [
            "resource": [
                "resourceType": "Observation", "status": "final",
                "category": [["coding": [["code": category]]]],
                "code": [
                    "coding": [["system": "http://loinc.org", "code": code, "display": display]], "text": display,
                ],
                "subject": ["reference": "urn:uuid:\(patient)"],
                "effectiveDateTime": effective,
                "valueQuantity": ["value": value, "unit": unit],
            ]
        ]
    }

    public static func bloodPressure(_ patient: String) -> [String: Any] {
        func component(_ code: String, _ display: String, _ value: Double) -> [String: Any] {
            [
                "code": ["coding": [["system": "http://loinc.org", "code": code, "display": display]]],
                "valueQuantity": ["value": value, "unit": "mm[Hg]"],
            ]
        }
        return [
            "resource": [
                "resourceType": "Observation",
                "category": [["coding": [["code": "vital-signs"]]]],
                "code": [
                    "coding": [["system": "http://loinc.org", "code": "85354-9", "display": "Blood pressure panel"]]
                ],
                "subject": ["reference": "urn:uuid:\(patient)"],
                "effectiveDateTime": "2020-05-06T07:08:09Z",
                "component": [
                    component("8480-6", "Systolic Blood Pressure", 128),
                    component("8462-4", "Diastolic Blood Pressure", 82),
                ],
            ]
        ]
    }

    public static func condition(_ patient: String) -> [String: Any] {
        [
            "resource": [
                "resourceType": "Condition",
                "clinicalStatus": ["coding": [["code": "active"]]],
                "code": ["coding": [["system": "http://snomed.info/sct", "code": "44054006", "display": "Diabetes"]]],
                "subject": ["reference": "urn:uuid:\(patient)"],
                "onsetDateTime": "2010-01-02T03:04:05+00:00",
            ]
        ]
    }

    public static func allergy(_ patient: String) -> [String: Any] {
        [
            "resource": [
                "resourceType": "AllergyIntolerance", "criticality": "high", "category": ["food"],
                "clinicalStatus": ["coding": [["code": "active"]]],
                "code": ["coding": [["code": "256349002", "display": "Peanut"]]],
                "patient": ["reference": "urn:uuid:\(patient)"],
                "recordedDate": "2001-02-03",
            ]
        ]
    }

    public static func medication(_ patient: String) -> [String: Any] {
        [
            "resource": [
                "resourceType": "MedicationRequest", "status": "active",
                "medicationCodeableConcept": ["coding": [["code": "860975", "display": "metformin"]]],
                "subject": ["reference": "urn:uuid:\(patient)"],
                "authoredOn": "2010-01-02T03:04:05Z",
                "dosageInstruction": [["text": "twice daily"]],
            ]
        ]
    }

    public static func encounter(_ patient: String) -> [String: Any] {
        [
            "resource": [
                "resourceType": "Encounter", "class": ["code": "AMB"],
                "type": [["coding": [["code": "185349003", "display": "Encounter for check up"]]]],
                "subject": ["reference": "urn:uuid:\(patient)"],
                "period": ["start": "2020-05-06T07:00:00Z", "end": "2020-05-06T07:30:00Z"],
            ]
        ]
    }

    public static func other(_ type: String) -> [String: Any] {
        ["resource": ["resourceType": type, "id": UUID().uuidString]]
    }

    public static func bundle(_ entries: [[String: Any]]) -> Data {
        try! JSONSerialization.data(withJSONObject: ["resourceType": "Bundle", "type": "transaction", "entry": entries])
    }

    /// A whole chart for one patient, plus two resource types Ward does not keep.
    public static func complete(_ id: String, given: [String], family: String, mrn: String? = nil) -> Data {
        bundle([
            patient(id, given: given, family: family, mrn: mrn),
            allergy(id), condition(id), medication(id), encounter(id),
            observation(id, code: "8867-4", display: "Heart rate", value: 72, unit: "/min"),
            bloodPressure(id),
            other("Claim"), other("ExplanationOfBenefit"), other("Claim"),
        ])
    }
}
