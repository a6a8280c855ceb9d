import ArgumentParser
import CScrub
import Glibc
import WardCore
import WardShell

extension Ward {
    /// `ward shell`, which is also plain `ward`: the records shell on a terminal, or a script's
    /// commands with `--batch` (or whenever standard input is not a terminal).
    ///
    /// A subcommand, not options of `ward` itself, because a parent's `--format` would take the
    /// value of `ward audit show --format json` (a known limit of swift-argument-parser).
    struct RecordsShell: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "shell",
            abstract:
                "The records shell (the default): on the terminal, a script with --batch, or one command with -c.",
            discussion: """
                On a terminal, Ward asks who you are and opens the shell; type 'help' there. With \
                --batch FILE (or '-', or any standard input that is not a terminal), each line of the \
                script is one shell command, run under the same interceptors, audit log and idle lock \
                as a person's. Results go to standard output; failures go to standard error as \
                FILE:LINE: message.

                  ward --batch rounds.ward --user night --password-file ~/.pw --format json
                  printf 'find lovelace\\n' | ward --user night --password-fd 3 3<~/.pw
                  ward -c 'find lovelace' --user night --password-file ~/.pw
                """
        )

        @OptionGroup var global: GlobalOptions

        @OptionGroup var options: ShellOptions

        /// Option mistakes, before anything is opened: the parser shows them with this command's
        /// usage and exits 64.
        func validate() throws {
            if options.command != nil, options.batch != nil {
                throw ValidationError("Give -c COMMAND or --batch FILE, not both.")
            }
            if let batch = batchCommandLine {
                _ = try batch.signOn()
            } else if options.passwordFD != nil || options.passwordFile != nil {
                throw ValidationError(
                    "--password-fd and --password-file are for --batch; the shell asks on the terminal."
                )
            }
        }

        func run() throws {
            precondition(ward_scrub_installed() == 1)
            guard let batch = batchCommandLine else {
                return try ShellCommandLine(home: global.home, site: global.site, user: options.user).run()
            }
            try batch.run()
        }

        /// The batch to run, or nil for the shell on the terminal. A pipe or a file on standard
        /// input is a script, as with sh and psql.
        private var batchCommandLine: BatchCommandLine? {
            let script: BatchCommandLine.Script
            if let command = options.command {
                script = .command(command)
            } else if let batch = options.batch {
                script = batch == "-" ? .standardInput : .file(batch)
            } else if isatty(STDIN_FILENO) != 1 {
                script = .standardInput
            } else {
                return nil
            }
            return BatchCommandLine(
                global: global,
                user: options.user,
                script: script,
                implied: options.batch == nil && options.command == nil,
                passwordFD: options.passwordFD,
                passwordFile: options.passwordFile,
                format: options.format,
                onError: options.onError
            )
        }
    }
}

/// The options of `ward shell`, which are also plain `ward`'s: one group, so that the completion
/// scripts offer them after `ward` as well (`Ward.CompletionRoot`).
struct ShellOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The user to sign on as; asked for when missing.", valueName: "name"))
    var user: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Run shell commands from a script, one per line ('-' for standard input).",
            discussion: """
                Blank lines and lines starting with '#' are skipped. Needs --user and a password \
                option. Standard input that is not a terminal implies '--batch -'.
                """,
            valueName: "file"
        ),
        completion: .file()
    )
    var batch: String?

    @Option(
        name: .customShort("c"),
        help: ArgumentHelp(
            "Run one shell command and exit with its status, as psql -c does.",
            discussion: """
                A batch of one line: needs --user and a password option, as --batch does; \
                --format applies. Not with --batch.
                """,
            valueName: "command"
        )
    )
    var command: String?

    @Option(
        name: .customLong("password-fd"),
        help: ArgumentHelp(
            "Batch: read the password from this open descriptor (its first line), once.",
            discussion: "After an idle lock the batch cannot sign on again and exits 75.",
            valueName: "n"
        )
    )
    var passwordFD: Int32?

    @Option(
        name: .customLong("password-file"),
        help: ArgumentHelp(
            "Batch: read the password from this file (its first line); it must be yours, mode 0600.",
            discussion: "Read again to sign on after an idle lock.",
            valueName: "path"
        ),
        completion: .file()
    )
    var passwordFile: String?

    @Option(
        help: ArgumentHelp(
            "Batch: results as text, one JSON object per command, or CSV tables.",
            discussion: "CSV cells starting with = + - @ get a leading ' (no spreadsheet formulas).",
            valueName: "text|json|csv"
        )
    )
    var format: BatchOutput.Format = .text

    @Option(
        name: .customLong("on-error"),
        help: ArgumentHelp(
            "Batch: stop at the first failing command, or run on and exit 1 at the end.",
            valueName: "stop|continue"
        )
    )
    var onError: BatchFrontEnd.OnError = .stop
}
