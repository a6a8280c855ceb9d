/// The word lists and clinical codes the demo generator draws from.
///
/// Codes are the ones Synthea uses (LOINC for observations, SNOMED CT for conditions and some
/// allergies, RxNorm for medications), so a demo chart reads like an imported one. Names are
/// common US names; with about 20,000 name pairs per sex, a million patients repeat names the
/// way a real population does, which is what `find` must cope with.
enum DemoCatalog {
    static let femaleGiven = [
        "Mary", "Patricia", "Jennifer", "Linda", "Elizabeth", "Barbara", "Susan", "Jessica", "Sarah", "Karen",
        "Lisa", "Nancy", "Betty", "Margaret", "Sandra", "Ashley", "Kimberly", "Emily", "Donna", "Michelle",
        "Carol", "Amanda", "Dorothy", "Melissa", "Deborah", "Stephanie", "Rebecca", "Sharon", "Laura", "Cynthia",
        "Kathleen", "Amy", "Angela", "Shirley", "Anna", "Brenda", "Pamela", "Emma", "Nicole", "Helen",
        "Samantha", "Katherine", "Christine", "Debra", "Rachel", "Carolyn", "Janet", "Catherine", "Maria", "Heather",
        "Diane", "Ruth", "Julie", "Olivia", "Joyce", "Virginia", "Victoria", "Kelly", "Lauren", "Christina",
        "Joan", "Evelyn", "Judith", "Megan", "Andrea", "Cheryl", "Hannah", "Jacqueline", "Martha", "Gloria",
        "Teresa", "Ann", "Sara", "Madison", "Frances", "Kathryn", "Janice", "Jean", "Abigail", "Alice",
        "Judy", "Sophia", "Grace", "Denise", "Amber", "Doris", "Marilyn", "Danielle", "Beverly", "Isabella",
        "Theresa", "Diana", "Natalie", "Brittany", "Charlotte", "Marie", "Kayla", "Alexis", "Lori", "Zoë",
        "José", "Renée", "Chloé", "Inés", "Siobhan", "Ngozi", "Mei", "Priya", "Aaliyah", "Fatima",
    ]
    static let maleGiven = [
        "James", "Robert", "John", "Michael", "David", "William", "Richard", "Joseph", "Thomas", "Christopher",
        "Charles", "Daniel", "Matthew", "Anthony", "Mark", "Donald", "Steven", "Andrew", "Paul", "Joshua",
        "Kenneth", "Kevin", "Brian", "George", "Timothy", "Ronald", "Jason", "Edward", "Jeffrey", "Ryan",
        "Jacob", "Gary", "Nicholas", "Eric", "Jonathan", "Stephen", "Larry", "Justin", "Scott", "Brandon",
        "Benjamin", "Samuel", "Gregory", "Alexander", "Patrick", "Frank", "Raymond", "Jack", "Dennis", "Jerry",
        "Tyler", "Aaron", "Jose", "Adam", "Nathan", "Henry", "Zachary", "Douglas", "Peter", "Kyle",
        "Noah", "Ethan", "Jeremy", "Walter", "Christian", "Keith", "Roger", "Terry", "Austin", "Sean",
        "Gerald", "Carl", "Harold", "Dylan", "Arthur", "Lawrence", "Jordan", "Jesse", "Bryan", "Billy",
        "Bruce", "Gabriel", "Joe", "Logan", "Alan", "Juan", "Albert", "Willie", "Elijah", "Wayne",
        "Randy", "Vincent", "Mason", "Roy", "Ralph", "Bobby", "Russell", "Bradley", "Philip", "Eugene",
        "Björn", "Zoltán", "Ahmed", "Hiroshi", "Chidi", "Rahul", "Mateo", "Liam", "Oisín", "Wei",
    ]
    static let family = [
        "Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez",
        "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin",
        "Lee", "Perez", "Thompson", "White", "Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson",
        "Walker", "Young", "Allen", "King", "Wright", "Scott", "Torres", "Nguyen", "Hill", "Flores",
        "Green", "Adams", "Nelson", "Baker", "Hall", "Rivera", "Campbell", "Mitchell", "Carter", "Roberts",
        "Gomez", "Phillips", "Evans", "Turner", "Diaz", "Parker", "Cruz", "Edwards", "Collins", "Reyes",
        "Stewart", "Morris", "Morales", "Murphy", "Cook", "Rogers", "Gutierrez", "Ortiz", "Morgan", "Cooper",
        "Peterson", "Bailey", "Reed", "Kelly", "Howard", "Ramos", "Kim", "Cox", "Ward", "Richardson",
        "Watson", "Brooks", "Chavez", "Wood", "James", "Bennett", "Gray", "Mendoza", "Ruiz", "Hughes",
        "Price", "Alvarez", "Castillo", "Sanders", "Patel", "Myers", "Long", "Ross", "Foster", "Jimenez",
        "Powell", "Jenkins", "Perry", "Russell", "Sullivan", "Bell", "Coleman", "Butler", "Henderson", "Barnes",
        "Gonzales", "Fisher", "Vasquez", "Simmons", "Romero", "Jordan", "Patterson", "Alexander", "Hamilton", "Graham",
        "Reynolds", "Griffin", "Wallace", "Moreno", "West", "Cole", "Hayes", "Bryant", "Herrera", "Gibson",
        "Ellis", "Tran", "Medina", "Aguilar", "Stevens", "Murray", "Ford", "Castro", "Marshall", "Owens",
        "Harrison", "Fernandez", "McDonald", "Woods", "Washington", "Kennedy", "Wells", "Vargas", "Henry", "Chen",
        "Freeman", "Webb", "Tucker", "Guzman", "Burns", "Crawford", "Olson", "Simpson", "Porter", "Hunter",
        "Gordon", "Mendez", "Silva", "Shaw", "Snyder", "Mason", "Dixon", "Muñoz", "Hunt", "Hicks",
        "Holmes", "Palmer", "Wagner", "Black", "Robertson", "Boyd", "Rose", "Stone", "Salazar", "Fox",
        "Warren", "Mills", "Meyer", "Rice", "Schmidt", "Garza", "Daniels", "Ferguson", "Nichols", "Stephens",
        "O'Brien", "Müller", "Søndergaard", "Nakamura", "Okafor", "Kowalski", "Dubois", "Rossi", "Singh", "Haddad",
    ]
    static let streets = [
        "Main", "Oak", "Pine", "Maple", "Cedar", "Elm", "Washington", "Lake", "Hill", "Park", "Walnut", "Sunset",
        "Lincoln", "Jackson", "Church", "River", "Willow", "Highland", "Meadow", "Forest", "Spring", "Chestnut",
    ]
    static let streetKinds = ["St", "Ave", "Rd", "Ln", "Dr", "Ct", "Way", "Pl"]
    static let towns: [(city: String, state: String, zip: Int)] = [
        ("Springfield", "MA", 1101), ("Worcester", "MA", 1601), ("Boston", "MA", 2108), ("Lowell", "MA", 1850),
        ("Cambridge", "MA", 2138), ("Quincy", "MA", 2169), ("Brockton", "MA", 2301), ("Lynn", "MA", 1901),
        ("New Bedford", "MA", 2740), ("Fall River", "MA", 2720), ("Newton", "MA", 2458), ("Somerville", "MA", 2143),
        ("Framingham", "MA", 1701), ("Haverhill", "MA", 1830), ("Waltham", "MA", 2451), ("Malden", "MA", 2148),
    ]

    /// An observation code: the row of `observation_code` the generator writes first; its id is
    /// its position in `observationCodes` plus one.
    struct Code {
        let code: String
        let display: String
        let unit: String
        let category: Observation.Category
    }

    static let observationCodes: [Code] = [
        Code(code: "8480-6", display: "Systolic Blood Pressure", unit: "mm[Hg]", category: .vitalSigns),
        Code(code: "8462-4", display: "Diastolic Blood Pressure", unit: "mm[Hg]", category: .vitalSigns),
        Code(code: "8867-4", display: "Heart rate", unit: "/min", category: .vitalSigns),
        Code(code: "29463-7", display: "Body Weight", unit: "kg", category: .vitalSigns),
        Code(code: "8302-2", display: "Body Height", unit: "cm", category: .vitalSigns),
        Code(code: "39156-5", display: "Body mass index (BMI) [Ratio]", unit: "kg/m2", category: .vitalSigns),
        Code(code: "8310-5", display: "Body temperature", unit: "Cel", category: .vitalSigns),
        Code(code: "9279-1", display: "Respiratory rate", unit: "/min", category: .vitalSigns),
        Code(code: "4548-4", display: "Hemoglobin A1c/Hemoglobin.total in Blood", unit: "%", category: .laboratory),
        Code(code: "2339-0", display: "Glucose [Mass/volume] in Blood", unit: "mg/dL", category: .laboratory),
        Code(
            code: "2160-0",
            display: "Creatinine [Mass/volume] in Serum or Plasma",
            unit: "mg/dL",
            category: .laboratory
        ),
        Code(
            code: "2951-2",
            display: "Sodium [Moles/volume] in Serum or Plasma",
            unit: "mmol/L",
            category: .laboratory
        ),
        Code(
            code: "2823-3",
            display: "Potassium [Moles/volume] in Serum or Plasma",
            unit: "mmol/L",
            category: .laboratory
        ),
        Code(
            code: "2093-3",
            display: "Cholesterol [Mass/volume] in Serum or Plasma",
            unit: "mg/dL",
            category: .laboratory
        ),
        Code(code: "2571-8", display: "Triglycerides", unit: "mg/dL", category: .laboratory),
        Code(code: "18262-6", display: "Low Density Lipoprotein Cholesterol", unit: "mg/dL", category: .laboratory),
        Code(code: "2085-9", display: "High Density Lipoprotein Cholesterol", unit: "mg/dL", category: .laboratory),
        Code(
            code: "33914-3",
            display: "Glomerular filtration rate/1.73 sq M.predicted",
            unit: "mL/min/{1.73_m2}",
            category: .laboratory
        ),
        Code(code: "718-7", display: "Hemoglobin [Mass/volume] in Blood", unit: "g/dL", category: .laboratory),
        Code(
            code: "6690-2",
            display: "Leukocytes [#/volume] in Blood by Automated count",
            unit: "10*3/uL",
            category: .laboratory
        ),
        Code(
            code: "777-3",
            display: "Platelets [#/volume] in Blood by Automated count",
            unit: "10*3/uL",
            category: .laboratory
        ),
        Code(
            code: "6301-6",
            display: "INR in Platelet poor plasma by Coagulation assay",
            unit: "{INR}",
            category: .laboratory
        ),
    ]

    /// Ids into `observationCodes` (position + 1), by name, so the generator reads clearly.
    enum Obs {
        static let systolic: Int64 = 1, diastolic: Int64 = 2, heartRate: Int64 = 3, weight: Int64 = 4
        static let height: Int64 = 5, bmi: Int64 = 6, temperature: Int64 = 7, respiration: Int64 = 8
        static let a1c: Int64 = 9, glucose: Int64 = 10, creatinine: Int64 = 11, sodium: Int64 = 12
        static let potassium: Int64 = 13, cholesterol: Int64 = 14, triglycerides: Int64 = 15, ldl: Int64 = 16
        static let hdl: Int64 = 17, egfr: Int64 = 18, hemoglobin: Int64 = 19, leukocytes: Int64 = 20
        static let platelets: Int64 = 21, inr: Int64 = 22
    }

    struct Drug {
        let code: String
        let display: String
        let dosage: String
    }

    /// A long-term condition: who gets it (by age), what it is treated with.
    struct Chronic {
        let code: String
        let display: String
        let minimumAge: Int
        /// Probability at age `minimumAge + 10`, growing with age up to `ceiling`.
        let slope: Double
        let ceiling: Double
        let drugs: [Drug]
    }

    static let chronic: [Chronic] = [
        Chronic(
            code: "59621000",
            display: "Essential hypertension (disorder)",
            minimumAge: 25,
            slope: 0.012,
            ceiling: 0.6,
            drugs: [Drug(code: "314076", display: "lisinopril 10 MG Oral Tablet", dosage: "1 tablet by mouth daily")]
        ),
        Chronic(
            code: "44054006",
            display: "Diabetes mellitus type 2 (disorder)",
            minimumAge: 30,
            slope: 0.005,
            ceiling: 0.25,
            drugs: [
                Drug(
                    code: "860975",
                    display: "24 HR metformin hydrochloride 500 MG Extended Release Oral Tablet",
                    dosage: "1 tablet by mouth twice daily with meals"
                )
            ]
        ),
        Chronic(
            code: "55822004",
            display: "Hyperlipidemia (disorder)",
            minimumAge: 30,
            slope: 0.008,
            ceiling: 0.4,
            drugs: [
                Drug(code: "259255", display: "atorvastatin 80 MG Oral Tablet", dosage: "1 tablet by mouth at bedtime")
            ]
        ),
        Chronic(
            code: "195967001",
            display: "Asthma (disorder)",
            minimumAge: 3,
            slope: 0.0,
            ceiling: 0.08,
            drugs: [
                Drug(
                    code: "2123111",
                    display: "Albuterol 0.09 MG/ACTUAT Metered Dose Inhaler",
                    dosage: "2 puffs every 4 to 6 hours as needed"
                ),
                Drug(
                    code: "895994",
                    display: "Fluticasone propionate 0.044 MG/ACTUAT Metered Dose Inhaler",
                    dosage: "2 puffs twice daily"
                ),
            ]
        ),
        Chronic(
            code: "13645005",
            display: "Chronic obstructive lung disease (disorder)",
            minimumAge: 45,
            slope: 0.003,
            ceiling: 0.08,
            drugs: [
                Drug(
                    code: "2123111",
                    display: "Albuterol 0.09 MG/ACTUAT Metered Dose Inhaler",
                    dosage: "2 puffs every 4 to 6 hours as needed"
                )
            ]
        ),
        Chronic(
            code: "433144002",
            display: "Chronic kidney disease stage 3 (disorder)",
            minimumAge: 50,
            slope: 0.004,
            ceiling: 0.1,
            drugs: []
        ),
        Chronic(
            code: "49436004",
            display: "Atrial fibrillation (disorder)",
            minimumAge: 60,
            slope: 0.006,
            ceiling: 0.12,
            drugs: [Drug(code: "855332", display: "warfarin sodium 5 MG Oral Tablet", dosage: "as directed by INR")]
        ),
        Chronic(
            code: "370143000",
            display: "Major depressive disorder (disorder)",
            minimumAge: 15,
            slope: 0.0,
            ceiling: 0.08,
            drugs: [Drug(code: "312938", display: "sertraline 100 MG Oral Tablet", dosage: "1 tablet by mouth daily")]
        ),
        Chronic(
            code: "239873007",
            display: "Osteoarthritis of knee (disorder)",
            minimumAge: 50,
            slope: 0.01,
            ceiling: 0.3,
            drugs: [
                Drug(
                    code: "310965",
                    display: "ibuprofen 200 MG Oral Tablet",
                    dosage: "1 to 2 tablets every 6 hours as needed"
                )
            ]
        ),
    ]

    /// Indexes into `chronic` that drive specific labs and vitals.
    enum Condition {
        static let hypertension = 0, diabetes = 1, hyperlipidemia = 2, kidney = 5, fibrillation = 6
    }

    /// A short illness: a resolved problem and sometimes a short course of a drug.
    static let acute: [(code: String, display: String, drug: Drug?)] = [
        ("10509002", "Acute bronchitis (disorder)", nil),
        ("444814009", "Viral sinusitis (disorder)", nil),
        ("195662009", "Acute viral pharyngitis (disorder)", nil),
        (
            "43878008", "Streptococcal sore throat (disorder)",
            Drug(
                code: "308182",
                display: "Amoxicillin 250 MG Oral Capsule",
                dosage: "1 capsule by mouth 3 times daily for 10 days"
            )
        ),
        (
            "44465007", "Sprain of ankle (disorder)",
            Drug(
                code: "310965",
                display: "ibuprofen 200 MG Oral Tablet",
                dosage: "1 to 2 tablets every 6 hours as needed"
            )
        ),
        ("65966004", "Fracture of forearm (disorder)", nil),
        ("36971009", "Sinusitis (disorder)", nil),
        ("68496003", "Polyp of colon (disorder)", nil),
    ]

    static let allergies: [(substance: String, code: String, category: String, criticality: String)] = [
        ("Penicillin G", "7980", "medication", "high"),
        ("Sulfamethoxazole", "10180", "medication", "low"),
        ("Peanut (substance)", "256349002", "food", "high"),
        ("Shellfish (substance)", "227037002", "food", "high"),
        ("Latex (substance)", "111088007", "environment", "low"),
        ("House dust mite (organism)", "260147004", "environment", "low"),
        ("Grass pollen (substance)", "256277009", "environment", "low"),
        ("Animal dander (substance)", "264287008", "environment", "low"),
        ("Mold (organism)", "84489001", "environment", "low"),
        ("Eggs (edible) (substance)", "102263004", "food", "low"),
    ]

    /// Note templates; `%@` takes the reason for the visit.
    static let notes = [
        "Seen for %@. Symptoms stable since last visit. Continue current plan; return in 3 months.",
        "Follow-up of %@. Reviewed medications and recent results with the patient. No changes today.",
        "Visit for %@. Patient reports good adherence. Counselled on diet and exercise.",
        "%@: reviewed. Labs ordered; will call with results. Patient agrees with plan.",
        "Presented with %@. Examination unremarkable apart from the presenting complaint. Safety-netting advice given.",
    ]
}
