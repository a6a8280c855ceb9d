import Foundation

/// The resources `Bundles` did not cover at first, as Synthea's FHIR R4 exporter writes
/// them (`FhirR4.java`): immunizations, procedures, care plans, diagnostic reports, social
/// history, and a medication order whose dosage is structured, with no text.
extension Bundles {
    public static func immunization(
        _ patient: String,
        vaccine: String = "Influenza, seasonal, injectable, preservative free",
        date: String? = "2015-07-02T09:49:55-04:00",
        status: String? = "completed"
    ) -> [String: Any] {
        var resource: [String: Any] = [
            "resourceType": "Immunization", "id": UUID().uuidString,
            "vaccineCode": [
                "coding": [["system": "http://hl7.org/fhir/sid/cvx", "code": "140", "display": vaccine]],
                "text": vaccine,
            ],
            "patient": ["reference": "urn:uuid:\(patient)"],
            "encounter": ["reference": "urn:uuid:\(UUID().uuidString)"],
            "primarySource": true,
        ]
        if let status { resource["status"] = status }
        if let date { resource["occurrenceDateTime"] = date }
        return entry(resource)
    }

    /// A procedure; `reason` a reference to the Condition with that id (Synthea's
    /// `reasonReference`), with or without its `display`.
    public static func procedure(
        _ patient: String,
        display: String = "Medication Reconciliation (procedure)",
        reason: (condition: String, display: String?)? = nil,
        period: Bool = true
    ) -> [String: Any] {
        var resource: [String: Any] = [
            "resourceType": "Procedure", "id": UUID().uuidString, "status": "completed",
            "code": [
                "coding": [["system": "http://snomed.info/sct", "code": "430193006", "display": display]],
                "text": display,
            ],
            "subject": ["reference": "urn:uuid:\(patient)"],
        ]
        if period {
            resource["performedPeriod"] = ["start": "2016-01-02T03:04:05-05:00", "end": "2016-01-02T03:19:05-05:00"]
        } else {
            resource["performedDateTime"] = "2016-01-02T03:04:05-05:00"
        }
        if let reason {
            var reference: [String: Any] = ["reference": "urn:uuid:\(reason.condition)"]
            if let display = reason.display { reference["display"] = display }
            resource["reasonReference"] = [reference]
        }
        return entry(resource)
    }

    /// A Condition with an id of its own, for references to it.
    public static func condition(_ patient: String, id: String, display: String) -> [String: Any] {
        entry([
            "resourceType": "Condition", "id": id,
            "clinicalStatus": ["coding": [["code": "active"]]],
            "code": ["coding": [["system": "http://snomed.info/sct", "code": "15777000", "display": display]]],
            "subject": ["reference": "urn:uuid:\(patient)"],
            "onsetDateTime": "2012-01-02T03:04:05+00:00",
        ])
    }

    public static func carePlan(
        _ patient: String,
        plan: String = "Diabetes self management plan",
        activities: [String] = ["Diabetic diet", "Exercise therapy"],
        end: String? = nil
    ) -> [String: Any] {
        var period: [String: Any] = ["start": "2012-01-02T03:04:05-05:00"]
        if let end { period["end"] = end }
        return entry([
            "resourceType": "CarePlan", "id": UUID().uuidString, "intent": "order",
            "status": end == nil ? "active" : "completed",
            "text": ["status": "generated", "div": "<div>Care Plan for \(plan).</div>"],
            "category": [
                [
                    "coding": [
                        ["system": "http://hl7.org/fhir/us/core/CodeSystem/careplan-category", "code": "assess-plan"]
                    ]
                ],
                [
                    "coding": [["system": "http://snomed.info/sct", "code": "698360004", "display": plan]],
                    "text": plan,
                ],
            ],
            "subject": ["reference": "urn:uuid:\(patient)"],
            "period": period,
            "activity": activities.map { activity in
                [
                    "detail": [
                        "code": [
                            "coding": [["system": "http://snomed.info/sct", "code": "160670007", "display": activity]],
                            "text": activity,
                        ],
                        "status": end == nil ? "in-progress" : "completed",
                        "location": ["display": "CLINIC"],
                    ]
                ]
            },
        ])
    }

    /// A lab panel reporting the Observations `results` (ids and names); `displays` false writes
    /// the references bare, as other exporters than Synthea may.
    public static func diagnosticReport(
        _ patient: String,
        name: String = "Basic metabolic panel - Blood",
        results: [(id: String, display: String)],
        displays: Bool = true,
        conclusion: String? = nil
    ) -> [String: Any] {
        var resource: [String: Any] = [
            "resourceType": "DiagnosticReport", "id": UUID().uuidString, "status": "final",
            "category": [
                [
                    "coding": [
                        [
                            "system": "http://terminology.hl7.org/CodeSystem/v2-0074", "code": "LAB",
                            "display": "Laboratory",
                        ]
                    ]
                ]
            ],
            "code": ["coding": [["system": "http://loinc.org", "code": "51990-0", "display": name]], "text": name],
            "subject": ["reference": "urn:uuid:\(patient)"],
            "effectiveDateTime": "2016-01-02T03:04:05-05:00",
            "issued": "2016-01-02T03:04:05.123-05:00",
            "result": results.map { result -> [String: Any] in
                var reference: [String: Any] = ["reference": "urn:uuid:\(result.id)"]
                if displays { reference["display"] = result.display }
                return reference
            },
        ]
        if let conclusion { resource["conclusion"] = conclusion }
        return entry(resource)
    }

    /// A lab Observation with an id, for a report to refer to.
    public static func labResult(_ patient: String, id: String, display: String, value: Double) -> [String: Any] {
        var observation = Bundles.observation(
            patient,
            category: "laboratory",
            code: "2339-0",
            display: display,
            value: value,
            unit: "mg/dL",
            effective: "2016-01-02T03:04:05-05:00"
        )
        var resource = observation["resource"] as! [String: Any]
        resource["id"] = id
        observation["resource"] = resource
        observation["fullUrl"] = "urn:uuid:\(id)"
        return observation
    }

    /// Smoking status, coded, as Synthea writes it: category `social-history`.
    public static func smokingStatus(_ patient: String) -> [String: Any] {
        entry([
            "resourceType": "Observation", "id": UUID().uuidString, "status": "final",
            "category": [
                [
                    "coding": [
                        [
                            "system": "http://terminology.hl7.org/CodeSystem/observation-category",
                            "code": "social-history", "display": "social-history",
                        ]
                    ]
                ]
            ],
            "code": [
                "coding": [["system": "http://loinc.org", "code": "72166-2", "display": "Tobacco smoking status"]]
            ],
            "subject": ["reference": "urn:uuid:\(patient)"],
            "effectiveDateTime": "2016-01-02T03:04:05-05:00",
            "valueCodeableConcept": [
                "coding": [
                    ["system": "http://snomed.info/sct", "code": "266919005", "display": "Never smoked tobacco"]
                ],
                "text": "Never smoked tobacco",
            ],
        ])
    }

    /// A survey score (PHQ-2), category `survey`.
    public static func surveyScore(_ patient: String) -> [String: Any] {
        var observation = Bundles.observation(
            patient,
            category: "survey",
            code: "55758-7",
            display: "Patient Health Questionnaire-2 score",
            value: 1,
            unit: "{score}",
            effective: "2016-01-02T03:04:05-05:00"
        )
        var resource = observation["resource"] as! [String: Any]
        resource["id"] = UUID().uuidString
        observation["resource"] = resource
        return observation
    }

    /// A medication order as Synthea writes it: no dosage text, only its structure.
    public static func structuredMedication(
        _ patient: String,
        frequency: Int = 2,
        period: Double = 1,
        unit: String = "d",
        dose: Double = 1,
        asNeeded: Bool = false,
        route: String? = nil
    ) -> [String: Any] {
        var dosage: [String: Any] = [
            "sequence": 1,
            "timing": ["repeat": ["frequency": frequency, "period": period, "periodUnit": unit]],
            "asNeededBoolean": asNeeded,
            "doseAndRate": [
                [
                    "type": [
                        "coding": [
                            [
                                "system": "http://terminology.hl7.org/CodeSystem/dose-rate-type", "code": "ordered",
                                "display": "Ordered",
                            ]
                        ]
                    ],
                    "doseQuantity": ["value": dose],
                ]
            ],
        ]
        if let route {
            dosage["route"] = ["coding": [["system": "http://snomed.info/sct", "code": "26643006", "display": route]]]
        }
        return entry([
            "resourceType": "MedicationRequest", "id": UUID().uuidString, "status": "active", "intent": "order",
            "medicationCodeableConcept": [
                "coding": [
                    [
                        "system": "http://www.nlm.nih.gov/research/umls/rxnorm", "code": "310798",
                        "display": "Hydrochlorothiazide 25 MG Oral Tablet",
                    ]
                ],
                "text": "Hydrochlorothiazide 25 MG Oral Tablet",
            ],
            "subject": ["reference": "urn:uuid:\(patient)"],
            "authoredOn": "2012-01-02T03:04:05-05:00",
            "dosageInstruction": [dosage],
        ])
    }

    /// One chart with every kind of record Ward keeps, for the end-to-end and NDJSON tests.
    public static func everyKind(_ id: String, given: [String], family: String, mrn: String? = nil) -> [[String: Any]] {
        [
            patient(id, given: given, family: family, mrn: mrn),
            allergy(id), condition(id), medication(id), structuredMedication(id, route: "Oral"), encounter(id),
            observation(id, code: "8867-4", display: "Heart rate", value: 72, unit: "/min"),
            bloodPressure(id),
            condition(id, id: "\(id)-hypertension", display: "Hypertension"),
            immunization(id),
            immunization(id, vaccine: "Td (adult) preservative free", date: "2016-03-04T05:06:07-05:00"),
            procedure(id, display: "Screening for depression", reason: ("\(id)-hypertension", nil)),
            carePlan(id),
            carePlan(
                id,
                plan: "Lifestyle education regarding hypertension",
                activities: ["Low salt diet"],
                end: "2014-01-01T00:00:00Z"
            ),
            labResult(id, id: "\(id)-glucose", display: "Glucose", value: 88),
            labResult(id, id: "\(id)-urea", display: "Urea Nitrogen", value: 12),
            diagnosticReport(id, results: [("\(id)-glucose", "Glucose"), ("\(id)-urea", "Urea Nitrogen")]),
            smokingStatus(id), surveyScore(id),
            other("Claim"), other("CareTeam"),
        ]
    }

    /// The same resources as a bulk-data export writes them: one NDJSON file per resource type,
    /// one resource per line, and references as `Type/id` (an export has no `fullUrl`).
    public static func ndjson(_ entries: [[String: Any]]) -> [String: Data] {
        var types: [String: String] = [:]  // id → resource type, to rewrite urn:uuid references
        for entry in entries {
            let resource = entry["resource"] as! [String: Any]
            if let id = resource["id"] as? String { types[id] = resource["resourceType"] as? String }
        }
        func rewrite(_ value: Any) -> Any {
            if let object = value as? [String: Any] {
                var result: [String: Any] = [:]
                for (key, member) in object {
                    if key == "reference", let text = member as? String, text.hasPrefix("urn:uuid:") {
                        let id = String(text.dropFirst(9))
                        result[key] = "\(types[id] ?? "Encounter")/\(id)"
                    } else {
                        result[key] = rewrite(member)
                    }
                }
                return result
            }
            if let array = value as? [Any] { return array.map(rewrite) }
            return value
        }
        var files: [String: Data] = [:]
        for entry in entries {
            let resource = rewrite(entry["resource"]!) as! [String: Any]
            let type = resource["resourceType"] as! String
            var line = try! JSONSerialization.data(withJSONObject: resource, options: [.sortedKeys])
            line.append(UInt8(ascii: "\n"))
            files["\(type).ndjson", default: Data()].append(line)
        }
        return files
    }

    private static func entry(_ resource: [String: Any]) -> [String: Any] {
        var entry: [String: Any] = ["resource": resource]
        if let id = resource["id"] as? String { entry["fullUrl"] = "urn:uuid:\(id)" }
        return entry
    }
}
