import ArgumentParser

/// `--password-stdin`, shared by the commands that set a password.
struct PasswordSourceOptions: ParsableArguments {
    @Flag(
        name: .long,
        help: ArgumentHelp(
            "Read the password from the first line of standard input instead of asking on the terminal.",
            discussion: "For scripts. The password is never taken from an argument or the environment."
        )
    )
    var passwordStdin = false
}
