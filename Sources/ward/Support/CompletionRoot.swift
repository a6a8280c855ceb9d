import ArgumentParser

extension Ward {
    /// The command line as the completion scripts describe it: `ward`'s subcommands, and the
    /// options of `ward shell` right after `ward` as well, since plain `ward` is `ward shell`
    /// (`ward --user night --batch rounds.ward`, as the README writes it).
    ///
    /// Only for `--generate-completion-script`: the parser keeps the shell's options on its
    /// subcommand, where a root `--format` cannot take `ward audit show --format json`'s value.
    struct CompletionRoot: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: Ward.configuration.commandName,
            version: Ward.configuration.version,
            subcommands: Ward.configuration.subcommands
        )

        @OptionGroup var global: GlobalOptions

        @OptionGroup var shell: ShellOptions

        /// The script for `shell`, nil for a name the parser does not know.
        ///
        /// The parser's own `help` subcommand completes nothing after it; here it offers the
        /// subcommands it can explain (`ward help au<Tab>`).
        static func script(for shell: String) -> String? {
            guard let kind = CompletionShell(rawValue: shell) else { return nil }
            let names = (configuration.subcommands.map { $0._commandName } + ["help"]).joined(separator: " ")
            var script = completionScript(for: kind)
            if !script.hasSuffix("\n") { script += "\n" }
            switch kind {
            case .bash:
                script = script.replacingFirst(
                    "_ward_help() {\n    repeating_flags=()\n    non_repeating_flags=(--version)\n"
                        + "    repeating_options=()\n    non_repeating_options=()\n    __ward_offer_flags_options -1\n",
                    with: "_ward_help() {\n    repeating_flags=()\n    non_repeating_flags=(--version)\n"
                        + "    repeating_options=()\n    non_repeating_options=()\n    __ward_offer_flags_options -1\n"
                        + "    __ward_add_completions -W '\(names.split(separator: " ").joined(separator: "'$'\\n''"))'\n"
                )
            case .zsh:
                script = script.replacingFirst("'*:subcommands:'", with: "'*:subcommands:(\(names))'")
            case .fish:
                script +=
                    "complete -c 'ward' -n '__ward_should_offer_completions_for_positional \"ward help\" -ge 1' "
                    + "-fka '\(names)'\n"
            default:
                break
            }
            return script
        }
    }
}

extension String {
    /// The text with the first `target` replaced; unchanged when `target` is not in it.
    fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = firstRange(of: target) else { return self }
        var replaced = self
        replaced.replaceSubrange(range, with: replacement)
        return replaced
    }
}
