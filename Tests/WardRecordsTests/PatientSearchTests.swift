import FHIRTestSupport
import Foundation
import Testing

@testable import WardRecords

/// A store with names chosen so the ranking rules each decide one pair.
private func rankingStore(_ home: TemporaryHome) throws -> SQLiteRecordStore {
    let store = try SQLiteRecordStore(home: home.path)
    let people: [(String, [String], String)] = [
        ("A1", ["Leeann"], "Smith"),
        ("A2", ["John"], "Lee"),
        ("A3", ["Lee"], "Jones"),
        ("A4", ["Mary"], "Leeson"),
        ("A5", ["José"], "Muñoz"),
        ("A6", ["John"], "Smith"),
        ("A7", ["Johnny"], "Smithers"),
        ("B12", ["Ann"], "O'Brien"),
    ]
    try store.importing(
        Bundles.bundle(people.map { Bundles.patient($0.0.lowercased(), given: $0.1, family: $0.2, mrn: $0.0) })
    )
    return store
}

@Test func find_wholeFamilyName_beforeWholeGivenName_beforePrefixes() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try rankingStore(home)
    let result = try store.find("lee")
    #expect(result.matches.map(\.mrn) == ["A2", "A3", "A4", "A1"])
    #expect(result.total == 4 && !result.totalIsCapped)
}

@Test func find_severalWords_matchEveryWordInAnyOrder() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try rankingStore(home)
    #expect(try store.find("john smith").matches.map(\.mrn) == ["A6", "A7"])
    #expect(try store.find("smi joh").matches.map(\.mrn) == ["A6", "A7"])
    #expect(try store.find("smith john").matches.first?.mrn == "A6")
    #expect(try store.find("zzz smith").matches.isEmpty)
}

@Test func find_ignoresCaseAndDiacritics_andPunctuation() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try rankingStore(home)
    #expect(try store.find("JOSE munoz").matches.map(\.mrn) == ["A5"])
    #expect(try store.find("o'brien").matches.map(\.mrn) == ["B12"])
    // FTS5 syntax is taken as text, not as operators.
    #expect(try store.find("smith OR jones").matches.isEmpty)
    #expect(try store.find("\"smith").matches.count == 3)
}

@Test func find_byMRN_putsThatPatientFirst() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try rankingStore(home)
    let result = try store.find("b12")
    #expect(result.matches.map(\.mrn) == ["B12"])
    #expect(result.matches.first?.score == PatientSearch.mrnScore)
    #expect(result.total == 1)
}

@Test func find_emptyText_findsNothing() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try rankingStore(home)
    #expect(try store.find("   ") == .none)
    #expect(try store.find("--") == .none)
}

@Test func find_limit_keepsTheBest_andCountsAll() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try rankingStore(home)
    let result = try store.find("s", limit: 2)
    #expect(result.matches.count == 2)
    #expect(result.total == 3)  // Smith, Smith, Smithers
}

@Test func find_afterNameChange_followsTheNewName() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = try rankingStore(home)
    // Re-import of the same patient with a new family name: the FTS triggers follow.
    try store.importing(Bundles.bundle([Bundles.patient("a6", given: ["John"], family: "Newman", mrn: "A6")]))
    #expect(try store.find("newman").matches.map(\.mrn) == ["A6"])
    #expect(try store.find("john smith").matches.map(\.mrn) == ["A7"])
}

@Test func tokens_ofASCII_agreeWithFoundationFolding() {
    // ASCII names take a fast path; it must split and fold as the general path does.
    for text in ["OBrien-SMITH 2nd", "  Mary  Ann ", "McDONALD", "--", "a1b2", "Lee,Jones"] {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
        #expect(PatientSearch.tokens(text) == folded)
    }
    #expect(PatientSearch.tokens("José MUÑOZ-Núñez") == ["jose", "munoz", "nunez"])
}

@Test func fold_agreesWithFoundationFolding_forLatinGreekAndCyrillic() {
    // Ward folds without Foundation (its binary does not link it); indexes written before were
    // folded by Foundation, so every letter of the scripts names are written in folds the same:
    // alone, after a letter, and each combining mark after a letter.
    var differing: [String] = []
    for value in Array(0xC0...0x52F) + Array(0x1E00...0x1FFF) {
        guard let scalar = Unicode.Scalar(value), scalar.properties.isAlphabetic else { continue }
        for text in [String(scalar).lowercased(), "a" + String(scalar).lowercased()] {
            let expected = text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            let folded = NameWords.caseFolded(NameWords.withoutDiacritics(text))
            if Array(folded.unicodeScalars) != Array(expected.unicodeScalars) {
                differing.append("U+" + String(value, radix: 16, uppercase: true))
            }
        }
    }
    #expect(differing == [])
}
