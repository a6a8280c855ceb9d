import FoundationEssentials
import WardRecords

/// Each chart row as typed JSON writes it (`TableValue`): the keys of the text's columns, with
/// numbers as numbers, instants as ISO 8601 with their offset and lists as arrays, plus `code`,
/// the record's code with its system (`null` when the record has only a name).
///
/// Text shows a day where JSON gives the instant the record holds (`recorded`, `onset`): a
/// script compares instants; a person reads days. man/ward.1 (JSON OUTPUT) lists these keys.
enum ChartJSON {
    static func row(_ allergy: Allergy) -> [String: TableValue] {
        [
            "substance": .text(allergy.substance), "category": .text(allergy.category),
            "criticality": .text(allergy.criticality), "status": .text(allergy.status),
            "recorded": .time(allergy.recorded), "code": .code(allergy.system, allergy.code, allergy.substance),
        ]
    }

    static func row(_ medication: Medication) -> [String: TableValue] {
        [
            "medication": .text(medication.display), "dosage": .text(medication.dosage),
            "status": .text(medication.status), "authored": .time(medication.authored),
            "code": .code(medication.system, medication.code, medication.display),
        ]
    }

    static func row(_ problem: Problem) -> [String: TableValue] {
        [
            "problem": .text(problem.display), "status": .text(problem.status), "onset": .time(problem.onset),
            "abated": .time(problem.abated), "code": .code(problem.system, problem.code, problem.display),
        ]
    }

    /// `value` is a number when the observation has a quantity, its text when it is coded or
    /// written, `null` when neither.
    static func row(_ observation: Observation) -> [String: TableValue] {
        let value: TableValue =
            if let number = observation.value { .number(number) } else {
                observation.text.map(TableValue.text) ?? .null
            }
        return [
            "time": .time(observation.time), "measurement": .text(observation.display), "value": value,
            "unit": .text(observation.unit),
            "code": .code(observation.system, observation.code, observation.display),
        ]
    }

    static func row(_ immunization: Immunization) -> [String: TableValue] {
        [
            "date": .time(immunization.date), "vaccine": .text(immunization.vaccine),
            "status": .text(immunization.status),
            "code": .code(immunization.system, immunization.code, immunization.vaccine),
        ]
    }

    static func row(_ procedure: Procedure) -> [String: TableValue] {
        [
            "date": .time(procedure.performed), "procedure": .text(procedure.display),
            "reason": .text(procedure.reason), "status": .text(procedure.status),
            "code": .code(procedure.system, procedure.code, procedure.display),
        ]
    }

    static func row(_ plan: CarePlan) -> [String: TableValue] {
        [
            "plan": .text(plan.category), "activities": .list(plan.activities), "start": .time(plan.start),
            "end": .time(plan.end), "status": .text(plan.status),
        ]
    }

    /// `results` is the list of result names, `findings` each with its value as text shows it
    /// (`Glucose: 95 mg/dL`); `conclusion` the conclusion, else what the presented form holds
    /// (`ChartFormat.conclusion`).
    static func row(_ report: DiagnosticReport) -> [String: TableValue] {
        [
            "date": .time(report.date), "report": .text(report.name), "status": .text(report.status),
            "results": .list(report.results.map(\.name)), "findings": .list(report.results.map(ChartFormat.result)),
            "conclusion": .text(ChartFormat.conclusion(report)),
            "code": .code(report.system, report.code, report.name),
        ]
    }

    static func row(_ encounter: Encounter) -> [String: TableValue] {
        [
            "start": .time(encounter.start), "end": .time(encounter.end), "class": .text(encounter.kind),
            "visit": .text(encounter.display), "reason": .text(encounter.reason),
        ]
    }

    static func row(_ note: Note) -> [String: TableValue] {
        [
            "note": note.id.map { .number(Double($0)) } ?? .null, "time": .time(note.time),
            "author": .text(note.author),
            "text": .text(note.text), "corrects": note.corrects.map { .number(Double($0)) } ?? .null,
        ]
    }
}
