import FoundationEssentials
import Glibc
import WardCore

/// One synthetic patient: demographics, then a history of visits with what each one recorded.
///
/// Everything comes from the patient's own `SeededGenerator` stream, in a fixed order, so the
/// same seed and index give the same patient whatever else is generated.
struct DemoHistory {
    private var rng: SeededGenerator
    private let id: Int64
    private let index: Int
    /// Observations written so far: the low bits of the next observation id.
    private var observationCount: Int64 = 0

    private static let day: Int64 = 86_400
    private static let year: Int64 = 365 * 86_400
    private static let authors = ["hchen", "mokafor", "jlewis", "rpatel", "sgarcia"]

    init(seed: UInt64, index: Int) {
        rng = SeededGenerator(seed: seed, stream: UInt64(index))
        id = Int64(index + 1)
        self.index = index
    }

    /// Baselines that make one patient's vitals and labs consistent from visit to visit.
    private struct Body {
        var female: Bool
        var adultHeight: Double
        var bmi: Double
        var systolic: Double
        var diastolic: Double
        var heartRate: Double
    }

    mutating func write(into w: DemoWriter) throws {
        let now = DemoGenerator.referenceTime
        let female = rng.chance(0.51)
        var given = rng.pick(female ? DemoCatalog.femaleGiven : DemoCatalog.maleGiven)
        if rng.chance(0.2) { given += " " + rng.pick(female ? DemoCatalog.femaleGiven : DemoCatalog.maleGiven) }
        // Skewed so common surnames are common (the first is about 1.5% of patients, as Smith is).
        let family = DemoCatalog.family[Int(pow(rng.unit(), 1.25) * Double(DemoCatalog.family.count))]
        let age = rng.chance(0.05) ? rng.int(in: 90...101) : rng.below(90)
        let birth = now - Int64(age) * Self.year - Int64(rng.below(365)) * Self.day
        let town = rng.pick(DemoCatalog.towns)
        let zip = String(town.zip + rng.below(9))
        let address =
            "\(rng.int(in: 1...9999)) \(rng.pick(DemoCatalog.streets)) \(rng.pick(DemoCatalog.streetKinds)), "
            + "\(town.city), \(town.state) \(String(repeating: "0", count: 5 - zip.count))\(zip)"
        let phone = "555-\(rng.int(in: 200...999))-\(rng.int(in: 1000...9999))"

        w.patient.bind(id)
        w.patient.bind(DemoGenerator.mrn(index: index))
        w.patient.bind(given)
        w.patient.bind(family)
        w.patient.bind(CivilDate.string(days: Int(birth / Self.day)))
        w.patient.bind(female ? Sex.female.rawValue : Sex.male.rawValue)
        w.patient.bind(phone)
        w.patient.bind(address)
        w.patient.bind(rng.chance(0.004))
        try w.patient.run()

        // Long-term conditions, more of them with age, each with its drugs.
        let span = Int64(max(1, min(age, 12))) * Self.year
        var conditions: [Int] = []
        for (number, condition) in DemoCatalog.chronic.enumerated() where age >= condition.minimumAge {
            let p =
                condition.slope == 0
                ? condition.ceiling
                : min(condition.ceiling, condition.slope * Double(age - condition.minimumAge + 10))
            guard rng.chance(p) else { continue }
            conditions.append(number)
            let earliest = birth + Int64(condition.minimumAge) * Self.year
            let onset = max(earliest, now - Int64(rng.below(Int(span + 3 * Self.year))))
            try problem(w, condition.code, condition.display, "active", onset, nil)
            for (order, drug) in condition.drugs.enumerated() where order == 0 || rng.chance(0.5) {
                try medication(w, drug, "active", onset + Int64(rng.below(30)) * Self.day)
            }
        }
        let has = { (number: Int) in conditions.contains(number) }

        if rng.chance(0.22) {
            let count = rng.chance(0.3) ? 2 : 1
            for _ in 0..<count {
                let allergy = rng.pick(DemoCatalog.allergies)
                w.allergy.bind(id)
                w.allergy.bind(allergy.substance)
                w.allergy.bind(allergy.code)
                w.allergy.bind(allergy.criticality)
                w.allergy.bind(allergy.category)
                w.allergy.bind("active")
                w.allergy.bind(birth + Int64(rng.below(max(1, Int(now - birth)))))
                try w.allergy.run()
            }
        }

        // How often this patient comes: most rarely, a few (the chronically ill) very often.
        let tier = rng.unit()
        var visits =
            tier < 0.70
            ? rng.int(in: 0...2)
            : tier < 0.94
                ? rng.int(in: 3...6)
                : tier < 0.99 ? rng.int(in: 7...15) : rng.int(in: 25...60)
        visits += conditions.count
        var times = (0..<visits).map { _ in now - 1 - Int64(rng.below(Int(span))) }
        times.sort()

        let adultHeight = female ? rng.normal(mean: 163, sd: 6) : rng.normal(mean: 176, sd: 7)
        var body = Body(
            female: female,
            adultHeight: adultHeight,
            bmi: rng.normal(mean: has(DemoCatalog.Condition.diabetes) ? 31 : 26.5, sd: 4),
            systolic: rng.normal(mean: 116 + 0.4 * Double(max(0, age - 30)), sd: 8)
                + (has(DemoCatalog.Condition.hypertension) ? 16 : 0),
            diastolic: rng.normal(mean: 75, sd: 6) + (has(DemoCatalog.Condition.hypertension) ? 8 : 0),
            heartRate: rng.normal(mean: 73, sd: 8) + (has(DemoCatalog.Condition.fibrillation) ? 12 : 0)
        )
        for time in times {
            try visit(w, at: time, birth: birth, conditions: conditions, body: &body)
        }
    }

    private mutating func visit(
        _ w: DemoWriter,
        at time: Int64,
        birth: Int64,
        conditions: [Int],
        body: inout Body
    ) throws {
        let ageThen = Double(time - birth) / Double(Self.year)
        let chronic = conditions.isEmpty ? nil : DemoCatalog.chronic[conditions[rng.below(conditions.count)]]
        let roll = rng.unit()
        let kind: String
        let display: String
        var reason = ""
        let length: Int64
        var acute = false
        if let chronic, roll < 0.55 {
            (kind, display, reason) = ("AMB", "Follow-up encounter", chronic.display)
            length = Int64(rng.int(in: 15...40)) * 60
        } else if roll < 0.63 {
            (kind, display) = ("EMER", "Emergency room admission (procedure)")
            length = Int64(rng.int(in: 2...8)) * 3600
            acute = true
        } else if roll < 0.645 {
            (kind, display, reason) = ("IMP", "Hospital admission", chronic?.display ?? "")
            length = Int64(rng.int(in: 2...6)) * Self.day
        } else {
            (kind, display) = ("AMB", "General examination of patient (procedure)")
            length = Int64(rng.int(in: 15...45)) * 60
            acute = rng.chance(0.2)
        }
        if acute {
            let illness = rng.pick(DemoCatalog.acute)
            reason = illness.display
            try problem(
                w,
                illness.code,
                illness.display,
                "resolved",
                time,
                time + Int64(rng.int(in: 7...21)) * Self.day
            )
            if let drug = illness.drug { try medication(w, drug, "completed", time) }
        }
        w.encounter.bind(id)
        w.encounter.bind(kind)
        w.encounter.bind(display)
        w.encounter.bind(reason)
        w.encounter.bind(time)
        w.encounter.bind(time + length)
        try w.encounter.run()

        // Vitals at every visit.
        let child = ageThen < 18
        let height = child ? min(body.adultHeight, 52 + 6.4 * ageThen) : body.adultHeight
        let bmi = child ? 15.5 + 0.3 * ageThen : body.bmi + rng.normal(mean: 0, sd: 0.4)
        if ageThen >= 3 {
            try observation(w, DemoCatalog.Obs.systolic, (body.systolic + rng.normal(mean: 0, sd: 7)).rounded(), time)
            try observation(w, DemoCatalog.Obs.diastolic, (body.diastolic + rng.normal(mean: 0, sd: 5)).rounded(), time)
        }
        try observation(w, DemoCatalog.Obs.heartRate, (body.heartRate + rng.normal(mean: 0, sd: 6)).rounded(), time)
        try observation(w, DemoCatalog.Obs.weight, tenth(bmi * height * height / 10_000), time)
        if child || rng.chance(0.15) {
            try observation(w, DemoCatalog.Obs.height, tenth(height), time)
            try observation(w, DemoCatalog.Obs.bmi, tenth(bmi), time)
        }
        if kind != "AMB" || rng.chance(0.35) {
            try observation(
                w,
                DemoCatalog.Obs.temperature,
                tenth(rng.normal(mean: kind == "EMER" ? 37.6 : 36.9, sd: 0.4)),
                time
            )
        }
        if rng.chance(0.15) {
            try observation(w, DemoCatalog.Obs.respiration, rng.normal(mean: 16, sd: 2).rounded(), time)
        }
        body.bmi += rng.normal(mean: 0.05, sd: 0.3)

        // Labs: by condition, and general panels more often in hospital.
        let labTime = time + 1800
        let has = { (number: Int) in conditions.contains(number) }
        let diabetic = has(DemoCatalog.Condition.diabetes)
        if diabetic, rng.chance(0.45) {
            try observation(w, DemoCatalog.Obs.a1c, tenth(rng.normal(mean: 7.4, sd: 0.9)), labTime)
        }
        if has(DemoCatalog.Condition.hyperlipidemia), rng.chance(0.3) {
            try observation(w, DemoCatalog.Obs.cholesterol, rng.normal(mean: 215, sd: 30).rounded(), labTime)
            try observation(w, DemoCatalog.Obs.triglycerides, rng.normal(mean: 170, sd: 45).rounded(), labTime)
            try observation(w, DemoCatalog.Obs.ldl, rng.normal(mean: 130, sd: 25).rounded(), labTime)
            try observation(w, DemoCatalog.Obs.hdl, rng.normal(mean: 45, sd: 8).rounded(), labTime)
        }
        if has(DemoCatalog.Condition.kidney), rng.chance(0.5) {
            try observation(w, DemoCatalog.Obs.creatinine, hundredth(rng.normal(mean: 1.6, sd: 0.3)), labTime)
            try observation(w, DemoCatalog.Obs.egfr, rng.normal(mean: 45, sd: 8).rounded(), labTime)
        }
        if has(DemoCatalog.Condition.fibrillation), rng.chance(0.6) {
            try observation(w, DemoCatalog.Obs.inr, tenth(rng.normal(mean: 2.5, sd: 0.5)), labTime)
        }
        if rng.chance(kind == "IMP" ? 1 : kind == "EMER" ? 0.6 : 0.1) {
            try observation(
                w,
                DemoCatalog.Obs.glucose,
                rng.normal(mean: diabetic ? 150 : 95, sd: 14).rounded(),
                labTime
            )
            try observation(w, DemoCatalog.Obs.creatinine, hundredth(rng.normal(mean: 0.95, sd: 0.15)), labTime)
            try observation(w, DemoCatalog.Obs.sodium, rng.normal(mean: 140, sd: 2).rounded(), labTime)
            try observation(w, DemoCatalog.Obs.potassium, tenth(rng.normal(mean: 4.2, sd: 0.3)), labTime)
        }
        if rng.chance(kind == "IMP" ? 1 : kind == "EMER" ? 0.5 : 0.08) {
            try observation(
                w,
                DemoCatalog.Obs.hemoglobin,
                tenth(rng.normal(mean: body.female ? 13.5 : 15, sd: 1.1)),
                labTime
            )
            try observation(w, DemoCatalog.Obs.leukocytes, tenth(rng.normal(mean: 7, sd: 1.8)), labTime)
            try observation(w, DemoCatalog.Obs.platelets, rng.normal(mean: 250, sd: 50).rounded(), labTime)
        }

        if kind == "IMP" || rng.chance(0.1) {
            let topic = reason.isEmpty ? "a routine check-up" : reason.replacing(" (disorder)", with: "")
            w.note.bind(id)
            w.note.bind(rng.pick(Self.authors))
            w.note.bind(time + length)
            w.note.bind(rng.pick(DemoCatalog.notes).replacing("%@", with: topic))
            try w.note.run()
        }
    }

    private func problem(
        _ w: DemoWriter,
        _ code: String,
        _ display: String,
        _ status: String,
        _ onset: Int64,
        _ abated: Int64?
    ) throws {
        w.problem.bind(id)
        w.problem.bind(code)
        w.problem.bind(display)
        w.problem.bind(status)
        w.problem.bind(onset)
        w.problem.bind(abated)
        try w.problem.run()
    }

    private func medication(_ w: DemoWriter, _ drug: DemoCatalog.Drug, _ status: String, _ authored: Int64) throws {
        w.medication.bind(id)
        w.medication.bind(drug.code)
        w.medication.bind(drug.display)
        w.medication.bind(status)
        w.medication.bind(drug.dosage)
        w.medication.bind(authored)
        try w.medication.run()
    }

    private mutating func observation(_ w: DemoWriter, _ code: Int64, _ value: Double, _ time: Int64) throws {
        w.observation.bind(RecordsLayout.observationIDs(patient: id).lowerBound + observationCount)
        observationCount += 1
        w.observation.bind(code)
        w.observation.bind(value)
        w.observation.bind(time)
        try w.observation.run()
    }

    private func tenth(_ value: Double) -> Double { (value * 10).rounded() / 10 }
    private func hundredth(_ value: Double) -> Double { (value * 100).rounded() / 100 }
}
