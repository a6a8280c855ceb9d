import ArgumentParser
import WardCore

/// A word where a subcommand goes that names none (`ward sesions`), found before the parser
/// sees the command line.
///
/// Left to the parser, the word would go to the default subcommand, `ward shell`, which takes
/// no words: at a terminal it says "Unexpected argument" with the shell's usage, and with
/// standard input not a terminal it starts reading that input as a script. Either way the
/// newcomer is not told the one thing that matters: the subcommand is misspelled.
struct UnknownSubcommand: WardError {
    let word: String
    /// The subcommand the word was probably meant to be.
    let suggestion: String?

    var description: String {
        "unknown subcommand '\(word)'"
            + (suggestion.map { "; did you mean '\($0)'?" } ?? "; 'ward --help' lists the subcommands.")
    }

    var exitStatus: ExitStatus { .usage }

    /// Options before the subcommand that take a value in the next word: the root's and the
    /// default subcommand's (`GlobalOptions`, `Ward.RecordsShell`), so that their values are
    /// not taken for a subcommand (`ward --user night sesions`).
    static let optionsTakingValues: Set<String> = [
        "--home", "--site", "--user", "--batch", "-c", "--password-fd", "--password-file", "--format",
        "--on-error", "--generate-completion-script",
    ]

    /// The first word in a subcommand's place that names no subcommand of the command there
    /// (`ward sesions`, `ward audit shw`); nil when every one does, or no word is there.
    static func find(in arguments: [String], root: any ParsableCommand.Type = Ward.self) -> UnknownSubcommand? {
        var command = root
        var words = arguments[...]
        while let word = words.popFirst() {
            // `--` ends the options; `---completion` is the completion scripts' call back.
            if word == "--" || word.hasPrefix("---") { return nil }
            if word.hasPrefix("-") {
                if optionsTakingValues.contains(word) { _ = words.popFirst() }
                continue
            }
            let subcommands = command.configuration.subcommands
            if subcommands.isEmpty || word == "help" { return nil }
            if let next = subcommands.first(where: { $0._commandName == word }) {
                command = next
                continue
            }
            // A command with a default takes words of its own only through that default, and
            // `ward shell` takes none: the word was meant as a subcommand.
            let names = subcommands.map { $0._commandName }
            let suggestion =
                names.filter { editDistance($0, word) <= 2 }.min { editDistance($0, word) < editDistance($1, word) }
                ?? names.first { $0.hasPrefix(word) || word.hasPrefix($0) }
            return UnknownSubcommand(word: word, suggestion: suggestion)
        }
        return nil
    }
}
