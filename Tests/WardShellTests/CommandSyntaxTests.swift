import Testing
import WardCore

@testable import WardShell

/// Every command's forms, read by its `CommandSyntax` (no swift-argument-parser per line).
@Suite struct CommandSyntaxTests {
    /// The line as the shell reads it: the command's name, then the rest against its syntax.
    private func parse(_ line: String) throws -> CommandSyntax.Parsed {
        let name = line.prefix(while: { $0 != " " })
        let type = try #require(Shell.command(named: String(name)))
        return try type.syntax.parse(line: line[name.endIndex...])
    }

    private func arguments(_ line: String) throws -> ParsedArguments {
        guard case .arguments(let parsed) = try parse(line) else {
            Issue.record("\(line) asked for help")
            return ParsedArguments()
        }
        return parsed
    }

    @Test func everyCommand_andAlias_isFoundByName() {
        for name in [
            "help", "find", "open", "show", "note", "close", "charts", "whoami", "lock", "logout", "exit", "quit",
        ] {
            #expect(Shell.command(named: name) != nil, "\(name)")
        }
        #expect(Shell.command(named: "frobnicate") == nil)
    }

    @Test func open_takesOneMRN_andAReason_inEitherForm() throws {
        #expect(try arguments("open M1") == ParsedArguments(operands: ["M1"]))
        #expect(
            try arguments("open M3 --reason 'on call, chest pain'")
                == ParsedArguments(operands: ["M3"], values: ["reason": "on call, chest pain"])
        )
        #expect(try arguments("open M3 --reason=why") == ParsedArguments(operands: ["M3"], values: ["reason": "why"]))
        // The reason is the rest of the line: an MRN after it is part of the reason.
        #expect(throws: UsageError.self) { try parse("open --reason=why M3") }
        #expect(try arguments("open -- -M3") == ParsedArguments(operands: ["-M3"]))
    }

    @Test func usageErrors_sayWhatIsWrong_andShowTheUsage() throws {
        func error(_ line: String) throws -> UsageError {
            do {
                _ = try parse(line)
            } catch let error as UsageError {
                return error
            }
            throw UsageError(.invalid("no error for \(line)"), syntax: CommandSyntax("x", abstract: ""))
        }
        #expect(
            try error("open").description == """
                Error: Missing expected argument '<mrn>'
                Usage: open <mrn> [--reason <reason>]
                  See 'help open' for more information.
                """
        )
        #expect(try error("open M1 --reason").summary == "Missing value for '--reason <reason>'")
        #expect(try error("open M1 M2").summary == "Unexpected argument 'M2'")
        #expect(try error("whoami alice").summary == "Unexpected argument 'alice'")
        #expect(try error("show --everything").summary == "Unknown option '--everything'")
        #expect(try error("show -x").summary == "Unknown option '-x'")
        #expect(try error("show --all=yes").summary == "'--all' takes no value")
    }

    @Test func show_takesASection_andAll() throws {
        #expect(try arguments("show") == ParsedArguments())
        #expect(try arguments("show labs --all") == ParsedArguments(operands: ["labs"], flags: ["all"]))
        #expect(try arguments("show --all") == ParsedArguments(flags: ["all"]))
    }

    @Test func find_takesItsWordsAsTyped_andItsFlagWherever() throws {
        #expect(try arguments("find lov ada") == ParsedArguments(operands: ["lov ada"]))
        #expect(try arguments("find o'brien --all") == ParsedArguments(operands: ["o'brien"], flags: ["all"]))
        #expect(
            try arguments(#"find --all "van der" berg"#)
                == ParsedArguments(operands: [#""van der" berg"#], flags: ["all"])
        )
    }

    @Test func note_takesTheRestOfTheLine_exactlyAsTyped_optionsAndAll() throws {
        #expect(
            try arguments("note Seen --  --all stable, -x 'unclosed")
                == ParsedArguments(operands: ["Seen --  --all stable, -x 'unclosed"])
        )
        #expect(try parse("note --help") == .help)
        #expect(try arguments("note see --help") == ParsedArguments(operands: ["see --help"]))
        #expect(try arguments("note") == ParsedArguments())
    }

    @Test func reason_isTheRestOfTheLine_whereverTheMRNIsQuoted() throws {
        #expect(
            try arguments("open 'M3' --reason Mother's  request")
                == ParsedArguments(operands: ["M3"], values: ["reason": "Mother's  request"])
        )
        #expect(
            try arguments(#"open M3 --reason "on call""#)
                == ParsedArguments(operands: ["M3"], values: ["reason": "on call"])
        )
        #expect(
            try arguments("open M3 --reason=Dr O'Neil asked")
                == ParsedArguments(operands: ["M3"], values: ["reason": "Dr O'Neil asked"])
        )
    }

    @Test func help_isAskedFor_withDashH_orDashDashHelp_anywhereButInText() throws {
        for line in ["open --help", "open M1 -h", "show labs --help", "whoami --help", "find -h"] {
            #expect(try parse(line) == .help, "\(line)")
        }
    }

    @Test func helpText_showsOverviewUsageArgumentsAndOptions() throws {
        let help = try #require(Shell.command(named: "open")).syntax.help
        #expect(
            help.hasPrefix(
                "OVERVIEW: Open one patient's chart by medical record number.\n\nUSAGE: open <mrn> [--reason <reason>]"
            )
        )
        #expect(
            help.contains(
                "  <mrn>                   The patient's MRN, as listed by 'find'; or its first characters, when no "
                    + "other MRN starts so; or the row number of the last 'find' (N or #N)."
            )
        )
        #expect(help.contains("  --reason <reason>       Why you open a restricted chart"))
        #expect(help.contains("  -h, --help              Show help information."))
        #expect(try #require(Shell.command(named: "quit")).syntax.help.contains("ALIASES: exit, quit"))
    }
}

/// The same forms, run by the shell: the messages users read.
@Suite struct ShellParsingTests {
    @Test func open_withReasonInEqualsForm_opensTheRestrictedChart() throws {
        let f = try ShellFixture()
        #expect(f.run("open M3 --reason=on-call").result == .succeeded)
        #expect(f.shell.lastBreakGlass?.reason == "on-call")
    }

    @Test func open_withoutMRN_orWithAnEmptyReason_isAUsageError_andOpensNothing() throws {
        let f = try ShellFixture()
        #expect(
            f.run("open") == (
                .failed,
                """
                ward: Error: Missing expected argument '<mrn>'
                Usage: open <mrn> [--reason <reason>]
                  See 'help open' for more information.
                """
            )
        )
        let (result, output) = f.run("open M3 --reason '  '")
        #expect(result == .failed && output.contains("The reason is empty. Say why you open this chart."))
        #expect(f.shell.charts.isEmpty)
    }

    @Test func show_anUnknownSection_listsTheSections() throws {
        let f = try ShellFixture()
        f.run("open M1")
        let (result, output) = f.run("show nonsense")
        #expect(result == .failed)
        #expect(
            output.hasPrefix(
                "ward: Error: The value 'nonsense' is invalid for '<section>'. Please provide one of 'summary', 'allergies', "
            )
        )
    }

    @Test func aMistypedCommand_suggestsTheNearestName() throws {
        let f = try ShellFixture()
        #expect(
            f.run("shwo labs").output == "ward: unknown command 'shwo'. Did you mean 'show'? Type 'help' for the list."
        )
        #expect(f.run("xyzzy").output == "ward: unknown command 'xyzzy'. Type 'help' for the list.")
        // The typed word is hostile: it reaches the terminal sanitized, the suggestion with it.
        let hostile = f.run("shw\u{1B}[2J").output
        #expect(!hostile.contains("\u{1B}") && hostile.contains(#"shw\e[2J"#), "\(hostile)")
    }

    @Test func show_takesAUniquePrefix_listsAnAmbiguousOnes_andSuggestsANearName() throws {
        let f = try ShellFixture()
        f.run("open M1")
        #expect(f.run("show al").output == f.run("show allergies").output)
        #expect(f.run("show lab").output == f.run("show labs").output)
        let (ambiguous, candidates) = f.run("show s")
        #expect(ambiguous == .failed)
        #expect(
            candidates.hasPrefix("ward: Error: 's' could be any of 'summary', 'social', 'surveys'; type more letters")
        )
        let (typo, suggestion) = f.run("show lasb")
        #expect(typo == .failed && suggestion.hasPrefix("ward: Error: No section 'lasb'. Did you mean 'labs'?"))
    }

    @Test func suggestion_isABoundedDamerauLevenshteinDistance() {
        #expect(Suggestion.distance("shwo", "show", limit: 2) == 1)
        #expect(Suggestion.distance("lab", "labs", limit: 1) == 1)
        #expect(Suggestion.distance("kitten", "sitting", limit: 3) == 3)
        #expect(Suggestion.distance("kitten", "sitting", limit: 2) == nil)
        #expect(Suggestion.distance(String(repeating: "a", count: 1_000_000), "show", limit: 2) == nil)
        #expect(Suggestion.nearest("lsb", in: ["labs", "meds"]) == nil)
        // Two names equally near: no guess.
        #expect(Suggestion.nearest("cat", in: ["bat", "hat"]) == nil)
    }

    @Test func commandHelp_isPrinted_andSucceeds() throws {
        let f = try ShellFixture()
        let (result, output) = f.run("note --help")
        #expect(result == .succeeded && output.hasPrefix("OVERVIEW: Add a signed, timed note to the current chart."))
        #expect(f.run("help open").output == f.run("open --help").output)
    }

    @Test func note_keepsSpacesQuotesAndBackslashes_asTyped() throws {
        let f = try ShellFixture()
        f.run("open M1")
        #expect(f.run("note  a   b 'c  d'  \"e\\\"f\"").result == .succeeded)
        #expect(try f.store.chart(mrn: "M1").notes.map(\.text) == ["a   b 'c  d'  \"e\\\"f\""])
    }

    @Test func aNoteOfAMebibyte_isSavedWhole() throws {
        let f = try ShellFixture()
        f.run("open M1")
        let word = "abcdefg "
        let text = String(repeating: word, count: (Line.maximumLength - 5) / word.utf8.count)
        let line = "note " + text
        #expect(line.utf8.count <= Line.maximumLength)
        #expect(f.run(line).result == .succeeded)
        let saved = try f.store.chart(mrn: "M1").notes.first?.text
        #expect(saved == text, "the trailing space too: the text as typed")
    }

}

@Suite struct FindWordLimitTests {
    @Test func find_withMoreThan32DifferentWords_isAUsageError_butRepeatsCountOnce() throws {
        let f = try ShellFixture()
        let many = (0..<33).map { "w\($0)" }.joined(separator: " ")
        let (result, output) = f.run("find " + many)
        #expect(result == .failed && output.contains("Type at most 32 different words to look for; a name has fewer."))
        #expect(f.run("find " + String(repeating: "lov ", count: 10_000)).output.contains("M1"))
    }

    @Test func find_countsWordsAsTheIndexSplitsThem_soOneWordOfManyPartsIsRefused() throws {
        let f = try ShellFixture()
        // One word to the shell, 120,000 to the index: it took 13 s before it was counted so.
        let parts = (0..<120_000).map { "x\($0)" }.joined(separator: ".")
        let (result, output) = f.run("find " + parts)
        #expect(result == .failed && output.contains("Type at most 32 different words to look for; a name has fewer."))
        #expect(f.run("find lov.ada").output.contains("M1"))
    }
}
