import Foundation
import Testing

@testable import WardShell

/// `RowFilter`'s words as a clinician types them: without case, spaces or punctuation, by code,
/// and by the common abbreviations of `ClinicalAbbreviations`.
@Suite struct RowFilterTests {
    static let a1c = (name: "Hemoglobin A1c/Hemoglobin.total in Blood", code: "4548-4")
    static let hemoglobin = (name: "Hemoglobin [Mass/volume] in Blood", code: "718-7")
    static let glucose = (name: "Glucose [Mass/volume] in Blood", code: "2339-0")
    static let bmi = (name: "Body mass index (BMI) [Ratio]", code: "39156-5")
    static let ldl = (name: "Low Density Lipoprotein Cholesterol", code: "18262-6")

    private func filter(_ words: String...) throws -> RowFilter {
        try RowFilter(words: words, since: nil, until: nil, syntax: ShowCommand.syntax)
    }

    private func keeps(_ filter: RowFilter, _ row: (name: String, code: String)) -> Bool {
        filter.keeps(name: row.name, code: row.code, date: nil)
    }

    @Test func normalForm_isLowerCaseLettersAndDigits() {
        #expect(RowFilter.normalized("Hb-A1c") == "hba1c")
        #expect(RowFilter.normalized("Hemoglobin A1c/Hemoglobin.total") == "hemoglobina1chemoglobintotal")
        #expect(RowFilter.normalized("4548-4") == "45484")
        #expect(RowFilter.normalized("Größe") == "größe")
    }

    @Test func hba1c_andItsSpellings_findTheRealName() throws {
        for word in ["hba1c", "HbA1c", "Hb-A1c", "a1c", "A1C"] {
            let filter = try filter(word)
            #expect(keeps(filter, Self.a1c), "\(word)")
            #expect(!keeps(filter, Self.glucose), "\(word)")
            #expect(!keeps(filter, Self.hemoglobin), "\(word)")
        }
        // Words of the name, in any case and with its punctuation or without.
        #expect(keeps(try filter("hemoglobin", "a1c"), Self.a1c))
        #expect(keeps(try filter("hemoglobin.total"), Self.a1c))
        #expect(keeps(try filter("hemoglobintotal"), Self.a1c))
    }

    @Test func aCode_matchesTheRowWithThatCode_only() throws {
        #expect(keeps(try filter("4548-4"), Self.a1c))
        #expect(keeps(try filter("45484"), Self.a1c))
        #expect(!keeps(try filter("4548-4"), Self.glucose))
        // A code matches whole, not a part of another code.
        #expect(!keeps(try filter("4548"), Self.a1c))
    }

    @Test func abbreviations_matchTheirCodesOrNameWords() throws {
        #expect(keeps(try filter("bmi"), Self.bmi))
        #expect(keeps(try filter("BMI"), (name: "Body Mass Index", code: "")))
        #expect(keeps(try filter("ldl"), Self.ldl))
        #expect(!keeps(try filter("hdl"), Self.ldl))
        #expect(keeps(try filter("hb"), Self.hemoglobin))
        #expect(keeps(try filter("hgb"), Self.hemoglobin))
        #expect(!keeps(try filter("hb"), Self.a1c))
        #expect(keeps(try filter("egfr"), (name: "Glomerular filtration rate/1.73 sq M.predicted", code: "")))
        #expect(keeps(try filter("wbc"), (name: "Leukocytes [#/volume] in Blood", code: "6690-2")))
        #expect(keeps(try filter("bp"), (name: "Systolic Blood Pressure", code: "8480-6")))
        #expect(!keeps(try filter("bmi"), Self.glucose))
    }

    @Test func everyWord_mustMatch() throws {
        #expect(keeps(try filter("a1c", "blood"), Self.a1c))
        #expect(!keeps(try filter("a1c", "glucose"), Self.a1c))
    }

    @Test func punctuationOnly_isNoWord() throws {
        #expect(try filter("--", "/").isEmpty)
    }
}
